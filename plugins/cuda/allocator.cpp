// See allocator.h.
#include "allocator.h"

#include "cuda_util.h"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace axle::cuda {
namespace {

constexpr size_t kSmall = size_t{1} << 20;
size_t round_size(size_t n) {
  const size_t granule = n <= kSmall ? 512 : (size_t{2} << 20);
  return std::max<size_t>(granule, (n + granule - 1) / granule * granule);
}

struct Block {
  size_t size = 0;
  cudaEvent_t ready = nullptr;  // recorded at free; the block is reusable once it completed
};

struct DeviceCache {
  std::mutex mutex;
  std::unordered_map<void*, size_t> live;     // handed out: ptr -> rounded size
  std::multimap<size_t, void*> free;          // reusable now
  std::deque<std::pair<void*, Block>> pending;  // freed, event not yet known complete
  std::vector<cudaEvent_t> spare_events;
  uint64_t allocated = 0, reserved = 0, peak = 0, allocs = 0, frees = 0;
};

DeviceCache& cache(int device) {
  static std::mutex mutex;
  static std::map<int, std::unique_ptr<DeviceCache>>* caches = new std::map<int, std::unique_ptr<DeviceCache>>;
  std::lock_guard lock(mutex);
  auto& c = (*caches)[device];
  if (!c) c = std::make_unique<DeviceCache>();
  return *c;
}

// Moves pending blocks whose event completed to the free lists (caller holds the lock).
void collect(DeviceCache& c) {
  while (!c.pending.empty()) {
    auto& [ptr, block] = c.pending.front();
    // FIFO: later ones are later. cudaErrorNotReady is recorded as the thread's
    // last error: clear it, or the caller's next launch check (cudaGetLastError)
    // reports it as that launch's failure.
    if (block.ready && cudaEventQuery(block.ready) == cudaErrorNotReady) {
      cudaGetLastError();
      break;
    }
    cudaGetLastError();
    if (block.ready) c.spare_events.push_back(block.ready);
    c.free.emplace(block.size, ptr);
    c.pending.pop_front();
  }
}

// Frees every cached block (caller holds the lock and has set the device).
void release(DeviceCache& c) {
  if (!c.pending.empty() && cudaDeviceSynchronize() != cudaSuccess) cudaGetLastError();
  for (auto& [ptr, block] : c.pending) {
    if (block.ready) c.spare_events.push_back(block.ready);
    c.free.emplace(block.size, ptr);
  }
  c.pending.clear();
  for (auto& [size, ptr] : c.free) {
    if (cudaFree(ptr) != cudaSuccess) cudaGetLastError();  // launch checks read the last error
    c.reserved -= size;
  }
  c.free.clear();
}

}  // namespace

axle_status cached_malloc(int device, size_t nbytes, void** ptr, const axle_kernel_call* call) {
  DeviceGuard guard(device);
  if (axle_status s = guard.status(call)) return s;
  DeviceCache& c = cache(device);
  const size_t size = round_size(nbytes);
  std::lock_guard lock(c.mutex);
  collect(c);
  void* p = nullptr;
  auto it = c.free.find(size);
  if (it != c.free.end()) {
    p = it->second;
    c.free.erase(it);
  } else {
    cudaError_t e = cudaMalloc(&p, size);
    if (e == cudaErrorMemoryAllocation) {  // release the cache once and retry
      cudaGetLastError();
      release(c);
      e = cudaMalloc(&p, size);
    }
    if (e != cudaSuccess) {
      size_t free_b = 0, total_b = 0;
      cudaGetLastError();
      if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) cudaGetLastError();
      std::string msg = "CUDA out of memory: tried to allocate " + std::to_string(nbytes) + " bytes on cuda:" +
                        std::to_string(device) + "; " + std::to_string(free_b) + " of " + std::to_string(total_b) +
                        " bytes free, " + std::to_string(c.reserved) + " reserved by axle's cache (" +
                        cudaGetErrorString(e) + ")";
      if (call) plugin::fail(call, AXLE_ERROR_OUT_OF_MEMORY, msg);
      set_last_error(std::move(msg));
      return AXLE_ERROR_OUT_OF_MEMORY;
    }
    c.reserved += size;
  }
  c.live[p] = size;
  c.allocated += size;
  c.peak = std::max(c.peak, c.allocated);
  ++c.allocs;
  *ptr = p;
  return AXLE_OK;
}

axle_status cached_free(int device, void* ptr) {
  if (!ptr) return AXLE_OK;
  DeviceGuard guard(device);
  if (axle_status s = guard.status()) return s;
  DeviceCache& c = cache(device);
  std::lock_guard lock(c.mutex);
  auto it = c.live.find(ptr);
  if (it == c.live.end()) {
    set_last_error("cuda:" + std::to_string(device) + ": free of a pointer this allocator did not hand out");
    return AXLE_ERROR_INVALID_ARGUMENT;
  }
  Block b;
  b.size = it->second;
  c.live.erase(it);
  c.allocated -= b.size;
  ++c.frees;
  if (!c.spare_events.empty()) {
    b.ready = c.spare_events.back();
    c.spare_events.pop_back();
  } else if (cudaEventCreateWithFlags(&b.ready, cudaEventDisableTiming) != cudaSuccess) {
    b.ready = nullptr;
    cudaGetLastError();
  }
  // Recorded on the legacy default stream, the event completes after all work
  // queued so far on every (blocking) stream of the device. Without an event the
  // block is made safe by waiting for the device: a block without `ready` is
  // reusable at once, so it must not be pending behind queued kernels.
  if (!b.ready || cudaEventRecord(b.ready, nullptr) != cudaSuccess) {
    cudaGetLastError();
    cudaDeviceSynchronize();
    if (b.ready) c.spare_events.push_back(b.ready);
    b.ready = nullptr;
  }
  c.pending.emplace_back(ptr, b);
  return AXLE_OK;
}

axle_status allocator_stats(int device, axle_allocator_stats* s) {
  DeviceCache& c = cache(device);
  std::lock_guard lock(c.mutex);
  s->allocated_bytes = c.allocated;
  s->reserved_bytes = c.reserved;
  s->peak_allocated_bytes = c.peak;
  s->num_allocs = c.allocs;
  s->num_frees = c.frees;
  return AXLE_OK;
}

axle_status empty_cache(int device) {
  DeviceGuard guard(device);
  if (axle_status s = guard.status()) return s;
  DeviceCache& c = cache(device);
  std::lock_guard lock(c.mutex);
  release(c);
  return AXLE_OK;
}

}  // namespace axle::cuda
