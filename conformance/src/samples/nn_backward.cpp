// Samples for the backward ops of the norms and resampling ops
// (dispatcher/src/ops/nn_backward.cpp). Statistics are drawn, not computed:
// the gradients are defined for any mean and positive invstd / rstd, as torch's
// kernels take them. output_mask is 0/1 per output.
#include "samples.h"

namespace axle::conformance {
namespace {

const Layout C = Layout::Contiguous, CL = Layout::ChannelsLast, T = Layout::Transposed, S = Layout::Stepped;
const std::vector<DType> kBackwardDTypes = {kFloat32, kFloat64, kBFloat16};

// The composites sum products in the input dtype: bfloat16 results can lose a
// few bits where terms of size ~5 cancel (atol relative to the inputs' range).
std::vector<Sample> rounded(const SampleContext& c, std::vector<Sample> out) {
  if (c.dtype() == kBFloat16) loosen(out, 2e-2, 6e-2);
  return out;
}

// native_batch_norm_backward(grad_out, input, weight, running_mean, running_var,
// save_mean, save_invstd, train, eps, output_mask)
std::vector<Sample> batch_norm_backward_samples(SampleContext& c) {
  auto pos = [&](int64_t n) { return c.make({n}, C, {}, 0.5, 2); };
  return rounded(c, {
                        ok({c.make({4, 3, 5}), c.make({4, 3, 5}), c.make({3}), Value(), Value(), c.make({3}), pos(3),
                            true, 1e-5, IntList{1, 1, 1}},
                           "training, affine"),
                        ok({c.make({2, 3, 4, 5}, CL), c.make({2, 3, 4, 5}, CL), Value(), c.make({3}), pos(3),
                            c.make({3}), pos(3), true, 1e-5, IntList{1, 1, 1}},
                           "training, channels_last, no weight"),
                        ok({c.make({6, 3}), c.make({6, 3}, T), c.make({3}), Value(), Value(), c.make({3}), pos(3), true,
                            1e-3, IntList{1, 0, 0}},
                           "training, 2-d, transposed-layout input, mask: input only"),
                        ok({c.make({4, 3, 5}), c.make({4, 3, 5}), c.make({3}), Value(), Value(), Value(), Value(), true,
                            1e-5, IntList{1, 1, 1}},
                           "training, save stats None (recomputed)"),
                        ok({c.make({4, 3, 5}), c.make({4, 3, 5}), c.make({3}), c.make({3}), pos(3), Value(), Value(),
                            false, 1e-5, IntList{1, 1, 1}},
                           "eval, affine"),
                        ok({c.make({2, 3, 4, 5}, S), c.make({2, 3, 4, 5}), Value(), c.make({3}), pos(3), Value(),
                            Value(), false, 1e-5, IntList{0, 1, 1}},
                           "eval, stepped grad_out, mask: weight and bias"),
                        fails({c.make({4, 3, 5}), c.make({4, 3, 5}), c.make({3}), c.make({3}), pos(3), Value(), Value(),
                               false, 1e-5, IntList{1, 1}},
                              "output_mask of 2 values", "ValueError"),
                    });
}

// native_group_norm_backward(grad_out, input, mean, rstd, weight, N, C, HxW, group, output_mask)
std::vector<Sample> group_norm_backward_samples(SampleContext& c) {
  // Values in [-1, 1]: the per-group sums cancel less in bfloat16.
  auto v = [&](IntList s, Layout l = C) { return c.make(s, l, {}, -1, 1); };
  auto rstd = [&](IntList s) { return c.make(s, C, {}, 0.5, 1.5); };
  return rounded(
      c,
      {
          ok({v({2, 4, 3}), v({2, 4, 3}), v({2, 2}), rstd({2, 2}), v({4}), 2, 4, 3, 2, IntList{1, 1, 1}}, "2 groups"),
          ok({v({2, 6, 2, 3}, CL), v({2, 6, 2, 3}, CL), v({2, 3}), rstd({2, 3}), v({6}), 2, 6, 6, 3, IntList{1, 1, 1}},
             "channels_last, 3 groups"),
          ok({v({3, 4}), v({3, 4}), v({3, 4}), rstd({3, 4}), v({4}), 3, 4, 1, 4, IntList{1, 0, 1}},
             "2-d, one channel per group, mask: input and bias"),
          ok({v({2, 4, 5}, T), v({2, 4, 5}), v({2, 1}), rstd({2, 1}), v({4}, S), 2, 4, 5, 1, IntList{0, 1, 0}},
             "transposed-layout grad_out, 1 group, mask: weight only"),
          ok({v({2, 4, 3}), v({2, 4, 3}), v({2, 2}), rstd({2, 2}), Value(), 2, 4, 3, 2, IntList{1, 1, 1}}, "no weight"),
          ok({v({0, 4, 3}), v({0, 4, 3}), v({0, 2}), rstd({0, 2}), v({4}), 0, 4, 3, 2, IntList{1, 1, 1}}, "zero batch"),
          fails({v({2, 4, 3}), v({2, 4, 3}), v({2, 2}), rstd({2, 2}), v({4}), 3, 4, 2, 2, IntList{1, 1, 1}},
                "N does not match the input", "ValueError"),
      });
}

// native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask, eps)
std::vector<Sample> layer_norm_backward_samples(SampleContext& c) {
  auto v = [&](IntList s, Layout l = C) { return c.make(s, l, {}, -1, 1); };
  auto rstd = [&](IntList s) { return c.make(s, C, {}, 0.5, 1.5); };
  const IntList all{1, 1, 1};
  return rounded(
      c,
      {
          ok({v({4, 6}), v({4, 6}), IntList{6}, Value(), Value(), v({6}), v({6}), all}, "2-d, stats recomputed"),
          ok({v({2, 3, 8}), v({2, 3, 8}), IntList{8}, v({2, 3, 1}), rstd({2, 3, 1}), v({8}), Value(), IntList{1, 1, 0}},
             "3-d, torch's stats, no bias, mask: input and weight"),
          ok({v({2, 3, 4, 5}), v({2, 3, 4, 5}), IntList{4, 5}, Value(), Value(), v({4, 5}), v({4, 5}), all, 1e-3},
             "two normalized dims, eps 1e-3"),
          ok({v({5, 7}, T), v({5, 7}), IntList{7}, Value(), Value(), Value(), Value(), IntList{1, 0, 0}},
             "transposed-layout grad_out, no weight, mask: input only"),
          ok({v({3, 4, 6}), v({3, 4, 6}, S), IntList{6}, Value(), Value(), v({6}), v({6}), IntList{0, 1, 1}},
             "stepped input, mask: weight and bias"),
          ok({v({6}), v({6}), IntList{6}, Value(), Value(), v({6}), v({6}), all}, "one row"),
          ok({v({0, 4}), v({0, 4}), IntList{4}, Value(), Value(), v({4}), v({4}), all}, "zero rows"),
          fails({v({4, 6}), v({4, 6}), IntList{5}, Value(), Value(), Value(), Value(), all},
                "normalized_shape not the input's", "ShapeError"),
          fails({v({4, 6}), v({4, 6}), IntList{6}, v({3}), Value(), Value(), Value(), all}, "mean of 3 values",
                "ShapeError"),
          fails({v({4, 6}), v({4, 6}), IntList{6}, Value(), Value(), Value(), Value(), IntList{1, 1}},
                "output_mask of 2 values", "ValueError"),
      });
}

// _softmax_backward_data / _log_softmax_backward_data(grad_output, output, dim, input_dtype)
std::vector<Sample> softmax_backward_samples(SampleContext& c) {
  // A softmax output: positive rows (drawn, not normalized: the formula is defined for any output).
  auto y = [&](IntList s, Layout l = C) { return c.make(s, l, {}, 0, 1); };
  const DType d = c.dtype();
  return rounded(c, {
                        ok({c.make({4, 7}), y({4, 7}), 1, d}, "2-d, last dim"),
                        ok({c.make({2, 5, 3}), y({2, 5, 3}), 1, d}, "3-d, middle dim"),
                        ok({c.make({2, 3, 4}, T), y({2, 3, 4}), -1, d}, "transposed-layout grad, dim -1"),
                        ok({c.make({3, 6}), y({3, 6}, S), 0, d}, "stepped output, dim 0"),
                        ok({c.make({}), y({}), 0, d}, "0-d"),
                        ok({c.make({0, 4}), y({0, 4}), 1, d}, "empty"),
                        fails({c.make({4, 7}), y({4, 6}), 1, d}, "grad_output of another size", "ShapeError"),
                        fails({c.make({4, 7}), y({4, 7}), 2, d}, "dim out of range", "IndexError"),
                    });
}

// upsample_nearest2d_backward(grad_output, output_size, input_size, scales_h, scales_w)
std::vector<Sample> nearest_backward_samples(SampleContext& c) {
  return rounded(
      c, {
             ok({c.make({1, 2, 6, 8}), IntList{6, 8}, IntList{1, 2, 3, 4}}, "upsample x2"),
             ok({c.make({2, 2, 5, 7}, CL), IntList{5, 7}, IntList{2, 2, 3, 3}}, "channels_last, 3 -> 5, 7"),
             ok({c.make({1, 3, 5, 7}), IntList{5, 7}, IntList{1, 3, 3, 3}, 1.7, 2.5}, "with scales"),
             ok({c.make({1, 2, 3, 2}, T), IntList{3, 2}, IntList{1, 2, 6, 5}}, "downsample, transposed-layout grad"),
             ok({c.make({0, 2, 4, 4}), IntList{4, 4}, IntList{0, 2, 3, 3}}, "zero batch"),
             fails({c.make({1, 2, 6, 7}), IntList{6, 8}, IntList{1, 2, 3, 4}}, "grad_output of another size",
                   "ShapeError"),
             fails({c.make({1, 2, 6, 8}), IntList{6, 8}, IntList{1, 2, 3}}, "input_size of 3 values", "ValueError"),
         });
}

// upsample_bilinear2d_backward(grad_output, output_size, input_size, align_corners, scales_h, scales_w)
std::vector<Sample> bilinear_backward_samples(SampleContext& c) {
  return rounded(c, {
                        ok({c.make({1, 2, 6, 8}), IntList{6, 8}, IntList{1, 2, 3, 4}, false}, "upsample x2"),
                        ok({c.make({1, 2, 7, 5}), IntList{7, 5}, IntList{1, 2, 3, 4}, true}, "align_corners"),
                        ok({c.make({2, 2, 5, 7}, CL), IntList{5, 7}, IntList{2, 2, 3, 3}, false}, "channels_last"),
                        ok({c.make({1, 3, 5, 7}), IntList{5, 7}, IntList{1, 3, 3, 3}, false, 1.7, 2.5}, "with scales"),
                        ok({c.make({1, 2, 3, 2}, T), IntList{3, 2}, IntList{1, 2, 6, 5}, false},
                           "downsample, transposed-layout grad"),
                        ok({c.make({1, 2, 1, 1}), IntList{1, 1}, IntList{1, 2, 4, 4}, true}, "align_corners to 1x1"),
                        ok({c.make({0, 2, 4, 4}), IntList{4, 4}, IntList{0, 2, 3, 3}, false}, "zero batch"),
                        fails({c.make({1, 2, 6, 7}), IntList{6, 8}, IntList{1, 2, 3, 4}, false},
                              "grad_output of another size", "ShapeError"),
                    });
}

}  // namespace

std::vector<OpSamples> nn_backward_samples() {
  return {
      {"native_batch_norm_backward", &batch_norm_backward_samples, kBackwardDTypes, 8},
      {"native_group_norm_backward", &group_norm_backward_samples, kBackwardDTypes, 8},
      {"native_layer_norm_backward", &layer_norm_backward_samples, kBackwardDTypes, 8},
      {"_softmax_backward_data", &softmax_backward_samples, kBackwardDTypes, 8},
      {"_log_softmax_backward_data", &softmax_backward_samples, kBackwardDTypes, 8},
      {"upsample_nearest2d_backward", &nearest_backward_samples, kBackwardDTypes, 4},
      {"upsample_bilinear2d_backward", &bilinear_backward_samples, kBackwardDTypes, 4},
  };
}

}  // namespace axle::conformance
