// Samples for convolution and 2-d pooling (dispatcher/src/ops/conv_pool.cpp).
// Integer convolutions other than int64 are undilated and not transposed only
// (torch's CPU kernels); pools are floating-point (avg_pool2d also int64).
#include "samples.h"

namespace axle::conformance {
namespace {

const Layout C = Layout::Contiguous, T = Layout::Transposed, S = Layout::Stepped, CL = Layout::ChannelsLast,
             O = Layout::Offset;
const std::vector<DType> kConvDTypes = {kFloat32, kFloat64, kBFloat16, kInt32, kInt64};
const std::vector<DType> kPoolDTypes = {kFloat32, kFloat64, kBFloat16, kInt64};

DType other_dtype(const SampleContext& c) { return c.dtype() == kFloat32 ? kFloat64 : kFloat32; }
// Whether to sample dilated and transposed convolutions of this dtype: torch's CPU
// kernels have no int32 ones, and its bfloat16 transposed convolution computes a
// plain convolution (a torch 1.13 bug axle does not copy), so neither is sampled.
bool full_conv(const SampleContext& c) { return c.dtype() != kInt32 && c.dtype() != kBFloat16; }
bool dilated_conv(const SampleContext& c) { return c.dtype() != kInt32; }

// convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
Stack conv_args(Tensor x, Tensor w, Value b, IntList s, IntList p, IntList d, bool tr, IntList op, int64_t g) {
  return {std::move(x), std::move(w), std::move(b), s, p, d, tr, op, g};
}

std::vector<Sample> convolution_samples(SampleContext& c) {
  std::vector<Sample> out = {
      ok(conv_args(c.make({2, 4, 7, 7}), c.make({6, 4, 3, 3}), c.make({6}), {1}, {0}, {1}, false, {0}, 1), "2-d"),
      ok(conv_args(c.make({1, 4, 9, 8}), c.make({6, 2, 3, 2}), c.make({6}), {2, 1}, {1, 0}, {1, 1}, false, {0}, 2),
         "2-d, stride (2, 1), padding (1, 0), groups 2"),
      ok(conv_args(c.make({2, 3, 10}), c.make({4, 3, 3}), Value(), {3}, {2}, {1}, false, {0}, 1),
         "1-d, stride 3, padding 2, no bias"),
      ok(conv_args(c.make({1, 2, 4, 5, 3}), c.make({3, 2, 2, 3, 1}), c.make({3}), {1}, {0, 1, 0}, {1}, false, {0}, 1),
         "3-d"),
      ok(conv_args(c.make({2, 3, 6, 5}, CL), c.make({5, 3, 3, 2}), c.make({5}), {1}, {1}, {1}, false, {0}, 1),
         "channels_last input"),
      ok(conv_args(c.make({2, 3, 6, 5}), c.make({5, 3, 3, 2}, CL), Value(), {2}, {0}, {1}, false, {0}, 1),
         "channels_last weight"),
      ok(conv_args(c.make({0, 4, 5, 5}), c.make({6, 4, 3, 3}), c.make({6}), {1}, {0}, {1}, false, {0}, 1), "batch 0"),
      fails(conv_args(c.make({2, 4, 7, 7}), c.make({6, 3, 3, 3}), Value(), {1}, {0}, {1}, false, {0}, 1),
            "input channels differ", "ShapeError"),
      fails(conv_args(c.make({2, 4, 5, 5}), c.make({6, 4, 6, 6}), Value(), {1}, {0}, {1}, false, {0}, 1),
            "kernel larger than the padded input", "ShapeError"),
      fails(conv_args(c.make({2, 4, 7, 7}), c.make({6, 4, 3, 3}), Value(), {0}, {0}, {1}, false, {0}, 1), "stride 0",
            "ValueError"),
      fails(conv_args(c.make({2, 4, 7, 7}), c.make({6, 4, 3, 3}), Value(), {1}, {-1}, {1}, false, {0}, 1),
            "negative padding", "ValueError"),
      fails(conv_args(c.make({2, 4, 7, 7}), c.make({6, 4, 3, 3}), Value(), {1}, {0}, {1}, false, {0}, 0), "groups 0",
            "ValueError"),
      fails(conv_args(c.make({2, 4, 7, 7}), c.make({6, 4, 3, 3}), c.make({5}), {1}, {0}, {1}, false, {0}, 1),
            "bias of the wrong size", "ShapeError"),
      fails(conv_args(c.make({2, 4, 7, 7}), c.make({6, 4, 3, 3}, C, other_dtype(c)), Value(), {1}, {0}, {1}, false, {0},
                      1),
            "weight dtype differs", "DTypeError"),
      fails(conv_args(c.make({4, 7, 7}), c.make({6, 4, 3, 3}), Value(), {1}, {0}, {1}, false, {0}, 1),
            "3-d input for a 4-d weight", "ShapeError"),
      fails(conv_args(c.make({2, 4, 7, 7}), c.make({6, 4, 3, 3}), Value(), {1, 1, 1}, {0}, {1}, false, {0}, 1),
            "three strides for two spatial dims", "ValueError"),
      fails(conv_args(c.make({2, 4, 7}), c.make({6, 4}), Value(), {1}, {0}, {1}, false, {0}, 1), "2-d weight",
            "ShapeError"),
  };
  if (dilated_conv(c))
    out.push_back(
        ok(conv_args(c.make({1, 4, 9, 8}, T), c.make({4, 2, 2, 3}), c.make({4}), {1, 2}, {2, 1}, {2, 3}, false, {0}, 2),
           "transposed-layout input, dilation (2, 3)"));
  if (full_conv(c)) {
    out.push_back(ok(conv_args(c.make({2, 4, 5, 5}), c.make({4, 3, 3, 3}), c.make({3}), {2}, {1}, {1}, true, {1}, 1),
                     "transposed, stride 2, output_padding 1"));
    out.push_back(ok(
        conv_args(c.make({1, 4, 4, 3}, S), c.make({4, 2, 2, 3}), c.make({4}), {1, 2}, {0, 1}, {2, 1}, true, {1, 0}, 2),
        "transposed, groups 2, dilation (2, 1)"));
    out.push_back(
        ok(conv_args(c.make({2, 3, 6}, O), c.make({3, 2, 4}), Value(), {3}, {1}, {1}, true, {2}, 1), "transposed 1-d"));
    out.push_back(fails(conv_args(c.make({2, 4, 5, 5}), c.make({4, 3, 3, 3}), Value(), {1}, {0}, {1}, true, {1}, 1),
                        "output_padding not smaller than stride or dilation", "ValueError"));
    out.push_back(fails(conv_args(c.make({2, 4, 2, 2}), c.make({4, 3, 2, 2}), Value(), {1}, {3}, {1}, true, {0}, 1),
                        "transposed output too small", "ShapeError"));
    out.push_back(fails(conv_args(c.make({2, 3, 5, 5}), c.make({4, 3, 3, 3}), Value(), {1}, {0}, {1}, true, {0}, 1),
                        "transposed, input channels differ", "ShapeError"));
  }
  return out;
}

std::vector<Sample> convolution_out_samples(SampleContext& c) {
  auto with_out = [](Stack args, Tensor o) {
    args.push_back(std::move(o));
    return args;
  };
  std::vector<Sample> out = {
      ok(with_out(conv_args(c.make({2, 4, 7, 7}), c.make({6, 4, 3, 3}), c.make({6}), {1}, {0}, {1}, false, {0}, 1),
                  c.make({2, 6, 5, 5})),
         "2-d into out"),
      ok(with_out(conv_args(c.make({2, 3, 6, 5}), c.make({5, 3, 3, 2}), Value(), {2}, {1}, {1}, false, {0}, 1),
                  c.make({2, 5, 3, 3}, CL)),
         "into a channels_last out"),
  };
  if (full_conv(c))
    out.push_back(
        ok(with_out(conv_args(c.make({2, 4, 5, 5}), c.make({4, 3, 3, 3}), Value(), {2}, {1}, {1}, true, {1}, 1),
                    c.make({2, 3, 10, 10})),
           "transposed into out"));
  return out;
}

// conv1d / conv2d: (input, weight, bias, stride, padding, dilation, groups)
std::vector<Sample> conv1d_samples(SampleContext& c) {
  std::vector<Sample> out = {
      ok({c.make({2, 4, 9}), c.make({6, 4, 3}), c.make({6})}, "defaults"),
      ok({c.make({4, 9}), c.make({6, 4, 3}), c.make({6})}, "unbatched"),
      ok({c.make({1, 4, 10}, S), c.make({6, 2, 4}), Value(), IntList{2}, IntList{1}, IntList{1}, 2},
         "stride 2, padding 1, groups 2, stepped input"),
      ok({c.make({0, 4, 9}), c.make({6, 4, 3})}, "batch 0"),
      fails({c.make({2, 4, 7, 7}), c.make({6, 4, 3})}, "4-d input", "ShapeError"),
      fails({c.make({7}), c.make({6, 4, 3})}, "1-d input", "ShapeError"),
      fails({c.make({3, 9}), c.make({6, 4, 3})}, "unbatched, channels differ", "ShapeError"),
  };
  if (dilated_conv(c))
    out.push_back(
        ok({c.make({2, 3, 11}), c.make({2, 3, 3}), c.make({2}), IntList{1}, IntList{2}, IntList{3}, 1}, "dilation 3"));
  return out;
}

std::vector<Sample> conv2d_samples(SampleContext& c) {
  std::vector<Sample> out = {
      ok({c.make({2, 4, 7, 7}), c.make({6, 4, 3, 3}), c.make({6})}, "defaults"),
      ok({c.make({4, 7, 6}), c.make({6, 4, 3, 3}), c.make({6})}, "unbatched"),
      ok({c.make({1, 4, 9, 7}), c.make({6, 2, 3, 2}), c.make({6}), IntList{2, 1}, IntList{1, 2}, IntList{1}, 2},
         "stride (2, 1), padding (1, 2), groups 2, batch 1"),
      ok({c.make({2, 3, 6, 5}, CL), c.make({4, 3, 3, 3}), c.make({4}), IntList{1}, IntList{1}}, "channels_last input"),
      ok({c.make({2, 3, 6, 5}, T), c.make({4, 3, 1, 1}), Value(), IntList{2}}, "transposed-layout input, 1x1 kernel"),
      ok({c.make({0, 4, 5, 5}), c.make({6, 4, 3, 3})}, "batch 0"),
      fails({c.make({7, 7}), c.make({6, 4, 3, 3})}, "2-d input", "ShapeError"),
      fails({c.make({1, 2, 4, 7, 7}), c.make({6, 4, 3, 3})}, "5-d input", "ShapeError"),
      fails({c.make({2, 4, 7, 7}), c.make({6, 4, 3, 3}), Value(), IntList{1}, IntList{0}, IntList{1}, 3},
            "groups 3 with 4 input channels", "ShapeError"),
      fails({c.make({2, 4, 7, 7}), c.make({6, 4, 8, 8})}, "kernel larger than the input", "ShapeError"),
      fails({c.make({2, 4, 7, 7}), c.make({6, 4, 3, 3}), Value(), IntList{-1}}, "negative stride", "ValueError"),
  };
  if (dilated_conv(c))
    out.push_back(ok({c.make({2, 4, 9, 9}, O), c.make({2, 4, 3, 2}), Value(), IntList{1}, IntList{0}, IntList{2, 3}},
                     "dilation (2, 3), offset input"));
  return out;
}

// conv1d.padding / conv2d.padding: padding 'valid' or 'same'.
std::vector<Sample> conv1d_padding_samples(SampleContext& c) {
  std::vector<Sample> out = {
      ok({c.make({2, 4, 9}), c.make({6, 4, 3}), c.make({6}), IntList{1}, "same"}, "same, odd kernel"),
      ok({c.make({2, 4, 9}), c.make({6, 4, 4}), c.make({6}), IntList{1}, "same"}, "same, even kernel (asymmetric)"),
      ok({c.make({4, 9}), c.make({6, 4, 3}), Value(), IntList{1}, "valid"}, "valid, unbatched"),
      fails({c.make({2, 4, 9}), c.make({6, 4, 3}), Value(), IntList{2}, "same"}, "same with stride 2", "ValueError"),
      fails({c.make({2, 4, 9}), c.make({6, 4, 3}), Value(), IntList{1}, "full"}, "unknown padding string",
            "ValueError"),
  };
  if (dilated_conv(c))
    out.push_back(ok({c.make({2, 4, 9}), c.make({6, 4, 2}), Value(), IntList{1}, "same", IntList{3}},
                     "same, even kernel, dilation 3"));
  return out;
}

std::vector<Sample> conv2d_padding_samples(SampleContext& c) {
  std::vector<Sample> out = {
      ok({c.make({2, 4, 7, 6}), c.make({6, 4, 3, 5}), c.make({6}), IntList{1}, "same"}, "same, odd kernel"),
      ok({c.make({2, 4, 7, 6}, CL), c.make({6, 4, 2, 3}), c.make({6}), IntList{1}, "same"},
         "same, even kernel height, channels_last"),
      ok({c.make({4, 7, 6}), c.make({6, 4, 4, 4}), Value(), IntList{1}, "same"}, "same, unbatched"),
      ok({c.make({2, 4, 7, 6}), c.make({6, 2, 3, 3}), Value(), IntList{2, 1}, "valid", IntList{1}, 2},
         "valid, stride (2, 1), groups 2"),
      fails({c.make({2, 4, 7, 7}), c.make({6, 4, 3, 3}), Value(), IntList{1, 2}, "same"}, "same with stride (1, 2)",
            "ValueError"),
      fails({c.make({2, 4, 7, 7}), c.make({6, 4, 3, 3}), Value(), IntList{1}, "Same"}, "unknown padding string",
            "ValueError"),
  };
  if (dilated_conv(c))
    out.push_back(ok({c.make({1, 4, 7, 6}), c.make({6, 4, 2, 3}), Value(), IntList{1}, "same", IntList{2, 3}},
                     "same, dilation (2, 3)"));
  return out;
}

// conv_transpose2d.input(input, weight, bias, stride, padding, output_padding, groups, dilation)
std::vector<Sample> conv_transpose2d_samples(SampleContext& c) {
  return {
      ok({c.make({2, 4, 5, 5}), c.make({4, 3, 3, 3}), c.make({3})}, "defaults"),
      ok({c.make({4, 5, 4}), c.make({4, 3, 3, 3}), c.make({3})}, "unbatched"),
      ok({c.make({1, 4, 5, 4}, CL), c.make({4, 3, 3, 2}), Value(), IntList{2}, IntList{1}, IntList{1}},
         "stride 2, padding 1, output_padding 1, channels_last"),
      ok({c.make({2, 4, 3, 5}, T), c.make({4, 2, 2, 3}), c.make({4}), IntList{1, 2}, IntList{0, 1}, IntList{0, 1}, 2,
          IntList{2, 1}},
         "groups 2, dilation (2, 1), transposed-layout input"),
      ok({c.make({0, 4, 5, 5}), c.make({4, 3, 3, 3})}, "batch 0"),
      fails({c.make({2, 4, 5, 5}), c.make({4, 3, 3, 3}), Value(), IntList{1}, IntList{0}, IntList{1}},
            "output_padding 1 with stride 1", "ValueError"),
      fails({c.make({2, 3, 5, 5}), c.make({4, 3, 3, 3})}, "input channels differ", "ShapeError"),
      fails({c.make({1, 2, 4, 5, 5}), c.make({4, 3, 3, 3})}, "5-d input", "ShapeError"),
      fails({c.make({2, 4, 2, 2}), c.make({4, 3, 2, 2}), Value(), IntList{1}, IntList{3}}, "output too small",
            "ShapeError"),
  };
}

// ---------------------------------------------------------------- pooling

bool floating_pool(const SampleContext& c) { return is_floating_point(c.dtype()); }

// (self, kernel_size, stride, padding, dilation, ceil_mode)
std::vector<Sample> max_pool_samples(SampleContext& c) {
  if (!floating_pool(c)) return {fails({c.make({1, 2, 4, 4}), IntList{2}}, "integer input", "DTypeError")};
  return {
      ok({c.make({2, 3, 7, 7}), IntList{2}}, "kernel 2 (stride = kernel)"),
      ok({c.make({2, 3, 7, 7}), IntList{3, 3}, IntList{2, 2}, IntList{1, 1}}, "kernel 3, stride 2, padding 1"),
      ok({c.make({1, 2, 9, 6}), IntList{3, 2}, IntList{2, 3}, IntList{1, 1}, IntList{2, 1}, true},
         "odd sizes, dilation (2, 1), ceil_mode"),
      ok({c.make({2, 3, 7, 7}), IntList{3}, IntList{2}, IntList{1}, IntList{1}, true}, "ceil_mode with padding"),
      ok({c.make({3, 6, 5}), IntList{2}, IntList{1}}, "3-d input, stride 1"),
      ok({c.make({2, 3, 6, 5}, CL), IntList{2, 3}, IntList{}, IntList{1}}, "channels_last input"),
      ok({c.make({2, 3, 6, 5}, T), IntList{2}}, "transposed-layout input"),
      ok({c.make({2, 3, 6, 5}, S), IntList{3}, IntList{1}, IntList{0}, IntList{2}}, "stepped input, dilation 2"),
      ok({c.make({0, 3, 6, 5}), IntList{2}}, "batch 0"),
      fails({c.make({6, 5}), IntList{2}}, "2-d input", "ShapeError"),
      fails({c.make({2, 3, 0, 5}), IntList{2}}, "zero height", "ShapeError"),
      fails({c.make({2, 3, 6, 5}), IntList{2}, IntList{2}, IntList{2}}, "padding above half the kernel", "ValueError"),
      fails({c.make({2, 3, 6, 5}), IntList{2}, IntList{0}}, "stride 0", "ValueError"),
      fails({c.make({2, 3, 6, 5}), IntList{2, 2, 2}}, "three kernel sizes", "ValueError"),
      fails({c.make({1, 1, 3, 3}), IntList{4}}, "output size 0", "ShapeError"),
  };
}

// (self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
std::vector<Sample> avg_pool_samples(SampleContext& c) {
  return {
      ok({c.make({2, 3, 7, 7}), IntList{2}}, "kernel 2"),
      ok({c.make({2, 3, 7, 6}), IntList{3}, IntList{2}, IntList{1}, false, false}, "padding, count_include_pad=False"),
      ok({c.make({1, 2, 9, 6}), IntList{3, 2}, IntList{2, 3}, IntList{1, 1}, true}, "odd sizes, ceil_mode"),
      ok({c.make({2, 3, 7, 7}), IntList{3}, IntList{2}, IntList{1}, true, false}, "ceil_mode, count_include_pad=False"),
      ok({c.make({2, 3, 7, 7}), IntList{2}, IntList{}, IntList{0}, false, true, 3}, "divisor_override 3"),
      ok({c.make({3, 6, 5}), IntList{2}, IntList{1}}, "3-d input"),
      ok({c.make({2, 3, 6, 5}, CL), IntList{2, 3}, IntList{}, IntList{1}}, "channels_last input"),
      ok({c.make({2, 3, 6, 5}, T), IntList{2}}, "transposed-layout input"),
      ok({c.make({0, 3, 6, 5}), IntList{2}}, "batch 0"),
      fails({c.make({6, 5}), IntList{2}}, "2-d input", "IndexError"),
      fails({c.make({2, 0, 6, 5}), IntList{2}}, "zero channels", "ShapeError"),
      fails({c.make({2, 3, 6, 5}), IntList{2}, IntList{2}, IntList{2}}, "padding above half the kernel", "ValueError"),
      fails({c.make({2, 3, 6, 5}), IntList{2}, IntList{}, IntList{0}, false, true, 0}, "divisor 0", "ValueError"),
      fails({c.make({1, 1, 3, 3}), IntList{4}}, "output size 0", "ShapeError"),
  };
}

// (self, output_size) for the adaptive pools; `avg` adds the cases only the average pool accepts.
std::vector<Sample> adaptive_samples(SampleContext& c, bool max) {
  if (!floating_pool(c)) return {fails({c.make({1, 2, 4, 4}), IntList{2, 2}}, "integer input", "DTypeError")};
  std::vector<Sample> out = {
      ok({c.make({2, 3, 7, 9}), IntList{3, 4}}, "[7, 9] to [3, 4]"),
      ok({c.make({2, 3, 7, 9}), IntList{7, 9}}, "same size"),
      ok({c.make({1, 2, 5, 4}), IntList{8, 11}}, "larger output"),
      ok({c.make({3, 6, 5}), IntList{4, 2}}, "3-d input"),
      ok({c.make({2, 3, 6, 5}, CL), IntList{4, 3}}, "channels_last input"),
      ok({c.make({2, 3, 6, 5}, T), IntList{2, 3}}, "transposed-layout input"),
      ok({c.make({2, 3, 6, 5}), IntList{0, 0}}, "output [0, 0]"),
      ok({c.make({0, 3, 6, 5}), IntList{2, 2}}, "batch 0"),
      fails({c.make({6, 5}), IntList{2, 2}}, "2-d input", "ShapeError"),
      fails({c.make({2, 3, 0, 5}), IntList{2, 2}}, "zero height", "ShapeError"),
      fails({c.make({2, 3, 6, 5}), IntList{2, 2, 2}}, "three output sizes", "ValueError"),
      fails({c.make({2, 3, 6, 5}), IntList{-1, 2}}, "negative output size", "ValueError"),
  };
  if (max)
    out.push_back(fails({c.make({2, 0, 6, 5}), IntList{2, 2}}, "zero channels", "ShapeError"));
  else
    out.push_back(ok({c.make({2, 0, 6, 5}), IntList{2, 2}}, "zero channels"));
  return out;
}

std::vector<Sample> adaptive_avg_kernel_samples(SampleContext& c) { return adaptive_samples(c, false); }
std::vector<Sample> adaptive_avg_samples(SampleContext& c) {
  std::vector<Sample> out = adaptive_samples(c, false);
  if (floating_pool(c)) {
    out.push_back(ok({c.make({2, 3, 6, 5}), IntList{1, 1}}, "[1, 1]: a mean"));
    out.push_back(ok({c.make({6, 5}), IntList{1, 1}}, "2-d input to [1, 1] (a mean, as torch)"));
  }
  return out;
}
std::vector<Sample> adaptive_max_samples(SampleContext& c) { return adaptive_samples(c, true); }

}  // namespace

std::vector<OpSamples> conv_pool_samples() {
  return {
      {.op = "convolution",
       .samples = &convolution_samples,
       .dtypes = kConvDTypes,
       .rtol_scale = 8,
       .accumulates = true},
      {.op = "convolution.out",
       .samples = &convolution_out_samples,
       .dtypes = kConvDTypes,
       .rtol_scale = 8,
       .accumulates = true},
      {.op = "conv1d", .samples = &conv1d_samples, .dtypes = kConvDTypes, .rtol_scale = 8, .accumulates = true},
      {.op = "conv1d.padding",
       .samples = &conv1d_padding_samples,
       .dtypes = kConvDTypes,
       .rtol_scale = 8,
       .accumulates = true},
      {.op = "conv2d", .samples = &conv2d_samples, .dtypes = kConvDTypes, .rtol_scale = 8, .accumulates = true},
      {.op = "conv2d.padding",
       .samples = &conv2d_padding_samples,
       .dtypes = kConvDTypes,
       .rtol_scale = 8,
       .accumulates = true},
      {.op = "conv_transpose2d.input",
       .samples = &conv_transpose2d_samples,
       .dtypes = {kFloat32, kFloat64, kInt64},
       .rtol_scale = 8,
       .accumulates = true},
      {"max_pool2d_with_indices", &max_pool_samples, kPoolDTypes},
      {"max_pool2d", &max_pool_samples, kPoolDTypes},
      {"avg_pool2d", &avg_pool_samples, kPoolDTypes, 4},
      {"_adaptive_avg_pool2d", &adaptive_avg_kernel_samples, kPoolDTypes, 4},
      {"adaptive_avg_pool2d", &adaptive_avg_samples, kPoolDTypes, 4},
      {"adaptive_max_pool2d", &adaptive_max_samples, kPoolDTypes},
  };
}

}  // namespace axle::conformance
