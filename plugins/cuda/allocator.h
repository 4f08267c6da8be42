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

axle_status cached_malloc(int device, size_t nbytes, void** ptr);
axle_status cached_free(int device, void* ptr);
axle_status allocator_stats(int device, axle_allocator_stats* stats);
axle_status empty_cache(int device);

}  // namespace axle::cuda
