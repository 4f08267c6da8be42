// Samples for the random ops (dispatcher/src/ops/random.cpp). Values are not
// compared (other libraries draw other numbers); shapes, dtypes and errors are.
// Reproducibility per seed is tested in tests/dispatcher/test_random.cpp.
#include "samples.h"

namespace axle::conformance {
namespace {

std::vector<Sample> rand_samples(SampleContext& c) {
  const DType d = c.dtype();
  const Device dev = c.device();
  if (!is_floating_point(d)) return {fails({IntList{2}, Value(), d, dev}, "integral dtype", "DTypeError")};
  return {ok({IntList{3, 4}, Value(), d, dev}, "[3, 4]"), ok({IntList{}, Value(), d, dev}, "0-d"),
          ok({IntList{0, 5}, Value(), d, dev}, "zero-size"),
          fails({IntList{-1}, Value(), d, dev}, "negative size", "ValueError")};
}

std::vector<Sample> randint_samples(SampleContext& c) {
  const DType d = c.dtype();
  const Device dev = c.device();
  return {ok({-3, 7, IntList{4, 5}, Value(), d, dev}, "[-3, 7)"), ok({0, 2, IntList{}, Value(), d, dev}, "0-d"),
          ok({0, 5, IntList{0}, Value(), d, dev}, "zero-size"),
          fails({5, 5, IntList{2}, Value(), d, dev}, "empty range", "ValueError")};
}

std::vector<Sample> randint_high_samples(SampleContext& c) {
  const DType d = c.dtype();
  const Device dev = c.device();
  return {ok({7, IntList{4, 5}, Value(), d, dev}, "[0, 7)"),
          fails({0, IntList{2}, Value(), d, dev}, "high 0", "ValueError")};
}

std::vector<Sample> rand_like_samples(SampleContext& c) {
  return {ok({c.make({2, 3})}, "contiguous"), ok({c.make({2, 3, 4}, Layout::Transposed)}, "transposed"),
          ok({c.make({})}, "0-d")};
}

// bernoulli(self, generator): self the probabilities.
std::vector<Sample> bernoulli_samples(SampleContext& c) {
  if (!is_floating_point(c.dtype())) return {fails({c.make({3}), Value()}, "integral probabilities", "DTypeError")};
  return {ok({c.make({4, 5}, Layout::Contiguous, {}, 0, 1), Value()}, "[4, 5] in [0, 1]"),
          ok({c.make({2, 3}, Layout::Transposed, {}, 0, 1), Value()}, "transposed"),
          ok({c.make({0, 2}), Value()}, "zero-size"),
          fails({c.make({3}, Layout::Contiguous, {}, 1.5, 2), Value()}, "probabilities above 1", "ValueError")};
}

// bernoulli.p(self, p, generator): self's shape and dtype.
std::vector<Sample> bernoulli_p_samples(SampleContext& c) {
  return {ok({c.make({4, 5}), 0.3, Value()}, "[4, 5], p 0.3"),
          ok({c.make({37}), 1.0, Value()}, "p 1 (a partial block)"),
          ok({c.make({2, 3}, Layout::Transposed), 0.5, Value()}, "transposed self"),
          ok({c.make({}), 0.0, Value()}, "0-d, p 0"),
          ok({c.make({0, 3}), 0.5, Value()}, "zero-size"),
          fails({c.make({3}), 1.5, Value()}, "p above 1", "ValueError"),
          fails({c.make({3}), -0.1, Value()}, "p below 0", "ValueError")};
}

}  // namespace

std::vector<OpSamples> random_samples() {
  return {
      {"rand", &rand_samples, {kFloat32, kFloat64, kFloat16, kBFloat16, kInt64}, 1, false},
      {"randn", &rand_samples, {kFloat32, kFloat64, kFloat16, kBFloat16, kInt64}, 1, false},
      {"randint.low", &randint_samples, {kInt64, kInt32, kInt16, kFloat32, kFloat64}, 1, false},
      {"randint", &randint_high_samples, {kInt64, kFloat32}, 1, false},
      {"rand_like", &rand_like_samples, kFloating, 1, false},
      {"bernoulli", &bernoulli_samples, {kFloat32, kFloat64, kInt64}, 1, false},
      {"bernoulli.p", &bernoulli_p_samples, {kFloat32, kFloat64, kBFloat16, kInt64, kBool, kInt32}, 1, false},
      {"randn_like", &rand_like_samples, kFloating, 1, false},
  };
}

}  // namespace axle::conformance
