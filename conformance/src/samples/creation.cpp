// Samples for the creation ops (dispatcher/src/ops/creation.cpp).
#include "samples.h"

namespace axle::conformance {
namespace {

std::vector<Sample> empty_samples(SampleContext& c) {
  const DType d = c.dtype();
  const Device dev = c.device();
  return {ok({IntList{2, 3}, d, dev}, "[2, 3]"), ok({IntList{}, d, dev}, "0-d"), ok({IntList{0, 4}, d, dev}, "zero-size"),
          fails({IntList{2, -1}, d, dev}, "negative size", "ValueError")};
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
  return {ok({IntList{2, 3}, d, dev}, "[2, 3]"), ok({IntList{}, d, dev}, "0-d"), ok({IntList{3, 0}, d, dev}, "zero-size"),
          fails({IntList{-1}, d, dev}, "negative size", "ValueError")};
}

std::vector<Sample> arange_samples(SampleContext& c) {
  const DType d = c.dtype();
  const Device dev = c.device();
  std::vector<Sample> out = {ok({0, 10, 1, d, dev}, "0..10"), ok({2, 11, 3, d, dev}, "step 3"),
                             ok({10, 0, -2, d, dev}, "negative step"), ok({3, 3, 1, d, dev}, "empty range"),
                             fails({0, 10, 0, d, dev}, "zero step", "ValueError"),
                             fails({0, 10, -1, d, dev}, "step sign against the bounds", "ValueError")};
  if (is_floating_point(d)) out.push_back(ok({0.0, 1.0, 0.25, d, dev}, "float step"));
  return out;
}

}  // namespace

std::vector<OpSamples> creation_samples() {
  return {
      {"empty.memory_format", &empty_samples, {}, 1, false},
      {"fill_.Scalar", &fill_samples},
      {"full", &full_samples},
      {"zeros", &zeros_samples},
      {"ones", &zeros_samples},
      {"arange.start_step", &arange_samples, {kFloat32, kFloat64, kInt32, kInt64, kInt16}},
  };
}

}  // namespace axle::conformance
