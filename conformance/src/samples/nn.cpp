// Samples for the NN ops (dispatcher/src/ops/nn.cpp). Dtypes torch 1.13's CPU
// kernels lack (float16 softmax and norms, integer reflect padding, ...) are
// run as expected DTypeErrors.
#include "samples.h"

namespace axle::conformance {
namespace {

const Layout C = Layout::Contiguous, T = Layout::Transposed, St = Layout::Stepped, E = Layout::Expanded,
             CL = Layout::ChannelsLast, O = Layout::Offset;

bool norm_dtype(DType d) { return d == kFloat32 || d == kFloat64 || d == kBFloat16; }

std::vector<Sample> softmax_samples(SampleContext& c) {
  if (!norm_dtype(c.dtype())) {
    std::vector<Sample> out = {fails({c.make({2, 3}), 1}, "unsupported dtype", "DTypeError")};
    out.push_back(ok({c.make({2, 3}), 1, kFloat32}, "dtype=float32 converts first"));
    return out;
  }
  return {
      ok({c.make({3, 4}), 1}, "dim 1"),
      ok({c.make({2, 3, 4}, T), 0}, "transposed, dim 0"),
      ok({c.make({3, 5}, St), -1}, "stepped, dim -1"),
      ok({c.make({4, 3}, E), 0}, "expanded, dim 0"),
      ok({c.make({2, 3}, O), -2}, "offset, dim -2"),
      ok({c.make({2, 3, 4, 5}, CL), 1}, "channels_last, dim 1"),
      ok({c.make({}), 0}, "0-d"),
      ok({c.make({0, 3}), 1}, "zero-size"),
      ok({c.make({2, 5}, C, {}, -30, 30), 1, kFloat64}, "large values, dtype=float64"),
      fails({c.make({2, 3}), 2}, "dim out of range", "IndexError"),
      fails({c.make({2, 3}), 1, kFloat16}, "dtype=float16", "DTypeError"),
  };
}

std::vector<Sample> batch_norm_samples(SampleContext& c) {
  auto stats = [&](int64_t n) { return std::pair{c.make({n}), c.make({n}, C, {}, 0.5, 2)}; };
  if (!norm_dtype(c.dtype())) {
    auto [m, v] = stats(3);
    return {
        fails({c.make({2, 3, 4}), Value(), Value(), m, v, false, 0.1, 1e-5, false}, "unsupported dtype", "DTypeError")};
  }
  std::vector<Sample> out;
  auto [m, v] = stats(3);
  out.push_back(ok({c.make({2, 3, 4}), c.make({3}), c.make({3}), m, v, false, 0.1, 1e-5, false}, "eval, affine"));
  out.push_back(ok({c.make({4, 3}), Value(), Value(), m, v, false, 0.1, 1e-3, false}, "2-d, eval, no affine"));
  out.push_back(ok({c.make({2, 3, 4, 5}, CL), c.make({3}), Value(), m, v, false, 0.1, 1e-5, false},
                   "channels_last, weight only"));
  out.push_back(ok({c.make({2, 3, 4}, T), Value(), c.make({3}, St), m, v, false, 0.1, 1e-5, false},
                   "transposed input, stepped bias"));
  out.push_back(ok({c.make({4, 3, 5}), c.make({3}), c.make({3}), Value(), Value(), true, 0.1, 1e-5, false},
                   "training: batch statistics"));
  out.push_back(ok({c.make({0, 3, 4}), Value(), Value(), m, v, false, 0.1, 1e-5, false}, "zero batch"));
  if (c.dtype() == kBFloat16) {
    Tensor m32 = c.make({3}, C, kFloat32), v32 = c.make({3}, C, kFloat32, 0.5, 2);
    out.push_back(ok({c.make({2, 3, 4}), c.make({3}, C, kFloat32), Value(), m32, v32, false, 0.1, 1e-5, false},
                     "bfloat16 input, float32 parameters"));
  }
  auto [m4, v4] = stats(4);
  out.push_back(fails({c.make({2, 3, 4}), Value(), Value(), m4, v4, false, 0.1, 1e-5, false},
                      "running stats of 4 for 3 channels", "ShapeError"));
  out.push_back(fails({c.make({2, 3, 4}), Value(), Value(), Value(), Value(), false, 0.1, 1e-5, false},
                      "eval without running stats", "ValueError"));
  out.push_back(fails({c.make({3}), Value(), Value(), m, v, false, 0.1, 1e-5, false}, "1-d input", "ShapeError"));
  return out;
}

// _native_batch_norm_legit.no_stats(input, weight, bias, training, momentum, eps)
std::vector<Sample> batch_norm_no_stats_samples(SampleContext& c) {
  if (!norm_dtype(c.dtype()))
    return {fails({c.make({2, 3, 4}), Value(), Value(), true, 0.1, 1e-5}, "unsupported dtype", "DTypeError")};
  std::vector<Sample> out = {
      ok({c.make({4, 3, 5}), c.make({3}), c.make({3}), true, 0.1, 1e-5}, "affine"),
      ok({c.make({2, 16, 4, 4}), c.make({16}), c.make({16}), true, 0.1, 1e-5}, "4-d, 16 channels"),
      ok({c.make({6, 5}), Value(), Value(), true, 0.1, 1e-3}, "2-d, no affine"),
      ok({c.make({2, 3, 4, 5}, CL), c.make({3}), Value(), true, 0.1, 1e-5}, "channels_last, weight only"),
      ok({c.make({2, 3, 4}, T), Value(), c.make({3}, St), true, 0.1, 1e-5}, "transposed input, stepped bias"),
      ok({c.make({1, 3, 2}), c.make({3}), c.make({3}), true, 0.1, 1e-5}, "two values per channel"),
      fails({c.make({2, 3, 4}), c.make({4}), Value(), true, 0.1, 1e-5}, "weight of 4 for 3 channels", "ShapeError"),
      fails({c.make({2, 3, 4}), Value(), Value(), false, 0.1, 1e-5}, "training=False", "ValueError"),
      fails({c.make({0, 3, 4}), Value(), Value(), true, 0.1, 1e-5}, "no values per channel", "ValueError"),
      fails({c.make({3}), Value(), Value(), true, 0.1, 1e-5}, "1-d input", "IndexError"),
  };
  if (c.dtype() == kBFloat16)
    out.push_back(ok({c.make({2, 3, 4}), c.make({3}, C, kFloat32), Value(), true, 0.1, 1e-5},
                     "bfloat16 input, float32 weight: float32 statistics"));
  return out;
}

// _native_batch_norm_legit(input, weight, bias, running_mean!, running_var!, training, momentum, eps)
std::vector<Sample> batch_norm_legit_samples(SampleContext& c) {
  auto mean = [&](int64_t n) { return c.make({n}); };
  auto var = [&](int64_t n) { return c.make({n}, C, {}, 0.5, 1.5); };
  if (!norm_dtype(c.dtype()))
    return {fails({c.make({2, 3, 4}), Value(), Value(), mean(3), var(3), true, 0.1, 1e-5}, "unsupported dtype",
                  "DTypeError")};
  return {
      ok({c.make({4, 3, 5}), c.make({3}), c.make({3}), mean(3), var(3), true, 0.1, 1e-5}, "training, affine"),
      ok({c.make({2, 16, 4, 4}), Value(), Value(), mean(16), var(16), true, 0.3, 1e-5}, "4-d, momentum 0.3"),
      ok({c.make({2, 3, 4, 5}, CL), c.make({3}), Value(), mean(3), var(3), true, 0.1, 1e-5}, "channels_last"),
      ok({c.make({6, 5}), Value(), c.make({5}), mean(5), var(5), true, 0.1, 1e-3}, "2-d, bias only, eps 1e-3"),
      ok({c.make({2, 3, 4}), c.make({3}), c.make({3}), mean(3), var(3), false, 0.1, 1e-5},
         "evaluation: the running statistics, empty ones returned"),
      fails({c.make({2, 3, 4}), Value(), Value(), mean(4), var(3), true, 0.1, 1e-5}, "running_mean of 4 for 3 channels",
            "ShapeError"),
      fails({c.make({0, 3, 4}), Value(), Value(), mean(3), var(3), true, 0.1, 1e-5}, "no values per channel",
            "ValueError"),
      fails({c.make({3}), Value(), Value(), mean(3), var(3), true, 0.1, 1e-5}, "1-d input", "IndexError"),
  };
}

std::vector<Sample> layer_norm_samples(SampleContext& c) {
  if (!norm_dtype(c.dtype())) return {fails({c.make({2, 3}), IntList{3}}, "unsupported dtype", "DTypeError")};
  return {
      ok({c.make({2, 3, 4}), IntList{4}, c.make({4}), c.make({4})}, "last dim, affine"),
      ok({c.make({2, 3, 4}, T), IntList{3, 4}}, "transposed, last 2 dims"),
      ok({c.make({3, 5}, St), IntList{5}, Value(), c.make({5}), 1e-3}, "stepped, bias only, eps 1e-3"),
      ok({c.make({4, 3}, E), IntList{4, 3}, c.make({4, 3}, T)}, "expanded, whole tensor, transposed weight"),
      ok({c.make({0, 4}), IntList{4}}, "zero rows"),
      ok({c.make({2, 0}), IntList{0}}, "zero-size normalized dim"),
      fails({c.make({2, 3, 4}), IntList{3}}, "normalized_shape mismatch", "ShapeError"),
      fails({c.make({2, 3}), IntList{}}, "empty normalized_shape", "ShapeError"),
      fails({c.make({2, 3}), IntList{3}, c.make({2})}, "weight shape mismatch", "ShapeError"),
      fails({c.make({2, 3}), IntList{3}, c.make({3}, C, c.dtype() == kFloat64 ? kFloat32 : kFloat64)},
            "weight dtype mismatch", "DTypeError"),
      fails({c.make({}), IntList{1}}, "0-d input", "ShapeError"),
  };
}

std::vector<Sample> rms_norm_samples(SampleContext& c) {
  if (!is_floating_point(c.dtype())) return {fails({c.make({2, 3}), IntList{3}}, "integral input", "DTypeError")};
  return {
      ok({c.make({2, 3, 4}), IntList{4}, c.make({4})}, "last dim, weight"),
      ok({c.make({2, 3, 4}, T), IntList{3, 4}}, "transposed, last 2 dims, eps None"),
      ok({c.make({3, 5}, St), IntList{5}, Value(), 1e-2}, "stepped, eps 1e-2"),
      ok({c.make({0, 4}), IntList{4}}, "zero rows"),
      fails({c.make({2, 3, 4}), IntList{3}}, "normalized_shape mismatch", "ShapeError"),
      fails({c.make({2, 3}), IntList{3}, c.make({4})}, "weight shape mismatch", "ShapeError"),
  };
}

std::vector<Sample> group_norm_samples(SampleContext& c) {
  if (!norm_dtype(c.dtype())) return {fails({c.make({2, 4, 3}), 2}, "unsupported dtype", "DTypeError")};
  return {
      ok({c.make({2, 4, 3}), 2, c.make({4}), c.make({4})}, "2 groups, affine"),
      ok({c.make({2, 6, 2, 3}, CL), 3}, "channels_last, 3 groups"),
      ok({c.make({3, 4}), 4, Value(), c.make({4}, St), 1e-3}, "2-d, one channel per group"),
      ok({c.make({2, 4, 5}, T), 1, c.make({4})}, "transposed, 1 group"),
      ok({c.make({0, 4, 3}), 2}, "zero batch"),
      fails({c.make({2, 3, 4}), 2}, "3 channels in 2 groups", "ValueError"),
      fails({c.make({2, 4, 3}), -1}, "negative groups", "ValueError"),
      fails({c.make({2, 4, 3}), 2, c.make({3})}, "weight size mismatch", "ShapeError"),
  };
}

std::vector<Sample> dropout_samples(SampleContext& c) {
  return {
      ok({c.make({3, 4}), 0.5, false}, "not training: identity"),
      ok({c.make({2, 3, 4}, T), 0.0, true}, "p=0 training: identity"),
      ok({c.make({3, 5}, St), 1.0, true}, "p=1 training: zeros"),
      ok({c.make({0, 3}), 0.5, true}, "zero-size training"),
      fails({c.make({3}), 1.5, false}, "p out of [0, 1]", "ValueError"),
  };
}

std::vector<Sample> sdpa_samples(SampleContext& c) {
  const double lo = -2, hi = 2;
  auto q = [&](IntList s, Layout l = C) { return c.make(s, l, {}, lo, hi); };
  Tensor bool_mask = c.make({3, 5}, C, kBool);
  std::vector<Sample> out = {
      ok({q({2, 3, 4}), q({2, 5, 4}), q({2, 5, 6})}, "3-d"),
      ok({q({1, 2, 3, 4}), q({1, 2, 5, 4}, T), q({1, 2, 5, 4}, St)}, "4-d heads, transposed key, stepped value"),
      ok({q({2, 3, 4}), q({2, 5, 4}), q({2, 5, 6}), bool_mask}, "bool mask"),
      ok({q({2, 3, 4}), q({2, 5, 4}), q({2, 5, 6}), q({2, 1, 5})}, "float mask broadcast over queries"),
      ok({q({2, 4, 4}), q({2, 4, 4}), q({2, 4, 3}), Value(), 0.0, true}, "is_causal"),
      ok({q({3, 4}), q({5, 4}), q({5, 2}), Value(), 0.0, false, 0.5}, "2-d, scale 0.5"),
      ok({q({2, 0, 4}), q({2, 5, 4}), q({2, 5, 6})}, "no queries"),
      fails({q({2, 3, 4}), q({2, 5, 4}), q({2, 5, 6}), bool_mask, 0.0, true}, "is_causal with a mask", "ValueError"),
      fails({q({2, 3, 4}), q({2, 5, 3}), q({2, 5, 6})}, "embedding sizes differ", "ShapeError"),
      fails({q({2, 3, 4}), q({2, 5, 4}), q({2, 4, 6})}, "key/value lengths differ", "ShapeError"),
      fails({q({2, 3, 4}), q({2, 5, 4}), c.make({2, 5, 6}, C, kInt64)}, "value dtype differs", "DTypeError"),
  };
  // The composite computes in the input dtype (16-bit matmuls and softmax round in between).
  if (c.dtype() == kBFloat16) loosen(out, 3e-2, 2e-2);
  if (c.dtype() == kFloat16) loosen(out, 4e-3, 2e-3);
  return out;
}

std::vector<Sample> nearest_samples(SampleContext& c) {
  const DType d = c.dtype();
  if (!(norm_dtype(d) || d == kUInt8)) return {fails({c.make({1, 2, 3, 3}), IntList{6, 6}}, "dtype", "DTypeError")};
  return {
      ok({c.make({1, 2, 3, 4}), IntList{6, 8}}, "upsample x2"),
      ok({c.make({2, 2, 3, 3}, CL), IntList{5, 7}}, "channels_last, 3 -> 5, 7"),
      ok({c.make({1, 3, 3, 3}), IntList{5, 7}, 1.7, 2.5}, "with scales"),
      ok({c.make({1, 2, 6, 5}, T), IntList{3, 2}}, "transposed, downsample"),
      ok({c.make({0, 2, 3, 3}), IntList{4, 4}}, "zero batch"),
      fails({c.make({2, 3, 3}), IntList{4, 4}}, "3-d input", "ShapeError"),
      fails({c.make({1, 2, 3, 3}), IntList{0, 4}}, "output size 0", "ShapeError"),
      fails({c.make({1, 0, 3, 3}), IntList{4, 4}}, "no channels", "ShapeError"),
  };
}

std::vector<Sample> bilinear_samples(SampleContext& c) {
  if (!norm_dtype(c.dtype())) return {fails({c.make({1, 2, 3, 3}), IntList{6, 6}, false}, "dtype", "DTypeError")};
  return {
      ok({c.make({1, 2, 3, 4}), IntList{6, 8}, false}, "upsample x2"),
      ok({c.make({1, 2, 3, 4}), IntList{7, 5}, true}, "align_corners"),
      ok({c.make({2, 2, 3, 3}, CL), IntList{5, 7}, false}, "channels_last"),
      ok({c.make({1, 3, 3, 3}), IntList{5, 7}, false, 1.7, 2.5}, "with scales"),
      ok({c.make({1, 2, 6, 5}, T), IntList{3, 2}, false}, "transposed, downsample"),
      ok({c.make({1, 2, 4, 4}), IntList{1, 1}, true}, "align_corners to 1x1"),
      ok({c.make({0, 2, 3, 3}), IntList{4, 4}, false}, "zero batch"),
      fails({c.make({2, 3, 3}), IntList{4, 4}, false}, "3-d input", "ShapeError"),
      fails({c.make({1, 2, 0, 3}), IntList{4, 4}, false}, "empty input plane", "ShapeError"),
  };
}

std::vector<Sample> pad_samples(SampleContext& c) {
  const bool f = c.dtype() == kFloat32 || c.dtype() == kFloat64;
  std::vector<Sample> out = {
      ok({c.make({2, 3}), IntList{1, 2}}, "constant, last dim"),
      ok({c.make({2, 3, 4}, T), IntList{1, 0, 2, 1}, "constant", 2.5}, "transposed, 2 dims, value 2.5"),
      ok({c.make({3, 5}, St), IntList{-1, 2, 0, -2}}, "stepped, negative pads crop"),
      c.dtype() == kUInt8
          ? fails({c.make({4, 3}, E), IntList{0, 0, 1, 1}, "constant", -1.0}, "expanded, value -1", "DTypeError")
          : ok({c.make({4, 3}, E), IntList{0, 0, 1, 1}, "constant", -1.0}, "expanded, value -1"),
      ok({c.make({}), IntList{}}, "0-d, no padding"),
      ok({c.make({0, 3}), IntList{1, 1, 1, 1}}, "zero-size grows"),
      ok({c.make({2, 3}, O), IntList{0, -3}}, "offset, cropped to empty"),
      ok({c.make({1, 2, 4}), IntList{1, 2}, "circular"}, "circular 1-d"),
      fails({c.make({2, 3}), IntList{1}}, "odd pad length", "ValueError"),
      fails({c.make({2, 3}), IntList{0, -2, -1, -2}}, "negative output size", "ShapeError"),
      fails({c.make({1, 2, 3}), IntList{1, 1}, "bogus"}, "unknown mode", "NotImplementedError"),
  };
  out.push_back(fails({c.make({4, 3}), IntList{0, 0, 1, 1, 2, 0}}, "pad length too large", "ValueError"));
  if (!f) {
    out.push_back(fails({c.make({1, 2, 4}), IntList{1, 2}, "reflect"}, "reflect: float only", "DTypeError"));
    out.push_back(fails({c.make({1, 2, 4}), IntList{1, 2}, "replicate"}, "replicate: float only", "DTypeError"));
    return out;
  }
  out.push_back(ok({c.make({1, 2, 5}), IntList{2, 3}, "reflect"}, "reflect 1-d"));
  out.push_back(ok({c.make({2, 5}, T), IntList{-1, 2}, "reflect"}, "reflect, unbatched, transposed, negative"));
  out.push_back(ok({c.make({1, 3, 4}), IntList{1, 2, 2, 1}, "reflect"}, "reflect 2-d"));
  out.push_back(ok({c.make({2, 2, 3, 4}, CL), IntList{2, 0, 1, 2}, "replicate"}, "replicate 2-d, channels_last"));
  out.push_back(ok({c.make({1, 2, 3, 3, 3}), IntList{1, 1, 0, 2, 2, 1}, "replicate"}, "replicate 3-d"));
  out.push_back(ok({c.make({0, 2, 3}), IntList{1, 1}, "reflect"}, "reflect, zero batch"));
  out.push_back(fails({c.make({1, 2, 3}), IntList{3, 0}, "reflect"}, "reflect pad >= size", "ShapeError"));
  out.push_back(fails({c.make({1, 2, 3}), IntList{1, 1}, "reflect", 1.0}, "reflect with a value", "ValueError"));
  out.push_back(
      fails({c.make({1, 2, 3, 3}), IntList{1, 1}, "reflect"}, "reflect 1-d pad of a 4-d input", "NotImplementedError"));
  out.push_back(fails({c.make({1, 0, 3}), IntList{1, 1}, "replicate"}, "replicate, empty channel", "ShapeError"));
  out.push_back(fails({c.make({1, 2, 3}), IntList{-2, -1}, "replicate"}, "replicate to nothing", "ShapeError"));
  return out;
}

}  // namespace

std::vector<OpSamples> nn_samples() {
  const std::vector<DType> kNorm = {kFloat32, kFloat64, kBFloat16, kFloat16, kInt64};
  return {
      {"softmax.int", &softmax_samples, kNorm, 4},
      {"log_softmax.int", &softmax_samples, kNorm, 4},
      {"batch_norm", &batch_norm_samples, kNorm, 4},
      {"_native_batch_norm_legit.no_stats", &batch_norm_no_stats_samples, kNorm, 4},
      {"_native_batch_norm_legit", &batch_norm_legit_samples, kNorm, 4},
      {"layer_norm", &layer_norm_samples, kNorm, 4},
      {"group_norm", &group_norm_samples, kNorm, 4},
      {"rms_norm", &rms_norm_samples, {kFloat32, kFloat64, kBFloat16, kFloat16, kInt64}, 4},
      {"dropout", &dropout_samples},
      {"scaled_dot_product_attention", &sdpa_samples, kFloating, 8},
      {"upsample_nearest2d", &nearest_samples, {kFloat32, kFloat64, kBFloat16, kUInt8, kFloat16, kInt32}},
      {"upsample_bilinear2d", &bilinear_samples, {kFloat32, kFloat64, kBFloat16, kFloat16}, 4},
      {"pad", &pad_samples},
  };
}

}  // namespace axle::conformance
