// The C++ API of convolution and 2-d pooling: thin wrappers calling the declared ops.
#include <axle/ops/conv_pool.h>

#include "op_handle.h"

#include <string>

namespace axle {

namespace {
Value opt(const std::optional<Tensor>& t) { return t ? Value(*t) : Value(); }
std::tuple<Tensor, Tensor> pair(const Stack& s) { return {s[0].tensor(), s[1].tensor()}; }
}  // namespace

Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                   const IntList& stride, const IntList& padding, const IntList& dilation, bool transposed,
                   const IntList& output_padding, int64_t groups) {
  return call_op(AXLE_OP("convolution"),
                 {input, weight, opt(bias), stride, padding, dilation, transposed, output_padding, groups})[0]
      .tensor();
}
Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, const IntList& stride,
              const IntList& padding, const IntList& dilation, int64_t groups) {
  return std::move(call_op(AXLE_OP("conv1d"), detail::stack_of(input, weight, opt(bias), stride, padding, dilation, groups))[0].tensor());
}
Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, const IntList& stride,
              std::string_view padding, const IntList& dilation, int64_t groups) {
  return call_op(AXLE_OP("conv1d.padding"),
                 {input, weight, opt(bias), stride, std::string(padding), dilation, groups})[0]
      .tensor();
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, const IntList& stride,
              const IntList& padding, const IntList& dilation, int64_t groups) {
  return std::move(call_op(AXLE_OP("conv2d"), detail::stack_of(input, weight, opt(bias), stride, padding, dilation, groups))[0].tensor());
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, const IntList& stride,
              std::string_view padding, const IntList& dilation, int64_t groups) {
  return call_op(AXLE_OP("conv2d.padding"),
                 {input, weight, opt(bias), stride, std::string(padding), dilation, groups})[0]
      .tensor();
}
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        const IntList& stride, const IntList& padding, const IntList& output_padding, int64_t groups,
                        const IntList& dilation) {
  return call_op(AXLE_OP("conv_transpose2d.input"),
                 {input, weight, opt(bias), stride, padding, output_padding, groups, dilation})[0]
      .tensor();
}
Tensor max_pool2d(const Tensor& self, const IntList& kernel_size, const IntList& stride, const IntList& padding,
                  const IntList& dilation, bool ceil_mode) {
  return std::move(call_op(AXLE_OP("max_pool2d"), detail::stack_of(self, kernel_size, stride, padding, dilation, ceil_mode))[0].tensor());
}
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, const IntList& kernel_size,
                                                   const IntList& stride, const IntList& padding,
                                                   const IntList& dilation, bool ceil_mode) {
  return pair(call_op(AXLE_OP("max_pool2d_with_indices"), detail::stack_of(self, kernel_size, stride, padding, dilation, ceil_mode)));
}
Tensor avg_pool2d(const Tensor& self, const IntList& kernel_size, const IntList& stride, const IntList& padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  return call_op(AXLE_OP("avg_pool2d"),
                 {self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override})[0]
      .tensor();
}
Tensor adaptive_avg_pool2d(const Tensor& self, const IntList& output_size) {
  return std::move(call_op(AXLE_OP("adaptive_avg_pool2d"), detail::stack_of(self, output_size))[0].tensor());
}
std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, const IntList& output_size) {
  return pair(call_op(AXLE_OP("adaptive_max_pool2d"), detail::stack_of(self, output_size)));
}

}  // namespace axle
