// Samples for the pointwise ops (dispatcher/src/ops/pointwise.cpp).
#include "samples.h"

namespace axle::conformance {
namespace {

const std::vector<DType> kNoBool = kNumeric;
const std::vector<DType> kIntegralAndBool = {kInt8, kUInt8, kInt16, kInt32, kInt64, kBool};

std::vector<Sample> add_samples(SampleContext& c) {
  std::vector<Sample> out = binary_samples(c);
  if (c.dtype() != kBool) {
    for (Sample& s : binary_samples(c, {2})) {
      s.note += ", alpha 2";
      out.push_back(std::move(s));
    }
  }
  if (is_integral(c.dtype(), true))
    out.push_back(fails({c.make({2}), c.make({2}), 0.5}, "float alpha with integer inputs", "DTypeError"));
  return out;
}

std::vector<Sample> plain_binary(SampleContext& c) { return binary_samples(c); }
// Divisors and moduli kept away from zero (integer division by zero raises).
std::vector<Sample> nonzero_rhs(SampleContext& c) { return binary_samples(c, {}, 1, 6); }
std::vector<Sample> pow_samples(SampleContext& c) {
  return is_floating_point(c.dtype()) ? binary_samples(c, {}, -2, 3) : binary_samples(c, {}, 0, 4);
}
std::vector<Sample> bitwise_samples(SampleContext& c) {
  std::vector<Sample> out = binary_samples(c);
  out.push_back(fails({c.make({2}), c.make({2}, Layout::Contiguous, kFloat32)}, "float operand", "DTypeError"));
  return out;
}
std::vector<Sample> sub_bool_fails(SampleContext& c) {
  if (c.dtype() != kBool) return add_samples(c);
  return {fails({c.make({2}), c.make({2})}, "two bool tensors", "DTypeError")};
}

// In-place: self keeps its shape and dtype; the other operand broadcasts to it.
std::vector<Sample> inplace_samples(SampleContext& c) {
  std::vector<Sample> out;
  const Layout C = Layout::Contiguous;
  out.push_back(ok({c.make({3, 4}), c.make({3, 4}, C, {}, 1, 6)}, "same shape"));
  out.push_back(ok({c.make({3, 4}), c.make({4}, C, {}, 1, 6)}, "broadcast other"));
  out.push_back(ok({c.make({3, 4}, Layout::Transposed), c.make({}, C, {}, 1, 6)}, "transposed self, 0-d other"));
  out.push_back(ok({c.make({3, 5}, Layout::Stepped), c.make({3, 5}, Layout::Offset, {}, 1, 6)}, "stepped self"));
  out.push_back(fails({c.make({4}), c.make({3, 4}, C, {}, 1, 6)}, "other broadcasts beyond self", "ShapeError"));
  if (is_integral(c.dtype(), true))
    out.push_back(fails({c.make({3}), c.make({3}, C, kFloat32, 1, 6)}, "float result into integer self", "DTypeError"));
  return out;
}

std::vector<Sample> unary(SampleContext& c) { return unary_samples(c); }
std::vector<Sample> unary_unit(SampleContext& c) {  // asin, acos, ...: mostly inside [-1, 1]
  std::vector<Sample> out;
  for (Sample& s : unary_samples(c)) out.push_back(std::move(s));
  out.push_back(ok({c.make({4, 5}, Layout::Contiguous, {}, -1, 1)}, "values in [-1, 1)"));
  return out;
}
std::vector<Sample> bool_rejected(SampleContext& c) {
  if (c.dtype() == kBool) return {fails({c.make({3})}, "bool input", "DTypeError")};
  return unary_samples(c);
}
std::vector<Sample> floating_only(SampleContext& c) {
  if (!is_floating_point(c.dtype())) return {fails({c.make({3})}, "integral input", "DTypeError")};
  return unary_samples(c);
}

}  // namespace

std::vector<OpSamples> pointwise_samples() {
  std::vector<OpSamples> v = {
      {"add.Tensor", &add_samples},
      {"sub.Tensor", &sub_bool_fails},
      {"mul.Tensor", &plain_binary},
      {"div.Tensor", &nonzero_rhs},
      {"add_.Tensor", &inplace_samples, kNumeric},
      {"sub_.Tensor", &inplace_samples, kNumeric},
      {"mul_.Tensor", &inplace_samples, kNumeric},
      {"div_.Tensor", &inplace_samples, kFloating},
      {"maximum", &plain_binary},
      {"minimum", &plain_binary},
      {"atan2", &plain_binary, {}, 4},
      {"remainder.Tensor", &nonzero_rhs, kNumeric},
      {"fmod.Tensor", &nonzero_rhs, kNumeric},
      {"pow.Tensor_Tensor", &pow_samples, kNumeric, 4},
      {"logical_and", &plain_binary},
      {"logical_or", &plain_binary},
      {"logical_xor", &plain_binary},
      {"bitwise_and.Tensor", &bitwise_samples, kIntegralAndBool},
      {"bitwise_or.Tensor", &bitwise_samples, kIntegralAndBool},
      {"bitwise_xor.Tensor", &bitwise_samples, kIntegralAndBool},
      {"neg", &bool_rejected},
      {"abs", &bool_rejected},
      {"floor", &bool_rejected},
      {"ceil", &bool_rejected},
      {"trunc", &bool_rejected},
      {"relu", &bool_rejected},
      {"frac", &floating_only},
      {"sign", &unary},
      {"square", &unary},
  };
  for (const char* op : {"eq.Tensor", "ne.Tensor", "lt.Tensor", "le.Tensor", "gt.Tensor", "ge.Tensor"})
    v.push_back({op, &plain_binary});
  // Transcendental float ops: libm in double vs float32 arithmetic differ by a few ulp.
  for (const char* op : {"exp", "exp2", "expm1", "log",  "log2", "log10", "log1p", "sqrt",    "rsqrt", "reciprocal",
                         "sin", "cos",  "tan",   "atan", "sinh", "cosh",  "tanh",  "sigmoid", "erf",   "erfc"})
    v.push_back({op, &unary, {}, 4});
  for (const char* op : {"asin", "acos"}) v.push_back({op, &unary_unit, {}, 4});
  return v;
}

}  // namespace axle::conformance
