// Samples for the reductions (dispatcher/src/ops/reduction.cpp).
#include "samples.h"

namespace axle::conformance {
namespace {

std::vector<Sample> all_dims(SampleContext& c) { return unary_samples(c); }

// (self, dim, keepdim) over dim forms; `extra` follows keepdim (e.g. dtype).
std::vector<Sample> dim_samples(SampleContext& c) {
  std::vector<Sample> out;
  out.push_back(ok({c.make({3, 4}), IntList{1}, false}, "dim 1"));
  out.push_back(ok({c.make({3, 4}), IntList{-2}, true}, "dim -2 keepdim"));
  out.push_back(ok({c.make({2, 3, 4}, Layout::Transposed), IntList{0, 2}, false}, "transposed, dims [0, 2]"));
  out.push_back(ok({c.make({3, 5}, Layout::Stepped), Value(), false}, "stepped, all dims"));
  out.push_back(ok({c.make({4, 3}, Layout::Expanded), IntList{0}, false}, "expanded along the reduced dim"));
  out.push_back(ok({c.make({}), IntList{0}, false}, "0-d, dim 0"));
  out.push_back(ok({c.make({0, 3}), IntList{0}, true}, "zero-size reduced dim"));
  out.push_back(ok({c.make({2, 3}), IntList{}, false}, "empty dim list = all dims"));
  out.push_back(fails({c.make({2, 3}), IntList{2}, false}, "dim out of range", "IndexError"));
  out.push_back(fails({c.make({2, 3}), IntList{1, -1}, false}, "repeated dim", "ValueError"));
  return out;
}

std::vector<Sample> mean_dim_samples(SampleContext& c) {
  if (!is_floating_point(c.dtype())) return {fails({c.make({2, 3}), IntList{1}, false}, "integral input", "DTypeError")};
  return dim_samples(c);
}
std::vector<Sample> mean_samples(SampleContext& c) {
  if (!is_floating_point(c.dtype())) return {fails({c.make({2, 3})}, "integral input", "DTypeError")};
  return unary_samples(c);
}

}  // namespace

std::vector<OpSamples> reduction_samples() {
  return {
      {"sum", &all_dims, {}, 8},
      {"sum.dim_IntList", &dim_samples, {}, 8},
      {"mean", &mean_samples, {}, 8},
      {"mean.dim", &mean_dim_samples, {}, 8},
  };
}

}  // namespace axle::conformance
