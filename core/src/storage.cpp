// Storage allocation through the device runtime registry, and external memory.
#include "recycling_allocator.h"

#include <axle/device_runtime.h>
#include <axle/error.h>
#include <axle/storage.h>
#include <axle/stream.h>

namespace axle {

StorageImpl::~StorageImpl() {
  if (deleter) deleter(deleter_context, data, nbytes, device);
}

namespace {
void runtime_deleter(void* context, void* data, size_t nbytes, const Device& device) {
  static_cast<DeviceRuntime*>(context)->deallocate(device.index(), data, nbytes);
}
void function_deleter(void* context, void* data, size_t, const Device&) {
  auto* fn = static_cast<std::function<void(void*)>*>(context);
  if (*fn) (*fn)(data);
  delete fn;
}
void pinned_deleter(void* context, void* data, size_t, const Device&) {
  static_cast<DeviceRuntime*>(context)->host_free_pinned(data);
}
}  // namespace

Storage allocate_pinned_storage(size_t nbytes, const DeviceType& device_type) {
  DeviceRuntime& rt = device_runtime(device_type);
  void* ptr = rt.host_alloc_pinned(nbytes);
  return std::allocate_shared<StorageImpl>(detail::RecyclingAllocator<StorageImpl>(), ptr, nbytes, Device("cpu"),
                                           &pinned_deleter, &rt);
}

bool is_pinned(const StorageImpl& storage) { return storage.deleter == &pinned_deleter; }

Storage allocate_storage(size_t nbytes, const Device& device) {
  const Device d = device.resolved();
  DeviceRuntime& rt = checked_runtime(d);
  void* ptr = rt.allocate(d.index(), nbytes, detail::current_stream_handle(d));
  return std::allocate_shared<StorageImpl>(detail::RecyclingAllocator<StorageImpl>(), ptr, nbytes, d, &runtime_deleter,
                                           &rt);
}

void record_stream(const StorageImpl& storage, void* stream) {
  if (storage.deleter != &runtime_deleter) return;  // not the device allocator's memory
  static_cast<DeviceRuntime*>(storage.deleter_context)->record_stream(storage.device.index(), storage.data, stream);
}

Storage wrap_storage(void* data, size_t nbytes, const Device& device, std::function<void(void*)> deleter) {
  auto* ctx = new std::function<void(void*)>(std::move(deleter));
  return std::allocate_shared<StorageImpl>(detail::RecyclingAllocator<StorageImpl>(), data, nbytes, device.resolved(),
                                           &function_deleter, ctx);
}

}  // namespace axle
