// Samples for copies and conversions (dispatcher/src/ops/copy.cpp).
#include "samples.h"

namespace axle::conformance {
namespace {

std::vector<Sample> copy_samples_fn(SampleContext& c) {
  std::vector<Sample> out;
  out.push_back(ok({c.make({3, 4}), c.make({3, 4})}, "same shape"));
  out.push_back(ok({c.make({3, 4}), c.make({4})}, "broadcast source"));
  out.push_back(ok({c.make({2, 3, 4}, Layout::Transposed), c.make({2, 3, 4}, Layout::Stepped)}, "strided both"));
  out.push_back(ok({c.make({2, 3}), c.make({2, 3}, Layout::Contiguous, kFloat64)}, "from float64"));
  out.push_back(ok({c.make({2, 3}), c.make({2, 3}, Layout::Contiguous, kInt32)}, "from int32"));
  out.push_back(ok({c.make({}), c.make({})}, "0-d"));
  out.push_back(ok({c.make({0, 3}), c.make({0, 3})}, "zero-size"));
  out.push_back(fails({c.make({3, 4}), c.make({5})}, "source does not broadcast", "ShapeError"));
  return out;
}

std::vector<Sample> clone_samples(SampleContext& c) { return unary_samples(c); }

std::vector<Sample> to_dtype_samples(SampleContext& c) {
  std::vector<Sample> out;
  for (DType to : {kFloat32, kFloat64, kFloat16, kBFloat16, kInt8, kUInt8, kInt32, kInt64, kBool})
    // Out-of-range float -> integer conversion is undefined in PyTorch: stay in range.
    out.push_back(ok({c.make({3, 4}, Layout::Transposed, {}, to == kUInt8 ? 0 : -100, 100), to},
                     "to " + std::string(dtype_name(to))));
  for (auto& [t, note] : c.unary_variety()) out.push_back(ok({t, kFloat64}, note));
  return out;
}

std::vector<Sample> to_device_samples(SampleContext& c) {
  std::vector<Sample> out;
  for (auto& [t, note] : c.unary_variety()) out.push_back(ok({t, c.device()}, note));
  out.push_back(ok({c.make({2, 3}), c.device(), kFloat64}, "with dtype"));
  return out;
}

std::vector<Sample> reshape_samples(SampleContext& c) {
  return {ok({c.make({2, 6}), IntList{3, 4}}, "[2, 6] -> [3, 4]"),
          ok({c.make({2, 3, 4}, Layout::Transposed), IntList{-1}}, "transposed -> flat (copies)"),
          ok({c.make({}), IntList{1, 1}}, "0-d -> [1, 1]"),
          ok({c.make({0, 3}), IntList{3, 0}}, "zero-size"),
          fails({c.make({0, 3}), IntList{3, 0, -1}}, "-1 is ambiguous with 0 elements", "ShapeError"),
          fails({c.make({2, 3}), IntList{4, -1}}, "6 elements into [4, -1]", "ShapeError"),
          fails({c.make({2, 3}), IntList{-1, -1}}, "two -1", "ShapeError")};
}

}  // namespace

std::vector<OpSamples> copy_samples() {
  return {
      {"copy_", &copy_samples_fn},     {"clone", &clone_samples},         {"contiguous", &clone_samples},
      {"to.dtype", &to_dtype_samples}, {"to.device", &to_device_samples}, {"reshape", &reshape_samples},
  };
}

}  // namespace axle::conformance
