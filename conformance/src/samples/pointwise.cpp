// Samples for the pointwise ops (dispatcher/src/ops/pointwise.cpp).
#include "samples.h"

#include <string>

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
// Shifts: integer counts in [-3, 12) (past int8's width), then in [-70, 70)
// (past every width, taken modulo it as torch 1.13 does), and the Scalar forms.
const std::vector<DType> kIntegral = {kInt8, kUInt8, kInt16, kInt32, kInt64};
std::vector<Sample> shift_samples(SampleContext& c) {
  std::vector<Sample> out = binary_samples(c, {}, -3, 12);
  out.push_back(ok({c.make({4, 5}), c.make({4, 5}, Layout::Contiguous, {}, -70, 70)}, "counts in [-70, 70)"));
  out.push_back(fails({c.make({2}), c.make({2}, Layout::Contiguous, kFloat32)}, "float operand", "DTypeError"));
  out.push_back(fails({c.make({2}, Layout::Contiguous, kBool), c.make({2}, Layout::Contiguous, kBool)}, "bool operands",
                      "DTypeError"));
  return out;
}
std::vector<Sample> shift_scalar_other(SampleContext& c) {
  std::vector<Sample> out;
  for (int64_t count : {0, 3, 7, 8, 31, 33, 63, 64, 70, -1})
    out.push_back(ok({c.make({3, 4}), Value(count)}, "count " + std::to_string(count)));
  out.push_back(fails({c.make({2}), Value(1.5)}, "float count", "DTypeError"));
  return out;
}
std::vector<Sample> shift_scalar_self(SampleContext& c) {
  std::vector<Sample> out;
  for (int64_t v : {1, -5, 100})
    out.push_back(ok({Value(v), c.make({3, 4}, Layout::Contiguous, {}, -3, 12)}, "value " + std::to_string(v)));
  return out;
}
std::vector<Sample> shift_inplace(SampleContext& c) {
  const Layout C = Layout::Contiguous;
  return {ok({c.make({3, 4}), c.make({4}, C, {}, -3, 12)}, "broadcast other"),
          ok({c.make({3, 4}, Layout::Transposed), c.make({}, C, {}, 0, 12)}, "transposed self, 0-d other"),
          fails({c.make({4}), c.make({3, 4}, C, {}, 0, 6)}, "other broadcasts beyond self", "ShapeError")};
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
      {"bitwise_left_shift.Tensor", &shift_samples, kIntegral},
      {"bitwise_right_shift.Tensor", &shift_samples, kIntegral},
      {"bitwise_left_shift.Tensor_Scalar", &shift_scalar_other, kIntegral},
      {"bitwise_right_shift.Tensor_Scalar", &shift_scalar_other, kIntegral},
      {"bitwise_left_shift.Scalar_Tensor", &shift_scalar_self, kIntegral},
      {"bitwise_right_shift.Scalar_Tensor", &shift_scalar_self, kIntegral},
      {"bitwise_left_shift_.Tensor", &shift_inplace, kIntegral},
      {"bitwise_right_shift_.Tensor", &shift_inplace, kIntegral},
      {"bitwise_left_shift_.Tensor_Scalar", &shift_scalar_other, kIntegral},
      {"bitwise_right_shift_.Tensor_Scalar", &shift_scalar_other, kIntegral},
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
