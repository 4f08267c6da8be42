// C++ API of the random family (axle/ops/random.h).
#include <axle/ops/random.h>

#include "op_handle.h"

namespace axle {

namespace {
Value opt_dtype(const TensorOptions& o) { return o.dtype_opt() ? Value(*o.dtype_opt()) : Value(); }
Value opt_device(const TensorOptions& o) { return o.device_opt() ? Value(*o.device_opt()) : Value(); }
Value opt_generator(const std::optional<Generator>& g) { return g ? Value(*g) : Value(); }
}  // namespace

Tensor rand(const IntList& size, const TensorOptions& o, const std::optional<Generator>& g) {
  return detail::call_one(AXLE_OP("rand"), size, opt_generator(g), opt_dtype(o), opt_device(o));
}
Tensor randn(const IntList& size, const TensorOptions& o, const std::optional<Generator>& g) {
  return detail::call_one(AXLE_OP("randn"), size, opt_generator(g), opt_dtype(o), opt_device(o));
}

}  // namespace axle
