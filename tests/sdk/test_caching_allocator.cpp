// The SDK's stream-ordered caching allocator (axle/plugin/caching_allocator.hpp)
// over a simulated device whose streams complete only when the test says so:
// reuse in stream order, segments split into blocks and merged back, best fit,
// cross-stream uses waited for by events, the OOM release-and-retry, retired
// streams, statistics, and a random sequence checked for overlapping blocks. The CUDA plugin's allocator is
// this template over the CUDA runtime, so its logic is checked on every machine.
#include <axle/plugin/caching_allocator.hpp>

#include <doctest/doctest.h>

#include <map>
#include <set>
#include <thread>
#include <vector>

namespace {

// Streams are ints (0 = default). Work "completes" when the test calls finish();
// an event remembers how much work its stream had queued when recorded.
struct FakeDevice {
  size_t capacity = size_t{1} << 30;
  size_t used = 0;
  uintptr_t next = 0x10000;
  std::map<void*, size_t> blocks;
  std::map<int, int> queued, done;            // per stream: work items enqueued / completed
  std::map<int, std::pair<int, int>> events;  // id -> (stream, ticket)
  int next_event = 1;
  bool events_fail = false;
  int mallocs = 0, frees = 0, device_syncs = 0;
  std::vector<int> stream_syncs;

  void enqueue(int stream) { ++queued[stream]; }
  void finish(int stream) { done[stream] = queued[stream]; }
};

struct FakeBackend {
  using Stream = int;
  using Event = int;
  FakeDevice* dev;
  axle_status malloc(size_t n, void** p) {
    if (dev->used + n > dev->capacity) return AXLE_ERROR_OUT_OF_MEMORY;
    dev->used += n;
    *p = reinterpret_cast<void*>(dev->next);
    dev->next += n;
    dev->blocks[*p] = n;
    ++dev->mallocs;
    return AXLE_OK;
  }
  void free(void* p) {
    dev->used -= dev->blocks.at(p);
    dev->blocks.erase(p);
    ++dev->frees;
  }
  bool event_create(Event* e) {
    if (dev->events_fail) return false;
    *e = dev->next_event++;
    dev->events[*e] = {0, 0};
    return true;
  }
  void event_destroy(Event e) { dev->events.erase(e); }
  bool event_record(Event e, Stream s) {
    dev->events.at(e) = {s, dev->queued[s]};
    return true;
  }
  bool event_done(Event e) {
    auto [s, ticket] = dev->events.at(e);
    return dev->done[s] >= ticket;
  }
  void synchronize() {
    ++dev->device_syncs;
    for (auto& [s, n] : dev->queued) dev->done[s] = n;
  }
  void synchronize_stream(Stream s) {
    dev->stream_syncs.push_back(s);
    dev->finish(s);
  }
};

using Allocator = axle::plugin::CachingAllocator<FakeBackend>;

void* alloc(Allocator& a, size_t n, int stream) {
  void* p = nullptr;
  REQUIRE(a.allocate(n, stream, &p) == AXLE_OK);
  REQUIRE(p != nullptr);
  return p;
}

axle_allocator_stats stats(const Allocator& a) {
  axle_allocator_stats s{};
  s.struct_size = sizeof s;
  a.stats(&s);
  return s;
}

}  // namespace

TEST_CASE("caching allocator: a block freed on a stream is reused by that stream at once, not by others") {
  FakeDevice dev;
  Allocator a(FakeBackend{&dev});
  void* x = alloc(a, 1000, 1);
  dev.enqueue(1);  // a kernel on stream 1 uses x and has not finished
  REQUIRE(a.deallocate(x) == AXLE_OK);
  CHECK(alloc(a, 1000, 2) != x);  // stream 2 would race with stream 1's kernel
  void* y = alloc(a, 900, 1);     // stream order makes reuse on stream 1 safe
  CHECK(y == x);
  CHECK(dev.mallocs == 2);
  CHECK(dev.stream_syncs.empty());
  CHECK(dev.device_syncs == 0);
}

TEST_CASE("caching allocator: sizes round to 512 B; segments are 2 MiB, 20 MiB or the size rounded to 2 MiB") {
  constexpr size_t MiB = size_t{1} << 20;
  CHECK(Allocator::round_size(0) == 512);
  CHECK(Allocator::round_size(1) == 512);
  CHECK(Allocator::round_size(513) == 1024);
  CHECK(Allocator::round_size(MiB) == MiB);
  CHECK(Allocator::round_size(MiB + 1) == MiB + 512);
  CHECK(Allocator::segment_size(512) == 2 * MiB);
  CHECK(Allocator::segment_size(MiB) == 2 * MiB);
  CHECK(Allocator::segment_size(MiB + 512) == 20 * MiB);
  CHECK(Allocator::segment_size(10 * MiB - 512) == 20 * MiB);
  CHECK(Allocator::segment_size(10 * MiB) == 10 * MiB);
  CHECK(Allocator::segment_size(11 * MiB + 512) == 12 * MiB);
  FakeDevice dev;
  Allocator a(FakeBackend{&dev});
  void* x = alloc(a, 100, 0);
  CHECK(dev.blocks.at(x) == 2 * MiB);
  a.deallocate(x);
  CHECK(alloc(a, 400, 0) == x);
  void* big = alloc(a, 3 * MiB, 0);
  CHECK(dev.blocks.at(big) == 20 * MiB);
  CHECK(alloc(a, 11 * MiB + 1, 0) == static_cast<char*>(big) + 3 * MiB);  // its segment's rest
  void* bigger = alloc(a, 11 * MiB + 1, 0);
  CHECK(dev.blocks.at(bigger) == 12 * MiB);
  void* huge = nullptr;
  CHECK(a.allocate(~size_t{0}, 0, &huge) == AXLE_ERROR_OUT_OF_MEMORY);
  CHECK(huge == nullptr);
}

TEST_CASE("caching allocator: small requests are carved from one segment and merge back when freed") {
  constexpr size_t MiB = size_t{1} << 20;
  FakeDevice dev;
  Allocator a(FakeBackend{&dev});
  char* x = static_cast<char*>(alloc(a, 1000, 0));
  char* y = static_cast<char*>(alloc(a, 3000, 0));
  char* z = static_cast<char*>(alloc(a, 512, 0));
  CHECK(dev.mallocs == 1);  // one 2 MiB segment serves all three
  CHECK(y == x + 1024);
  CHECK(z == y + 3072);
  CHECK(a.segment_count() == 1);
  // Freed in an order that exercises both merge directions: y merges with
  // nothing (both neighbours live), x merges with y, z with x+y and the rest.
  a.deallocate(y);
  a.deallocate(x);
  a.empty_cache();
  CHECK(dev.frees == 0);          // z still lives in the segment
  CHECK(alloc(a, 4096, 0) == x);  // the merged x+y block (4096 B) is the best fit
  a.deallocate(x);
  a.deallocate(z);
  CHECK(stats(a).allocated_bytes == 0);
  CHECK(stats(a).reserved_bytes == 2 * MiB);
  // One whole block again: a 1 MiB request takes its start, and empty_cache
  // releases the segment once everything is freed.
  void* w = alloc(a, MiB, 0);
  CHECK(w == x);
  CHECK(dev.mallocs == 1);
  a.deallocate(w);
  a.empty_cache();
  CHECK(dev.frees == 1);
  CHECK(dev.blocks.empty());
  CHECK(a.segment_count() == 0);
}

TEST_CASE("caching allocator: best fit, and small and large pools never share blocks") {
  constexpr size_t MiB = size_t{1} << 20;
  FakeDevice dev;
  Allocator a(FakeBackend{&dev});
  char* b8 = static_cast<char*>(alloc(a, 8192, 0));
  void* keep1 = alloc(a, 512, 0);
  char* b4 = static_cast<char*>(alloc(a, 4096, 0));
  void* keep2 = alloc(a, 512, 0);
  a.deallocate(b8);
  a.deallocate(b4);
  CHECK(alloc(a, 3000, 0) == b4);  // 4 KiB fits better than 8 KiB or the segment's rest
  CHECK(alloc(a, 5000, 0) == b8);
  // A large request never takes the small segment's free 2 MiB - 15 KiB...
  void* large = alloc(a, MiB + 1, 0);
  CHECK(dev.mallocs == 2);
  CHECK(dev.blocks.at(large) == 20 * MiB);
  // ...and a small one never takes the large segment's rest.
  a.deallocate(keep1);
  a.deallocate(keep2);
  CHECK(static_cast<char*>(alloc(a, MiB, 0)) < b8 + 2 * MiB);
  CHECK(dev.mallocs == 2);
}

TEST_CASE("caching allocator: large blocks split only when more than 1 MiB would be left") {
  constexpr size_t MiB = size_t{1} << 20;
  FakeDevice dev;
  Allocator a(FakeBackend{&dev});
  char* p = static_cast<char*>(alloc(a, 3 * MiB, 0));         // a 20 MiB segment, split
  char* q = static_cast<char*>(alloc(a, 16 * MiB + 512, 0));  // 1 MiB - 512 left: taken whole
  CHECK(q == p + 3 * MiB);
  CHECK(dev.mallocs == 1);
  CHECK(stats(a).allocated_bytes == 20 * MiB);  // the block handed out, not the request
  a.deallocate(q);
  char* r = static_cast<char*>(alloc(a, 2 * MiB, 0));  // 15 MiB left: split
  CHECK(r == q);
  CHECK(alloc(a, 15 * MiB, 0) == r + 2 * MiB);
  CHECK(dev.mallocs == 1);
}

TEST_CASE("caching allocator: a block waiting for another stream merges only once that work is done") {
  FakeDevice dev;
  Allocator a(FakeBackend{&dev});
  void* x = alloc(a, 4096, 1);
  void* y = alloc(a, 4096, 1);
  a.record_stream(x, 2);
  dev.enqueue(2);
  a.deallocate(x);  // pending
  a.deallocate(y);  // merges with the segment's rest, not with x
  a.empty_cache();  // synchronizes for x, then the segment is whole and released
  CHECK(dev.device_syncs == 1);
  CHECK(dev.frees == 1);
  CHECK(stats(a).reserved_bytes == 0);
  // Without an empty_cache the event decides: x stays out of reach until then.
  void* u = alloc(a, 4096, 1);
  void* v = alloc(a, 4096, 1);
  a.record_stream(u, 2);
  dev.enqueue(2);
  a.deallocate(u);
  a.deallocate(v);
  void* w = alloc(a, 8192, 1);
  CHECK(w != u);  // u is pending: u+v is not one free block yet
  dev.finish(2);
  a.deallocate(w);
  CHECK(alloc(a, 8192, 1) == u);  // u merged with v (and w's space) once done
}

TEST_CASE("caching allocator: random allocate/free keeps blocks disjoint and inside their segments") {
  constexpr size_t MiB = size_t{1} << 20;
  FakeDevice dev;
  dev.capacity = size_t{1} << 40;  // addresses only: nothing is touched
  Allocator a(FakeBackend{&dev});
  uint64_t state = 12345;
  auto next = [&state] {  // xorshift64
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  struct Live {
    char* p;
    size_t n;
    int stream;
  };
  std::vector<Live> live;
  auto check_disjoint = [&] {
    std::map<char*, std::pair<size_t, int>> by_addr;
    for (const Live& l : live) by_addr[l.p] = {Allocator::round_size(l.n), l.stream};
    char* end = nullptr;
    for (auto& [p, ns] : by_addr) {
      REQUIRE(p >= end);  // no overlap with the previous block
      end = p + ns.first;
      // inside exactly one device allocation
      auto seg = dev.blocks.upper_bound(p);
      REQUIRE(seg != dev.blocks.begin());
      --seg;
      char* s = static_cast<char*>(seg->first);
      REQUIRE(p + ns.first <= s + seg->second);
    }
  };
  for (int i = 0; i < 4000; ++i) {
    const uint64_t r = next();
    if (live.empty() || r % 5 < 3) {
      const size_t sizes[] = {1 + r % 4096, 1 + r % MiB, MiB + r % (4 * MiB), 9 * MiB + r % (4 * MiB)};
      const size_t n = sizes[(r >> 20) % 4 == 3 && (r >> 24) % 8 ? 0 : (r >> 20) % 4];
      const int stream = static_cast<int>((r >> 32) % 3);
      void* p = alloc(a, n, stream);
      live.push_back({static_cast<char*>(p), n, stream});
    } else {
      const size_t k = (r >> 8) % live.size();
      if ((r >> 40) % 4 == 0) a.record_stream(live[k].p, (live[k].stream + 1) % 3);
      dev.enqueue((live[k].stream + 1) % 3);
      REQUIRE(a.deallocate(live[k].p) == AXLE_OK);
      live[k] = live.back();
      live.pop_back();
      if ((r >> 44) % 8 == 0) dev.finish(static_cast<int>((r >> 48) % 3));
    }
    if (i % 97 == 0) check_disjoint();
    if (i % 1000 == 999) a.empty_cache();
  }
  check_disjoint();
  uint64_t expect = 0;
  for (const Live& l : live) expect += Allocator::round_size(l.n);
  CHECK(stats(a).allocated_bytes >= expect);  // blocks not split keep their tails
  for (const Live& l : live) REQUIRE(a.deallocate(l.p) == AXLE_OK);
  CHECK(stats(a).allocated_bytes == 0);
  CHECK(stats(a).reserved_bytes == dev.used);
  a.empty_cache();  // every segment is whole again, and released
  CHECK(stats(a).reserved_bytes == 0);
  CHECK(dev.blocks.empty());
  CHECK(a.segment_count() == 0);
}

TEST_CASE("caching allocator: record_stream holds the block until that stream's work at the free is done") {
  FakeDevice dev;
  Allocator a(FakeBackend{&dev});
  void* x = alloc(a, 4096, 1);
  REQUIRE(a.record_stream(x, 2) == AXLE_OK);
  REQUIRE(a.record_stream(x, 2) == AXLE_OK);  // recorded once
  REQUIRE(a.record_stream(x, 1) == AXLE_OK);  // its own stream: nothing to wait for
  dev.enqueue(2);                             // a kernel on stream 2 reads x
  REQUIRE(a.deallocate(x) == AXLE_OK);
  dev.enqueue(2);  // later work on stream 2 does not hold the block
  void* y = alloc(a, 4096, 1);
  CHECK(y != x);    // stream 2's read may still be running
  dev.done[2] = 1;  // the read finished
  CHECK(alloc(a, 4096, 1) == x);
  CHECK(dev.stream_syncs.empty());
  a.deallocate(y);
  // The event went back to the spare list: the next cross-stream free reuses it.
  const int events_made = dev.next_event;
  void* z = alloc(a, 4096, 1);
  a.record_stream(z, 3);
  a.deallocate(z);
  CHECK(dev.next_event == events_made);
}

TEST_CASE("caching allocator: without events the free waits for the other stream") {
  FakeDevice dev;
  dev.events_fail = true;
  Allocator a(FakeBackend{&dev});
  void* x = alloc(a, 4096, 1);
  a.record_stream(x, 2);
  dev.enqueue(2);
  REQUIRE(a.deallocate(x) == AXLE_OK);
  CHECK(dev.stream_syncs == std::vector<int>{2});
  CHECK(alloc(a, 4096, 1) == x);
}

TEST_CASE("caching allocator: out of memory releases the cache once, then reports") {
  FakeDevice dev;
  dev.capacity = 4096;
  Allocator a(FakeBackend{&dev});
  void* x = alloc(a, 2048, 1);
  void* y = alloc(a, 2048, 1);
  a.record_stream(y, 2);
  dev.enqueue(2);
  a.deallocate(x);
  a.deallocate(y);  // pending behind stream 2
  // No 2 MiB segment fits on this device, so each block above is a segment of
  // the request's size. Stream 3 cannot take stream 1's blocks: the device is
  // full, so the cache (after a device-wide synchronize for the pending block)
  // is freed and the allocation retried, at the request's size.
  void* z = alloc(a, 4096, 3);
  CHECK(dev.device_syncs == 1);
  CHECK(dev.blocks.size() == 1);
  CHECK(dev.blocks.at(z) == 4096);
  void* w = nullptr;
  CHECK(a.allocate(512, 3, &w) == AXLE_ERROR_OUT_OF_MEMORY);
  CHECK(w == nullptr);
  CHECK(stats(a).reserved_bytes == 4096);
  CHECK(stats(a).allocated_bytes == 4096);
}

TEST_CASE("caching allocator: statistics and empty_cache") {
  constexpr size_t MiB = size_t{1} << 20;
  FakeDevice dev;
  Allocator a(FakeBackend{&dev});
  void* x = alloc(a, 1000, 0);
  void* y = alloc(a, 3000, 0);
  void* big = alloc(a, 12 * MiB, 0);
  auto s = stats(a);
  CHECK(s.allocated_bytes == 1024 + 3072 + 12 * MiB);
  CHECK(s.reserved_bytes == 2 * MiB + 12 * MiB);  // a small segment and a large one
  CHECK(s.peak_allocated_bytes == 1024 + 3072 + 12 * MiB);
  CHECK(s.num_allocs == 3);
  a.deallocate(x);
  a.deallocate(big);
  s = stats(a);
  CHECK(s.allocated_bytes == 3072);
  CHECK(s.reserved_bytes == 14 * MiB);  // cached
  CHECK(s.peak_allocated_bytes == 1024 + 3072 + 12 * MiB);
  CHECK(s.num_frees == 2);
  a.empty_cache();
  CHECK(stats(a).reserved_bytes == 2 * MiB);  // y's segment stays
  CHECK(dev.blocks.size() == 1);
  CHECK(a.deallocate(y) == AXLE_OK);
  a.empty_cache();
  CHECK(stats(a).reserved_bytes == 0);
  CHECK(dev.blocks.empty());
}

TEST_CASE("caching allocator: unknown pointers are errors, null is a no-op") {
  FakeDevice dev;
  Allocator a(FakeBackend{&dev});
  int local = 0;
  CHECK(a.deallocate(&local) == AXLE_ERROR_INVALID_ARGUMENT);
  CHECK(a.record_stream(&local, 1) == AXLE_ERROR_INVALID_ARGUMENT);
  CHECK(a.deallocate(nullptr) == AXLE_OK);
  void* x = alloc(a, 10, 0);
  REQUIRE(a.deallocate(x) == AXLE_OK);
  CHECK(a.deallocate(x) == AXLE_ERROR_INVALID_ARGUMENT);  // double free
  CHECK(stats(a).num_frees == 1);
}

TEST_CASE("caching allocator: a retired stream's blocks go to the default stream after its work") {
  FakeDevice dev;
  Allocator a(FakeBackend{&dev});
  void* pooled = alloc(a, 512, 5);
  void* live = alloc(a, 1024, 5);
  void* shared = alloc(a, 2048, 1);
  a.record_stream(shared, 5);
  dev.enqueue(5);
  a.deallocate(pooled);
  a.retire_stream(5);
  CHECK(dev.stream_syncs == std::vector<int>{5});
  CHECK(alloc(a, 512, 0) == pooled);
  a.deallocate(live);  // allocated on 5: now the default stream's
  CHECK(alloc(a, 1024, 0) == live);
  a.deallocate(shared);  // stream 5's use was waited for at the retirement
  CHECK(alloc(a, 2048, 1) == shared);
  a.retire_stream(0);  // the default stream is never retired
  CHECK(dev.stream_syncs.size() == 1);
}

TEST_CASE("caching allocator: concurrent allocate/free keep the statistics consistent") {
  FakeDevice dev;
  Allocator a(FakeBackend{&dev});  // FakeDevice is only touched under the allocator's lock
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&a, t] {
      std::vector<void*> mine;
      for (int i = 0; i < 500; ++i) {
        void* p = nullptr;
        if (a.allocate(512 * (1 + i % 3), t, &p) == AXLE_OK) mine.push_back(p);
        if (i % 2) {
          a.deallocate(mine.back());
          mine.pop_back();
        }
      }
      for (void* p : mine) a.deallocate(p);
    });
  for (auto& th : threads) th.join();
  const auto s = stats(a);
  CHECK(s.allocated_bytes == 0);
  CHECK(s.num_allocs == 2000);
  CHECK(s.num_frees == 2000);
  CHECK(s.reserved_bytes == dev.used);
  std::set<void*> distinct;
  for (auto& [p, n] : dev.blocks) distinct.insert(p);
  CHECK(distinct.size() == dev.blocks.size());
}
