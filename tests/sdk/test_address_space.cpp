// The SDK's HandleAddressSpace (axle/plugin/address_space.hpp): fake device
// addresses for handle-based memory. Aligned, non-overlapping allocations with
// a gap between them; any address inside a live allocation maps back to its
// handle and byte offset; addresses outside live allocations, freed ones and
// ranges running past an end are refused; and all of it from several threads.
#include <axle/plugin/address_space.hpp>

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <utility>
#include <vector>

using axle::plugin::HandleAddressSpace;

namespace {
uint64_t u(const void* p) { return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p)); }
const void* at(const void* p, uint64_t off) {
  return reinterpret_cast<const void*>(static_cast<uintptr_t>(u(p) + off));
}
}  // namespace

TEST_CASE("addresses are aligned, ordered, non-overlapping and separated by a gap") {
  HandleAddressSpace<int> space(0x100000, 256, 4096);
  std::vector<std::pair<void*, size_t>> blocks;
  const size_t sizes[] = {1, 0, 255, 256, 257, 4096, 0, 100000};
  int h = 0;
  for (size_t n : sizes) {
    void* p = space.insert(h++, n);
    REQUIRE(p != nullptr);
    CHECK(u(p) % 256 == 0);
    CHECK(u(p) >= 0x100000);
    blocks.emplace_back(p, n);
  }
  for (size_t i = 1; i < blocks.size(); ++i) {
    const uint64_t prev_end = u(blocks[i - 1].first) + std::max<size_t>(blocks[i - 1].second, 1);
    CHECK(u(blocks[i].first) >= prev_end + 4096);  // the gap: an end never touches the next start
  }
  CHECK(space.live_allocations() == blocks.size());
  CHECK(space.live_bytes() == 1 + 255 + 256 + 257 + 4096 + 100000);
  CHECK(blocks[1].first != blocks[6].first);  // two 0-byte allocations differ
}

TEST_CASE("an address inside a live allocation maps back to its handle and byte offset") {
  HandleAddressSpace<const char*> space;
  void* a = space.insert("a", 1000);
  void* b = space.insert("b", 64);
  REQUIRE(a);
  REQUIRE(b);
  HandleAddressSpace<const char*>::Resolved r;
  REQUIRE(space.resolve(a, &r));
  CHECK(std::string(r.handle) == "a");
  CHECK(r.offset == 0);
  CHECK(r.size == 1000);
  REQUIRE(space.resolve(at(a, 999), 1, &r));
  CHECK(r.offset == 999);
  REQUIRE(space.resolve(at(a, 400), 600, &r));  // a span up to the end
  CHECK(r.offset == 400);
  REQUIRE(space.resolve(at(b, 8), 56, &r));
  CHECK(std::string(r.handle) == "b");
  CHECK(r.offset == 8);
  CHECK(space.resolve(at(a, 1000), 0, &r));  // an empty range at the end (an empty view sliced off the end)
  CHECK(r.offset == 1000);
  CHECK(std::string(r.handle) == "a");
}

TEST_CASE("addresses outside live allocations are refused") {
  HandleAddressSpace<int> space;
  void* a = space.insert(1, 100);
  void* z = space.insert(2, 0);
  REQUIRE(a);
  REQUIRE(z);
  HandleAddressSpace<int>::Resolved r;
  CHECK_FALSE(space.resolve(reinterpret_cast<const void*>(static_cast<uintptr_t>(u(a) - 1)), &r));  // before it
  CHECK_FALSE(space.resolve(at(a, 100), 1, &r));                                                    // past the end
  CHECK_FALSE(space.resolve(at(a, 50), 51, &r));                                                    // runs past it
  CHECK_FALSE(space.resolve(at(a, 101), &r));                                                       // in the gap
  CHECK_FALSE(space.resolve(nullptr, &r));
  CHECK_FALSE(space.resolve(reinterpret_cast<const void*>(uintptr_t{0x1000}), &r));  // a host-like address
  CHECK(space.resolve(z, 0, &r));  // a 0-byte allocation holds 0-byte ranges only
  CHECK(r.handle == 2);
  CHECK_FALSE(space.resolve(z, 1, &r));
  CHECK(space.contains(at(a, 10), 90));
  CHECK_FALSE(space.contains(at(a, 10), 91));
}

TEST_CASE("erase forgets an allocation; only its start erases it; addresses are not reused") {
  HandleAddressSpace<int> space;
  void* a = space.insert(7, 64);
  REQUIRE(a);
  int h = 0;
  size_t n = 0;
  CHECK_FALSE(space.erase(at(a, 8), &h, &n));  // an interior address is not an allocation
  CHECK(space.contains(a, 64));
  REQUIRE(space.erase(a, &h, &n));
  CHECK(h == 7);
  CHECK(n == 64);
  CHECK_FALSE(space.contains(a));
  CHECK_FALSE(space.erase(a));  // a double free is refused
  CHECK(space.live_allocations() == 0);
  CHECK(space.live_bytes() == 0);
  void* b = space.insert(8, 64);
  CHECK(b != a);  // a stale address never resolves to a later allocation
  CHECK_FALSE(space.contains(a));
}

TEST_CASE("exhaustion and a bad alignment give NULL instead of wrapping around") {
  HandleAddressSpace<int> near_end(UINT64_MAX - 10000, 256, 4096);
  CHECK(near_end.insert(1, 1000) != nullptr);
  CHECK(near_end.insert(2, 100000) == nullptr);
  HandleAddressSpace<int> bad(0x100000, 48, 0);
  CHECK(bad.insert(1, 8) == nullptr);
}

TEST_CASE("threads insert, resolve and erase at once") {
  HandleAddressSpace<int> space;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::vector<std::pair<void*, int>> mine;
      for (int i = 0; i < 2000; ++i) {
        const int handle = t * 100000 + i;
        void* p = space.insert(handle, static_cast<size_t>(i % 300));
        if (!p) ++failures;
        mine.emplace_back(p, handle);
        HandleAddressSpace<int>::Resolved r;
        const size_t off = static_cast<size_t>(i % 300) / 2;
        if (!space.resolve(at(p, off), &r) || r.handle != handle || r.offset != off) ++failures;
        if (i % 3 == 0) {
          auto [q, hq] = mine[static_cast<size_t>(i / 2)];
          int got = -1;
          if (q && space.contains(q)) {
            if (!space.erase(q, &got) || got != hq) ++failures;
          }
        }
      }
      for (auto [q, hq] : mine) {
        int got = -1;
        if (space.contains(q) && (!space.erase(q, &got) || got != hq)) ++failures;
      }
    });
  for (auto& th : threads) th.join();
  CHECK(failures.load() == 0);
  CHECK(space.live_allocations() == 0);
  CHECK(space.live_bytes() == 0);
}
