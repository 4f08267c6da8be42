// The CUDA caching allocator: one axle::plugin::CachingAllocator per device
// (the SDK's stream-ordered caching allocator, PyTorch's CUDACachingAllocator
// contract) over cudaMalloc / cudaFree and CUDA events.
//
// - Pools per device and stream: a block freed on the stream it was allocated
//   on is reused at once by later work on that stream; other streams get it
//   only through record_stream's events (torch's Tensor.record_stream).
// - Segments from cudaMalloc split into best-fitting blocks and merged back on
//   free (sizes rounded to 512 B; see caching_allocator.hpp).
// - Out of memory: the cache is released (after a device synchronize) and the
//   allocation retried once; then OutOfMemoryError naming the requested, free
//   and reserved bytes.
// - A stream being destroyed is retired first: its blocks pass to the default
//   (legacy) stream once its work is done.
#pragma once

#include <axle/plugin/axle_plugin.h>

#include <cstddef>
#include <cstdint>

namespace axle::cuda {

// Memory for work on `stream` (NULL: the legacy default stream). `call`: inside
// a kernel, a failure's message (requested / free / reserved bytes for out of
// memory) is also recorded on the call, which is what the dispatcher reports;
// always on the thread's last error.
axle_status cached_malloc(int device, size_t nbytes, axle_stream stream, void** ptr,
                          const axle_kernel_call* call = nullptr);
axle_status cached_free(int device, void* ptr);
// Work on `stream` uses the block at `ptr` too (see allocator.h's header).
axle_status cached_record_stream(int device, void* ptr, axle_stream stream);
// `stream` is about to be destroyed.
void retire_stream(int device, axle_stream stream);
axle_status allocator_stats(int device, axle_allocator_stats* stats);
axle_status empty_cache(int device);

// Kernel scratch memory on the call's stream, released when it goes out of
// scope: freed on its own stream, the block is reused only by work queued after
// the kernels that use it.
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
    return nbytes ? cached_malloc(dev, nbytes, call->stream, &ptr, call) : AXLE_OK;
  }
};

}  // namespace axle::cuda
