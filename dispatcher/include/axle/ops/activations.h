// C++ API of the activations family (libtorch's names and defaults): relu6,
// leaky_relu, elu, selu, celu, gelu, silu, mish, hardtanh, hardsigmoid, hardswish,
// softplus, softsign, prelu, glu, threshold and in-place forms; clamp, nan_to_num,
// round, isnan/isinf/isfinite, logical_not, bitwise_not; div with rounding_mode,
// pow with a scalar exponent or base.
#pragma once

#include <axle/dispatcher.h>
#include <axle/tensor.h>

#include <optional>
#include <string>

namespace axle {

AXLE_API Tensor relu6(const Tensor& self);
AXLE_API Tensor leaky_relu(const Tensor& self, const Scalar& negative_slope = 0.01);
AXLE_API Tensor elu(const Tensor& self, const Scalar& alpha = 1, const Scalar& scale = 1,
                    const Scalar& input_scale = 1);
AXLE_API Tensor selu(const Tensor& self);
AXLE_API Tensor celu(const Tensor& self, const Scalar& alpha = 1.0);
AXLE_API Tensor gelu(const Tensor& self, const std::string& approximate = "none");
AXLE_API Tensor silu(const Tensor& self);
AXLE_API Tensor mish(const Tensor& self);
AXLE_API Tensor hardtanh(const Tensor& self, const Scalar& min_val = -1, const Scalar& max_val = 1);
AXLE_API Tensor hardsigmoid(const Tensor& self);
AXLE_API Tensor hardswish(const Tensor& self);
AXLE_API Tensor softplus(const Tensor& self, const Scalar& beta = 1, const Scalar& threshold = 20);
AXLE_API Tensor softsign(const Tensor& self);
AXLE_API Tensor prelu(const Tensor& self, const Tensor& weight);
AXLE_API Tensor glu(const Tensor& self, int64_t dim = -1);
AXLE_API Tensor threshold(const Tensor& self, const Scalar& threshold, const Scalar& value);

// In place (each returns self).
AXLE_API Tensor& relu_(Tensor& self);
AXLE_API Tensor& relu6_(Tensor& self);
AXLE_API Tensor& leaky_relu_(Tensor& self, const Scalar& negative_slope = 0.01);
AXLE_API Tensor& elu_(Tensor& self, const Scalar& alpha = 1, const Scalar& scale = 1, const Scalar& input_scale = 1);
AXLE_API Tensor& selu_(Tensor& self);
AXLE_API Tensor& celu_(Tensor& self, const Scalar& alpha = 1.0);
AXLE_API Tensor& silu_(Tensor& self);
AXLE_API Tensor& mish_(Tensor& self);
AXLE_API Tensor& hardtanh_(Tensor& self, const Scalar& min_val = -1, const Scalar& max_val = 1);
AXLE_API Tensor& hardsigmoid_(Tensor& self);
AXLE_API Tensor& hardswish_(Tensor& self);
AXLE_API Tensor& threshold_(Tensor& self, const Scalar& threshold, const Scalar& value);

AXLE_API Tensor clamp(const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max = std::nullopt);
AXLE_API Tensor clamp(const Tensor& self, const std::optional<Tensor>& min = {}, const std::optional<Tensor>& max = {});
AXLE_API Tensor& clamp_(Tensor& self, const std::optional<Scalar>& min,
                        const std::optional<Scalar>& max = std::nullopt);
AXLE_API Tensor& clamp_(Tensor& self, const std::optional<Tensor>& min = {}, const std::optional<Tensor>& max = {});
AXLE_API Tensor nan_to_num(const Tensor& self, std::optional<double> nan = std::nullopt,
                           std::optional<double> posinf = std::nullopt, std::optional<double> neginf = std::nullopt);
AXLE_API Tensor& nan_to_num_(Tensor& self, std::optional<double> nan = std::nullopt,
                             std::optional<double> posinf = std::nullopt, std::optional<double> neginf = std::nullopt);
AXLE_API Tensor round(const Tensor& self);
AXLE_API Tensor round(const Tensor& self, int64_t decimals);
AXLE_API Tensor& round_(Tensor& self);
AXLE_API Tensor& round_(Tensor& self, int64_t decimals);
AXLE_API Tensor isnan(const Tensor& self);
AXLE_API Tensor isinf(const Tensor& self);
AXLE_API Tensor isfinite(const Tensor& self);
AXLE_API Tensor logical_not(const Tensor& self);
AXLE_API Tensor bitwise_not(const Tensor& self);

// rounding_mode: std::nullopt (true division), "trunc" or "floor".
AXLE_API Tensor div(const Tensor& self, const Tensor& other, const std::optional<std::string>& rounding_mode);
AXLE_API Tensor pow(const Tensor& self, const Scalar& exponent);
AXLE_API Tensor pow(const Scalar& self, const Tensor& exponent);

}  // namespace axle
