// A stream-ordered caching allocator for one device: the ABI 1.2 contract of
// `allocate_on_stream` / `deallocate` / `record_stream` (axle_plugin.h), as
// PyTorch's CUDACachingAllocator keeps it, without block splitting.
//
// Device allocation is slow and often synchronizing, so freed blocks are kept
// in a pool per stream and handed out again:
// - A block belongs to the stream it was allocated on. Freed, it returns to that
//   stream's pool at once: work enqueued later on the same stream runs after the
//   work that used it (stream order), so reuse on that stream needs no wait.
// - A block used on other streams too (record_stream) returns to its pool only
//   when an event recorded on each of those streams at the free has completed.
//   Blocks are never handed to another stream's work while they may be in use.
// - Sizes round up to 512 B (requests up to 1 MiB) or 2 MiB; a free block of the
//   same rounded size is reused.
// - Out of memory: every cached block is released (after a device-wide
//   synchronize) and the allocation retried once, then AXLE_ERROR_OUT_OF_MEMORY
//   (the caller words the message; `stats()` gives what is reserved).
// - A stream about to be destroyed is retired: its work is waited for, and its
//   pooled and live blocks move to the default stream (Stream{}).
//
// `Backend` is the device's raw memory and events; every call is made with the
// allocator's lock held:
//   using Stream = ...;  // ordered, copyable handle; Stream{} is the default stream
//   using Event = ...;
//   axle_status malloc(size_t nbytes, void** ptr);  // AXLE_ERROR_OUT_OF_MEMORY when full
//   void free(void* ptr);
//   bool event_create(Event* event);
//   void event_destroy(Event event);
//   bool event_record(Event event, Stream stream);  // false: not recorded
//   bool event_done(Event event);                   // the recorded work completed
//   void synchronize();                             // every stream of the device
//   void synchronize_stream(Stream stream);
// A backend that cannot make or record an event waits for the stream instead.
// Thread-safe.
#pragma once

#include <axle/plugin/axle_plugin.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace axle::plugin {

template <class Backend>
class CachingAllocator {
 public:
  using Stream = typename Backend::Stream;
  using Event = typename Backend::Event;

  explicit CachingAllocator(Backend backend = Backend()) : backend_(std::move(backend)) {}
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;
  // Returns pooled blocks and spare events to the backend (live blocks stay the
  // owners' to free: their memory is not touched).
  ~CachingAllocator() {
    std::lock_guard lock(mutex_);
    release_cached();
    for (Event e : spare_events_) backend_.event_destroy(e);
  }

  static size_t round_size(size_t n) {
    constexpr size_t kSmall = size_t{1} << 20;
    const size_t granule = n <= kSmall ? 512 : (size_t{2} << 20);
    return std::max<size_t>(granule, (n + granule - 1) / granule * granule);
  }

  // Memory for work enqueued on `stream` from now on.
  axle_status allocate(size_t nbytes, Stream stream, void** ptr) {
    if (nbytes > kMaxBytes) return AXLE_ERROR_OUT_OF_MEMORY;
    const size_t size = round_size(nbytes);
    std::lock_guard lock(mutex_);
    collect();
    void* p = take(stream, size);
    if (!p) {
      axle_status s = backend_.malloc(size, &p);
      if (s == AXLE_ERROR_OUT_OF_MEMORY) {  // give the cache back once and retry
        release_cached();
        s = backend_.malloc(size, &p);
      }
      if (s != AXLE_OK) return s;
      reserved_ += size;
    }
    live_.emplace(p, Live{size, stream, {}});
    allocated_ += size;
    peak_ = std::max(peak_, allocated_);
    ++allocs_;
    *ptr = p;
    return AXLE_OK;
  }

  // Work on `stream` uses the block at `ptr` too: its reuse waits for it.
  axle_status record_stream(void* ptr, Stream stream) {
    std::lock_guard lock(mutex_);
    auto it = live_.find(ptr);
    if (it == live_.end()) return AXLE_ERROR_INVALID_ARGUMENT;
    Live& b = it->second;
    if (stream != b.stream && std::find(b.uses.begin(), b.uses.end(), stream) == b.uses.end())
      b.uses.push_back(stream);
    return AXLE_OK;
  }

  axle_status deallocate(void* ptr) {
    if (!ptr) return AXLE_OK;
    std::lock_guard lock(mutex_);
    auto it = live_.find(ptr);
    if (it == live_.end()) return AXLE_ERROR_INVALID_ARGUMENT;
    Live b = std::move(it->second);
    live_.erase(it);
    allocated_ -= b.size;
    ++frees_;
    Pending p{ptr, b.size, b.stream, {}};
    for (Stream use : b.uses) {
      Event e{};
      const bool have = acquire_event(&e);
      if (have && backend_.event_record(e, use)) {
        p.events.push_back(e);
        continue;
      }
      if (have) spare_events_.push_back(e);
      backend_.synchronize_stream(use);  // no event: wait for that stream now
    }
    if (p.events.empty())
      pools_[p.stream].emplace(p.size, p.ptr);
    else
      pending_.push_back(std::move(p));
    return AXLE_OK;
  }

  // `stream` is about to be destroyed: waits for its work; its blocks, pooled
  // and live, belong to the default stream from now on.
  void retire_stream(Stream stream) {
    if (stream == Stream{}) return;
    std::lock_guard lock(mutex_);
    backend_.synchronize_stream(stream);
    if (auto it = pools_.find(stream); it != pools_.end()) {
      pools_[Stream{}].merge(it->second);
      pools_.erase(stream);
    }
    for (auto& [ptr, b] : live_) {
      if (b.stream == stream) b.stream = Stream{};
      b.uses.erase(std::remove(b.uses.begin(), b.uses.end(), stream), b.uses.end());
    }
    for (Pending& p : pending_)
      if (p.stream == stream) p.stream = Stream{};
  }

  // Returns every cached block to the backend (torch.cuda.empty_cache).
  void empty_cache() {
    std::lock_guard lock(mutex_);
    release_cached();
  }

  void stats(axle_allocator_stats* s) const {
    std::lock_guard lock(mutex_);
    s->allocated_bytes = allocated_;
    s->reserved_bytes = reserved_;
    s->peak_allocated_bytes = peak_;
    s->num_allocs = allocs_;
    s->num_frees = frees_;
  }
  uint64_t reserved_bytes() const {
    std::lock_guard lock(mutex_);
    return reserved_;
  }

  Backend& backend() { return backend_; }

 private:
  // Far beyond any device; keeps round_size from overflowing.
  static constexpr size_t kMaxBytes = size_t{1} << 62;

  struct Live {
    size_t size;
    Stream stream;
    std::vector<Stream> uses;  // other streams whose work reads or writes it
  };
  struct Pending {
    void* ptr;
    size_t size;
    Stream stream;
    std::vector<Event> events;  // one per other stream, recorded at the free
  };

  void* take(Stream stream, size_t size) {
    auto pool = pools_.find(stream);
    if (pool == pools_.end()) return nullptr;
    auto it = pool->second.find(size);
    if (it == pool->second.end()) return nullptr;
    void* p = it->second;
    pool->second.erase(it);
    return p;
  }

  bool acquire_event(Event* e) {
    if (!spare_events_.empty()) {
      *e = spare_events_.back();
      spare_events_.pop_back();
      return true;
    }
    *e = Event{};
    return backend_.event_create(e);
  }

  // Pending blocks whose events all completed go back to their stream's pool.
  void collect() {
    auto done = [this](Pending& p) {
      for (Event e : p.events)
        if (!backend_.event_done(e)) return false;
      spare_events_.insert(spare_events_.end(), p.events.begin(), p.events.end());
      pools_[p.stream].emplace(p.size, p.ptr);
      return true;
    };
    pending_.erase(std::remove_if(pending_.begin(), pending_.end(), done), pending_.end());
  }

  void release_cached() {
    if (!pending_.empty()) {
      backend_.synchronize();
      collect();
    }
    for (auto& [stream, pool] : pools_)
      for (auto& [size, ptr] : pool) {
        backend_.free(ptr);
        reserved_ -= size;
      }
    pools_.clear();
  }

  Backend backend_;
  mutable std::mutex mutex_;
  std::unordered_map<void*, Live> live_;
  std::map<Stream, std::multimap<size_t, void*>> pools_;
  std::vector<Pending> pending_;
  std::vector<Event> spare_events_;
  uint64_t allocated_ = 0, reserved_ = 0, peak_ = 0, allocs_ = 0, frees_ = 0;
};

}  // namespace axle::plugin
