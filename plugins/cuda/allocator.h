// A caching device allocator, one per device (PyTorch's CUDACachingAllocator
// idea, simplified): cudaMalloc is slow and synchronizing, so freed blocks are
// kept and reused.
//
// - Sizes round up to 512 B (requests up to 1 MiB) or 2 MiB (larger); a free
//   block of the same rounded size is reused (best fit among equal sizes).
// - Stream safety: a freed block may still be read by queued kernels. On free
//   the allocator records an event on the legacy default stream, which every
//   stream the plugin creates (blocking streams) is ordered with; the block is
//   reused only once that event has completed.
// - Out of memory: the cache is released (after a device synchronize) and the
//   allocation retried once; then OutOfMemoryError naming the requested, free
//   and reserved bytes.
#pragma once

#include <axle/plugin/axle_plugin.h>

#include <cstddef>
#include <cstdint>

namespace axle::cuda {

// `call`: inside a kernel, a failure's message (requested / free / reserved
// bytes for out of memory) is also recorded on the call, which is what the
// dispatcher reports; always on the thread's last error.
axle_status cached_malloc(int device, size_t nbytes, void** ptr, const axle_kernel_call* call = nullptr);
axle_status cached_free(int device, void* ptr);
axle_status allocator_stats(int device, axle_allocator_stats* stats);
axle_status empty_cache(int device);

// Kernel scratch memory, released when it goes out of scope: cached_free orders
// the block's reuse after the work queued so far, so queued kernels may still
// use it.
struct Scratch {
  int device = 0;
  void* ptr = nullptr;
  Scratch() = default;
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  ~Scratch() { cached_free(device, ptr); }
  // Allocates `nbytes` (a failure recorded on `call`); AXLE_OK with ptr NULL for 0.
  axle_status allocate(int dev, size_t nbytes, const axle_kernel_call* call) {
    device = dev;
    return nbytes ? cached_malloc(dev, nbytes, &ptr, call) : AXLE_OK;
  }
};

}  // namespace axle::cuda
