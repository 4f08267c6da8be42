// Samples for the activations family (dispatcher/src/ops/activations.cpp): each op
// runs over every dtype; dtypes torch 1.13's CPU kernels lack must raise DTypeError.
#include <cmath>

#include "samples.h"

namespace axle::conformance {
namespace {

const Layout C = Layout::Contiguous;

bool float_bf16(DType d) { return d == kFloat32 || d == kFloat64 || d == kBFloat16; }
bool no_half_bool(DType d) { return d != kFloat16 && d != kBool; }

std::vector<Sample> rejected(SampleContext& c, const Stack& extra = {}) {
  Stack args{c.make({3})};
  args.insert(args.end(), extra.begin(), extra.end());
  return {fails(std::move(args), std::string("unsupported dtype ") + std::string(dtype_name(c.dtype())), "DTypeError")};
}

// The unary variety (in place: without the expanded layout, which torch refuses to write).
std::vector<Sample> variety(SampleContext& c, const Stack& extra, bool in_place) {
  std::vector<Sample> out;
  for (Sample& s : unary_samples(c, extra))
    if (!in_place || s.note.find("expanded") == std::string::npos) out.push_back(std::move(s));
  return out;
}

// A few more cases with other argument values.
void more(std::vector<Sample>& out, SampleContext& c, const Stack& extra, const std::string& note) {
  Stack a{c.make({4, 5}, C, {}, -8, 8)}, b{c.make({2, 3, 4}, Layout::Transposed)};
  a.insert(a.end(), extra.begin(), extra.end());
  b.insert(b.end(), extra.begin(), extra.end());
  out.push_back(ok(std::move(a), note));
  out.push_back(ok(std::move(b), note + ", transposed"));
}

// NaN, infinities, halves and signed zeros (floating dtypes only).
Tensor special(SampleContext& c) {
  static const double v[] = {NAN, INFINITY, -INFINITY, 0.5, 1.5, 2.5, -0.5, -2.5, 0.0, -0.0, 1.25, 3.0};
  return from_blob(const_cast<double*>(v), {3, 4}, TensorOptions().dtype(kFloat64))
      .to(c.dtype(), false, true)
      .to(c.device());
}

// ---------------------------------------------------------------- activations
template <bool InPlace>
std::vector<Sample> float_act(SampleContext& c) {  // no extra args: selu, silu, hardsigmoid, hardswish
  if (!float_bf16(c.dtype())) return rejected(c);
  return variety(c, {}, InPlace);
}
template <bool InPlace>
std::vector<Sample> mish_samples(SampleContext& c) {
  if (c.dtype() != kFloat32 && c.dtype() != kFloat64) return rejected(c);
  return variety(c, {}, InPlace);
}
template <bool InPlace>
std::vector<Sample> leaky_relu_samples(SampleContext& c) {
  if (!float_bf16(c.dtype())) return rejected(c);
  std::vector<Sample> out = variety(c, {}, InPlace);
  more(out, c, {0.2}, "negative_slope 0.2");
  more(out, c, {-1.5}, "negative_slope -1.5");
  return out;
}
template <bool InPlace>
std::vector<Sample> elu_samples(SampleContext& c) {
  if (!float_bf16(c.dtype())) return rejected(c);
  std::vector<Sample> out = variety(c, {}, InPlace);
  more(out, c, {0.5, 2, 1.5}, "alpha 0.5, scale 2, input_scale 1.5");
  return out;
}
template <bool InPlace>
std::vector<Sample> celu_samples(SampleContext& c) {
  if (!float_bf16(c.dtype())) return rejected(c);
  std::vector<Sample> out = variety(c, {}, InPlace);
  more(out, c, {0.5}, "alpha 0.5");
  out.push_back(fails({c.make({3}), 0}, "alpha 0", "ValueError"));
  return out;
}
std::vector<Sample> gelu_samples(SampleContext& c) {
  if (!float_bf16(c.dtype())) return rejected(c);
  std::vector<Sample> out = variety(c, {}, false);
  more(out, c, {"tanh"}, "approximate tanh");
  out.push_back(fails({c.make({3}), "exact"}, "approximate 'exact'", "ValueError"));
  return out;
}
template <bool InPlace>
std::vector<Sample> hardtanh_samples(SampleContext& c) {
  const DType d = c.dtype();
  if (!no_half_bool(d)) return rejected(c);
  std::vector<Sample> out;
  if (d == kUInt8) {
    out = variety(c, {0, 2}, InPlace);
    more(out, c, {-0.5, 2.5}, "double limits (truncated)");
    out.push_back(fails({c.make({3})}, "default limits (negative) on uint8", "ValueError"));
  } else {
    out = variety(c, {}, InPlace);
    more(out, c, {-2.5, 0.5}, "limits [-2.5, 0.5]");
    more(out, c, {2, 1}, "min_val > max_val");
  }
  if (d == kInt8) out.push_back(fails({c.make({3}), -300, 2}, "limit out of int8's range", "DTypeError"));
  return out;
}
template <bool InPlace>
std::vector<Sample> relu6_samples(SampleContext& c) {
  if (!no_half_bool(c.dtype())) return rejected(c);
  std::vector<Sample> out = variety(c, {}, InPlace);
  more(out, c, {}, "values in [-8, 8)");
  return out;
}
template <bool InPlace>
std::vector<Sample> softplus_samples(SampleContext& c) {
  if (!float_bf16(c.dtype())) return rejected(c);
  std::vector<Sample> out = variety(c, {}, InPlace);
  more(out, c, {2, 1}, "beta 2, threshold 1");
  more(out, c, {0.5, 2}, "beta 0.5, threshold 2");
  return out;
}
std::vector<Sample> softsign_samples(SampleContext& c) {
  if (c.dtype() == kBool) return rejected(c);
  return variety(c, {}, false);
}
template <bool InPlace>
std::vector<Sample> threshold_samples(SampleContext& c) {
  if (!no_half_bool(c.dtype())) return rejected(c, {1, 2});
  std::vector<Sample> out = variety(c, {1.5, 7}, InPlace);
  if (c.dtype() == kUInt8)
    out.push_back(fails({c.make({3}), -0.5, 3}, "negative double threshold for uint8", "DTypeError"));
  else
    more(out, c, {-0.5, 3}, "threshold -0.5, value 3");
  if (c.dtype() == kInt8) out.push_back(fails({c.make({3}), 300, 2}, "threshold out of int8's range", "DTypeError"));
  return out;
}

std::vector<Sample> prelu_samples(SampleContext& c) {
  if (!float_bf16(c.dtype())) return {fails({c.make({2, 3}), c.make({3})}, "unsupported dtype", "DTypeError")};
  std::vector<Sample> out;
  out.push_back(ok({c.make({2, 3, 4}), c.make({3})}, "per-channel weight [3]"));
  out.push_back(ok({c.make({2, 3}), c.make({1})}, "one slope [1]"));
  out.push_back(ok({c.make({5}), c.make({})}, "1-d input, 0-d weight"));
  out.push_back(ok({c.make({}), c.make({1})}, "0-d input"));
  out.push_back(
      ok({c.make({4, 3, 5}, Layout::Transposed), c.make({3}, Layout::Stepped)}, "transposed input, stepped weight"));
  out.push_back(ok({c.make({2, 3, 2, 2}, Layout::ChannelsLast), c.make({3}, Layout::Offset)}, "channels-last input"));
  out.push_back(ok({c.make({2, 0, 4}), c.make({0})}, "zero channels"));
  out.push_back(fails({c.make({2, 3}), c.make({2})}, "weight numel != channels", "ShapeError"));
  out.push_back(fails({c.make({}), c.make({2})}, "0-d input with 2 slopes", "ShapeError"));
  out.push_back(fails({c.make({2, 3}), c.make({1, 3})}, "2-d weight", "ShapeError"));
  if (c.dtype() == kBFloat16) {  // torch's bfloat16 kernel takes float32 slopes too
    out.push_back(ok({c.make({2, 3}), c.make({3}, C, kFloat32)}, "float32 weight"));
  } else {
    const DType other = c.dtype() == kFloat64 ? kFloat32 : kFloat64;
    out.push_back(fails({c.make({2, 3}), c.make({3}, C, other)}, "weight of another dtype", "DTypeError"));
  }
  return out;
}

std::vector<Sample> glu_samples(SampleContext& c) {
  if (!float_bf16(c.dtype())) return {fails({c.make({2, 4})}, "unsupported dtype", "DTypeError")};
  std::vector<Sample> out;
  out.push_back(ok({c.make({4, 6})}, "default dim -1"));
  out.push_back(ok({c.make({4, 6}), 0}, "dim 0"));
  out.push_back(ok({c.make({2, 4, 3}, Layout::Transposed), 1}, "transposed, dim 1"));
  out.push_back(ok({c.make({3, 8}, Layout::Stepped), -1}, "stepped"));
  out.push_back(ok({c.make({0, 4}), 1}, "zero-size"));
  out.push_back(fails({c.make({})}, "0-d", "ShapeError"));
  out.push_back(fails({c.make({2, 3}), 1}, "odd size", "ShapeError"));
  out.push_back(fails({c.make({2, 4}), 2}, "dim out of range", "IndexError"));
  return out;
}

// ---------------------------------------------------------------- clamp
template <bool InPlace>
std::vector<Sample> clamp_tensor_samples(SampleContext& c) {
  // With both bounds torch has no float16 or bool kernel; with one bound, every dtype.
  const bool both_ok = c.dtype() != kFloat16 && c.dtype() != kBool;
  std::vector<Sample> out;
  auto both = [&](Stack args, std::string note) {
    out.push_back(both_ok ? ok(std::move(args), note) : fails(std::move(args), note, "DTypeError"));
  };
  both({c.make({3, 4}), c.make({3, 4}, C, {}, -5, 0), c.make({3, 4}, C, {}, 0, 5)}, "same shape");
  both({c.make({3, 4}), c.make({4}, C, {}, -5, 0), c.make({3, 1}, C, {}, 0, 5)}, "broadcast bounds");
  both({c.make({4, 3}, Layout::Offset), c.make({3}, C, {}, 0, 5), c.make({3}, C, {}, -5, 0)}, "min > max");
  out.push_back(ok({c.make({3, 4}), c.make({}, C, {}, -1, 1), Value()}, "0-d min only"));
  out.push_back(
      ok({c.make({3, 4}, Layout::Transposed), Value(), c.make({3, 4}, Layout::Stepped)}, "max only, strided"));
  out.push_back(ok({c.make({0, 3}), c.make({3}), Value()}, "zero-size"));
  if (!InPlace) {
    out.push_back(ok({c.make({3}), c.make({2, 3}, C, kInt32), Value()}, "int32 min broadcasts self"));
    both({c.make({4, 3}, Layout::Expanded), c.make({3}), c.make({4, 3})}, "expanded self");
  }
  out.push_back(fails({c.make({3})}, "neither min nor max", "ValueError"));
  out.push_back(fails({c.make({3}), c.make({2})}, "bounds do not broadcast", "ShapeError"));
  return out;
}

// clamp(self, Scalar? min, Scalar? max): scalars join type promotion.
template <bool InPlace>
std::vector<Sample> clamp_samples(SampleContext& c) {
  const DType d = c.dtype();
  if (d == kFloat16) return rejected(c, {0, 1});
  std::vector<Sample> out;
  if (d == kBool) {  // bool results have no kernel; int bounds give int64
    if (!InPlace)
      out = variety(c, {0, 1}, false);
    else
      out.push_back(fails({c.make({3}), 0, Value()}, "int64 result into bool self", "DTypeError"));
    out.push_back(fails({c.make({3}), false, true}, "bool bounds", "DTypeError"));
  } else {
    out = variety(c, {-2, 3}, InPlace);
    more(out, c, {Value(), 2}, "max only");
    more(out, c, {1, Value()}, "min only");
    more(out, c, {3, 1}, "min > max");
    if (is_floating_point(d))
      more(out, c, {-1.5, 2.5}, "float bounds");
    else if (!InPlace)
      more(out, c, {-1.5, 2.5}, "float bounds (float result)");
    else
      out.push_back(fails({c.make({3}), -1.5, 2.5}, "float result into integer self", "DTypeError"));
  }
  out.push_back(fails({c.make({3}), Value(), Value()}, "neither min nor max", "ValueError"));
  if (d == kInt8) out.push_back(fails({c.make({3}), 300, Value()}, "min out of int8's range", "DTypeError"));
  return out;
}

// ---------------------------------------------------------------- unary extras
template <bool InPlace>
std::vector<Sample> nan_to_num_samples(SampleContext& c) {
  std::vector<Sample> out = variety(c, {}, InPlace);
  if (is_floating_point(c.dtype())) {
    out.push_back(ok({special(c)}, "NaN and infinities"));
    out.push_back(ok({special(c), 2.0, 100.0, -7.0}, "given replacements"));
    out.push_back(ok({special(c), Value(), Value(), -1.5}, "neginf only"));
  } else {
    out.push_back(ok({c.make({3, 4}), 2.0, 100.0, -7.0}, "integers unchanged"));
  }
  return out;
}

template <bool InPlace>
std::vector<Sample> round_samples(SampleContext& c) {
  if (!no_half_bool(c.dtype())) return rejected(c);
  std::vector<Sample> out = variety(c, {}, InPlace);
  if (is_floating_point(c.dtype())) out.push_back(ok({special(c)}, "halves round to even"));
  return out;
}

template <bool InPlace>
std::vector<Sample> round_decimals_samples(SampleContext& c) {
  if (!float_bf16(c.dtype())) return rejected(c, {1});
  std::vector<Sample> out = variety(c, {2}, InPlace);
  out.push_back(ok({c.make({4, 5}, C, {}, -500, 500), 0}, "decimals 0"));
  out.push_back(ok({c.make({4, 5}, C, {}, -500, 500), -1}, "decimals -1"));
  out.push_back(ok({special(c), 1}, "special values"));
  return out;
}

template <bool InPlace>
std::vector<Sample> any_unary(SampleContext& c) {  // isnan, isinf, isfinite, logical_not
  std::vector<Sample> out = variety(c, {}, InPlace);
  if (is_floating_point(c.dtype())) out.push_back(ok({special(c)}, "NaN and infinities"));
  return out;
}

template <bool InPlace>
std::vector<Sample> bitwise_not_samples(SampleContext& c) {
  if (is_floating_point(c.dtype())) return rejected(c);
  return variety(c, {}, InPlace);
}

// ---------------------------------------------------------------- div, pow
std::vector<Sample> div_mode_samples(SampleContext& c) {
  const bool integral = !is_floating_point(c.dtype());
  std::vector<Sample> out;
  for (const char* mode : {"trunc", "floor"}) {
    if (c.dtype() == kBool) {
      out.push_back(fails({c.make({3}), c.make({3}), mode}, std::string("bool inputs, ") + mode, "DTypeError"));
      continue;
    }
    for (Sample& s : integral ? binary_samples(c, {mode}, 1, 6) : binary_samples(c, {mode})) {
      s.note += std::string(", ") + mode;
      out.push_back(std::move(s));
    }
    if (c.dtype() != kUInt8)
      out.push_back(ok({c.make({3, 4}, C, {}, -9, 9), c.make({3, 4}, C, {}, -6, -1), mode},
                       std::string("negative divisors, ") + mode));
    if (integral)
      out.push_back(fails({c.make({3}), c.make({3}, C, {}, 0, 0.5), mode}, std::string("division by zero, ") + mode,
                          "ValueError"));
  }
  for (Sample& s : binary_samples(c, {Value()}, 1, 6)) {
    s.note += ", rounding_mode None";
    out.push_back(std::move(s));
  }
  out.push_back(fails({c.make({3}), c.make({3}, C, {}, 1, 6), "round"}, "unknown rounding_mode", "ValueError"));
  return out;
}

std::vector<Sample> div_mode_inplace(SampleContext& c) {
  std::vector<Sample> out;
  const bool integral = !is_floating_point(c.dtype());
  for (const char* mode : {"trunc", "floor"}) {
    out.push_back(ok({c.make({3, 4}), c.make({3, 4}, C, {}, 1, 6), mode}, std::string("same shape, ") + mode));
    out.push_back(
        ok({c.make({3, 4}, Layout::Transposed), c.make({4}, C, {}, 1, 6), mode}, std::string("broadcast, ") + mode));
  }
  if (integral)
    out.push_back(
        fails({c.make({3}), c.make({3}, C, {}, 1, 6), Value()}, "true division into integer self", "DTypeError"));
  else
    out.push_back(ok({c.make({3, 4}), c.make({3, 4}, C, {}, 1, 6), Value()}, "true division"));
  out.push_back(
      fails({c.make({4}), c.make({3, 4}, C, {}, 1, 6), "floor"}, "other broadcasts beyond self", "ShapeError"));
  return out;
}

std::vector<Sample> pow_tensor_scalar_samples(SampleContext& c) {
  const DType d = c.dtype();
  std::vector<Sample> out = variety(c, {2}, false);
  more(out, c, {3}, "exponent 3");
  more(out, c, {0.5}, "exponent 0.5");
  more(out, c, {-1.5}, "exponent -1.5");
  more(out, c, {0}, "exponent 0");
  if (is_floating_point(d))
    more(out, c, {-2}, "exponent -2");
  else
    out.push_back(fails({c.make({3}), -2}, "negative integer exponent", "ValueError"));
  if (d == kBool) out.push_back(fails({c.make({3}), true}, "bool exponent (bool result)", "DTypeError"));
  return out;
}

std::vector<Sample> pow_inplace(SampleContext& c) {
  const DType d = c.dtype();
  std::vector<Sample> out;
  if (d == kBool) return {fails({c.make({3}), 2}, "int64 result into bool self", "DTypeError")};
  out = variety(c, {2}, true);
  if (is_floating_point(d))
    more(out, c, {-0.5}, "exponent -0.5");
  else
    out.push_back(fails({c.make({3}), 2.5}, "float result into integer self", "DTypeError"));
  return out;
}

std::vector<Sample> pow_scalar_samples(SampleContext& c) {
  std::vector<Sample> out;
  for (const Value& base : {Value(2), Value(2.5), Value(-1.5), Value(1)}) {
    out.push_back(ok({base, c.make({3, 4})}, "base " + base.repr()));
    out.push_back(ok({base, c.make({2, 3, 4}, Layout::Transposed)}, "base " + base.repr() + ", transposed"));
  }
  out.push_back(ok({2, c.make({})}, "0-d exponent"));
  out.push_back(ok({2, c.make({0, 3})}, "zero-size"));
  if (c.dtype() == kBool) out.push_back(fails({true, c.make({3})}, "bool base (bool result)", "DTypeError"));
  return out;
}

std::vector<Sample> gelu_backward_samples(SampleContext& c) {
  std::vector<Sample> out;
  for (const char* a : {"none", "tanh"}) {
    const std::string n = std::string(", approximate ") + a;
    out.push_back(ok({c.make({3, 4}), c.make({3, 4}, C, {}, -4, 4), a}, "[3, 4]" + n));
    out.push_back(ok({c.make({2, 3, 4}, Layout::Transposed), c.make({2, 3, 4}), a}, "transposed grad" + n));
    out.push_back(ok({c.make({}), c.make({}), a}, "0-d" + n));
    out.push_back(ok({c.make({3, 4}), special(c), a}, "NaN and infinities in self" + n));
  }
  out.push_back(ok({c.make({0, 3}), c.make({0, 3}), "none"}, "zero-size"));
  out.push_back(fails({c.make({2}), c.make({3}), "none"}, "shapes that do not broadcast", "ShapeError"));
  out.push_back(fails({c.make({3}), c.make({3}), "exact"}, "approximate 'exact'", "ValueError"));
  return out;
}

std::vector<Sample> threshold_backward_samples(SampleContext& c) {
  return {ok({c.make({3, 4}), c.make({3, 4}), 0}, "relu's: threshold 0"),
          ok({c.make({2, 3, 4}, Layout::Transposed), c.make({2, 3, 4}), 0.5}, "transposed grad, threshold 0.5"),
          ok({c.make({4, 5}), c.make({4, 5}, Layout::Stepped), -0.25}, "stepped self"),
          ok({c.make({}), c.make({}), -1}, "0-d"),
          ok({c.make({0, 3}), c.make({0, 3}), 0}, "zero-size"),
          ok({c.make({3, 4}), special(c), 1}, "NaN and infinities in self"),
          fails({c.make({2}), c.make({3}), 0}, "shapes that do not broadcast", "ShapeError")};
}

}  // namespace

std::vector<OpSamples> activations_samples() {
  return {
      {"relu6", &relu6_samples<false>},
      {"leaky_relu", &leaky_relu_samples<false>},
      {"elu", &elu_samples<false>, {}, 4},
      {"selu", &float_act<false>, {}, 4},
      {"celu", &celu_samples<false>, {}, 4},
      {"gelu", &gelu_samples, {}, 4},
      {"silu", &float_act<false>, {}, 4},
      {"mish", &mish_samples<false>, {}, 4},
      {"hardtanh", &hardtanh_samples<false>},
      {"hardsigmoid", &float_act<false>},
      {"hardswish", &float_act<false>},
      {"softplus", &softplus_samples<false>, {}, 4},
      {"softsign", &softsign_samples},
      {"prelu", &prelu_samples},
      {"glu", &glu_samples, {}, 4},
      {"threshold", &threshold_samples<false>},
      {"threshold_backward", &threshold_backward_samples, {kFloat32, kFloat64, kBFloat16}},
      {"gelu_backward", &gelu_backward_samples, {kFloat32, kFloat64, kBFloat16}, 4},
      {"relu_", &relu6_samples<true>},
      {"relu6_", &relu6_samples<true>},
      {"leaky_relu_", &leaky_relu_samples<true>},
      {"elu_", &elu_samples<true>, {}, 4},
      {"selu_", &float_act<true>, {}, 4},
      {"celu_", &celu_samples<true>, {}, 4},
      {"silu_", &float_act<true>, {}, 4},
      {"mish_", &mish_samples<true>, {}, 4},
      {"hardtanh_", &hardtanh_samples<true>},
      {"hardsigmoid_", &float_act<true>},
      {"hardswish_", &float_act<true>},
      {"threshold_", &threshold_samples<true>},
      {"clamp.Tensor", &clamp_tensor_samples<false>},
      {"clamp", &clamp_samples<false>},
      {"clamp_.Tensor", &clamp_tensor_samples<true>},
      {"clamp_", &clamp_samples<true>},
      {"nan_to_num", &nan_to_num_samples<false>},
      {"nan_to_num_", &nan_to_num_samples<true>},
      {"round", &round_samples<false>},
      {"round.decimals", &round_decimals_samples<false>},
      {"round_", &round_samples<true>},
      {"round_.decimals", &round_decimals_samples<true>},
      {"isnan", &any_unary<false>},
      {"isinf", &any_unary<false>},
      {"isfinite", &any_unary<false>},
      {"logical_not", &any_unary<false>},
      {"logical_not_", &any_unary<true>},
      {"bitwise_not", &bitwise_not_samples<false>},
      {"bitwise_not_", &bitwise_not_samples<true>},
      {"div.Tensor_mode", &div_mode_samples},
      {"div_.Tensor_mode", &div_mode_inplace, kNumeric},
      {"pow.Tensor_Scalar", &pow_tensor_scalar_samples, {}, 4},
      {"pow.Scalar", &pow_scalar_samples, {}, 4},
      {"pow_.Scalar", &pow_inplace, {}, 4},
  };
}

}  // namespace axle::conformance
