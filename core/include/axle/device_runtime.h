// DeviceRuntime: what the core needs from a device type (allocation, byte copies,
// streams, events, synchronization, statistics), and the registry that maps a
// DeviceType to its runtime. Implementations come from plugins (through the
// dispatcher); the core never names one. Thread-safe.
#pragma once

#include <axle/device.h>
#include <axle/export.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace axle {

struct AllocatorStats {
  uint64_t allocated_bytes = 0;
  uint64_t reserved_bytes = 0;
  uint64_t peak_allocated_bytes = 0;
  uint64_t num_allocs = 0;
  uint64_t num_frees = 0;
};

struct DeviceProperties {
  std::string name;
  uint64_t total_memory = 0;
  bool host_accessible = false;
};

enum class CopyKind { HostToDevice, DeviceToHost, DeviceToDevice };

class AXLE_API DeviceRuntime {
 public:
  virtual ~DeviceRuntime();
  virtual DeviceType type() const = 0;
  virtual int device_count() = 0;
  virtual DeviceProperties properties(int index) = 0;
  // Memory for work on `stream` (the caller's current stream of that device,
  // nullptr for the default one): a stream-ordered allocator (plugin ABI 1.2)
  // reuses it once freed at once for later work on that stream, for other
  // streams only after that stream's work. Throws OutOfMemoryError naming the
  // size on failure.
  virtual void* allocate(int index, size_t nbytes, void* stream) = 0;
  virtual void deallocate(int index, void* ptr, size_t nbytes) noexcept = 0;
  // Contiguous bytes; `stream` null: complete on return.
  virtual void copy(CopyKind kind, int index, void* dst, const void* src, size_t nbytes, void* stream) = 0;
  // Contiguous bytes from device `src_index` to device `dst_index` of this type
  // without the host (plugin ABI 1.3), on `stream` of the destination (null:
  // complete on return); the caller has waited for the source's queued work.
  // copy_peer throws NotImplementedError where supports_peer_copy() is false.
  virtual bool supports_peer_copy() const { return false; }
  virtual void copy_peer(int dst_index, void* dst, int src_index, const void* src, size_t nbytes, void* stream);
  virtual void synchronize(int index) = 0;
  virtual void* stream_create(int index) = 0;
  virtual void stream_destroy(int index, void* stream) = 0;
  virtual void stream_synchronize(int index, void* stream) = 0;
  virtual void* event_create(int index) = 0;
  virtual void event_destroy(int index, void* event) = 0;
  virtual void event_record(int index, void* event, void* stream) = 0;
  virtual void event_synchronize(int index, void* event) = 0;
  virtual void stream_wait_event(int index, void* stream, void* event) = 0;
  // Work on `stream` also uses the allocation starting at `ptr`
  // (Tensor::record_stream): a stream-ordered allocator keeps it from reuse
  // until the work queued there up to its release is done. A no-op where
  // allocation is not stream-ordered.
  virtual void record_stream(int index, void* ptr, void* stream);
  // Whether allocate/record_stream are stream-ordered (memory may then be
  // released while work queued on its stream still uses it).
  virtual bool stream_ordered_allocation() const { return false; }
  virtual AllocatorStats stats(int index) = 0;
  virtual void empty_cache(int index) = 0;
  // Whether the host may dereference this device's pointers (true for "cpu").
  virtual bool host_accessible() const = 0;
  // Why device_count() is zero (the driver's answer, "no GPU"...), or "".
  virtual std::string unavailable_reason() { return {}; }
  // Page-locked host memory for this device type's asynchronous copies
  // (Tensor::pin_memory). host_alloc_pinned throws NotImplementedError when
  // unsupported, OutOfMemoryError when it fails.
  virtual bool supports_pinned_memory() { return false; }
  virtual void* host_alloc_pinned(size_t nbytes);
  virtual void host_free_pinned(void* ptr) noexcept;
};

// Returns the runtime of `type`, asking the installed resolver (the dispatcher,
// which may load a plugin lazily) the first time. Throws DeviceError naming the
// type and the known types when none provides it.
AXLE_API DeviceRuntime& device_runtime(DeviceType type);
// Validates `device` (type known, index < count) and returns its runtime.
AXLE_API DeviceRuntime& checked_runtime(const Device& device);

// The caching allocator of one device (torch.cuda.memory_stats / empty_cache):
// bytes handed out, bytes held (reserved), the peak handed out, call counts.
// empty_cache returns the cached, unused blocks to the device. Both validate
// the device (DeviceError for an unknown type or index).
AXLE_API AllocatorStats memory_stats(const Device& device);
AXLE_API void empty_cache(const Device& device);

namespace detail {
// Installed once by the dispatcher: returns the runtime for a type or nullptr.
using RuntimeResolver = std::function<DeviceRuntime*(DeviceType)>;
AXLE_API void set_runtime_resolver(RuntimeResolver resolver);
}  // namespace detail

}  // namespace axle
