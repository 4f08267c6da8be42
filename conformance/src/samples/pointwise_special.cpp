// Samples for the special functions (dispatcher/src/ops/pointwise_special.cpp):
// the usual layouts with values in each function's domain, and per function a
// tensor of edge values (zeros of both signs, poles, infinities, NaN, large and
// tiny arguments, the branch points of the implementations).
#include "samples.h"

#include <cmath>
#include <string>

namespace axle::conformance {
namespace {

const Layout C = Layout::Contiguous;
constexpr double kNaN = NAN, kInf = INFINITY;

// A 1-d tensor of `values` in the dtype under test.
Tensor values_of(SampleContext& c, const std::vector<double>& values) {
  return from_blob(const_cast<double*>(values.data()), {static_cast<int64_t>(values.size())},
                   TensorOptions().dtype(kFloat64))
      .to(c.dtype(), false, true)
      .to(c.device());
}

// The layouts of one operand with values in [lo, hi) (`before`: arguments ahead
// of it, `after`: behind it), and the edge values for floating dtypes.
std::vector<Sample> ranged(SampleContext& c, double lo, double hi, const std::vector<double>& edges,
                           const Stack& before = {}, const Stack& after = {}) {
  std::vector<Sample> out;
  auto add = [&](Tensor t, std::string note) {
    Stack args = before;
    args.push_back(std::move(t));
    args.insert(args.end(), after.begin(), after.end());
    out.push_back(ok(std::move(args), std::move(note)));
  };
  add(c.make({3, 4}, C, {}, lo, hi), "contiguous [3, 4]");
  add(c.make({}, C, {}, lo, hi), "0-d");
  add(c.make({0, 3}, C, {}, lo, hi), "zero-size [0, 3]");
  add(c.make({2, 3, 4}, Layout::Transposed, {}, lo, hi), "transposed [2, 3, 4]");
  add(c.make({3, 5}, Layout::Stepped, {}, lo, hi), "stepped [3, 5]");
  add(c.make({4, 3}, Layout::Expanded, {}, lo, hi), "expanded [4, 3]");
  add(c.make({2, 3}, Layout::Offset, {}, lo, hi), "offset [2, 3]");
  if (is_floating_point(c.dtype())) add(values_of(c, edges), "edge values");
  return out;
}

std::vector<Sample> lgamma_samples(SampleContext& c) {
  return ranged(c, -5, 5,
                {kNaN, kInf, -kInf, 0.0, -0.0, -1, -2, -2.5, -0.5, 1, 2, 0.5, 1e-8, -1e-8, 1e10, 171.5, -170.5, 3e5});
}
std::vector<Sample> digamma_samples(SampleContext& c) {
  return ranged(c, -5, 5,
                {kNaN, kInf, -kInf, 0.0, -0.0, -1, -3, -2.5, -0.5, 0.5, 1, 2.75, 1e-8, -1e-8, 1e10, 30, -30.3, 9.9});
}
// polygamma(n, x) for n = 0..3; integer inputs stay positive (torch 1.13's
// trigamma gives finite values at the poles -1, -2, ...), and so do random ones
// for n = 1 (its float32 reflection loses digits near the poles: float64 is
// compared there in tests/python/test_special.py).
std::vector<Sample> polygamma_samples(SampleContext& c) {
  std::vector<Sample> out;
  const bool integral = !is_floating_point(c.dtype());
  for (int64_t n = 0; n < 4; ++n) {
    std::vector<double> edges = {kNaN, kInf, -kInf, 0.0, -0.0, -2.5, -0.5, 0.5, 1, 1e-3, 50, 1e6, -7.25, 9.75};
    if (n >= 2) edges.push_back(-3);
    for (Sample& s : ranged(c, integral || n == 1 ? 1 : -5, 6, edges, {Value(n)})) {
      s.note += ", n " + std::to_string(n);
      out.push_back(std::move(s));
    }
  }
  out.push_back(fails({Value(int64_t{-1}), c.make({3})}, "negative n", "ValueError"));
  return out;
}
std::vector<Sample> mvlgamma_samples(SampleContext& c) {
  if (c.dtype() == kBool) return {fails({c.make({3}), Value(int64_t{2})}, "bool input", "DTypeError")};
  std::vector<Sample> out;
  for (int64_t p = 1; p < 4; ++p)
    for (Sample& s : ranged(c, 2, 7, {kNaN, kInf, 1.5, 3.25, 50}, {}, {Value(p)})) {
      s.note += ", p " + std::to_string(p);
      out.push_back(std::move(s));
    }
  out.push_back(fails({c.make({3}, C, {}, 2, 5), Value(int64_t{0})}, "p 0", "ValueError"));
  return out;
}
std::vector<Sample> erfinv_samples(SampleContext& c) {
  return ranged(c, -1, 1,
                {kNaN, kInf, -kInf, 0.0, -0.0, 1, -1, 0.5, -0.5, 0.499, 0.999999, -0.9999999999, 1e-30, 1.5, -2, 0.1});
}
std::vector<Sample> bessel_samples(SampleContext& c) {
  std::vector<Sample> out =
      ranged(c, -5, 5, {kNaN, kInf, -kInf, 0.0, -0.0, 1e-10, -1e-10, 29.9, 30.1, -50, 100, 700, 720, -720});
  out.push_back(ok({c.make({4, 5}, C, {}, -80, 80)}, "values in [-80, 80)"));
  return out;
}
std::vector<Sample> erfcx_samples(SampleContext& c) {
  std::vector<Sample> out =
      ranged(c, -5, 5, {kNaN, kInf, -kInf, 0.0, -0.0, -1, -5, -26, -27, 0.5, 5, 11.99, 12.01, 30, 1e10, 1e300, -1e-10});
  out.push_back(ok({c.make({4, 5}, C, {}, -3, 40)}, "values in [-3, 40)"));
  return out;
}
std::vector<Sample> ndtri_samples(SampleContext& c) {
  return ranged(c, 0, 1,
                {kNaN, kInf, -kInf, 0.0, -0.0, 1, 0.5, 1e-300, 1e-10, 0.975, 1 - 1e-12, -0.1, 1.1,
                 2.2250738585072014e-308, 5e-324, 0.25});
}

// igamma(a, x), igammac(a, x): a in (0, 8), x in (0, 12), and edge pairs.
std::vector<Sample> igamma_samples(SampleContext& c) {
  if (!is_floating_point(c.dtype()))
    return {fails({c.make({3}), c.make({3})}, "integral or bool inputs", "DTypeError")};
  std::vector<Sample> out;
  auto add = [&](Tensor a, Tensor x, std::string note) { out.push_back(ok({std::move(a), std::move(x)}, note)); };
  add(c.make({3, 4}, C, {}, 0, 8), c.make({3, 4}, C, {}, 0, 12), "same shape");
  add(c.make({3, 1, 4}, C, {}, 0, 8), c.make({5, 4}, C, {}, 0, 12), "broadcast [3, 1, 4] x [5, 4]");
  add(c.make({}, C, {}, 0, 8), c.make({2, 3}, C, {}, 0, 12), "0-d x [2, 3]");
  add(c.make({0, 4}, C, {}, 0, 8), c.make({4}, C, {}, 0, 12), "zero-size");
  add(c.make({3, 4}, Layout::Transposed, {}, 0, 8), c.make({3, 4}, Layout::Stepped, {}, 0, 12), "transposed x stepped");
  add(c.make({2, 3}, C, {}, 0, 8), c.make({2, 3}, C, kInt32, 0, 12), "mixed dtype with int32");
  add(c.make({3, 4}, C, {}, 20, 200), c.make({3, 4}, C, {}, 20, 200), "large a and x");
  // (a = inf with a finite x is in test_special.py: its gradient, torch's formula, is inf * 0.)
  add(values_of(c, {0, 0, 1, kNaN, 1, kInf, 2, -1, 1, 0.5, 100, 1000, 1e-3, 5, 30, 1e-20, 3}),
      values_of(c, {0, 1, 0, 1, kNaN, kInf, kInf, 1, -1, 1e-5, 101, 950, 1e-3, 50, 29, 1, 1e-20}), "edge values");
  out.push_back(fails({c.make({2, 3}), c.make({4})}, "shapes [2, 3] and [4] do not broadcast", "ShapeError"));
  return out;
}

// special_zeta(x, q): x in [1, 6), q in (0, 5) (integers: x from 2, q from 1), and edge pairs.
std::vector<Sample> zeta_samples(SampleContext& c) {
  const bool integral = !is_floating_point(c.dtype());
  const double x0 = integral ? 2 : 1, q0 = integral ? 1 : 0;
  std::vector<Sample> out;
  auto add = [&](Tensor a, Tensor x, std::string note) { out.push_back(ok({std::move(a), std::move(x)}, note)); };
  add(c.make({3, 4}, C, {}, x0, 6), c.make({3, 4}, C, {}, q0, 5), "same shape");
  add(c.make({3, 1, 4}, C, {}, x0, 6), c.make({5, 4}, C, {}, q0, 5), "broadcast [3, 1, 4] x [5, 4]");
  add(c.make({}, C, {}, x0, 6), c.make({2, 3}, C, {}, q0, 5), "0-d x [2, 3]");
  add(c.make({0, 4}, C, {}, x0, 6), c.make({4}, C, {}, q0, 5), "zero-size");
  add(c.make({3, 4}, Layout::Transposed, {}, x0, 6), c.make({3, 4}, Layout::Stepped, {}, q0, 5),
      "transposed x stepped");
  add(c.make({2, 3}, C, {}, x0, 6), c.make({2, 3}, C, kInt32, 1, 5), "mixed dtype with int32");
  if (!integral) {
    add(values_of(c, {kInf, 1, 0.5, 2, 2, 2, 2.5, 3, kNaN, 2, 1.0001, 3, 4, 2, 6}),
        values_of(c, {1, 2, 2, kInf, 0, -2, -1.5, -1.5, 1, kNaN, 1, 1e10, -10.3, -kInf, 1e-3}), "edge values");
  }
  out.push_back(fails({c.make({2, 3}), c.make({4})}, "shapes [2, 3] and [4] do not broadcast", "ShapeError"));
  return out;
}
std::vector<Sample> zeta_self_scalar(SampleContext& c) {
  return {ok({Value(2.5), c.make({3, 4}, C, {}, 1, 5)}, "self 2.5"),
          ok({Value(int64_t{3}), c.make({2, 3}, Layout::Transposed, {}, 1, 5)}, "self 3, transposed other")};
}
std::vector<Sample> zeta_other_scalar(SampleContext& c) {
  const double x0 = is_floating_point(c.dtype()) ? 1 : 2;
  return {ok({c.make({3, 4}, C, {}, x0, 6), Value(1.5)}, "other 1.5"),
          ok({c.make({2, 3}, Layout::Stepped, {}, x0, 6), Value(int64_t{2})}, "other 2, stepped self")};
}

// In-place forms: self keeps its dtype (a float result into an integer self fails).
std::vector<Sample> inplace_unary(SampleContext& c, double lo, double hi, const Stack& after = {}) {
  if (!is_floating_point(c.dtype())) {
    Stack args{c.make({3}, C, {}, 1, 3)};
    args.insert(args.end(), after.begin(), after.end());
    return {fails(std::move(args), "float result into an integer self", "DTypeError")};
  }
  std::vector<Sample> out;
  for (Layout l : {C, Layout::Transposed, Layout::Stepped}) {
    Stack args{c.make({3, 4}, l, {}, lo, hi)};
    args.insert(args.end(), after.begin(), after.end());
    out.push_back(ok(std::move(args), std::string(layout_name(l)) + " self"));
  }
  return out;
}
std::vector<Sample> lgamma_inplace(SampleContext& c) { return inplace_unary(c, -5, 5); }
std::vector<Sample> erfinv_inplace(SampleContext& c) { return inplace_unary(c, -1, 1); }
std::vector<Sample> polygamma_inplace(SampleContext& c) { return inplace_unary(c, 0.5, 5, {Value(int64_t{2})}); }
std::vector<Sample> mvlgamma_inplace(SampleContext& c) { return inplace_unary(c, 2, 6, {Value(int64_t{3})}); }
std::vector<Sample> igamma_inplace(SampleContext& c) {
  if (!is_floating_point(c.dtype()))
    return {fails({c.make({3}, C, {}, 1, 3), c.make({3}, C, {}, 1, 3)}, "integral inputs", "DTypeError")};
  return {
      ok({c.make({3, 4}, C, {}, 0, 8), c.make({4}, C, {}, 0, 12)}, "broadcast other"),
      ok({c.make({3, 4}, Layout::Transposed, {}, 0, 8), c.make({}, C, {}, 0, 12)}, "transposed self, 0-d other"),
      fails({c.make({4}, C, {}, 0, 8), c.make({3, 4}, C, {}, 0, 12)}, "other broadcasts beyond self", "ShapeError")};
}

}  // namespace

std::vector<OpSamples> pointwise_special_samples() {
  const std::vector<DType> numeric = kNumeric;
  return {
      {"lgamma", &lgamma_samples, {}, 4},
      {"digamma", &digamma_samples, {}, 4},
      {"polygamma", &polygamma_samples, {}, 4},
      {"mvlgamma", &mvlgamma_samples, {}, 4},
      {"erfinv", &erfinv_samples, {}, 4},
      {"i0", &bessel_samples, {}, 4},
      {"special_i1", &bessel_samples, {}, 4},
      {"special_i0e", &bessel_samples, {}, 4},
      {"special_i1e", &bessel_samples, {}, 4},
      {"special_erfcx", &erfcx_samples, {}, 4},
      {"special_ndtri", &ndtri_samples, {}, 4},
      {"igamma", &igamma_samples, {}, 4},
      {"igammac", &igamma_samples, {}, 4},
      {"special_zeta", &zeta_samples, {}, 4},
      {"special_zeta.self_scalar", &zeta_self_scalar, {}, 4},
      {"special_zeta.other_scalar", &zeta_other_scalar, {}, 4},
      {"lgamma_", &lgamma_inplace, numeric, 4},
      {"digamma_", &lgamma_inplace, numeric, 4},
      {"polygamma_", &polygamma_inplace, numeric, 4},
      {"mvlgamma_", &mvlgamma_inplace, numeric, 4},
      {"erfinv_", &erfinv_inplace, numeric, 4},
      {"i0_", &lgamma_inplace, numeric, 4},
      {"igamma_", &igamma_inplace, numeric, 4},
      {"igammac_", &igamma_inplace, numeric, 4},
  };
}

}  // namespace axle::conformance
