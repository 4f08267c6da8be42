// A stream-ordered caching allocator for one device: the ABI 1.2 contract of
// `allocate_on_stream` / `deallocate` / `record_stream` (axle_plugin.h), as
// PyTorch's CUDACachingAllocator keeps it, block splitting included.
//
// Device allocation is slow and often synchronizing, so memory is taken from
// the device in segments, handed out as blocks carved from them, and freed
// blocks are kept in a pool per stream and handed out again:
// - Sizes round up to 512 B. Requests up to 1 MiB are served from 2 MiB
//   segments ("small" pool), requests below 10 MiB from 20 MiB segments, larger
//   ones from a segment of their size rounded up to 2 MiB ("large" pool).
// - A request takes the smallest pooled block that fits (best fit, then the
//   lower address). The block is split when what is left is worth keeping: at
//   least 512 B in the small pool, more than 1 MiB in the large one. A freed
//   block merges with free neighbours of its segment, so a segment whose blocks
//   are all free is one block again.
// - A segment belongs to the stream it was allocated for, and so do all its
//   blocks. A freed block returns to that stream's pool at once: work enqueued
//   later on the same stream runs after the work that used it (stream order),
//   so reuse on that stream needs no wait.
// - A block used on other streams too (record_stream) returns to its pool only
//   when an event recorded on each of those streams at the free has completed.
//   Blocks are never handed to another stream's work while they may be in use.
// - Out of memory: every whole free segment is released (after a device-wide
//   synchronize when blocks wait for events) and the allocation retried, then
//   retried at the rounded request size instead of a whole segment; then
//   AXLE_ERROR_OUT_OF_MEMORY (the caller words the message; `stats()` gives
//   what is reserved). `empty_cache` releases the whole free segments too.
// - A stream about to be destroyed is retired: its work is waited for, and its
//   segments, pooled and live blocks alike, move to the default stream
//   (Stream{}).
// Statistics: allocated bytes are the blocks handed out (rounded sizes),
// reserved bytes the segments taken from the device.
//
// `Backend` is the device's raw memory and events; every call is made with the
// allocator's lock held:
//   using Stream = ...;  // ordered, copyable handle; Stream{} is the default stream
//   using Event = ...;
//   axle_status malloc(size_t nbytes, void** ptr);  // AXLE_ERROR_OUT_OF_MEMORY when full
//   void free(void* ptr);                           // a pointer malloc returned
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
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

namespace axle::plugin {

template <class Backend>
class CachingAllocator {
 public:
  using Stream = typename Backend::Stream;
  using Event = typename Backend::Event;

  static constexpr size_t kMinBlock = 512;                    // rounding and smallest split
  static constexpr size_t kSmallSize = size_t{1} << 20;       // largest small-pool request
  static constexpr size_t kSmallSegment = size_t{2} << 20;    // small-pool segment
  static constexpr size_t kMinLargeAlloc = size_t{10} << 20;  // below: a kLargeSegment
  static constexpr size_t kLargeSegment = size_t{20} << 20;
  static constexpr size_t kRoundLarge = size_t{2} << 20;  // larger segments round to this

  explicit CachingAllocator(Backend backend = Backend()) : backend_(std::move(backend)) {}
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;
  // Returns whole free segments and spare events to the backend. Segments with
  // live blocks stay the owners' memory: it is not touched.
  ~CachingAllocator() {
    std::lock_guard lock(mutex_);
    release_cached();
    for (Block* b : pending_) {  // events a failed device never completed
      for (Event e : b->events) backend_.event_destroy(e);
      delete b;
    }
    for (Event e : spare_events_) backend_.event_destroy(e);
    for (auto& [stream, p] : pools_)
      for (Pool* pool : {&p.small, &p.large})
        for (Block* b : *pool) delete b;
    for (auto& [ptr, b] : live_) delete b;
  }

  static size_t round_size(size_t n) { return std::max(kMinBlock, (n + kMinBlock - 1) / kMinBlock * kMinBlock); }
  // What a request of `size` rounded bytes takes from the device when no
  // pooled block fits.
  static size_t segment_size(size_t size) {
    if (size <= kSmallSize) return kSmallSegment;
    if (size < kMinLargeAlloc) return kLargeSegment;
    return (size + kRoundLarge - 1) / kRoundLarge * kRoundLarge;
  }

  // Memory for work enqueued on `stream` from now on.
  axle_status allocate(size_t nbytes, Stream stream, void** ptr) {
    if (nbytes > kMaxBytes) return AXLE_ERROR_OUT_OF_MEMORY;
    const size_t size = round_size(nbytes);
    const bool small = size <= kSmallSize;
    std::lock_guard lock(mutex_);
    collect();
    Pool& pool = pool_of(stream, small);
    Block* b = best_fit(pool, size);
    if (b) {
      pool.erase(b);
    } else {
      axle_status s = new_segment(size, stream, small, &b);
      if (s != AXLE_OK) return s;
    }
    split(b, size);
    b->allocated = true;
    live_.emplace(b->ptr, b);
    allocated_ += b->size;
    peak_ = std::max(peak_, allocated_);
    ++allocs_;
    *ptr = b->ptr;
    return AXLE_OK;
  }

  // Work on `stream` uses the block at `ptr` too: its reuse waits for it.
  axle_status record_stream(void* ptr, Stream stream) {
    std::lock_guard lock(mutex_);
    auto it = live_.find(ptr);
    if (it == live_.end()) return AXLE_ERROR_INVALID_ARGUMENT;
    Block& b = *it->second;
    if (stream != b.stream && std::find(b.uses.begin(), b.uses.end(), stream) == b.uses.end()) b.uses.push_back(stream);
    return AXLE_OK;
  }

  axle_status deallocate(void* ptr) {
    if (!ptr) return AXLE_OK;
    std::lock_guard lock(mutex_);
    auto it = live_.find(ptr);
    if (it == live_.end()) return AXLE_ERROR_INVALID_ARGUMENT;
    Block* b = it->second;
    live_.erase(it);
    b->allocated = false;
    allocated_ -= b->size;
    ++frees_;
    for (Stream use : b->uses) {
      Event e{};
      const bool have = acquire_event(&e);
      if (have && backend_.event_record(e, use)) {
        b->events.push_back(e);
        continue;
      }
      if (have) spare_events_.push_back(e);
      backend_.synchronize_stream(use);  // no event: wait for that stream now
    }
    b->uses.clear();
    if (b->events.empty())
      to_pool(b);
    else
      pending_.push_back(b);
    return AXLE_OK;
  }

  // `stream` is about to be destroyed: waits for its work; its segments, their
  // pooled and live blocks, belong to the default stream from now on.
  void retire_stream(Stream stream) {
    if (stream == Stream{}) return;
    std::lock_guard lock(mutex_);
    backend_.synchronize_stream(stream);
    if (auto it = pools_.find(stream); it != pools_.end()) {
      Pools& to = pools_[Stream{}];
      for (Pool* pool : {&it->second.small, &it->second.large})
        for (Block* b : *pool) b->stream = Stream{};
      to.small.merge(it->second.small);
      to.large.merge(it->second.large);
      pools_.erase(it);
    }
    for (auto& [ptr, b] : live_) {
      if (b->stream == stream) b->stream = Stream{};
      b->uses.erase(std::remove(b->uses.begin(), b->uses.end(), stream), b->uses.end());
    }
    for (Block* b : pending_)
      if (b->stream == stream) b->stream = Stream{};
  }

  // Returns every whole free segment to the backend (torch.cuda.empty_cache).
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
  // Segments currently taken from the device.
  size_t segment_count() const {
    std::lock_guard lock(mutex_);
    return segments_;
  }

  Backend& backend() { return backend_; }

 private:
  // Far beyond any device; keeps round_size and segment_size from overflowing.
  static constexpr size_t kMaxBytes = size_t{1} << 62;

  // A piece of a segment. Neighbours link the segment's blocks in address
  // order; every block of a segment has the segment's stream and pool kind.
  struct Block {
    Block(char* p, size_t n, Stream s, bool is_small) : ptr(p), size(n), stream(s), small(is_small) {}
    char* ptr;
    size_t size;
    Stream stream;
    bool small;
    bool allocated = false;
    Block* prev = nullptr;
    Block* next = nullptr;
    std::vector<Stream> uses;   // while live: other streams whose work reads or writes it
    std::vector<Event> events;  // while pending: one per such stream, recorded at the free
    bool free() const { return !allocated && events.empty(); }
    bool whole_segment() const { return !prev && !next; }
  };
  struct BySizeThenAddress {
    bool operator()(const Block* a, const Block* b) const {
      if (a->size != b->size) return a->size < b->size;
      return std::less<const char*>()(a->ptr, b->ptr);
    }
  };
  using Pool = std::set<Block*, BySizeThenAddress>;
  struct Pools {
    Pool small, large;
  };

  Pool& pool_of(Stream stream, bool small) {
    Pools& p = pools_[stream];
    return small ? p.small : p.large;
  }

  static Block* best_fit(Pool& pool, size_t size) {
    Block key(nullptr, size, Stream{}, false);
    auto it = pool.lower_bound(&key);
    return it == pool.end() ? nullptr : *it;
  }

  axle_status new_segment(size_t size, Stream stream, bool small, Block** out) {
    size_t seg = segment_size(size);
    void* p = nullptr;
    axle_status s = backend_.malloc(seg, &p);
    if (s == AXLE_ERROR_OUT_OF_MEMORY) {  // give the cache back once and retry
      release_cached();
      s = backend_.malloc(seg, &p);
      if (s == AXLE_ERROR_OUT_OF_MEMORY && seg > size) {  // then no more than asked
        seg = size;
        s = backend_.malloc(seg, &p);
      }
    }
    if (s != AXLE_OK) return s;
    reserved_ += seg;
    ++segments_;
    *out = new Block(static_cast<char*>(p), seg, stream, small);
    return AXLE_OK;
  }

  // Keeps the first `size` bytes of `b`; the rest becomes a pooled free block.
  void split(Block* b, size_t size) {
    const size_t rest = b->size - size;
    if (b->small ? rest < kMinBlock : rest <= kSmallSize) return;
    Block* r = new Block(b->ptr + size, rest, b->stream, b->small);
    r->prev = b;
    r->next = b->next;
    if (b->next) b->next->prev = r;
    b->next = r;
    b->size = size;
    pool_of(r->stream, r->small).insert(r);
  }

  // A free block merges with its free neighbours and enters its pool.
  void to_pool(Block* b) {
    Pool& pool = pool_of(b->stream, b->small);
    if (Block* p = b->prev; p && p->free()) {
      pool.erase(p);
      b->ptr = p->ptr;
      b->size += p->size;
      b->prev = p->prev;
      if (b->prev) b->prev->next = b;
      delete p;
    }
    if (Block* n = b->next; n && n->free()) {
      pool.erase(n);
      b->size += n->size;
      b->next = n->next;
      if (b->next) b->next->prev = b;
      delete n;
    }
    pool.insert(b);
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
    auto done = [this](Block* b) {
      for (Event e : b->events)
        if (!backend_.event_done(e)) return false;
      spare_events_.insert(spare_events_.end(), b->events.begin(), b->events.end());
      b->events.clear();
      to_pool(b);
      return true;
    };
    pending_.erase(std::remove_if(pending_.begin(), pending_.end(), done), pending_.end());
  }

  // Frees every pooled block that is a whole segment.
  void release_cached() {
    if (!pending_.empty()) {
      backend_.synchronize();
      collect();
    }
    for (auto it = pools_.begin(); it != pools_.end();) {
      for (Pool* pool : {&it->second.small, &it->second.large})
        for (auto b = pool->begin(); b != pool->end();) {
          if (!(*b)->whole_segment()) {
            ++b;
            continue;
          }
          backend_.free((*b)->ptr);
          reserved_ -= (*b)->size;
          --segments_;
          delete *b;
          b = pool->erase(b);
        }
      if (it->second.small.empty() && it->second.large.empty())
        it = pools_.erase(it);
      else
        ++it;
    }
  }

  Backend backend_;
  mutable std::mutex mutex_;
  std::unordered_map<void*, Block*> live_;
  std::map<Stream, Pools> pools_;
  std::vector<Block*> pending_;
  std::vector<Event> spare_events_;
  uint64_t allocated_ = 0, reserved_ = 0, peak_ = 0, allocs_ = 0, frees_ = 0;
  size_t segments_ = 0;
};

}  // namespace axle::plugin
