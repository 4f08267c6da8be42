// The C++ API of the BLAS-like products: thin wrappers calling the declared ops.
#include <axle/ops/blas.h>

#include "op_handle.h"

namespace axle {

namespace {
Value opt(const std::optional<Tensor>& t) { return t ? Value(*t) : Value(); }
}  // namespace

Tensor mm(const Tensor& self, const Tensor& mat2) { return detail::call_one(AXLE_OP("mm"), self, mat2); }
Tensor bmm(const Tensor& self, const Tensor& mat2) { return detail::call_one(AXLE_OP("bmm"), self, mat2); }
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  return detail::call_one(AXLE_OP("addmm"), self, mat1, mat2, beta, alpha);
}
Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
               const Scalar& alpha) {
  return detail::call_one(AXLE_OP("baddbmm"), self, batch1, batch2, beta, alpha);
}
Tensor dot(const Tensor& self, const Tensor& tensor) { return detail::call_one(AXLE_OP("dot"), self, tensor); }
Tensor outer(const Tensor& self, const Tensor& vec2) { return detail::call_one(AXLE_OP("outer"), self, vec2); }
Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  return detail::call_one(AXLE_OP("linear"), input, weight, opt(bias));
}

Tensor matmul(const Tensor& a, const Tensor& b) { return detail::call_one(AXLE_OP("matmul"), a, b); }

}  // namespace axle
