// C++ API of the activations family (axle/ops/activations.h): each wrapper calls
// its declared operator through a handle resolved once.
#include <axle/ops.h>

#include "api/op_handle.h"

namespace axle {

namespace {
template <typename... Args>
Tensor& in_place(Tensor& self, const OpHandle& op, Args&&... args) {
  detail::call(op, std::forward<Args>(args)...);
  return self;
}
}  // namespace

Tensor relu6(const Tensor& self) { return detail::call_one(AXLE_OP("relu6"), self); }
Tensor leaky_relu(const Tensor& self, const Scalar& s) { return detail::call_one(AXLE_OP("leaky_relu"), self, s); }
Tensor elu(const Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  return detail::call_one(AXLE_OP("elu"), self, alpha, scale, input_scale);
}
Tensor selu(const Tensor& self) { return detail::call_one(AXLE_OP("selu"), self); }
Tensor celu(const Tensor& self, const Scalar& alpha) { return detail::call_one(AXLE_OP("celu"), self, alpha); }
Tensor gelu(const Tensor& self, const std::string& approximate) {
  return detail::call_one(AXLE_OP("gelu"), self, approximate);
}
Tensor silu(const Tensor& self) { return detail::call_one(AXLE_OP("silu"), self); }
Tensor mish(const Tensor& self) { return detail::call_one(AXLE_OP("mish"), self); }
Tensor hardtanh(const Tensor& self, const Scalar& lo, const Scalar& hi) {
  return detail::call_one(AXLE_OP("hardtanh"), self, lo, hi);
}
Tensor hardsigmoid(const Tensor& self) { return detail::call_one(AXLE_OP("hardsigmoid"), self); }
Tensor hardswish(const Tensor& self) { return detail::call_one(AXLE_OP("hardswish"), self); }
Tensor softplus(const Tensor& self, const Scalar& beta, const Scalar& threshold) {
  return detail::call_one(AXLE_OP("softplus"), self, beta, threshold);
}
Tensor softsign(const Tensor& self) { return detail::call_one(AXLE_OP("softsign"), self); }
Tensor prelu(const Tensor& self, const Tensor& weight) { return detail::call_one(AXLE_OP("prelu"), self, weight); }
Tensor glu(const Tensor& self, int64_t dim) { return detail::call_one(AXLE_OP("glu"), self, dim); }
Tensor threshold(const Tensor& self, const Scalar& threshold, const Scalar& value) {
  return detail::call_one(AXLE_OP("threshold"), self, threshold, value);
}

Tensor& relu_(Tensor& self) { return in_place(self, AXLE_OP("relu_"), self); }
Tensor& relu6_(Tensor& self) { return in_place(self, AXLE_OP("relu6_"), self); }
Tensor& leaky_relu_(Tensor& self, const Scalar& s) { return in_place(self, AXLE_OP("leaky_relu_"), self, s); }
Tensor& elu_(Tensor& self, const Scalar& alpha, const Scalar& scale, const Scalar& input_scale) {
  return in_place(self, AXLE_OP("elu_"), self, alpha, scale, input_scale);
}
Tensor& selu_(Tensor& self) { return in_place(self, AXLE_OP("selu_"), self); }
Tensor& celu_(Tensor& self, const Scalar& alpha) { return in_place(self, AXLE_OP("celu_"), self, alpha); }
Tensor& silu_(Tensor& self) { return in_place(self, AXLE_OP("silu_"), self); }
Tensor& mish_(Tensor& self) { return in_place(self, AXLE_OP("mish_"), self); }
Tensor& hardtanh_(Tensor& self, const Scalar& lo, const Scalar& hi) {
  return in_place(self, AXLE_OP("hardtanh_"), self, lo, hi);
}
Tensor& hardsigmoid_(Tensor& self) { return in_place(self, AXLE_OP("hardsigmoid_"), self); }
Tensor& hardswish_(Tensor& self) { return in_place(self, AXLE_OP("hardswish_"), self); }
Tensor& threshold_(Tensor& self, const Scalar& threshold, const Scalar& value) {
  return in_place(self, AXLE_OP("threshold_"), self, threshold, value);
}

Tensor clamp(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return detail::call_one(AXLE_OP("clamp"), self, min, max);
}
Tensor clamp(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return detail::call_one(AXLE_OP("clamp.Tensor"), self, min, max);
}
Tensor& clamp_(Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max) {
  return in_place(self, AXLE_OP("clamp_"), self, min, max);
}
Tensor& clamp_(Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max) {
  return in_place(self, AXLE_OP("clamp_.Tensor"), self, min, max);
}
Tensor nan_to_num(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  return detail::call_one(AXLE_OP("nan_to_num"), self, nan, posinf, neginf);
}
Tensor& nan_to_num_(Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                    std::optional<double> neginf) {
  return in_place(self, AXLE_OP("nan_to_num_"), self, nan, posinf, neginf);
}
Tensor round(const Tensor& self) { return detail::call_one(AXLE_OP("round"), self); }
Tensor round(const Tensor& self, int64_t decimals) {
  return detail::call_one(AXLE_OP("round.decimals"), self, decimals);
}
Tensor& round_(Tensor& self) { return in_place(self, AXLE_OP("round_"), self); }
Tensor& round_(Tensor& self, int64_t decimals) { return in_place(self, AXLE_OP("round_.decimals"), self, decimals); }
Tensor isnan(const Tensor& self) { return detail::call_one(AXLE_OP("isnan"), self); }
Tensor isinf(const Tensor& self) { return detail::call_one(AXLE_OP("isinf"), self); }
Tensor isfinite(const Tensor& self) { return detail::call_one(AXLE_OP("isfinite"), self); }
Tensor logical_not(const Tensor& self) { return detail::call_one(AXLE_OP("logical_not"), self); }
Tensor bitwise_not(const Tensor& self) { return detail::call_one(AXLE_OP("bitwise_not"), self); }

Tensor div(const Tensor& self, const Tensor& other, const std::optional<std::string>& rounding_mode) {
  return detail::call_one(AXLE_OP("div.Tensor_mode"), self, other, rounding_mode);
}
Tensor pow(const Tensor& self, const Scalar& exponent) {
  return detail::call_one(AXLE_OP("pow.Tensor_Scalar"), self, exponent);
}
Tensor pow(const Scalar& self, const Tensor& exponent) {
  return detail::call_one(AXLE_OP("pow.Scalar"), self, exponent);
}

}  // namespace axle
