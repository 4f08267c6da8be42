// Samples for the backward ops of convolution and 2-d pooling
// (dispatcher/src/ops/conv_pool_backward.cpp). grad_output has the forward's
// output size; max-pool indices are drawn in [0, H*W) (the ops scatter to them
// without checking they came from the forward). output_mask is 0/1 per output.
// Floating dtypes only (torch's CPU backward kernels); bfloat16 transposed
// convolutions are not sampled (torch 1.13 computes a plain one, see conv_pool.cpp).
#include "samples.h"

namespace axle::conformance {
namespace {

const Layout CL = Layout::ChannelsLast, T = Layout::Transposed, S = Layout::Stepped;
const std::vector<DType> kBackwardDTypes = {kFloat32, kFloat64, kBFloat16};

// The composites sum products in the input dtype: bfloat16 results can lose a
// few bits where terms of size ~5 cancel (atol relative to the inputs' range).
std::vector<Sample> rounded(const SampleContext& c, std::vector<Sample> out) {
  if (c.dtype() == kBFloat16) loosen(out, 2e-2, 6e-2);
  return out;
}

// convolution_backward(grad_output, input, weight, bias_sizes, stride, padding,
// dilation, transposed, output_padding, groups, output_mask)
Stack conv_back(Tensor gy, Tensor x, Tensor w, Value bias, IntList s, IntList p, IntList d, bool tr, IntList op,
                int64_t g, IntList mask = {1, 1, 1}) {
  return {std::move(gy), std::move(x), std::move(w), std::move(bias), s, p, d, tr, op, g, mask};
}

std::vector<Sample> convolution_backward_samples(SampleContext& c) {
  std::vector<Sample> out = {
      ok(conv_back(c.make({2, 6, 5, 5}), c.make({2, 4, 7, 7}), c.make({6, 4, 3, 3}), IntList{6}, {1}, {0}, {1}, false,
                   {0}, 1),
         "2-d, all gradients"),
      ok(conv_back(c.make({1, 6, 5, 7}), c.make({1, 4, 9, 8}), c.make({6, 2, 3, 2}), IntList{6}, {2, 1}, {1, 0}, {1, 1},
                   false, {0}, 2),
         "stride (2, 1), padding (1, 0), groups 2"),
      ok(conv_back(c.make({1, 4, 11, 2}), c.make({1, 4, 9, 8}, T), c.make({4, 2, 2, 3}), IntList{4}, {1, 2}, {2, 1},
                   {2, 3}, false, {0}, 2),
         "dilation (2, 3), groups 2, transposed-layout input"),
      ok(conv_back(c.make({2, 4, 4}), c.make({2, 3, 10}), c.make({4, 3, 3}), Value(), {3}, {2}, {1}, false, {0}, 1,
                   {1, 1, 0}),
         "1-d, stride 3, padding 2, no bias"),
      ok(conv_back(c.make({1, 3, 3, 5, 3}), c.make({1, 2, 4, 5, 3}), c.make({3, 2, 2, 3, 1}), IntList{3}, {1},
                   {0, 1, 0}, {1}, false, {0}, 1),
         "3-d"),
      ok(conv_back(c.make({2, 5, 6, 6}, CL), c.make({2, 3, 6, 5}, CL), c.make({5, 3, 3, 2}), IntList{5}, {1}, {1}, {1},
                   false, {0}, 1),
         "channels_last grad_output and input"),
      ok(conv_back(c.make({2, 6, 5, 5}, S), c.make({2, 4, 7, 7}), c.make({6, 4, 3, 3}, CL), IntList{6}, {1}, {0}, {1},
                   false, {0}, 1),
         "stepped grad_output, channels_last weight"),
      ok(conv_back(c.make({2, 6, 5, 5}), c.make({2, 4, 7, 7}), c.make({6, 4, 3, 3}), IntList{6}, {1}, {0}, {1}, false,
                   {0}, 1, {1, 0, 0}),
         "mask: input only"),
      ok(conv_back(c.make({2, 6, 3, 3}), c.make({2, 4, 7, 7}), c.make({6, 4, 3, 3}), IntList{6}, {2}, {0}, {1}, false,
                   {0}, 1, {0, 1, 0}),
         "mask: weight only, stride 2"),
      ok(conv_back(c.make({2, 6, 5, 5}), c.make({2, 4, 7, 7}), c.make({6, 4, 3, 3}), IntList{6}, {1}, {0}, {1}, false,
                   {0}, 1, {0, 0, 1}),
         "mask: bias only"),
      ok(conv_back(c.make({2, 6, 5, 5}), c.make({2, 4, 7, 7}), c.make({6, 4, 3, 3}), IntList{6}, {1}, {0}, {1}, false,
                   {0}, 1, {0, 0, 0}),
         "mask: nothing"),
      fails(conv_back(c.make({2, 6, 5}), c.make({2, 4, 7, 7}), c.make({6, 4, 3, 3}), IntList{6}, {1}, {0}, {1}, false,
                      {0}, 1),
            "3-d grad_output for a 4-d input", "ShapeError"),
      fails(conv_back(c.make({2, 6, 5, 5}), c.make({2, 6, 7, 7}), c.make({6, 2, 3, 3}), IntList{6}, {1}, {0}, {1},
                      false, {0}, 4),
            "groups 4 do not divide 6 output channels", "ValueError"),
      fails(conv_back(c.make({2, 6, 5}), c.make({2, 4, 7}), c.make({6, 4, 3}), IntList{6}, {1, 1, 1}, {0}, {1}, false,
                      {0}, 1),
            "three strides for one spatial dim", "ValueError"),
      fails(conv_back(c.make({3, 6, 5, 5}), c.make({2, 4, 7, 7}), c.make({6, 4, 3, 3}), IntList{6}, {1}, {0}, {1},
                      false, {0}, 1),
            "grad_output of another batch", "ShapeError"),
      fails(conv_back(c.make({2, 6, 5, 5}), c.make({2, 5, 7, 7}), c.make({6, 4, 3, 3}), IntList{6}, {1}, {0}, {1},
                      false, {0}, 1),
            "input channels not the weight's", "ShapeError"),
      fails(conv_back(c.make({2, 6, 4, 5}), c.make({2, 4, 7, 7}), c.make({6, 4, 3, 3}), IntList{6}, {1}, {0}, {1},
                      false, {0}, 1),
            "grad_output of another spatial size", "ShapeError"),
  };
  if (c.dtype() != kBFloat16) {
    out.push_back(ok(conv_back(c.make({2, 3, 10, 10}), c.make({2, 4, 5, 5}), c.make({4, 3, 3, 3}), IntList{3}, {2}, {1},
                               {1}, true, {1}, 1),
                     "transposed, stride 2, padding 1, output_padding 1"));
    out.push_back(ok(conv_back(c.make({1, 4, 7, 5}), c.make({1, 4, 4, 3}, S), c.make({4, 2, 2, 3}), IntList{4}, {1, 2},
                               {0, 1}, {2, 1}, true, {1, 0}, 2),
                     "transposed, groups 2, dilation (2, 1), stepped input"));
    out.push_back(ok(conv_back(c.make({2, 2, 19}), c.make({2, 3, 6}), c.make({3, 2, 4}), Value(), {3}, {1}, {1}, true,
                               {2}, 1, {1, 1, 0}),
                     "transposed 1-d, no bias"));
    out.push_back(ok(conv_back(c.make({2, 3, 10, 10}), c.make({2, 4, 5, 5}), c.make({4, 3, 3, 3}), IntList{3}, {2}, {1},
                               {1}, true, {1}, 1, {0, 1, 1}),
                     "transposed, mask: weight and bias"));
  }
  return rounded(c, std::move(out));
}

// ---------------------------------------------------------------- pooling

// max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices)
Stack max_back(SampleContext& c, IntList gs, Tensor self, IntList k, IntList s, IntList p, IntList d, bool ceil,
               Layout gl = Layout::Contiguous) {
  const int64_t nd = self.dim(), hw = self.size(nd - 2) * self.size(nd - 1);
  Tensor idx = c.indices(gs, hw, c.device());
  return {c.make(gs, gl), std::move(self), k, s, p, d, ceil, std::move(idx)};
}

std::vector<Sample> max_pool_backward_samples(SampleContext& c) {
  Stack wrong_indices = max_back(c, {2, 3, 3, 3}, c.make({2, 3, 7, 7}), {2}, {2}, {0}, {1}, false);
  wrong_indices[7] = c.indices({2, 3, 3, 2}, 49, c.device());
  return rounded(
      c,
      {
          ok(max_back(c, {2, 3, 3, 3}, c.make({2, 3, 7, 7}), {2}, {2}, {0}, {1}, false), "kernel 2"),
          ok(max_back(c, {2, 3, 4, 4}, c.make({2, 3, 7, 7}), {3, 3}, {2, 2}, {1, 1}, {1, 1}, false),
             "kernel 3, stride 2, padding 1"),
          ok(max_back(c, {1, 2, 4, 3}, c.make({1, 2, 9, 6}), {3, 2}, {2, 3}, {1, 1}, {2, 1}, true),
             "odd sizes, dilation (2, 1), ceil_mode"),
          ok(max_back(c, {2, 3, 4, 4}, c.make({2, 3, 7, 7}), {3}, {2}, {1}, {1}, true), "ceil_mode with padding"),
          ok(max_back(c, {3, 5, 4}, c.make({3, 6, 5}), {2}, {1}, {0}, {1}, false), "3-d self, stride 1"),
          ok(max_back(c, {2, 3, 3, 2}, c.make({2, 3, 6, 5}, CL), {2}, {2}, {0}, {1}, false, CL), "channels_last"),
          ok(max_back(c, {2, 3, 3, 2}, c.make({2, 3, 6, 5}, T), {2}, {2}, {0}, {1}, false), "transposed-layout self"),
          ok(max_back(c, {0, 3, 3, 3}, c.make({0, 3, 7, 7}), {2}, {2}, {0}, {1}, false), "batch 0"),
          fails(max_back(c, {3, 3, 3}, c.make({2, 3, 7, 7}), {2}, {2}, {0}, {1}, false),
                "3-d grad_output for a 4-d self", "ShapeError"),
          fails(std::move(wrong_indices), "indices of another shape", "ShapeError"),
      });
}

// avg_pool2d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
std::vector<Sample> avg_pool_backward_samples(SampleContext& c) {
  return rounded(
      c, {
             ok({c.make({2, 3, 3, 3}), c.make({2, 3, 7, 7}), IntList{2}, IntList{}, IntList{0}, false, true, Value()},
                "kernel 2, stride = kernel"),
             ok({c.make({2, 3, 4, 3}), c.make({2, 3, 7, 6}), IntList{3}, IntList{2}, IntList{1}, false, false, Value()},
                "padding, count_include_pad=False"),
             ok({c.make({2, 3, 4, 3}), c.make({2, 3, 7, 6}), IntList{3}, IntList{2}, IntList{1}, false, true, Value()},
                "padding, count_include_pad=True"),
             ok({c.make({1, 2, 5, 3}), c.make({1, 2, 9, 6}), IntList{3, 2}, IntList{2, 3}, IntList{1, 1}, true, true,
                 Value()},
                "odd sizes, ceil_mode"),
             ok({c.make({2, 3, 4, 4}), c.make({2, 3, 7, 7}), IntList{3}, IntList{2}, IntList{1}, true, false, Value()},
                "ceil_mode, count_include_pad=False"),
             ok({c.make({2, 3, 3, 3}), c.make({2, 3, 7, 7}), IntList{2}, IntList{}, IntList{0}, false, true, 3},
                "divisor_override 3"),
             ok({c.make({2, 3, 4, 4}), c.make({2, 3, 7, 7}), IntList{3}, IntList{2}, IntList{1}, true, false, 2},
                "divisor_override 2 with padding and ceil_mode"),
             ok({c.make({3, 5, 4}), c.make({3, 6, 5}), IntList{2}, IntList{1}, IntList{0}, false, true, Value()},
                "3-d self"),
             ok({c.make({2, 3, 3, 1}, CL), c.make({2, 3, 6, 5}, CL), IntList{2, 3}, IntList{}, IntList{0}, false, true,
                 Value()},
                "channels_last"),
             ok({c.make({0, 3, 3, 3}), c.make({0, 3, 7, 7}), IntList{2}, IntList{}, IntList{0}, false, true, Value()},
                "batch 0"),
             fails({c.make({3, 3, 3}), c.make({2, 3, 7, 7}), IntList{2}, IntList{}, IntList{0}, false, true, Value()},
                   "3-d grad_output for a 4-d self", "ShapeError"),
         });
}

// _adaptive_avg_pool2d_backward(grad_output, self)
std::vector<Sample> adaptive_avg_backward_samples(SampleContext& c) {
  return rounded(c, {
                        ok({c.make({2, 3, 3, 4}), c.make({2, 3, 7, 9})}, "[7, 9] to [3, 4]"),
                        ok({c.make({2, 3, 7, 9}), c.make({2, 3, 7, 9})}, "same size"),
                        ok({c.make({1, 2, 8, 11}), c.make({1, 2, 5, 4})}, "larger output"),
                        ok({c.make({3, 4, 2}), c.make({3, 6, 5})}, "3-d self"),
                        ok({c.make({2, 3, 4, 3}, CL), c.make({2, 3, 6, 5}, CL)}, "channels_last"),
                        ok({c.make({2, 3, 1, 1}), c.make({2, 3, 6, 5}, T)}, "to [1, 1], transposed-layout self"),
                        fails({c.make({3, 4}), c.make({6, 5})}, "2-d self", "ShapeError"),
                    });
}

// adaptive_max_pool2d_backward(grad_output, self, indices)
std::vector<Sample> adaptive_max_backward_samples(SampleContext& c) {
  auto args = [&](IntList gs, Tensor self, Layout gl = Layout::Contiguous) {
    const int64_t nd = self.dim(), hw = self.size(nd - 2) * self.size(nd - 1);
    Tensor idx = c.indices(gs, hw, c.device());
    return Stack{c.make(gs, gl), std::move(self), std::move(idx)};
  };
  return rounded(c, {
                        ok(args({2, 3, 3, 4}, c.make({2, 3, 7, 9})), "[7, 9] to [3, 4]"),
                        ok(args({1, 2, 8, 11}, c.make({1, 2, 5, 4})), "larger output"),
                        ok(args({3, 4, 2}, c.make({3, 6, 5})), "3-d self"),
                        ok(args({2, 3, 4, 3}, c.make({2, 3, 6, 5}, CL), CL), "channels_last"),
                        ok(args({0, 3, 2, 2}, c.make({0, 3, 6, 5})), "batch 0"),
                        fails(args({3, 4}, c.make({6, 5})), "2-d self", "ShapeError"),
                    });
}

}  // namespace

std::vector<OpSamples> conv_pool_backward_samples() {
  return {
      {"convolution_backward", &convolution_backward_samples, kBackwardDTypes, 8},
      {"max_pool2d_with_indices_backward", &max_pool_backward_samples, kBackwardDTypes, 4},
      {"avg_pool2d_backward", &avg_pool_backward_samples, kBackwardDTypes, 4},
      {"_adaptive_avg_pool2d_backward", &adaptive_avg_backward_samples, kBackwardDTypes, 4},
      {"adaptive_max_pool2d_backward", &adaptive_max_backward_samples, kBackwardDTypes, 4},
  };
}

}  // namespace axle::conformance
