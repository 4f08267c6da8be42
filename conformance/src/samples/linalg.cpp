// Samples for linear algebra (dispatcher/src/ops/linalg.cpp).
#include "samples.h"

namespace axle::conformance {
namespace {

std::vector<Sample> matmul_samples(SampleContext& c) {
  const Layout T = Layout::Transposed;
  std::vector<Sample> out = {
      ok({c.make({4}), c.make({4})}, "dot"),
      ok({c.make({3, 4}), c.make({4})}, "matrix-vector"),
      ok({c.make({4}), c.make({4, 5})}, "vector-matrix"),
      ok({c.make({3, 4}), c.make({4, 5})}, "matrix-matrix"),
      ok({c.make({3, 4}, T), c.make({4, 5}, T)}, "transposed operands"),
      ok({c.make({2, 3, 4}), c.make({4, 5})}, "batched x matrix"),
      ok({c.make({2, 1, 3, 4}), c.make({5, 4, 2})}, "broadcast batch"),
      ok({c.make({0, 4}), c.make({4, 3})}, "zero rows"),
      ok({c.make({3, 0}), c.make({0, 2})}, "zero inner dim"),
      fails({c.make({3, 4}), c.make({5, 2})}, "inner dims differ", "ShapeError"),
      fails({c.make({}), c.make({3})}, "0-d operand", "ShapeError"),
  };
  // 16-bit results: PyTorch accumulates in float32 and rounds partial sums.
  if (c.dtype() == kBFloat16) loosen(out, 2e-2, 0.2);
  if (c.dtype() == kFloat16) loosen(out, 2e-3, 0.05);
  return out;
}

}  // namespace

std::vector<OpSamples> linalg_samples() {
  return {{"matmul", &matmul_samples, {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64}, 16}};
}

}  // namespace axle::conformance
