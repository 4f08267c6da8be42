// Formulas of the convolution and pooling family (dispatcher/src/ops/conv_pool.cpp):
// each calls the family's declared backward op (ops/conv_pool_backward.cpp)
// through the dispatcher, so a plugin kernel for it (a library's fused backward
// primitive) serves the gradient, and other devices run its composite.
#include "derivatives.h"

namespace axle::derivatives {

void convolution(VjpContext& c) {
  // convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
  const bool has_bias = c.has_tensor(2);
  const IntList mask{c.needs(0) ? 1 : 0, c.needs(1) ? 1 : 0, has_bias && c.needs(2) ? 1 : 0};
  const Value bias_sizes = has_bias ? Value(c.sizes(2)) : Value();
  Stack r = detail::call(AXLE_OP("convolution_backward"), c.grad(0), c.input(0), c.input(1), bias_sizes, c.arg(3),
                         c.arg(4), c.arg(5), c.arg(6), c.arg(7), c.arg(8), mask);
  for (size_t i = 0; i < 3; ++i)
    if (mask[i]) c.set(i, r[i].tensor());
}

void max_pool2d_with_indices(VjpContext& c) {
  c.set(0, call(AXLE_OP("max_pool2d_with_indices_backward"), c.grad(0), c.input(0), c.arg(1), c.arg(2), c.arg(3),
                c.arg(4), c.arg(5), c.result(1)));
}

void avg_pool2d(VjpContext& c) {
  c.set(0, call(AXLE_OP("avg_pool2d_backward"), c.grad(0), c.input(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(5),
                c.arg(6)));
}

void adaptive_avg_pool2d(VjpContext& c) {
  c.set(0, call(AXLE_OP("_adaptive_avg_pool2d_backward"), c.grad(0), c.input(0)));
}

void adaptive_max_pool2d(VjpContext& c) {
  c.set(0, call(AXLE_OP("adaptive_max_pool2d_backward"), c.grad(0), c.input(0), c.result(1)));
}

void max_pool3d_with_indices(VjpContext& c) {
  c.set(0, call(AXLE_OP("max_pool3d_with_indices_backward"), c.grad(0), c.input(0), c.arg(1), c.arg(2), c.arg(3),
                c.arg(4), c.arg(5), c.result(1)));
}

void avg_pool3d(VjpContext& c) {
  c.set(0, call(AXLE_OP("avg_pool3d_backward"), c.grad(0), c.input(0), c.arg(1), c.arg(2), c.arg(3), c.arg(4), c.arg(5),
                c.arg(6)));
}

void adaptive_avg_pool3d(VjpContext& c) {
  c.set(0, call(AXLE_OP("_adaptive_avg_pool3d_backward"), c.grad(0), c.input(0)));
}

void adaptive_max_pool3d(VjpContext& c) {
  c.set(0, call(AXLE_OP("adaptive_max_pool3d_backward"), c.grad(0), c.input(0), c.result(1)));
}

namespace {
// grid_sampler_{2,3}d(input, grid, interpolation_mode, padding_mode, align_corners):
// the backward op's output_mask (torch's bool[2], 0/1 here) asks for what is needed.
void grid_sampler(VjpContext& c, const OpHandle& backward) {
  const IntList mask{c.needs(0) ? 1 : 0, c.needs(1) ? 1 : 0};
  Stack r = detail::call(backward, c.grad(0), c.input(0), c.input(1), c.arg(2), c.arg(3), c.arg(4), mask);
  for (size_t i = 0; i < 2; ++i)
    if (mask[i]) c.set(i, r[i].tensor());
}
}  // namespace

void grid_sampler_2d(VjpContext& c) { grid_sampler(c, AXLE_OP("grid_sampler_2d_backward")); }
void grid_sampler_3d(VjpContext& c) { grid_sampler(c, AXLE_OP("grid_sampler_3d_backward")); }

}  // namespace axle::derivatives
