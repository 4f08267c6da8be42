// C++ API wrappers of the NN ops (axle/ops/nn.h).
#include <axle/ops/nn.h>

#include "op_handle.h"

namespace axle {

namespace {
Tensor first(Stack s) { return std::move(s[0].tensor()); }
}  // namespace

Tensor softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return first(call_op(AXLE_OP("softmax.int"), detail::stack_of(self, dim, dtype)));
}
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return first(call_op(AXLE_OP("log_softmax.int"), detail::stack_of(self, dim, dtype)));
}
Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var, bool training,
                  double momentum, double eps, bool cudnn_enabled) {
  return first(call_op(AXLE_OP("batch_norm"),
                       {input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled}));
}
Tensor layer_norm(const Tensor& input, const IntList& normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, bool cudnn_enable) {
  return first(call_op(AXLE_OP("layer_norm"), detail::stack_of(input, normalized_shape, weight, bias, eps, cudnn_enable)));
}
Tensor group_norm(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps, bool cudnn_enabled) {
  return first(call_op(AXLE_OP("group_norm"), detail::stack_of(input, num_groups, weight, bias, eps, cudnn_enabled)));
}
Tensor rms_norm(const Tensor& input, const IntList& normalized_shape, const std::optional<Tensor>& weight,
                std::optional<double> eps) {
  return first(call_op(AXLE_OP("rms_norm"), detail::stack_of(input, normalized_shape, weight, eps)));
}
Tensor dropout(const Tensor& input, double p, bool train) {
  return first(call_op(AXLE_OP("dropout"), detail::stack_of(input, p, train)));
}
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const std::optional<Tensor>& attn_mask, double dropout_p, bool is_causal,
                                    std::optional<double> scale) {
  return first(call_op(AXLE_OP("scaled_dot_product_attention"),
                       {query, key, value, attn_mask, dropout_p, is_causal, scale}));
}
Tensor upsample_nearest2d(const Tensor& self, const IntList& output_size, std::optional<double> scales_h,
                          std::optional<double> scales_w) {
  return first(call_op(AXLE_OP("upsample_nearest2d"), detail::stack_of(self, output_size, scales_h, scales_w)));
}
Tensor upsample_bilinear2d(const Tensor& self, const IntList& output_size, bool align_corners,
                           std::optional<double> scales_h, std::optional<double> scales_w) {
  return first(call_op(AXLE_OP("upsample_bilinear2d"), detail::stack_of(self, output_size, align_corners, scales_h, scales_w)));
}
Tensor pad(const Tensor& self, const IntList& pad, const std::string& mode, std::optional<double> value) {
  return first(call_op(AXLE_OP("pad"), detail::stack_of(self, pad, mode, value)));
}

}  // namespace axle
