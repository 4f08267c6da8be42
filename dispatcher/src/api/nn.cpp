// C++ API wrappers of the NN ops (axle/ops/nn.h).
#include <axle/ops/nn.h>

#include "op_handle.h"

namespace axle {

Tensor softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return detail::call_one(AXLE_OP("softmax.int"), self, dim, dtype);
}
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return detail::call_one(AXLE_OP("log_softmax.int"), self, dim, dtype);
}
Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var, bool training,
                  double momentum, double eps, bool cudnn_enabled) {
  return detail::call_one(AXLE_OP("batch_norm"), input, weight, bias, running_mean, running_var, training, momentum,
                          eps, cudnn_enabled);
}
Tensor layer_norm(const Tensor& input, const IntList& normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, bool cudnn_enable) {
  return detail::call_one(AXLE_OP("layer_norm"), input, normalized_shape, weight, bias, eps, cudnn_enable);
}
Tensor group_norm(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, bool cudnn_enabled) {
  return detail::call_one(AXLE_OP("group_norm"), input, num_groups, weight, bias, eps, cudnn_enabled);
}
Tensor rms_norm(const Tensor& input, const IntList& normalized_shape, const std::optional<Tensor>& weight,
                std::optional<double> eps) {
  return detail::call_one(AXLE_OP("rms_norm"), input, normalized_shape, weight, eps);
}
Tensor dropout(const Tensor& input, double p, bool train) {
  return detail::call_one(AXLE_OP("dropout"), input, p, train);
}
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const std::optional<Tensor>& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale) {
  return detail::call_one(AXLE_OP("scaled_dot_product_attention"), query, key, value, attn_mask, dropout_p, is_causal,
                          scale);
}
Tensor upsample_nearest2d(const Tensor& self, const IntList& output_size, std::optional<double> scales_h,
                          std::optional<double> scales_w) {
  return detail::call_one(AXLE_OP("upsample_nearest2d"), self, output_size, scales_h, scales_w);
}
Tensor upsample_bilinear2d(const Tensor& self, const IntList& output_size, bool align_corners,
                           std::optional<double> scales_h, std::optional<double> scales_w) {
  return detail::call_one(AXLE_OP("upsample_bilinear2d"), self, output_size, align_corners, scales_h, scales_w);
}
Tensor pad(const Tensor& self, const IntList& pad, const std::string& mode, std::optional<double> value) {
  return detail::call_one(AXLE_OP("pad"), self, pad, mode, value);
}

}  // namespace axle
