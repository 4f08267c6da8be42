// Samples for the indexing ops (dispatcher/src/ops/indexing.cpp).
#include "samples.h"

namespace axle::conformance {
namespace {

std::vector<Sample> nonzero_samples(SampleContext& c) {
  std::vector<Sample> out = unary_samples(c);
  out.push_back(ok({c.make({3, 4}, Layout::Contiguous, {}, 0, 2)}, "many zeros"));
  return out;
}

}  // namespace

std::vector<OpSamples> indexing_samples() { return {{"nonzero", &nonzero_samples}}; }

}  // namespace axle::conformance
