// The C++ API of the BLAS-like products: thin wrappers calling the declared ops.
#include <axle/ops/blas.h>

#include "op_handle.h"

namespace axle {

namespace {
Value opt(const std::optional<Tensor>& t) { return t ? Value(*t) : Value(); }
}  // namespace

Tensor mm(const Tensor& self, const Tensor& mat2) { return std::move(call_op(AXLE_OP("mm"), detail::stack_of(self, mat2))[0].tensor()); }
Tensor bmm(const Tensor& self, const Tensor& mat2) { return std::move(call_op(AXLE_OP("bmm"), detail::stack_of(self, mat2))[0].tensor()); }
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  return std::move(call_op(AXLE_OP("addmm"), detail::stack_of(self, mat1, mat2, beta, alpha))[0].tensor());
}
Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha) {
  return std::move(call_op(AXLE_OP("baddbmm"), detail::stack_of(self, batch1, batch2, beta, alpha))[0].tensor());
}
Tensor dot(const Tensor& self, const Tensor& tensor) { return std::move(call_op(AXLE_OP("dot"), detail::stack_of(self, tensor))[0].tensor()); }
Tensor outer(const Tensor& self, const Tensor& vec2) { return std::move(call_op(AXLE_OP("outer"), detail::stack_of(self, vec2))[0].tensor()); }
Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  return std::move(call_op(AXLE_OP("linear"), detail::stack_of(input, weight, opt(bias)))[0].tensor());
}

}  // namespace axle
