// Generator: a seeded random-number stream (PyTorch's torch.Generator). axle's
// random ops are counter-based (Philox4x32-10, plugin-sdk helpers): a generator
// is a (seed, offset) pair, and an op reserves `n` counters from it, so the same
// seed gives the same numbers on any backend, however a kernel is parallelized.
// Kernels never see a Generator: the op's shape function turns the argument into
// int[2] {seed, offset} (see docs/plugin-abi.md).
#pragma once

#include <axle/device.h>
#include <axle/export.h>

#include <cstdint>
#include <memory>
#include <mutex>

namespace axle {

class AXLE_API Generator {
 public:
  // A new generator for `device` seeded with the default seed (67280421310721, as torch).
  explicit Generator(const Device& device = Device("cpu"));
  const Device& device() const { return impl_->device; }
  Generator& manual_seed(uint64_t seed);
  // Seeds from a non-deterministic source; returns the seed.
  uint64_t seed();
  uint64_t initial_seed() const;
  uint64_t offset() const;
  void set_offset(uint64_t offset);
  // Reserves `count` counters: returns {seed, first offset} and advances the offset.
  std::pair<uint64_t, uint64_t> reserve(uint64_t count);
  bool is_same(const Generator& o) const { return impl_ == o.impl_; }

 private:
  struct Impl {
    Device device;
    mutable std::mutex mutex;
    uint64_t seed = 67280421310721ull;
    uint64_t offset = 0;
  };
  std::shared_ptr<Impl> impl_;
};

// The default generator of a device type (one per type; created on first use).
AXLE_API Generator default_generator(const Device& device);
// Seeds every default generator (torch.manual_seed).
AXLE_API void manual_seed(uint64_t seed);

}  // namespace axle
