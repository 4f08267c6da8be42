// The "cuda" device runtime: enumeration (lazily: the first CUDA call happens
// when the core first asks for a cuda device), properties, the caching
// allocator (pools per device and stream), copies host<->device,
// device<->device and between devices (peer copies), streams (blocking
// streams: ordered with the legacy default stream that blocking copies use),
// events and synchronization. Without a GPU (or a driver) it reports zero
// devices and why.
#include "allocator.h"
#include "cuda_util.h"
#include "kernels.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace axle::cuda {
namespace {

axle_status check_index(int32_t index) {
  const int n = device_count();
  if (index >= 0 && index < n) return AXLE_OK;
  set_last_error(n == 0 ? "no CUDA device: " + unavailable_reason()
                        : "cuda:" + std::to_string(index) + " does not exist (" + std::to_string(n) + " devices)");
  return AXLE_ERROR_DEVICE;
}

axle_status count(void*, int32_t* n) {
  *n = device_count();
  if (*n == 0) set_last_error(unavailable_reason());  // the core shows it as the reason
  return AXLE_OK;
}

axle_status properties(void*, int32_t index, axle_device_properties* p) {
  if (axle_status s = check_index(index)) return s;
  cudaDeviceProp prop{};
  if (axle_status s = check(cudaGetDeviceProperties(&prop, index), "cudaGetDeviceProperties")) return s;
  const std::string name =
      std::string(prop.name).substr(0, 96) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ")";
  std::strncpy(p->name, name.c_str(), sizeof p->name - 1);
  p->total_memory = prop.totalGlobalMem;
  p->host_accessible = 0;
  return AXLE_OK;
}

axle_status allocate_on_stream(void*, int32_t index, size_t nbytes, axle_stream stream, void** ptr) {
  if (axle_status s = check_index(index)) return s;
  return cached_malloc(index, nbytes, stream, ptr);
}
axle_status allocate(void* self, int32_t index, size_t nbytes, void** ptr) {
  return allocate_on_stream(self, index, nbytes, nullptr, ptr);
}
axle_status record_stream(void*, int32_t index, void* ptr, axle_stream stream) {
  if (axle_status s = check_index(index)) return s;
  return cached_record_stream(index, ptr, stream);
}
axle_status deallocate(void*, int32_t index, void* ptr, size_t) { return cached_free(index, ptr); }

axle_status copy(void*, axle_copy_kind kind, int32_t index, void* dst, const void* src, size_t nbytes,
                 axle_stream stream) {
  if (axle_status s = check_index(index)) return s;
  if (nbytes == 0) return AXLE_OK;
  DeviceGuard guard(index);
  if (axle_status st = guard.status()) return st;
  const cudaMemcpyKind k = kind == AXLE_COPY_HOST_TO_DEVICE   ? cudaMemcpyHostToDevice
                           : kind == AXLE_COPY_DEVICE_TO_HOST ? cudaMemcpyDeviceToHost
                                                              : cudaMemcpyDeviceToDevice;
  if (!stream) return check(cudaMemcpy(dst, src, nbytes, k), "cudaMemcpy");  // completes before returning
  return check(cudaMemcpyAsync(dst, src, nbytes, k, to_cuda(stream)), "cudaMemcpyAsync");
}

// cuda:src -> cuda:dst over NVLink/PCIe (the driver stages when peer access is
// off); on the destination's stream, or synchronous for the default stream.
axle_status copy_peer(void*, int32_t dst_index, void* dst, int32_t src_index, const void* src, size_t nbytes,
                      axle_stream stream) {
  if (axle_status s = check_index(dst_index)) return s;
  if (axle_status s = check_index(src_index)) return s;
  if (nbytes == 0) return AXLE_OK;
  DeviceGuard guard(dst_index);
  if (axle_status st = guard.status()) return st;
  if (!stream) {  // cudaMemcpyPeer returns before a device-to-device copy is done: wait for it
    if (axle_status st = check(cudaMemcpyPeer(dst, dst_index, src, src_index, nbytes), "cudaMemcpyPeer")) return st;
    return check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  }
  return check(cudaMemcpyPeerAsync(dst, dst_index, src, src_index, nbytes, to_cuda(stream)), "cudaMemcpyPeerAsync");
}

axle_status synchronize(void*, int32_t index) {
  if (axle_status s = check_index(index)) return s;
  DeviceGuard guard(index);
  if (axle_status st = guard.status()) return st;
  return check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

axle_status stream_create(void*, int32_t index, axle_stream* s) {
  if (axle_status st = check_index(index)) return st;
  DeviceGuard guard(index);
  if (axle_status st = guard.status()) return st;
  cudaStream_t cs = nullptr;
  // Blocking: ordered with the legacy default stream.
  if (axle_status st = check(cudaStreamCreate(&cs), "cudaStreamCreate")) return st;
  *s = cs;
  return AXLE_OK;
}
axle_status stream_destroy(void*, int32_t index, axle_stream s) {
  DeviceGuard guard(index);
  if (axle_status st = guard.status()) return st;
  retire_stream(index, s);  // its pooled blocks pass to the default stream
  return check(cudaStreamDestroy(to_cuda(s)), "cudaStreamDestroy");
}
axle_status stream_synchronize(void*, int32_t index, axle_stream s) {
  DeviceGuard guard(index);
  if (axle_status st = guard.status()) return st;
  return check(cudaStreamSynchronize(to_cuda(s)), "cudaStreamSynchronize");
}
axle_status event_create(void*, int32_t index, axle_event* e) {
  if (axle_status st = check_index(index)) return st;
  DeviceGuard guard(index);
  if (axle_status st = guard.status()) return st;
  cudaEvent_t ce = nullptr;
  if (axle_status st = check(cudaEventCreateWithFlags(&ce, cudaEventDisableTiming), "cudaEventCreate")) return st;
  *e = ce;
  return AXLE_OK;
}
axle_status event_destroy(void*, int32_t index, axle_event e) {
  DeviceGuard guard(index);
  if (axle_status st = guard.status()) return st;
  return check(cudaEventDestroy(static_cast<cudaEvent_t>(e)), "cudaEventDestroy");
}
axle_status event_record(void*, int32_t index, axle_event e, axle_stream s) {
  DeviceGuard guard(index);
  if (axle_status st = guard.status()) return st;
  return check(cudaEventRecord(static_cast<cudaEvent_t>(e), to_cuda(s)), "cudaEventRecord");
}
axle_status event_synchronize(void*, int32_t index, axle_event e) {
  DeviceGuard guard(index);
  if (axle_status st = guard.status()) return st;
  return check(cudaEventSynchronize(static_cast<cudaEvent_t>(e)), "cudaEventSynchronize");
}
axle_status stream_wait_event(void*, int32_t index, axle_stream s, axle_event e) {
  DeviceGuard guard(index);
  if (axle_status st = guard.status()) return st;
  return check(cudaStreamWaitEvent(to_cuda(s), static_cast<cudaEvent_t>(e), 0), "cudaStreamWaitEvent");
}
axle_status stats(void*, int32_t index, axle_allocator_stats* st) {
  if (axle_status s = check_index(index)) return s;
  return allocator_stats(index, st);
}
axle_status release(void*, int32_t index) {
  if (axle_status s = check_index(index)) return s;
  return empty_cache(index);
}
const char* last_error(void*) { return last_error_text(); }

// ABI 1.1: page-locked host memory (cudaHostAlloc, portable across devices), so
// that host<->device copies on a stream are truly asynchronous.
axle_status host_alloc(void*, size_t nbytes, void** ptr) {
  const cudaError_t e = cudaHostAlloc(ptr, std::max<size_t>(nbytes, 1), cudaHostAllocPortable);
  if (e == cudaErrorMemoryAllocation) {
    cudaGetLastError();  // clear the sticky-free error state
    set_last_error("cudaHostAlloc: out of pinned host memory");
    return AXLE_ERROR_OUT_OF_MEMORY;
  }
  return check(e, "cudaHostAlloc");
}
axle_status host_free(void*, void* ptr) { return check(cudaFreeHost(ptr), "cudaFreeHost"); }

const axle_device_interface kCuda = [] {
  auto d = plugin::abi_struct<axle_device_interface>();
  d.type_name = "cuda";
  d.device_count = &count;
  d.get_properties = &properties;
  d.allocate = &allocate;
  d.deallocate = &deallocate;
  d.copy = &copy;
  d.synchronize = &synchronize;
  d.stream_create = &stream_create;
  d.stream_destroy = &stream_destroy;
  d.stream_synchronize = &stream_synchronize;
  d.event_create = &event_create;
  d.event_destroy = &event_destroy;
  d.event_record = &event_record;
  d.event_synchronize = &event_synchronize;
  d.stream_wait_event = &stream_wait_event;
  d.allocator_stats = &stats;
  d.empty_cache = &release;
  d.last_error = &last_error;
  d.host_alloc = &host_alloc;
  d.host_free = &host_free;
  d.allocate_on_stream = &allocate_on_stream;
  d.record_stream = &record_stream;
  d.copy_peer = &copy_peer;
  return d;
}();

}  // namespace

const axle_device_interface* device_interface() { return &kCuda; }

}  // namespace axle::cuda
