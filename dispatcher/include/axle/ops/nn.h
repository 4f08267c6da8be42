// C++ API of the NN ops (dispatcher/src/ops/nn.cpp), with libtorch's names and
// signatures (at::softmax, at::layer_norm, at::pad, ...).
#pragma once

#include <axle/dispatcher.h>
#include <axle/tensor.h>

#include <optional>
#include <string>

namespace axle {

AXLE_API Tensor softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype = {});
AXLE_API Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype = {});
AXLE_API Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                           const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
                           bool training, double momentum, double eps, bool cudnn_enabled = false);
AXLE_API Tensor layer_norm(const Tensor& input, const IntList& normalized_shape,
                           const std::optional<Tensor>& weight = {}, const std::optional<Tensor>& bias = {},
                           double eps = 1e-05, bool cudnn_enable = true);
AXLE_API Tensor group_norm(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight = {},
                           const std::optional<Tensor>& bias = {}, double eps = 1e-05, bool cudnn_enabled = true);
AXLE_API Tensor rms_norm(const Tensor& input, const IntList& normalized_shape, const std::optional<Tensor>& weight = {},
                         std::optional<double> eps = {});
AXLE_API Tensor dropout(const Tensor& input, double p, bool train);
AXLE_API Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                             const std::optional<Tensor>& attn_mask = {}, double dropout_p = 0.0,
                                             bool is_causal = false, std::optional<double> scale = {});
AXLE_API Tensor upsample_nearest2d(const Tensor& self, const IntList& output_size, std::optional<double> scales_h = {},
                                   std::optional<double> scales_w = {});
AXLE_API Tensor upsample_bilinear2d(const Tensor& self, const IntList& output_size, bool align_corners,
                                    std::optional<double> scales_h = {}, std::optional<double> scales_w = {});
AXLE_API Tensor pad(const Tensor& self, const IntList& pad, const std::string& mode = "constant",
                    std::optional<double> value = {});

}  // namespace axle
