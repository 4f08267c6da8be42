// See allocator.h.
#include "allocator.h"

#include "cuda_util.h"

#include <axle/plugin/caching_allocator.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace axle::cuda {
namespace {

// cudaMalloc's failure on this thread, for the message (the allocator returns a status).
thread_local cudaError_t t_malloc_error = cudaSuccess;

// The CUDA side of plugin::CachingAllocator; the caller has made the device
// current. Failed calls leave their error as the thread's last error: cleared
// here, or the caller's next launch check (cudaGetLastError) would report it.
struct CudaMemory {
  using Stream = cudaStream_t;
  using Event = cudaEvent_t;
  static bool ok(cudaError_t e) {
    if (e == cudaSuccess) return true;
    cudaGetLastError();
    return false;
  }
  axle_status malloc(size_t n, void** p) {
    t_malloc_error = cudaMalloc(p, n);
    if (ok(t_malloc_error)) return AXLE_OK;
    return t_malloc_error == cudaErrorMemoryAllocation ? AXLE_ERROR_OUT_OF_MEMORY : AXLE_ERROR_DEVICE;
  }
  void free(void* p) { ok(cudaFree(p)); }
  bool event_create(Event* e) { return ok(cudaEventCreateWithFlags(e, cudaEventDisableTiming)); }
  void event_destroy(Event e) { ok(cudaEventDestroy(e)); }
  bool event_record(Event e, Stream s) { return ok(cudaEventRecord(e, s)); }
  // Any answer but "not ready" (an error included) ends the wait: the block is
  // not held forever by a failed event.
  bool event_done(Event e) {
    const cudaError_t r = cudaEventQuery(e);
    ok(r);
    return r != cudaErrorNotReady;
  }
  void synchronize() { ok(cudaDeviceSynchronize()); }
  void synchronize_stream(Stream s) { ok(cudaStreamSynchronize(s)); }
};
using DeviceCache = plugin::CachingAllocator<CudaMemory>;

DeviceCache& cache(int device) {
  static std::mutex mutex;
  static auto* caches =
      new std::map<int, std::unique_ptr<DeviceCache>>;  // never destroyed: frees at exit race the driver's teardown
  std::lock_guard lock(mutex);
  auto& c = (*caches)[device];
  if (!c) c = std::make_unique<DeviceCache>();
  return *c;
}

axle_status fail(axle_status s, std::string msg, const axle_kernel_call* call) {
  if (call) plugin::fail(call, s, msg);
  set_last_error(std::move(msg));
  return s;
}

}  // namespace

axle_status cached_malloc(int device, size_t nbytes, axle_stream stream, void** ptr, const axle_kernel_call* call) {
  DeviceGuard guard(device);
  if (axle_status s = guard.status(call)) return s;
  DeviceCache& c = cache(device);
  t_malloc_error = cudaSuccess;
  const axle_status s = c.allocate(nbytes, to_cuda(stream), ptr);
  if (s == AXLE_OK) return s;
  const std::string where = " bytes on cuda:" + std::to_string(device);
  if (s != AXLE_ERROR_OUT_OF_MEMORY)
    return fail(s, "cudaMalloc of " + std::to_string(nbytes) + where + " failed: " + cudaGetErrorString(t_malloc_error),
                call);
  size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) cudaGetLastError();
  return fail(s,
              "CUDA out of memory: tried to allocate " + std::to_string(nbytes) + where + "; " +
                  std::to_string(free_b) + " of " + std::to_string(total_b) + " bytes free, " +
                  std::to_string(c.reserved_bytes()) + " reserved by axle's cache (" +
                  cudaGetErrorString(t_malloc_error) + ")",
              call);
}

axle_status cached_free(int device, void* ptr) {
  if (!ptr) return AXLE_OK;
  DeviceGuard guard(device);
  if (axle_status s = guard.status()) return s;
  if (cache(device).deallocate(ptr) == AXLE_OK) return AXLE_OK;
  return fail(AXLE_ERROR_INVALID_ARGUMENT,
              "cuda:" + std::to_string(device) + ": free of a pointer this allocator did not hand out", nullptr);
}

axle_status cached_record_stream(int device, void* ptr, axle_stream stream) {
  if (cache(device).record_stream(ptr, to_cuda(stream)) == AXLE_OK) return AXLE_OK;
  return fail(AXLE_ERROR_INVALID_ARGUMENT,
              "cuda:" + std::to_string(device) + ": record_stream of a pointer this allocator did not hand out",
              nullptr);
}

void retire_stream(int device, axle_stream stream) {
  DeviceGuard guard(device);
  if (guard.status() == AXLE_OK) cache(device).retire_stream(to_cuda(stream));
}

axle_status allocator_stats(int device, axle_allocator_stats* s) {
  cache(device).stats(s);
  return AXLE_OK;
}

axle_status empty_cache(int device) {
  DeviceGuard guard(device);
  if (axle_status s = guard.status()) return s;
  cache(device).empty_cache();
  return AXLE_OK;
}

}  // namespace axle::cuda
