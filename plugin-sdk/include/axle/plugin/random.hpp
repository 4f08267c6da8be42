// Counter-based random numbers for plugin kernels: Philox4x32-10 (Salmon et al.,
// "Parallel random numbers: as easy as 1, 2, 3", SC'11). A random op's kernel
// receives its generator as int[2] {seed, offset}; element i of the output uses
// counter offset + i, so every backend and every parallel split produces the
// same numbers for the same seed. Header-only, C++ standard library only.
//
// The *_words functions are the implementation and are callable from CUDA device
// code too (AXLE_PLUGIN_HOST_DEVICE; no nvcc flag needed): they take the four
// words as a plain PhiloxWords, because std::array's members are host-only
// constexpr functions under nvcc. philox4x32 / uniform01 / normal01 / uniform_int
// are the host API over std::array and give the same values.
#pragma once

#include <axle/plugin/axle_plugin.h>
#include <axle/plugin/host_device.hpp>

#include <array>
#include <cmath>
#include <cstdint>

namespace axle::plugin {

// The four 32-bit words of one Philox block.
struct PhiloxWords {
  uint32_t w[4];
};

// Four 32-bit random words for `counter` under `key` (the seed).
AXLE_PLUGIN_HOST_DEVICE inline PhiloxWords philox4x32_words(uint64_t counter, uint64_t key) {
  uint32_t c0 = static_cast<uint32_t>(counter), c1 = static_cast<uint32_t>(counter >> 32), c2 = 0, c3 = 0;
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = 0xD2511F53ull * c0, p1 = 0xCD9E8D57ull * c2;
    const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1 ^ k0, n2 = static_cast<uint32_t>(p0 >> 32) ^ c3 ^ k1;
    c1 = static_cast<uint32_t>(p1);
    c3 = static_cast<uint32_t>(p0);
    c0 = n0;
    c2 = n2;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return {{c0, c1, c2, c3}};
}

// The random bits of a uniform draw in [0, 1) stored as `d`: its significand
// (53 float64, 24 float32, 11 float16, 8 bfloat16), so it never rounds up to 1.
inline int uniform_bits(axle_dtype d) {
  switch (d) {
    case AXLE_DTYPE_FLOAT64: return 53;
    case AXLE_DTYPE_FLOAT16: return 11;
    case AXLE_DTYPE_BFLOAT16: return 8;
    default: return 24;
  }
}

// Uniform in [0, 1) with `bits` random bits (53 for float64, 24 for float32,
// 11 for float16, 8 for bfloat16: never rounds up to 1 in the output dtype).
AXLE_PLUGIN_HOST_DEVICE inline double uniform01_words(const PhiloxWords& r, int bits) {
  const uint64_t word = (static_cast<uint64_t>(r.w[0]) << 32) | r.w[1];
  return static_cast<double>(word >> (64 - bits)) * std::ldexp(1.0, -bits);
}

// Standard normal (Box-Muller on two 32-bit words). On a CUDA device, log and
// cos are not glibc's: a float64 result may differ from the host's in the last
// unit or two (narrower dtypes practically never do after rounding).
AXLE_PLUGIN_HOST_DEVICE inline double normal01_words(const PhiloxWords& r) {
  const double u1 = (static_cast<double>(r.w[2]) + 1.0) * 0x1.0p-32;  // (0, 1]
  const double u2 = static_cast<double>(r.w[3]) * 0x1.0p-32;          // [0, 1)
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
}

// Uniform integer in [low, low + range) (range > 0).
AXLE_PLUGIN_HOST_DEVICE inline int64_t uniform_int_words(const PhiloxWords& r, int64_t low, uint64_t range) {
  const uint64_t word = (static_cast<uint64_t>(r.w[0]) << 32) | r.w[1];
  return static_cast<int64_t>(static_cast<uint64_t>(low) + word % range);
}

// Bernoulli draws (bernoulli.p) take four elements per Philox block: element i
// of the output uses word i % 4 of the block for counter offset + i / 4 (a
// kernel reserves ceil(n / 4) counters), as a 24-bit uniform u; the draw is 1
// when u < p. Every backend computes the same draws for the same seed.
AXLE_PLUGIN_HOST_DEVICE inline bool bernoulli_word(uint32_t word, double p) {
  return static_cast<double>(word >> 8) * 0x1.0p-24 < p;
}

// ---- host API over std::array (the same values as the *_words functions)

// Four 32-bit random words for `counter` under `key` (the seed).
inline std::array<uint32_t, 4> philox4x32(uint64_t counter, uint64_t key) {
  const PhiloxWords r = philox4x32_words(counter, key);
  return {r.w[0], r.w[1], r.w[2], r.w[3]};
}

// Uniform in [0, 1) with `bits` random bits (see uniform01_words).
inline double uniform01(const std::array<uint32_t, 4>& r, int bits) {
  return uniform01_words(PhiloxWords{{r[0], r[1], r[2], r[3]}}, bits);
}

// Standard normal (Box-Muller on two 32-bit words).
inline double normal01(const std::array<uint32_t, 4>& r) {
  return normal01_words(PhiloxWords{{r[0], r[1], r[2], r[3]}});
}

// Uniform integer in [low, low + range) (range > 0).
inline int64_t uniform_int(const std::array<uint32_t, 4>& r, int64_t low, uint64_t range) {
  return uniform_int_words(PhiloxWords{{r[0], r[1], r[2], r[3]}}, low, range);
}

}  // namespace axle::plugin
