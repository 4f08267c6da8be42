// The host device "cpu": a caching allocator over aligned malloc, memcpy copies,
// synchronous streams (work on the host completes before the call returns),
// allocation statistics.
#include "kernels.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <vector>

namespace axle::reference {
namespace {

// Bytes handed out and their peak are exact process-wide figures (one atomic
// add per allocation and per free); the call counts are kept per thread (see
// ThreadCache) and summed when read.
std::atomic<uint64_t> g_allocated{0}, g_peak{0};
thread_local const char* t_last_error = nullptr;

axle_status check_index(int32_t index) {
  if (index == 0) return AXLE_OK;
  t_last_error = "the host has one device, cpu:0";
  return AXLE_ERROR_DEVICE;
}

axle_status device_count(void*, int32_t* count) {
  *count = 1;
  return AXLE_OK;
}

axle_status get_properties(void*, int32_t index, axle_device_properties* p) {
  if (axle_status s = check_index(index)) return s;
  std::strncpy(p->name, "host CPU", sizeof p->name - 1);
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  p->total_memory = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
  p->host_accessible = 1;
  return AXLE_OK;
}

// Freed blocks up to 1 MiB are kept per power-of-two size class and reused, so
// small allocating ops do not pay malloc's bookkeeping per call. Larger blocks
// are rounded up to 2 MiB multiples and kept per exact size, up to
// max_large_cached() bytes in all: without that, every large
// allocating op (a 64 MiB add) pays the kernel's page faults again, which halves
// its bandwidth. empty_cache releases both caches.
constexpr int kClasses = 21;  // 64 B .. 64 MiB classes, cache only up to 1 MiB
constexpr size_t kMaxCached = size_t{1} << 20;
constexpr size_t kMaxBlocksPerClass = 64;
struct SizeClass {
  std::mutex mutex;
  std::vector<void*> free;
};
// Never destroyed: blocks stay reachable (and reusable) until the process ends,
// including during static destruction.
SizeClass* const g_classes = new SizeClass[kClasses];
std::atomic<uint64_t> g_reserved{0};

// Large blocks are 2 MiB-aligned mappings (huge pages, see LargeCache), so without care every
// large tensor would start at the same address modulo 4 KiB: a kernel reading
// one and writing another then stalls on false store-to-load aliasing (oneDNN's
// softmax on 4096x1024 ran 1.45x slower with its output 0 B after its input
// modulo 4 KiB than 64-704 B after it, on an AMD EPYC; torch's mmap'ed blocks
// share one offset too). As jemalloc's cache-oblivious large allocations do,
// each new block starts its data a cache line further into its mapping than
// the previous one (64 offsets, 4 KiB extra per block); a cached block keeps
// its offset.
constexpr size_t kLargeGranule = size_t{2} << 20;
constexpr size_t kColorStep = 64, kColorSpan = 4096;
size_t large_bytes(size_t nbytes) { return (nbytes + kLargeGranule - 1) / kLargeGranule * kLargeGranule + kColorSpan; }
std::atomic<size_t> g_next_color{0};
void* colored(void* mapping) {
  const size_t color = g_next_color.fetch_add(1, std::memory_order_relaxed) % (kColorSpan / kColorStep);
  return static_cast<char*>(mapping) + color * kColorStep;
}
void* mapping_of(void* block) {
  return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(block) & ~uintptr_t{kLargeGranule - 1});
}
// min(1/8 of physical memory, 8 GiB)
size_t max_large_cached() {
  static const size_t cap = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    const size_t phys = pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) : 0;
    return std::min(phys / 8, size_t{8} << 30);
  }();
  return cap;
}
// Huge pages pay off in steady state (a word LM's step 5-8% faster, ResNet's
// SGD 10.7 -> 8.8 ms: fewer TLB misses) but their first touch can cost far
// more than 4 KiB pages' (a VM of 2 cores: 76 vs 14 ms for 30 MB, each huge
// page fresh guest memory), which a block used once (an evaluation pass at a
// new batch size, a first training step) pays in full. So a new block gets 4
// KiB pages; a block handed out a second time has proved its size recurring:
// when it is next freed it is released instead of cached, and blocks of that
// size are made from then on with huge pages.
struct LargeCache {
  std::mutex mutex;
  std::multimap<size_t, void*> free;  // block bytes -> block
  size_t cached = 0;
  std::map<void*, int> small_paged;  // blocks on 4 KiB pages -> times handed out
  std::set<size_t> recurring;        // block bytes made with huge pages
};
LargeCache& large_cache() {
  static LargeCache* c = new LargeCache;  // never destroyed, as g_classes
  return *c;
}

int class_of(size_t nbytes) {
  int c = 0;
  size_t cap = 64;
  while (cap < nbytes && c < kClasses - 1) {
    cap <<= 1;
    ++c;
  }
  return c;
}
size_t class_bytes(int c) { return size_t{64} << c; }

// In front of the shared classes, each thread keeps a few blocks of the small
// classes (64 B .. 4 KiB) without a lock: a 1-element op allocates and frees
// one per call. A thread's blocks return to the shared classes when it exits;
// after that (late frees from destructors) the shared path is used.
constexpr int kThreadClasses = 7;
constexpr int kThreadBlocks = 16;

// Allocation and free counts: each thread counts its own calls without a
// locked instruction (relaxed load + store of its own counters); readers sum
// the live threads' counters and what exited threads left.
struct CallCounts {
  std::atomic<uint64_t> allocs{0}, frees{0};
};
void bump(std::atomic<uint64_t>& c) { c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
struct CountRegistry {
  std::mutex mutex;
  std::vector<CallCounts*> live;
  uint64_t exited_allocs = 0, exited_frees = 0;
};
CountRegistry& counts() {
  static auto* r = new CountRegistry;  // never destroyed: threads exit after static destruction
  return *r;
}
// Calls made where no thread cache exists (during or after the thread's exit).
std::atomic<uint64_t> g_uncached_allocs{0}, g_uncached_frees{0};

// Constant-initialized with a trivial destructor, so an access is a plain TLS
// address (no lazy-init guard); the exit work is the Reaper's, armed on first use.
struct ThreadCache {
  enum State : int { kNew, kLive, kGone };
  void* blocks[kThreadClasses][kThreadBlocks] = {};
  int count[kThreadClasses] = {};
  CallCounts calls;
  State state = kNew;
};
thread_local ThreadCache t_cache;

struct Reaper {
  ~Reaper() {
    ThreadCache& tc = t_cache;
    {
      CountRegistry& r = counts();
      std::lock_guard lock(r.mutex);
      r.live.erase(std::find(r.live.begin(), r.live.end(), &tc.calls));
      r.exited_allocs += tc.calls.allocs.load(std::memory_order_relaxed);
      r.exited_frees += tc.calls.frees.load(std::memory_order_relaxed);
    }
    tc.state = ThreadCache::kGone;
    for (int c = 0; c < kThreadClasses; ++c) {
      SizeClass& sc = g_classes[c];
      std::lock_guard lock(sc.mutex);
      for (int i = 0; i < tc.count[c]; ++i) {
        if (sc.free.size() < kMaxBlocksPerClass) {
          sc.free.push_back(tc.blocks[c][i]);
        } else {
          std::free(tc.blocks[c][i]);
          g_reserved.fetch_sub(class_bytes(c));
        }
      }
      tc.count[c] = 0;
    }
  }
};
thread_local Reaper t_reaper;

// First use on a thread: registers its counters and arms the Reaper.
[[gnu::noinline]] ThreadCache* arm_thread_cache(ThreadCache& tc) {
  if (tc.state == ThreadCache::kGone) return nullptr;
  {
    CountRegistry& r = counts();
    std::lock_guard lock(r.mutex);
    r.live.push_back(&tc.calls);
  }
  tc.state = ThreadCache::kLive;
  (void)&t_reaper;  // constructs it: its destructor runs at this thread's exit
  return &tc;
}
// The calling thread's cache, nullptr once its thread is exiting.
inline ThreadCache* thread_cache() {
  ThreadCache& tc = t_cache;
  if (tc.state == ThreadCache::kLive) [[likely]]
    return &tc;
  return arm_thread_cache(tc);
}

uint64_t total(std::atomic<uint64_t> CallCounts::*which, uint64_t CountRegistry::*exited,
               const std::atomic<uint64_t>& uncached) {
  CountRegistry& r = counts();
  std::lock_guard lock(r.mutex);
  uint64_t n = r.*exited + uncached.load(std::memory_order_relaxed);
  for (const CallCounts* c : r.live) n += (c->*which).load(std::memory_order_relaxed);
  return n;
}

axle_status allocate(void*, int32_t index, size_t nbytes, void** ptr) {
  if (axle_status s = check_index(index)) return s;
  void* p = nullptr;
  ThreadCache* tc = thread_cache();
  const bool cached = nbytes <= kMaxCached;
  const size_t bytes = cached ? class_bytes(class_of(nbytes)) : large_bytes(nbytes);
  if (!cached) {
    LargeCache& lc = large_cache();
    std::lock_guard lock(lc.mutex);
    auto it = lc.free.lower_bound(bytes);
    if (it != lc.free.end() && it->first == bytes) {
      p = it->second;
      lc.cached -= it->first;
      lc.free.erase(it);
      if (auto u = lc.small_paged.find(p); u != lc.small_paged.end()) ++u->second;
    }
  } else if (const int c = class_of(nbytes); c < kThreadClasses && tc && tc->count[c] > 0) {
    p = tc->blocks[c][--tc->count[c]];
  } else {
    SizeClass& sc = g_classes[c];
    std::lock_guard lock(sc.mutex);
    if (!sc.free.empty()) {
      p = sc.free.back();
      sc.free.pop_back();
    }
  }
  if (!p) {
    if (posix_memalign(&p, cached ? 64 : kLargeGranule, bytes) != 0) {
      t_last_error = "posix_memalign failed";
      return AXLE_ERROR_OUT_OF_MEMORY;
    }
    if (!cached) {
      LargeCache& lc = large_cache();
      std::lock_guard lock(lc.mutex);
      const bool huge = lc.recurring.count(bytes) != 0;
      if (huge) madvise(p, bytes, MADV_HUGEPAGE);
      p = colored(p);
      if (!huge) lc.small_paged.emplace(p, 1);
    }
    g_reserved.fetch_add(bytes);
  }
  *ptr = p;
  const uint64_t now = g_allocated.fetch_add(nbytes) + nbytes;
  uint64_t peak = g_peak.load();
  while (now > peak && !g_peak.compare_exchange_weak(peak, now)) {
  }
  if (tc)
    bump(tc->calls.allocs);
  else
    g_uncached_allocs.fetch_add(1);
  return AXLE_OK;
}

axle_status deallocate(void*, int32_t, void* ptr, size_t nbytes) {
  g_allocated.fetch_sub(nbytes);
  ThreadCache* tc = thread_cache();
  if (tc)
    bump(tc->calls.frees);
  else
    g_uncached_frees.fetch_add(1);
  if (nbytes <= kMaxCached) {
    const int c = class_of(nbytes);
    if (c < kThreadClasses && tc && tc->count[c] < kThreadBlocks) {
      tc->blocks[c][tc->count[c]++] = ptr;
      return AXLE_OK;
    }
    SizeClass& sc = g_classes[c];
    std::lock_guard lock(sc.mutex);
    if (sc.free.size() < kMaxBlocksPerClass) {
      sc.free.push_back(ptr);
      return AXLE_OK;
    }
    g_reserved.fetch_sub(class_bytes(c));
  } else {
    const size_t bytes = large_bytes(nbytes);
    LargeCache& lc = large_cache();
    std::lock_guard lock(lc.mutex);
    bool promote = false;
    if (auto u = lc.small_paged.find(ptr); u != lc.small_paged.end()) {
      promote = u->second >= 2;
      if (promote) {
        lc.small_paged.erase(u);
        lc.recurring.insert(bytes);
      }
    }
    if (!promote && lc.cached + bytes <= max_large_cached()) {
      lc.free.emplace(bytes, ptr);
      lc.cached += bytes;
      return AXLE_OK;
    }
    g_reserved.fetch_sub(bytes);
    lc.small_paged.erase(ptr);
    ptr = mapping_of(ptr);
  }
  std::free(ptr);
  return AXLE_OK;
}

// Releases the shared caches and the calling thread's blocks (other threads'
// few small blocks stay with them).
axle_status empty_cache(void*, int32_t index) {
  if (axle_status s = check_index(index)) return s;
  if (ThreadCache* tc = thread_cache())
    for (int c = 0; c < kThreadClasses; ++c) {
      for (int i = 0; i < tc->count[c]; ++i) std::free(tc->blocks[c][i]);
      g_reserved.fetch_sub(class_bytes(c) * static_cast<size_t>(tc->count[c]));
      tc->count[c] = 0;
    }
  for (int c = 0; c < kClasses; ++c) {
    SizeClass& sc = g_classes[c];
    std::lock_guard lock(sc.mutex);
    for (void* p : sc.free) std::free(p);
    g_reserved.fetch_sub(class_bytes(c) * sc.free.size());
    sc.free.clear();
  }
  LargeCache& lc = large_cache();
  std::lock_guard lock(lc.mutex);
  for (const auto& [bytes, p] : lc.free) {
    lc.small_paged.erase(p);
    std::free(mapping_of(p));
  }
  g_reserved.fetch_sub(lc.cached);
  lc.free.clear();
  lc.cached = 0;
  return AXLE_OK;
}

axle_status copy(void*, axle_copy_kind, int32_t index, void* dst, const void* src, size_t nbytes, axle_stream) {
  if (axle_status s = check_index(index)) return s;
  if (nbytes) std::memmove(dst, src, nbytes);
  return AXLE_OK;
}

axle_status no_op(void*, int32_t index) { return check_index(index); }
axle_status stream_create(void*, int32_t index, axle_stream* s) {
  *s = new int(0);  // a token: host work is synchronous
  return check_index(index);
}
axle_status stream_destroy(void*, int32_t, axle_stream s) {
  delete static_cast<int*>(s);
  return AXLE_OK;
}
axle_status stream_sync(void*, int32_t index, axle_stream) { return check_index(index); }
axle_status event_create(void*, int32_t index, axle_event* e) {
  *e = new int(0);
  return check_index(index);
}
axle_status event_destroy(void*, int32_t, axle_event e) {
  delete static_cast<int*>(e);
  return AXLE_OK;
}
axle_status event_record(void*, int32_t index, axle_event, axle_stream) { return check_index(index); }
axle_status event_sync(void*, int32_t index, axle_event) { return check_index(index); }
axle_status stream_wait(void*, int32_t index, axle_stream, axle_event) { return check_index(index); }

axle_status stats(void*, int32_t index, axle_allocator_stats* st) {
  if (axle_status s = check_index(index)) return s;
  st->allocated_bytes = g_allocated.load();
  st->reserved_bytes = g_reserved.load();
  st->peak_allocated_bytes = g_peak.load();
  st->num_allocs = total(&CallCounts::allocs, &CountRegistry::exited_allocs, g_uncached_allocs);
  st->num_frees = total(&CallCounts::frees, &CountRegistry::exited_frees, g_uncached_frees);
  return AXLE_OK;
}

const char* last_error(void*) { return t_last_error; }

const axle_device_interface kHost = [] {
  auto d = plugin::abi_struct<axle_device_interface>();
  d.type_name = "cpu";
  d.device_count = &device_count;
  d.get_properties = &get_properties;
  d.allocate = &allocate;
  d.deallocate = &deallocate;
  d.copy = &copy;
  d.synchronize = &no_op;
  d.stream_create = &stream_create;
  d.stream_destroy = &stream_destroy;
  d.stream_synchronize = &stream_sync;
  d.event_create = &event_create;
  d.event_destroy = &event_destroy;
  d.event_record = &event_record;
  d.event_synchronize = &event_sync;
  d.stream_wait_event = &stream_wait;
  d.allocator_stats = &stats;
  d.empty_cache = &empty_cache;
  d.last_error = &last_error;
  // Unset: pinned memory (the host needs none), stream-ordered allocation (host
  // work is synchronous) and peer copies (one host device).
  return d;
}();

}  // namespace

const axle_device_interface* host_device() { return &kHost; }

}  // namespace axle::reference
