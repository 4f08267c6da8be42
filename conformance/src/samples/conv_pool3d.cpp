// Samples for 3-d pooling and transposed 3-d convolution
// (dispatcher/src/ops/conv_pool3d.cpp). torch's CPU pools 3-d in float32 and
// float64 only (avg_pool3d also int64, adaptive average also float16): the other
// sampled dtypes must fail.
#include "samples.h"

namespace axle::conformance {
namespace {

const Layout T = Layout::Transposed, S = Layout::Stepped, O = Layout::Offset;
const std::vector<DType> kPool3dDTypes = {kFloat32, kFloat64, kBFloat16, kInt64};

bool pools(const SampleContext& c, bool int64_too) {
  return c.dtype() == kFloat32 || c.dtype() == kFloat64 || (int64_too && c.dtype() == kInt64);
}

// (self, kernel_size, stride, padding, dilation, ceil_mode)
std::vector<Sample> max_pool3d_samples(SampleContext& c) {
  if (!pools(c, false))
    return {fails({c.make({1, 2, 4, 4, 4}), IntList{2}}, "dtype torch's CPU does not pool", "DTypeError")};
  return {
      ok({c.make({2, 3, 5, 6, 7}), IntList{2}}, "kernel 2 (stride = kernel)"),
      ok({c.make({1, 2, 7, 6, 5}), IntList{3, 3, 2}, IntList{2, 2, 1}, IntList{1, 1, 0}},
         "kernel (3, 3, 2), stride (2, 2, 1), padding (1, 1, 0)"),
      ok({c.make({1, 2, 9, 6, 7}), IntList{3, 2, 2}, IntList{2, 3, 2}, IntList{1, 1, 0}, IntList{2, 1, 2}, true},
         "odd sizes, dilation (2, 1, 2), ceil_mode"),
      ok({c.make({2, 2, 7, 7, 5}), IntList{3}, IntList{2}, IntList{1}, IntList{1}, true}, "ceil_mode with padding"),
      ok({c.make({3, 6, 5, 4}), IntList{2}, IntList{1}}, "unbatched (C, D, H, W), stride 1"),
      ok({c.make({2, 3, 4, 6, 5}, T), IntList{2}}, "transposed-layout input"),
      ok({c.make({1, 3, 5, 6, 5}, S), IntList{3}, IntList{1}, IntList{0}, IntList{2}}, "stepped input, dilation 2"),
      ok({c.make({1, 2, 4, 5, 6}, O), IntList{2, 3, 2}, IntList{}, IntList{1}}, "offset input, padding 1"),
      ok({c.make({0, 3, 4, 4, 4}), IntList{2}}, "batch 0"),
      fails({c.make({6, 5, 4}), IntList{2}}, "3-d input", "ShapeError"),
      fails({c.make({2, 3, 0, 5, 4}), IntList{2}}, "zero depth", "ShapeError"),
      fails({c.make({0, 3, 4, 4}), IntList{2}}, "unbatched, zero channels", "ShapeError"),
      fails({c.make({2, 3, 6, 5, 4}), IntList{2}, IntList{2}, IntList{2}}, "padding above half the kernel",
            "ValueError"),
      fails({c.make({2, 3, 6, 5, 4}), IntList{2}, IntList{0}}, "stride 0", "ValueError"),
      fails({c.make({2, 3, 6, 5, 4}), IntList{2, 2}}, "two kernel sizes", "ValueError"),
      fails({c.make({2, 3, 6, 5, 4}), IntList{2}, IntList{}, IntList{0}, IntList{0}}, "dilation 0", "ValueError"),
      fails({c.make({1, 1, 3, 3, 3}), IntList{4}}, "output size 0", "ShapeError"),
  };
}

// (self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
std::vector<Sample> avg_pool3d_samples(SampleContext& c) {
  if (!pools(c, true))
    return {fails({c.make({1, 2, 4, 4, 4}), IntList{2}}, "dtype torch's CPU does not pool", "DTypeError")};
  return {
      ok({c.make({2, 3, 5, 6, 7}), IntList{2}}, "kernel 2"),
      ok({c.make({1, 2, 7, 6, 5}), IntList{3}, IntList{2}, IntList{1}, false, false},
         "padding, count_include_pad=False"),
      ok({c.make({1, 2, 7, 6, 5}), IntList{3}, IntList{2}, IntList{1}, false, true}, "padding, count_include_pad=True"),
      ok({c.make({1, 2, 9, 6, 7}), IntList{3, 2, 2}, IntList{2, 3, 2}, IntList{1, 1, 0}, true}, "odd sizes, ceil_mode"),
      ok({c.make({2, 2, 7, 7, 5}), IntList{3}, IntList{2}, IntList{1}, true, false},
         "ceil_mode, count_include_pad=False"),
      ok({c.make({2, 2, 6, 6, 4}), IntList{2}, IntList{}, IntList{0}, false, true, 3}, "divisor_override 3"),
      ok({c.make({3, 6, 5, 4}), IntList{2}, IntList{1}}, "unbatched (C, D, H, W)"),
      ok({c.make({2, 3, 4, 6, 5}, T), IntList{2}}, "transposed-layout input"),
      ok({c.make({1, 3, 5, 6, 5}, S), IntList{3, 2, 2}, IntList{1, 2, 2}}, "stepped input"),
      ok({c.make({0, 3, 4, 4, 4}), IntList{2}}, "batch 0"),
      fails({c.make({6, 5, 4}), IntList{2}}, "3-d input", "ShapeError"),
      fails({c.make({2, 0, 6, 5, 4}), IntList{2}}, "zero channels", "ShapeError"),
      fails({c.make({2, 3, 6, 5, 4}), IntList{2}, IntList{2}, IntList{2}}, "padding above half the kernel",
            "ValueError"),
      fails({c.make({2, 3, 6, 5, 4}), IntList{2}, IntList{}, IntList{0}, false, true, 0}, "divisor 0", "ValueError"),
      fails({c.make({1, 1, 3, 3, 3}), IntList{4}}, "kernel larger than the input", "ShapeError"),
  };
}

// (self, output_size) for the adaptive pools.
std::vector<Sample> adaptive3d_samples(SampleContext& c) {
  if (!pools(c, false))
    return {fails({c.make({1, 2, 4, 4, 4}), IntList{2, 2, 2}}, "dtype torch's CPU does not pool", "DTypeError")};
  return {
      ok({c.make({2, 3, 7, 9, 5}), IntList{3, 4, 2}}, "[7, 9, 5] to [3, 4, 2]"),
      ok({c.make({1, 2, 4, 5, 3}), IntList{4, 5, 3}}, "same size"),
      ok({c.make({1, 2, 3, 5, 4}), IntList{5, 8, 7}}, "larger output"),
      ok({c.make({3, 6, 5, 4}), IntList{4, 2, 3}}, "unbatched (C, D, H, W)"),
      ok({c.make({2, 3, 4, 6, 5}, T), IntList{2, 3, 2}}, "transposed-layout input"),
      ok({c.make({2, 3, 4, 6, 5}, S), IntList{2, 2, 2}}, "stepped input"),
      ok({c.make({2, 3, 4, 6, 5}), IntList{0, 0, 0}}, "output [0, 0, 0]"),
      ok({c.make({0, 3, 4, 6, 5}), IntList{2, 2, 2}}, "batch 0"),
      fails({c.make({6, 5, 4}), IntList{2, 2, 2}}, "3-d input", "ShapeError"),
      fails({c.make({2, 3, 0, 5, 4}), IntList{2, 2, 2}}, "zero depth", "ShapeError"),
      fails({c.make({2, 0, 4, 5, 4}), IntList{2, 2, 2}}, "zero channels", "ShapeError"),
      fails({c.make({2, 3, 6, 5, 4}), IntList{2, 2}}, "two output sizes", "ValueError"),
      fails({c.make({2, 3, 6, 5, 4}), IntList{-1, 2, 2}}, "negative output size", "ValueError"),
  };
}

std::vector<Sample> adaptive_avg3d_kernel_samples(SampleContext& c) { return adaptive3d_samples(c); }
std::vector<Sample> adaptive_avg3d_samples(SampleContext& c) {
  std::vector<Sample> out = adaptive3d_samples(c);
  if (pools(c, false)) out.push_back(ok({c.make({2, 3, 4, 6, 5}), IntList{1, 1, 1}}, "[1, 1, 1]: a mean"));
  return out;
}
std::vector<Sample> adaptive_max3d_samples(SampleContext& c) { return adaptive3d_samples(c); }

// conv_transpose3d.input(input, weight, bias, stride, padding, output_padding, groups, dilation)
std::vector<Sample> conv_transpose3d_samples(SampleContext& c) {
  return {
      ok({c.make({2, 4, 3, 4, 3}), c.make({4, 3, 3, 2, 3}), c.make({3})}, "defaults"),
      ok({c.make({4, 3, 3, 2}), c.make({4, 3, 2, 2, 2}), c.make({3})}, "unbatched"),
      ok({c.make({1, 4, 3, 3, 2}, S), c.make({4, 2, 2, 3, 2}), Value(), IntList{2}, IntList{1}, IntList{1}},
         "stride 2, padding 1, output_padding 1, stepped input"),
      ok({c.make({1, 4, 2, 3, 3}, T), c.make({4, 1, 2, 2, 3}), c.make({2}), IntList{1, 2, 1}, IntList{0, 1, 0},
          IntList{0, 1, 0}, 2, IntList{2, 1, 1}},
         "groups 2, dilation (2, 1, 1), transposed-layout input"),
      ok({c.make({0, 4, 3, 3, 3}), c.make({4, 3, 2, 2, 2})}, "batch 0"),
      fails({c.make({2, 4, 3, 3, 3}), c.make({4, 3, 2, 2, 2}), Value(), IntList{1}, IntList{0}, IntList{1}},
            "output_padding 1 with stride 1", "ValueError"),
      fails({c.make({2, 3, 3, 3, 3}), c.make({4, 3, 2, 2, 2})}, "input channels differ", "ShapeError"),
      fails({c.make({2, 4, 3, 3}), c.make({4, 3, 2, 2, 2})}, "4-d input to a 5-d weight (unbatched, channels differ)",
            "ShapeError"),
      fails({c.make({1, 2, 4, 3, 3, 3}), c.make({4, 3, 2, 2, 2})}, "6-d input", "ShapeError"),
      fails({c.make({2, 4, 2, 2, 2}), c.make({4, 3, 2, 2, 2}), Value(), IntList{1}, IntList{3}}, "output too small",
            "ShapeError"),
      fails({c.make({2, 4, 3, 3, 3}), c.make({4, 3, 2, 2, 2}), Value(), IntList{1}, IntList{0}, IntList{0}, 3},
            "groups 3 with 4 input channels", "ShapeError"),
  };
}

}  // namespace

std::vector<OpSamples> conv_pool3d_samples() {
  return {
      {.op = "conv_transpose3d.input",
       .samples = &conv_transpose3d_samples,
       .dtypes = {kFloat32, kFloat64, kInt64},
       .rtol_scale = 8,
       .accumulates = true},
      {"max_pool3d_with_indices", &max_pool3d_samples, kPool3dDTypes},
      {"max_pool3d", &max_pool3d_samples, kPool3dDTypes},
      {"avg_pool3d", &avg_pool3d_samples, kPool3dDTypes, 4},
      {"_adaptive_avg_pool3d", &adaptive_avg3d_kernel_samples, kPool3dDTypes, 4},
      {"adaptive_avg_pool3d", &adaptive_avg3d_samples, kPool3dDTypes, 4},
      {"adaptive_max_pool3d", &adaptive_max3d_samples, kPool3dDTypes},
  };
}

}  // namespace axle::conformance
