// Grid sampling with torch 1.13's checks and messages: grid_sampler_2d (input
// [N, C, H, W], grid [N, H_out, W_out, 2]) and grid_sampler_3d (input
// [N, C, D, H, W], grid [N, D_out, H_out, W_out, 3]) are kernel ops with
// declared backward ops (kernels: plugins/reference/conv_pool_grid_sample.cpp);
// grid_sampler picks one by the input's rank; affine_grid_generator (the grid
// of an affine map, theta [N, 2, 3] or [N, 3, 4]) is a composite.
// interpolation_mode: 0 bilinear, 1 nearest, 2 bicubic (2-d only);
// padding_mode: 0 zeros, 1 border, 2 reflection (torch's enums, which
// F.grid_sample maps its strings to).
#include "../derivatives/derivatives.h"
#include "shape_util.h"

#include <axle/ops.h>

#include <string>

namespace axle::shape {
namespace {

// torch's check_grid_sampler_common and check_grid_sampler_{2,3}d.
void check_grid_sampler(const char* op, const Tensor& input, const Tensor& grid, int64_t mode, int64_t padding,
                        int64_t dims) {
  AXLE_CHECK(input.dim() >= 1 && grid.dim() >= 1, ShapeError, op,
             ": grid_sampler(): expected input and grid of at least one dim, but got input with sizes ",
             str(input.sizes()), " and grid with sizes ", str(grid.sizes()));
  AXLE_CHECK(input.device() == grid.device(), DeviceError, op,
             ": grid_sampler(): expected input and grid to be on same device, but input is on ", input.device().str(),
             " and grid is on ", grid.device().str());
  AXLE_CHECK(input.size(0) == grid.size(0), ShapeError, op,
             ": grid_sampler(): expected grid and input to have same batch size, but got input with sizes ",
             str(input.sizes()), " and grid with sizes ", str(grid.sizes()));
  AXLE_CHECK(grid.size(-1) == input.dim() - 2, ShapeError, op, ": grid_sampler(): expected grid to have size ",
             input.dim() - 2, " in last dimension, but got grid with sizes ", str(grid.sizes()));
  for (int64_t i = 2; i < input.dim(); ++i)
    AXLE_CHECK(input.size(i) > 0, ShapeError, op,
               ": grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes ",
               str(input.sizes()), " with dimension ", i, " being empty");
  AXLE_CHECK(input.dim() == dims + 2 && grid.dim() == input.dim(), ShapeError, op, ": grid_sampler(): expected ",
             dims + 2, "D input and grid with same number of dimensions, but got input with sizes ", str(input.sizes()),
             " and grid with sizes ", str(grid.sizes()));
  AXLE_CHECK(!(dims == 3 && mode == 2), ValueError, op,
             ": grid_sampler(): bicubic interpolation only supports 4D input");
  AXLE_CHECK(mode >= 0 && mode <= 2, ValueError, op,
             ": grid_sampler(): expected interpolation_mode 0 (bilinear), 1 (nearest) or 2 (bicubic), but got ", mode);
  AXLE_CHECK(padding >= 0 && padding <= 2, ValueError, op,
             ": grid_sampler(): expected padding_mode 0 (zeros), 1 (border) or 2 (reflection), but got ", padding);
  AXLE_CHECK(is_floating_point(input.dtype()), DTypeError, op, ": grid_sampler_", dims, "d_cpu not implemented for ",
             torch_type_name(input.dtype()));
  AXLE_CHECK(grid.dtype() == input.dtype(), DTypeError, op, ": expected scalar type ", torch_type_name(input.dtype()),
             " but found ", torch_type_name(grid.dtype()));
}

// The output: [N, C] and the grid's spatial sizes.
IntList sampled_sizes(const Tensor& input, const Tensor& grid) {
  IntList out{input.size(0), input.size(1)};
  out.insert(out.end(), grid.sizes().begin() + 1, grid.sizes().end() - 1);
  return out;
}

template <int Dims>
void grid_sampler_shape(ShapeContext& c) {
  const Tensor& input = c.arg(0).tensor();
  const Tensor& grid = c.arg(1).tensor();
  check_grid_sampler(c.op, input, grid, c.arg(2).to_int(), c.arg(3).to_int(), Dims);
  c.outputs = {{sampled_sizes(input, grid), input.dtype()}};
}

// grid_sampler_{2,3}d_backward(grad_output, input, grid, interpolation_mode,
// padding_mode, align_corners, output_mask): an output the mask leaves out is
// not allocated (undefined, as torch's).
template <int Dims>
void grid_sampler_backward_shape(ShapeContext& c) {
  const Tensor& gy = c.arg(0).tensor();
  const Tensor& input = c.arg(1).tensor();
  const Tensor& grid = c.arg(2).tensor();
  check_grid_sampler(c.op, input, grid, c.arg(3).to_int(), c.arg(4).to_int(), Dims);
  AXLE_CHECK(gy.sizes() == sampled_sizes(input, grid), ShapeError, c.op, ": expected grad_output of size ",
             str(sampled_sizes(input, grid)), ", but got ", str(gy.sizes()));
  AXLE_CHECK(gy.dtype() == input.dtype(), DTypeError, c.op, ": expected grad_output of dtype ",
             dtype_name(input.dtype()), ", but got ", dtype_name(gy.dtype()));
  const IntList& mask = c.arg(6).int_list();
  AXLE_CHECK(mask.size() == 2, ValueError, c.op, ": output_mask must have 2 elements, got ", str(mask));
  c.outputs = {{input.sizes(), input.dtype()}, {grid.sizes(), grid.dtype()}};
  for (size_t i = 0; i < 2; ++i)
    if (mask[i] == 0) c.outputs[i].data_dependent = true;
}

Stack grid_sampler_composite(const Stack& a) {
  const Tensor& input = a[0].tensor();
  return call_op(input.dim() == 4 ? "grid_sampler_2d" : "grid_sampler_3d", a);
}

// affine_grid_generator(theta, size, align_corners): the points of a [-1, 1]
// grid (pixel centres; with align_corners the corner pixels' centres at +-1)
// mapped by theta: [N, H, W, 2] = base [H * W, 3] @ theta^T, or 3-d alike.
Stack affine_grid_generator_composite(const Stack& a) {
  const Tensor& theta = a[0].tensor();
  const IntList& size = a[1].int_list();
  const bool align = a[2].to_bool();
  const char* op = "affine_grid_generator";
  AXLE_CHECK(size.size() == 4 || size.size() == 5, ValueError, op,
             ": AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.");
  const int64_t dims = static_cast<int64_t>(size.size()) - 2;
  AXLE_CHECK(is_floating_point(theta.dtype()), DTypeError, op, ": expected a floating theta, got ",
             dtype_name(theta.dtype()));
  AXLE_CHECK(theta.dim() == 3 && theta.size(0) == size[0] && theta.size(1) == dims && theta.size(2) == dims + 1,
             ShapeError, op, ": expected theta of size [", size[0], ", ", dims, ", ", dims + 1, "] for size ",
             str(size), ", but got ", str(theta.sizes()));
  for (int64_t s : size) AXLE_CHECK(s >= 0, ValueError, op, ": expected non-negative sizes, got ", str(size));
  // Spatial sizes by coordinate: x along the last dim (W), then y (H), then z (D).
  IntList spatial(size.begin() + 2, size.end());
  int64_t points = 1;
  for (int64_t s : spatial) points *= s;
  Tensor base = make_empty({points, dims + 1}, kFloat64, Device("cpu"));
  double* bp = base.data_ptr<double>();
  auto line = [align](int64_t i, int64_t n) {
    if (n <= 1) return 0.0;
    const double v = -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(n - 1);
    return align ? v : v * static_cast<double>(n - 1) / static_cast<double>(n);
  };
  for (int64_t p = 0; p < points; ++p) {
    int64_t rest = p;
    for (int64_t k = 0; k < dims; ++k) {  // k = 0: x, the fastest-varying (last) spatial dim
      const int64_t n = spatial[static_cast<size_t>(dims - 1 - k)];
      bp[p * (dims + 1) + k] = line(rest % n, n);
      rest /= n;
    }
    bp[p * (dims + 1) + dims] = 1.0;
  }
  const Tensor grid = matmul(base.to(theta.device(), theta.dtype()), transpose(theta, 1, 2));
  IntList out{size[0]};
  out.insert(out.end(), spatial.begin(), spatial.end());
  out.push_back(dims);
  return {reshape(grid, out)};
}

}  // namespace

std::vector<OpDecl> conv_pool_grid_sample_ops() {
  return {
      {.schema = "grid_sampler_2d(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool "
                 "align_corners) -> Tensor",
       .shape = &grid_sampler_shape<2>,
       .doc = "Samples input [N, C, H, W] at grid [N, H_out, W_out, 2] (x, y in [-1, 1]); modes 0 bilinear, "
              "1 nearest, 2 bicubic; padding 0 zeros, 1 border, 2 reflection.",
       .derivative = {.vjp = &derivatives::grid_sampler_2d, .saves = save_arg(0) | save_arg(1)}},
      {.schema = "grid_sampler_2d_backward(Tensor grad_output, Tensor input, Tensor grid, int interpolation_mode, int "
                 "padding_mode, bool align_corners, int[2] output_mask) -> (Tensor, Tensor)",
       .shape = &grid_sampler_backward_shape<2>,
       .doc = "grid_sampler_2d's gradients (input, grid) where output_mask (0/1 each; torch's bool[2]) asks for "
              "them, else undefined.",
       .derivative = {.none = "torch 1.13 has no double backward of grid sampling either"}},
      {.schema = "grid_sampler_3d(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool "
                 "align_corners) -> Tensor",
       .shape = &grid_sampler_shape<3>,
       .doc = "Samples input [N, C, D, H, W] at grid [N, D_out, H_out, W_out, 3] (x, y, z); modes 0 trilinear, "
              "1 nearest; padding 0 zeros, 1 border, 2 reflection.",
       .derivative = {.vjp = &derivatives::grid_sampler_3d, .saves = save_arg(0) | save_arg(1)}},
      {.schema = "grid_sampler_3d_backward(Tensor grad_output, Tensor input, Tensor grid, int interpolation_mode, int "
                 "padding_mode, bool align_corners, int[2] output_mask) -> (Tensor, Tensor)",
       .shape = &grid_sampler_backward_shape<3>,
       .doc = "grid_sampler_3d's gradients (input, grid) where output_mask (0/1 each) asks for them.",
       .derivative = {.none = "torch 1.13 has no double backward of grid sampling either"}},
      {.schema = "grid_sampler(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool "
                 "align_corners) -> Tensor",
       .composite = &grid_sampler_composite,
       .doc = "grid_sampler_2d for a 4-d input, else grid_sampler_3d.",
       .derivative = {.decomposes = true}},
      {.schema = "affine_grid_generator(Tensor theta, int[] size, bool align_corners) -> Tensor",
       .composite = &affine_grid_generator_composite,
       .doc = "The sampling grid of affine maps theta [N, 2, 3] (size [N, C, H, W]) or [N, 3, 4] (size "
              "[N, C, D, H, W]).",
       .derivative = {.decomposes = true}},
  };
}

}  // namespace axle::shape
