// n / d for n < 2^31 and 1 <= d <= 2^31 by a multiply-high and a shift
// (Granlund-Montgomery): the kernels unravel linear indices with it instead of
// a 32-bit division per dim. Shared by the pointwise and reduction launchers;
// host and device (tests/cuda/test_cuda_pointwise_dims.cpp checks it on the host).
#pragma once

#include <axle/plugin/host_device.hpp>

#include <cstdint>

namespace axle::cuda {

struct FastDiv {
  uint32_t divisor = 1, magic = 1, shift = 0;
};

inline FastDiv make_fast_div(uint32_t d) {
  FastDiv f;
  f.divisor = d;
  while ((uint64_t{1} << f.shift) < d) ++f.shift;
  f.magic = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << f.shift) - d)) / d + 1);
  return f;
}

AXLE_PLUGIN_HOST_DEVICE inline uint32_t fast_div(const FastDiv& f, uint32_t n) {
#if defined(__CUDA_ARCH__)
  const uint32_t hi = __umulhi(n, f.magic);
#else
  const uint32_t hi = static_cast<uint32_t>((static_cast<uint64_t>(n) * f.magic) >> 32);
#endif
  return (hi + n) >> f.shift;
}

}  // namespace axle::cuda
