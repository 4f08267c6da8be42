// Samples for the creation ops (dispatcher/src/ops/creation.cpp).
#include "samples.h"

namespace axle::conformance {
namespace {

std::vector<Sample> empty_samples(SampleContext& c) {
  const DType d = c.dtype();
  const Device dev = c.device();
  return {ok({IntList{2, 3}, d, dev}, "[2, 3]"), ok({IntList{}, d, dev}, "0-d"),
          ok({IntList{0, 4}, d, dev}, "zero-size"), fails({IntList{2, -1}, d, dev}, "negative size", "ValueError")};
}

std::vector<Sample> fill_samples(SampleContext& c) {
  std::vector<Sample> out;
  out.push_back(ok({c.make({3, 4}), 2}, "int value"));
  out.push_back(ok({c.make({2, 3, 4}, Layout::Transposed), true}, "transposed, bool value"));
  out.push_back(ok({c.make({3, 5}, Layout::Stepped), 0}, "stepped"));
  out.push_back(ok({c.make({}), 1}, "0-d"));
  out.push_back(ok({c.make({0, 2}), 1}, "zero-size"));
  if (is_floating_point(c.dtype())) out.push_back(ok({c.make({2, 2}), 1.5}, "float value"));
  return out;
}

std::vector<Sample> full_samples(SampleContext& c) {
  const DType d = c.dtype();
  const Device dev = c.device();
  return {ok({IntList{2, 3}, 1, d, dev}, "[2, 3] of 1"), ok({IntList{}, 0, d, dev}, "0-d"),
          ok({IntList{0}, 1, d, dev}, "zero-size"), ok({IntList{4}, true, d, dev}, "bool fill"),
          fails({IntList{-2}, 1, d, dev}, "negative size", "ValueError")};
}

std::vector<Sample> zeros_samples(SampleContext& c) {
  const DType d = c.dtype();
  const Device dev = c.device();
  return {ok({IntList{2, 3}, d, dev}, "[2, 3]"), ok({IntList{}, d, dev}, "0-d"),
          ok({IntList{3, 0}, d, dev}, "zero-size"), fails({IntList{-1}, d, dev}, "negative size", "ValueError")};
}

std::vector<Sample> arange_samples(SampleContext& c) {
  const DType d = c.dtype();
  const Device dev = c.device();
  std::vector<Sample> out = {ok({0, 10, 1, d, dev}, "0..10"),
                             ok({2, 11, 3, d, dev}, "step 3"),
                             ok({10, 0, -2, d, dev}, "negative step"),
                             ok({3, 3, 1, d, dev}, "empty range"),
                             fails({0, 10, 0, d, dev}, "zero step", "ValueError"),
                             fails({0, 10, -1, d, dev}, "step sign against the bounds", "ValueError")};
  if (is_floating_point(d)) out.push_back(ok({0.0, 1.0, 0.25, d, dev}, "float step"));
  return out;
}

std::vector<Sample> linspace_samples(SampleContext& c) {
  const DType d = c.dtype();
  const Device dev = c.device();
  return {ok({0, 10, 5, d, dev}, "0..10 in 5"),
          ok({-1.5, 2.5, 7, d, dev}, "float bounds"),
          ok({3, -3, 4, d, dev}, "decreasing"),
          ok({1, 1, 1, d, dev}, "one step"),
          ok({2, 5, 1, d, dev}, "one step of a range: start"),
          ok({0, 1, 0, d, dev}, "no steps"),
          fails({0, 1, -1, d, dev}, "negative steps", "ValueError")};
}

std::vector<Sample> eye_samples(SampleContext& c) {
  const DType d = c.dtype();
  const Device dev = c.device();
  return {ok({3, d, dev}, "3 x 3"), ok({0, d, dev}, "0 x 0"), fails({-1, d, dev}, "negative n", "ValueError")};
}

std::vector<Sample> eye_m_samples(SampleContext& c) {
  const DType d = c.dtype();
  const Device dev = c.device();
  return {ok({2, 4, d, dev}, "2 x 4"), ok({4, 2, d, dev}, "4 x 2"), ok({3, 0, d, dev}, "3 x 0"),
          fails({2, -1, d, dev}, "negative m", "ValueError")};
}

// *_like(self, [fill,] dtype, device): self's shape, dtype, device unless given.
std::vector<Sample> like_samples(SampleContext& c, const Stack& fill) {
  std::vector<Sample> out;
  auto with = [&](Tensor t, Value dtype, std::string note) {
    Stack args{std::move(t)};
    args.insert(args.end(), fill.begin(), fill.end());
    args.push_back(std::move(dtype));
    out.push_back(ok(std::move(args), std::move(note)));
  };
  with(c.make({2, 3}), Value(), "contiguous");
  with(c.make({2, 3, 4}, Layout::Transposed), Value(), "transposed");
  with(c.make({}), Value(), "0-d");
  with(c.make({0, 2}), Value(), "zero-size");
  with(c.make({2, 2}), kFloat64, "dtype float64");
  return out;
}
std::vector<Sample> zeros_like_samples(SampleContext& c) { return like_samples(c, {}); }
std::vector<Sample> full_like_samples(SampleContext& c) { return like_samples(c, {1}); }

}  // namespace

std::vector<OpSamples> creation_samples() {
  return {
      {"empty.memory_format", &empty_samples, {}, 1, false},
      {"fill_.Scalar", &fill_samples},
      {"full", &full_samples},
      {"zeros", &zeros_samples},
      {"ones", &zeros_samples},
      {"arange.start_step", &arange_samples, {kFloat32, kFloat64, kInt32, kInt64, kInt16}},
      {"linspace", &linspace_samples, {kFloat32, kFloat64, kInt32, kInt64}},
      {"eye", &eye_samples},
      {"eye.m", &eye_m_samples},
      {"empty_like", &zeros_like_samples, {}, 1, false},
      {"zeros_like", &zeros_like_samples},
      {"ones_like", &zeros_like_samples},
      {"full_like", &full_like_samples},
  };
}

}  // namespace axle::conformance
