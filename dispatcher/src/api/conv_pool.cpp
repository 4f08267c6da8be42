// The C++ API of convolution, pooling and grid sampling: thin wrappers calling the declared ops.
#include <axle/ops/conv_pool.h>

#include "op_handle.h"

#include <string>

namespace axle {

namespace {
Value opt(const std::optional<Tensor>& t) { return t ? Value(*t) : Value(); }
}  // namespace

Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, const IntList& stride,
                   const IntList& padding, const IntList& dilation, bool transposed, const IntList& output_padding,
                   int64_t groups) {
  return detail::call_one(AXLE_OP("convolution"), input, weight, opt(bias), stride, padding, dilation, transposed,
                          output_padding, groups);
}
Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, const IntList& stride,
              const IntList& padding, const IntList& dilation, int64_t groups) {
  return detail::call_one(AXLE_OP("conv1d"), input, weight, opt(bias), stride, padding, dilation, groups);
}
Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, const IntList& stride,
              std::string_view padding, const IntList& dilation, int64_t groups) {
  return detail::call_one(AXLE_OP("conv1d.padding"), input, weight, opt(bias), stride, std::string(padding), dilation,
                          groups);
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, const IntList& stride,
              const IntList& padding, const IntList& dilation, int64_t groups) {
  return detail::call_one(AXLE_OP("conv2d"), input, weight, opt(bias), stride, padding, dilation, groups);
}
Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, const IntList& stride,
              std::string_view padding, const IntList& dilation, int64_t groups) {
  return detail::call_one(AXLE_OP("conv2d.padding"), input, weight, opt(bias), stride, std::string(padding), dilation,
                          groups);
}
Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        const IntList& stride, const IntList& padding, const IntList& output_padding, int64_t groups,
                        const IntList& dilation) {
  return detail::call_one(AXLE_OP("conv_transpose2d.input"), input, weight, opt(bias), stride, padding, output_padding,
                          groups, dilation);
}
Tensor max_pool2d(const Tensor& self, const IntList& kernel_size, const IntList& stride, const IntList& padding,
                  const IntList& dilation, bool ceil_mode) {
  return detail::call_one(AXLE_OP("max_pool2d"), self, kernel_size, stride, padding, dilation, ceil_mode);
}
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, const IntList& kernel_size,
                                                   const IntList& stride, const IntList& padding,
                                                   const IntList& dilation, bool ceil_mode) {
  return detail::call_two(AXLE_OP("max_pool2d_with_indices"), self, kernel_size, stride, padding, dilation, ceil_mode);
}
Tensor avg_pool2d(const Tensor& self, const IntList& kernel_size, const IntList& stride, const IntList& padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  return detail::call_one(AXLE_OP("avg_pool2d"), self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                          divisor_override);
}
Tensor adaptive_avg_pool2d(const Tensor& self, const IntList& output_size) {
  return detail::call_one(AXLE_OP("adaptive_avg_pool2d"), self, output_size);
}
std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, const IntList& output_size) {
  return detail::call_two(AXLE_OP("adaptive_max_pool2d"), self, output_size);
}
Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                        const IntList& stride, const IntList& padding, const IntList& output_padding, int64_t groups,
                        const IntList& dilation) {
  return detail::call_one(AXLE_OP("conv_transpose3d.input"), input, weight, opt(bias), stride, padding, output_padding,
                          groups, dilation);
}
Tensor max_pool3d(const Tensor& self, const IntList& kernel_size, const IntList& stride, const IntList& padding,
                  const IntList& dilation, bool ceil_mode) {
  return detail::call_one(AXLE_OP("max_pool3d"), self, kernel_size, stride, padding, dilation, ceil_mode);
}
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& self, const IntList& kernel_size,
                                                   const IntList& stride, const IntList& padding,
                                                   const IntList& dilation, bool ceil_mode) {
  return detail::call_two(AXLE_OP("max_pool3d_with_indices"), self, kernel_size, stride, padding, dilation, ceil_mode);
}
Tensor avg_pool3d(const Tensor& self, const IntList& kernel_size, const IntList& stride, const IntList& padding,
                  bool ceil_mode, bool count_include_pad, std::optional<int64_t> divisor_override) {
  return detail::call_one(AXLE_OP("avg_pool3d"), self, kernel_size, stride, padding, ceil_mode, count_include_pad,
                          divisor_override);
}
Tensor adaptive_avg_pool3d(const Tensor& self, const IntList& output_size) {
  return detail::call_one(AXLE_OP("adaptive_avg_pool3d"), self, output_size);
}
std::tuple<Tensor, Tensor> adaptive_max_pool3d(const Tensor& self, const IntList& output_size) {
  return detail::call_two(AXLE_OP("adaptive_max_pool3d"), self, output_size);
}
Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                    bool align_corners) {
  return detail::call_one(AXLE_OP("grid_sampler"), input, grid, interpolation_mode, padding_mode, align_corners);
}
Tensor affine_grid_generator(const Tensor& theta, const IntList& size, bool align_corners) {
  return detail::call_one(AXLE_OP("affine_grid_generator"), theta, size, align_corners);
}

}  // namespace axle
