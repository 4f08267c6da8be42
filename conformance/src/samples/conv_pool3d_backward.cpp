// Samples for the backward ops of 3-d pooling
// (dispatcher/src/ops/conv_pool3d_backward.cpp). grad_output has the forward's
// output size; max-pool indices are drawn in [0, D*H*W) (the ops scatter to
// them without checking they came from the forward). float32 and float64
// (torch's CPU backward kernels).
#include "samples.h"

namespace axle::conformance {
namespace {

const Layout T = Layout::Transposed, S = Layout::Stepped;
const std::vector<DType> kBackwardDTypes = {kFloat32, kFloat64};

int64_t volume(const Tensor& self) {
  const int64_t nd = self.dim();
  return self.size(nd - 3) * self.size(nd - 2) * self.size(nd - 1);
}

// max_pool3d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices)
Stack max_back(SampleContext& c, IntList gs, Tensor self, IntList k, IntList s, IntList p, IntList d, bool ceil,
               Layout gl = Layout::Contiguous) {
  Tensor idx = c.indices(gs, volume(self), c.device());
  return {c.make(gs, gl), std::move(self), k, s, p, d, ceil, std::move(idx)};
}

std::vector<Sample> max_pool3d_backward_samples(SampleContext& c) {
  Stack wrong_indices = max_back(c, {2, 3, 2, 3, 3}, c.make({2, 3, 5, 7, 7}), {2}, {2}, {0}, {1}, false);
  wrong_indices[7] = c.indices({2, 3, 2, 3, 2}, 245, c.device());
  return {
      ok(max_back(c, {2, 3, 2, 3, 3}, c.make({2, 3, 5, 7, 7}), {2}, {2}, {0}, {1}, false), "kernel 2"),
      ok(max_back(c, {1, 2, 4, 3, 4}, c.make({1, 2, 7, 6, 5}), {3, 3, 2}, {2, 2, 1}, {1, 1, 0}, {1}, false),
         "kernel (3, 3, 2), stride (2, 2, 1), padding (1, 1, 0)"),
      ok(max_back(c, {1, 2, 4, 3, 3}, c.make({1, 2, 9, 6, 7}), {3, 2, 2}, {2, 3, 2}, {1, 1, 0}, {2, 1, 2}, true),
         "dilation (2, 1, 2), ceil_mode"),
      ok(max_back(c, {3, 5, 4, 3}, c.make({3, 6, 5, 4}), {2}, {1}, {0}, {1}, false), "unbatched self"),
      ok(max_back(c, {2, 3, 2, 3, 2}, c.make({2, 3, 4, 6, 5}, T), {2}, {2}, {0}, {1}, false, S),
         "transposed-layout self, stepped grad_output"),
      ok(max_back(c, {0, 3, 2, 2, 2}, c.make({0, 3, 4, 4, 4}), {2}, {2}, {0}, {1}, false), "batch 0"),
      fails(max_back(c, {3, 2, 3, 3}, c.make({2, 3, 5, 7, 7}), {2}, {2}, {0}, {1}, false),
            "4-d grad_output for a 5-d self", "ShapeError"),
      fails(std::move(wrong_indices), "indices of another shape", "ShapeError"),
  };
}

// avg_pool3d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
std::vector<Sample> avg_pool3d_backward_samples(SampleContext& c) {
  return {
      ok({c.make({2, 3, 2, 3, 3}), c.make({2, 3, 5, 7, 7}), IntList{2}, IntList{}, IntList{0}, false, true, Value()},
         "kernel 2, stride = kernel"),
      ok({c.make({1, 2, 4, 4, 3}), c.make({1, 2, 7, 7, 5}), IntList{3}, IntList{2}, IntList{1}, false, false, Value()},
         "padding, count_include_pad=False"),
      ok({c.make({1, 2, 4, 4, 3}), c.make({1, 2, 7, 7, 5}), IntList{3}, IntList{2}, IntList{1}, false, true, Value()},
         "padding, count_include_pad=True"),
      ok({c.make({1, 2, 5, 3, 4}), c.make({1, 2, 9, 6, 7}), IntList{3, 2, 2}, IntList{2, 3, 2}, IntList{1, 1, 0}, true,
          true, Value()},
         "odd sizes, ceil_mode"),
      ok({c.make({2, 2, 4, 4, 3}), c.make({2, 2, 7, 7, 5}), IntList{3}, IntList{2}, IntList{1}, true, false, Value()},
         "ceil_mode, count_include_pad=False"),
      ok({c.make({2, 2, 3, 3, 2}), c.make({2, 2, 6, 6, 4}), IntList{2}, IntList{}, IntList{0}, false, true, 3},
         "divisor_override 3"),
      ok({c.make({3, 5, 4, 3}), c.make({3, 6, 5, 4}), IntList{2}, IntList{1}, IntList{0}, false, true, Value()},
         "unbatched self"),
      ok({c.make({2, 3, 2, 3, 2}, T), c.make({2, 3, 4, 6, 5}, S), IntList{2}, IntList{}, IntList{0}, false, true,
          Value()},
         "transposed-layout grad_output, stepped self"),
      ok({c.make({0, 3, 2, 2, 2}), c.make({0, 3, 4, 4, 4}), IntList{2}, IntList{}, IntList{0}, false, true, Value()},
         "batch 0"),
      fails({c.make({3, 2, 3, 3}), c.make({2, 3, 5, 7, 7}), IntList{2}, IntList{}, IntList{0}, false, true, Value()},
            "4-d grad_output for a 5-d self", "ShapeError"),
  };
}

// _adaptive_avg_pool3d_backward(grad_output, self)
std::vector<Sample> adaptive_avg3d_backward_samples(SampleContext& c) {
  return {
      ok({c.make({2, 3, 3, 4, 2}), c.make({2, 3, 7, 9, 5})}, "[7, 9, 5] to [3, 4, 2]"),
      ok({c.make({1, 2, 4, 5, 3}), c.make({1, 2, 4, 5, 3})}, "same size"),
      ok({c.make({1, 2, 5, 8, 7}), c.make({1, 2, 3, 5, 4})}, "larger output"),
      ok({c.make({3, 4, 2, 3}), c.make({3, 6, 5, 4})}, "unbatched self"),
      ok({c.make({2, 3, 1, 1, 1}), c.make({2, 3, 4, 6, 5}, T)}, "to [1, 1, 1], transposed-layout self"),
      ok({c.make({2, 3, 2, 3, 2}, S), c.make({2, 3, 4, 6, 5})}, "stepped grad_output"),
      fails({c.make({3, 4, 2}), c.make({6, 5, 4})}, "3-d self", "IndexError"),
  };
}

// adaptive_max_pool3d_backward(grad_output, self, indices)
std::vector<Sample> adaptive_max3d_backward_samples(SampleContext& c) {
  auto args = [&](IntList gs, Tensor self, Layout gl = Layout::Contiguous) {
    Tensor idx = c.indices(gs, volume(self), c.device());
    return Stack{c.make(gs, gl), std::move(self), std::move(idx)};
  };
  return {
      ok(args({2, 3, 3, 4, 2}, c.make({2, 3, 7, 9, 5})), "[7, 9, 5] to [3, 4, 2]"),
      ok(args({1, 2, 5, 8, 7}, c.make({1, 2, 3, 5, 4})), "larger output"),
      ok(args({3, 4, 2, 3}, c.make({3, 6, 5, 4})), "unbatched self"),
      ok(args({2, 3, 2, 3, 2}, c.make({2, 3, 4, 6, 5}, T), S), "transposed-layout self, stepped grad_output"),
      ok(args({0, 3, 2, 2, 2}, c.make({0, 3, 4, 6, 5})), "batch 0"),
      fails(args({3, 4, 2}, c.make({6, 5, 4})), "3-d self", "IndexError"),
  };
}

}  // namespace

std::vector<OpSamples> conv_pool3d_backward_samples() {
  return {
      {"max_pool3d_with_indices_backward", &max_pool3d_backward_samples, kBackwardDTypes, 4},
      {"avg_pool3d_backward", &avg_pool3d_backward_samples, kBackwardDTypes, 4},
      {"_adaptive_avg_pool3d_backward", &adaptive_avg3d_backward_samples, kBackwardDTypes, 4},
      {"adaptive_max_pool3d_backward", &adaptive_max3d_backward_samples, kBackwardDTypes, 4},
  };
}

}  // namespace axle::conformance
