// The SDK's stream-ordered caching allocator (axle/plugin/caching_allocator.hpp)
// over a simulated device whose streams complete only when the test says so:
// reuse in stream order, cross-stream uses waited for by events, the OOM
// release-and-retry, retired streams, statistics. The CUDA plugin's allocator is
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
  std::map<int, int> queued, done;  // per stream: work items enqueued / completed
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
  void* y = alloc(a, 900, 1);     // same rounded size: stream order makes it safe
  CHECK(y == x);
  CHECK(dev.mallocs == 2);
  CHECK(dev.stream_syncs.empty());
  CHECK(dev.device_syncs == 0);
}

TEST_CASE("caching allocator: sizes round to 512 B below 1 MiB and 2 MiB above") {
  CHECK(Allocator::round_size(0) == 512);
  CHECK(Allocator::round_size(1) == 512);
  CHECK(Allocator::round_size(513) == 1024);
  CHECK(Allocator::round_size(size_t{1} << 20) == size_t{1} << 20);
  CHECK(Allocator::round_size((size_t{1} << 20) + 1) == size_t{2} << 20);
  CHECK(Allocator::round_size((size_t{2} << 20) + 1) == size_t{4} << 20);
  FakeDevice dev;
  Allocator a(FakeBackend{&dev});
  void* x = alloc(a, 100, 0);
  a.deallocate(x);
  CHECK(alloc(a, 400, 0) == x);
  void* big = alloc(a, 3 << 20, 0);
  CHECK(dev.blocks.at(big) == size_t{4} << 20);
  void* huge = nullptr;
  CHECK(a.allocate(~size_t{0}, 0, &huge) == AXLE_ERROR_OUT_OF_MEMORY);
  CHECK(huge == nullptr);
}

TEST_CASE("caching allocator: record_stream holds the block until that stream's work at the free is done") {
  FakeDevice dev;
  Allocator a(FakeBackend{&dev});
  void* x = alloc(a, 4096, 1);
  REQUIRE(a.record_stream(x, 2) == AXLE_OK);
  REQUIRE(a.record_stream(x, 2) == AXLE_OK);  // recorded once
  REQUIRE(a.record_stream(x, 1) == AXLE_OK);  // its own stream: nothing to wait for
  dev.enqueue(2);  // a kernel on stream 2 reads x
  REQUIRE(a.deallocate(x) == AXLE_OK);
  dev.enqueue(2);  // later work on stream 2 does not hold the block
  void* y = alloc(a, 4096, 1);
  CHECK(y != x);  // stream 2's read may still be running
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
  // Stream 3 cannot take stream 1's blocks: the device is full, so the cache
  // (after a device-wide synchronize for the pending block) is freed and the
  // allocation retried.
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
  FakeDevice dev;
  Allocator a(FakeBackend{&dev});
  void* x = alloc(a, 1000, 0);
  void* y = alloc(a, 3000, 0);
  auto s = stats(a);
  CHECK(s.allocated_bytes == 1024 + 3072);
  CHECK(s.reserved_bytes == 1024 + 3072);
  CHECK(s.peak_allocated_bytes == 1024 + 3072);
  CHECK(s.num_allocs == 2);
  a.deallocate(x);
  s = stats(a);
  CHECK(s.allocated_bytes == 3072);
  CHECK(s.reserved_bytes == 1024 + 3072);  // cached
  CHECK(s.peak_allocated_bytes == 1024 + 3072);
  CHECK(s.num_frees == 1);
  a.empty_cache();
  CHECK(stats(a).reserved_bytes == 3072);  // the live block stays
  CHECK(dev.blocks.size() == 1);
  CHECK(dev.blocks.count(y) == 1);
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
