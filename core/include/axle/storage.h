// Storage: reference-counted device memory. Invariant: a StorageImpl owns its
// data pointer exactly when `deleter` is set; the deleter runs once, when the
// last Storage handle goes away. Memory comes from the device's allocator
// (see allocator.h) or is external memory wrapped with a caller's deleter.
#pragma once

#include <axle/device.h>
#include <axle/export.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

namespace axle {

struct AXLE_API StorageImpl {
  using DeleterFn = void (*)(void* context, void* data, size_t nbytes, const Device& device);
  StorageImpl(void* data, size_t nbytes, Device device, DeleterFn deleter, void* context)
      : data(data), nbytes(nbytes), device(device), deleter(deleter), deleter_context(context) {}
  StorageImpl(const StorageImpl&) = delete;
  StorageImpl& operator=(const StorageImpl&) = delete;
  ~StorageImpl();

  void* const data;
  const size_t nbytes;
  const Device device;  // resolved (index >= 0)
  DeleterFn const deleter;
  void* const deleter_context;
  // Bumped by the dispatcher for every tensor an op writes (Tensor(a!)
  // arguments, out=): autograd's saved tensors compare it at backward.
  mutable std::atomic<uint32_t> version{0};
};

using Storage = std::shared_ptr<StorageImpl>;

// Allocates `nbytes` on `device` through that device type's allocator.
// Throws DeviceError for an unknown device, OutOfMemoryError when it fails.
AXLE_API Storage allocate_storage(size_t nbytes, const Device& device);
// Page-locked host memory from `device_type`'s runtime (its asynchronous copies
// read and write it directly); a "cpu" storage. NotImplementedError when that
// runtime has none.
AXLE_API Storage allocate_pinned_storage(size_t nbytes, const DeviceType& device_type);
// Whether the storage is pinned host memory (allocate_pinned_storage).
AXLE_API bool is_pinned(const StorageImpl& storage);
// Work on `stream` (a handle of the storage's device type; nullptr: the default
// stream) also uses this memory: a stream-ordered device allocator does not
// reuse it before that work is done (Tensor::record_stream). A no-op for
// wrapped memory and for allocators that are not stream-ordered.
AXLE_API void record_stream(const StorageImpl& storage, void* stream);
// Wraps external memory; `deleter` (may be empty) runs when the storage dies.
AXLE_API Storage wrap_storage(void* data, size_t nbytes, const Device& device, std::function<void(void*)> deleter);

}  // namespace axle
