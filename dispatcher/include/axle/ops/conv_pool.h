// The C++ API of convolution, pooling and grid sampling (libtorch's names and
// signatures); see dispatcher/src/ops/conv_pool.cpp, conv_pool3d.cpp and
// conv_pool_grid_sample.cpp for their declarations and rules.
#pragma once

#include <axle/dispatcher.h>
#include <axle/tensor.h>

#include <optional>
#include <string_view>
#include <tuple>

namespace axle {

AXLE_API Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                            const IntList& stride, const IntList& padding, const IntList& dilation, bool transposed,
                            const IntList& output_padding, int64_t groups);
AXLE_API Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {},
                       const IntList& stride = {1}, const IntList& padding = {0}, const IntList& dilation = {1},
                       int64_t groups = 1);
// padding "valid" or "same" (stride 1 only).
AXLE_API Tensor conv1d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                       const IntList& stride, std::string_view padding, const IntList& dilation = {1},
                       int64_t groups = 1);
AXLE_API Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {},
                       const IntList& stride = {1}, const IntList& padding = {0}, const IntList& dilation = {1},
                       int64_t groups = 1);
AXLE_API Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                       const IntList& stride, std::string_view padding, const IntList& dilation = {1},
                       int64_t groups = 1);
AXLE_API Tensor conv_transpose2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {},
                                 const IntList& stride = {1}, const IntList& padding = {0},
                                 const IntList& output_padding = {0}, int64_t groups = 1,
                                 const IntList& dilation = {1});
// stride {} means kernel_size.
AXLE_API Tensor max_pool2d(const Tensor& self, const IntList& kernel_size, const IntList& stride = {},
                           const IntList& padding = {0}, const IntList& dilation = {1}, bool ceil_mode = false);
AXLE_API std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, const IntList& kernel_size,
                                                            const IntList& stride = {}, const IntList& padding = {0},
                                                            const IntList& dilation = {1}, bool ceil_mode = false);
AXLE_API Tensor avg_pool2d(const Tensor& self, const IntList& kernel_size, const IntList& stride = {},
                           const IntList& padding = {0}, bool ceil_mode = false, bool count_include_pad = true,
                           std::optional<int64_t> divisor_override = {});
AXLE_API Tensor adaptive_avg_pool2d(const Tensor& self, const IntList& output_size);
AXLE_API std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, const IntList& output_size);
AXLE_API Tensor conv_transpose3d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {},
                                 const IntList& stride = {1}, const IntList& padding = {0},
                                 const IntList& output_padding = {0}, int64_t groups = 1,
                                 const IntList& dilation = {1});
AXLE_API Tensor max_pool3d(const Tensor& self, const IntList& kernel_size, const IntList& stride = {},
                           const IntList& padding = {0}, const IntList& dilation = {1}, bool ceil_mode = false);
AXLE_API std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& self, const IntList& kernel_size,
                                                            const IntList& stride = {}, const IntList& padding = {0},
                                                            const IntList& dilation = {1}, bool ceil_mode = false);
AXLE_API Tensor avg_pool3d(const Tensor& self, const IntList& kernel_size, const IntList& stride = {},
                           const IntList& padding = {0}, bool ceil_mode = false, bool count_include_pad = true,
                           std::optional<int64_t> divisor_override = {});
AXLE_API Tensor adaptive_avg_pool3d(const Tensor& self, const IntList& output_size);
AXLE_API std::tuple<Tensor, Tensor> adaptive_max_pool3d(const Tensor& self, const IntList& output_size);
// interpolation_mode 0 bilinear, 1 nearest, 2 bicubic; padding_mode 0 zeros, 1 border, 2 reflection.
AXLE_API Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                             bool align_corners);
AXLE_API Tensor affine_grid_generator(const Tensor& theta, const IntList& size, bool align_corners);

}  // namespace axle
