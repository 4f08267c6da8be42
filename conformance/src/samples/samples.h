// Internal: one function per op family returns its ops' sample generators.
// A family's file sits beside the family's declarations in
// dispatcher/src/ops/<family>.cpp.
#pragma once

#include <axle/conformance.h>

namespace axle::conformance {

std::vector<OpSamples> creation_samples();
std::vector<OpSamples> copy_samples();
std::vector<OpSamples> pointwise_samples();
std::vector<OpSamples> pointwise_special_samples();
std::vector<OpSamples> reduction_samples();
std::vector<OpSamples> blas_samples();
std::vector<OpSamples> indexing_samples();
std::vector<OpSamples> random_samples();
std::vector<OpSamples> views_samples();
std::vector<OpSamples> activations_samples();
std::vector<OpSamples> nn_samples();
std::vector<OpSamples> conv_pool_samples();
std::vector<OpSamples> conv_pool_backward_samples();
std::vector<OpSamples> conv_pool3d_samples();
std::vector<OpSamples> conv_pool3d_backward_samples();
std::vector<OpSamples> conv_pool_grid_sample_samples();
std::vector<OpSamples> nn_backward_samples();
std::vector<OpSamples> nn_rnn_samples();
std::vector<OpSamples> optim_samples();
std::vector<OpSamples> linalg_samples();
std::vector<OpSamples> linalg_decomp_samples();

// Helpers for generators.
inline Sample ok(Stack args, std::string note) { return Sample{std::move(args), std::move(note), "", 0, 0}; }
inline Sample fails(Stack args, std::string note, std::string error) {
  return Sample{std::move(args), std::move(note), std::move(error), 0, 0};
}
// Sets a tolerance on every sample (accumulating ops in 16-bit dtypes).
inline void loosen(std::vector<Sample>& samples, double rtol, double atol) {
  for (Sample& s : samples) {
    s.rtol = rtol;
    s.atol = atol;
  }
}
// For ops whose only tensor is self followed by fixed extra arguments.
std::vector<Sample> unary_samples(SampleContext& c, const Stack& extra = {});
// Broadcast, mixed-dtype, 0-d, zero-size and strided pairs for binary ops.
// `low`/`high` bound the second operand's values (divisors, exponents).
std::vector<Sample> binary_samples(SampleContext& c, const Stack& extra = {}, double low = -5, double high = 5);

}  // namespace axle::conformance
