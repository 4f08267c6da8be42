// The random kernels' launcher (random.cu, a host function) and registration
// (random.cpp). Element i of the output in row-major order takes Philox
// counter offset + i under key seed: the reference plugin's numbers.
#pragma once

#include "kernels.h"

#include <cstdint>

namespace axle::cuda {

axle_status register_random(const axle_registrar* r);  // random.cpp (+ random.cu)

enum class RandomKind : int32_t {
  Uniform,  // rand: uniform01 in a floating dtype
  Normal,   // randn: normal01 in a floating dtype
  Int       // randint.low: uniform_int in [low, low + range), any dtype
};

// Where element i (row-major over `sizes`) lives: at i when `contiguous`, else at
// sum(coord[d] * strides[d]) elements.
struct RandomLayout {
  bool contiguous = true;
  int32_t ndim = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};  // in elements
};

// Fills the n elements of `out` (dtype dt). Uniform and Normal take floating
// dtypes only; `low` / `range` are Int's. Returns 0 or a cudaError_t.
int launch_random(RandomKind kind, axle_dtype dt, void* out, int64_t n, const RandomLayout& layout, uint64_t seed,
                  uint64_t offset, int64_t low, uint64_t range, void* stream);

}  // namespace axle::cuda
