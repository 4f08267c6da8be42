// HandleAddressSpace<Handle>: device addresses for a device whose memory is a
// handle rather than an address (OpenCL's cl_mem, Vulkan's VkBuffer, a block of
// a private arena). The core treats what `allocate` returns as an address: it
// adds storage offsets in bytes to it (a view's `data`, the `src` / `dst` of
// `copy`) and compares views' addresses (same_view, views_overlap). This class
// hands out fake, aligned, non-overlapping addresses for handles, maps any
// address inside a live allocation back to (handle, byte offset), refuses
// addresses outside live allocations and forgets an allocation when it is
// freed. Thread-safe. Header-only; depends on the C++ standard library only.
//
//   HandleAddressSpace<cl_mem> space;
//   void* addr = space.insert(buffer, nbytes);        // allocate: return addr
//   HandleAddressSpace<cl_mem>::Resolved r;
//   if (space.resolve(view.data, nbytes, &r))          // kernels and copies
//     clEnqueueCopyBuffer(q, r.handle, ..., r.offset, ...);
//   cl_mem freed;
//   if (space.erase(addr, &freed)) clReleaseMemObject(freed);  // deallocate
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

namespace axle::plugin {

template <typename Handle>
class HandleAddressSpace {
 public:
  static_assert(sizeof(void*) == 8, "HandleAddressSpace hands out 64-bit addresses");

  // Where addresses start by default: not a canonical x86-64 or AArch64 user
  // address, so a host dereference by mistake faults instead of reading memory.
  static constexpr uint64_t kDefaultBase = 0x5ace000000000000ull;
  static constexpr size_t kDefaultAlignment = 256;  // as cudaMalloc's; a power of two
  static constexpr size_t kDefaultGap = 4096;       // unmapped bytes after each allocation

  // What an address resolves to: the allocation's handle, the address's byte
  // offset into it, and the allocation's size in bytes.
  struct Resolved {
    Handle handle{};
    size_t offset = 0;
    size_t size = 0;
  };

  // Allocations start at `base` rounded up to `alignment` (a power of two;
  // otherwise insert always fails), each on an `alignment` boundary, with at
  // least `gap` bytes after its end before the next one.
  explicit HandleAddressSpace(uint64_t base = kDefaultBase, size_t alignment = kDefaultAlignment,
                              size_t gap = kDefaultGap)
      : next_(base), alignment_(alignment), gap_(gap) {}
  HandleAddressSpace(const HandleAddressSpace&) = delete;
  HandleAddressSpace& operator=(const HandleAddressSpace&) = delete;

  // A new address for `handle` spanning `nbytes` bytes (0 is allowed: a unique
  // address, valid only for 0-byte ranges). Addresses are never reused, so a
  // stale address of a freed allocation never resolves to a later one. NULL
  // when the address space is exhausted or the alignment is not a power of two.
  void* insert(Handle handle, size_t nbytes) {
    if (alignment_ == 0 || (alignment_ & (alignment_ - 1)) != 0) return nullptr;
    std::lock_guard lock(mutex_);
    const uint64_t mask = static_cast<uint64_t>(alignment_) - 1;
    if (next_ > UINT64_MAX - mask) return nullptr;
    const uint64_t addr = (next_ + mask) & ~mask;
    const uint64_t span = static_cast<uint64_t>(nbytes == 0 ? 1 : nbytes);
    if (addr == 0 || span > UINT64_MAX - addr || gap_ > UINT64_MAX - addr - span) return nullptr;
    next_ = addr + span + gap_;
    live_.emplace(addr, Entry{handle, nbytes});
    bytes_ += nbytes;
    return reinterpret_cast<void*>(static_cast<uintptr_t>(addr));
  }

  // The live allocation holding [addr, addr + nbytes): its handle, addr's byte
  // offset and its size in *out; false when the range is not inside one live
  // allocation (before every allocation, in a gap, past an allocation's end,
  // freed). A 0-byte range may sit at an allocation's end (an empty view
  // sliced off the end of a tensor).
  bool resolve(const void* addr, size_t nbytes, Resolved* out) const {
    const uint64_t a = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(addr));
    std::lock_guard lock(mutex_);
    auto it = live_.upper_bound(a);
    if (it == live_.begin()) return false;
    --it;
    const uint64_t offset = a - it->first;
    const uint64_t size = it->second.size;
    if (offset > size || nbytes > size - offset) return false;
    if (out) *out = Resolved{it->second.handle, static_cast<size_t>(offset), static_cast<size_t>(size)};
    return true;
  }
  bool resolve(const void* addr, Resolved* out) const { return resolve(addr, 0, out); }
  bool contains(const void* addr, size_t nbytes = 0) const { return resolve(addr, nbytes, nullptr); }

  // Forgets the allocation that starts at `addr`, giving back its handle and
  // size; false (nothing changed) for any other address, an address inside an
  // allocation included.
  bool erase(const void* addr, Handle* handle = nullptr, size_t* nbytes = nullptr) {
    const uint64_t a = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(addr));
    std::lock_guard lock(mutex_);
    auto it = live_.find(a);
    if (it == live_.end()) return false;
    if (handle) *handle = it->second.handle;
    if (nbytes) *nbytes = it->second.size;
    bytes_ -= it->second.size;
    live_.erase(it);
    return true;
  }

  size_t live_allocations() const {
    std::lock_guard lock(mutex_);
    return live_.size();
  }
  uint64_t live_bytes() const {
    std::lock_guard lock(mutex_);
    return bytes_;
  }

 private:
  struct Entry {
    Handle handle;
    size_t size;
  };
  mutable std::mutex mutex_;
  std::map<uint64_t, Entry> live_;  // start address -> allocation
  uint64_t next_;
  uint64_t bytes_ = 0;
  size_t alignment_;
  size_t gap_;
};

}  // namespace axle::plugin
