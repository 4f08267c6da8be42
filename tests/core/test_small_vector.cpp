// SmallVector (IntList): inline storage, growth to the heap, and the
// std::vector operations axle uses.
#include <axle/small_vector.h>

#include <doctest/doctest.h>

#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <vector>

using axle::SmallVector;
using SV = SmallVector<int64_t, 3>;

TEST_CASE("SmallVector grows past its inline capacity and keeps its elements") {
  SV v;
  for (int64_t i = 0; i < 100; ++i) v.push_back(i);
  REQUIRE(v.size() == 100);
  for (int64_t i = 0; i < 100; ++i) CHECK(v[static_cast<size_t>(i)] == i);
  v.insert(v.end(), {100, 101});
  v.insert(v.begin(), -1);
  CHECK(v.front() == -1);
  CHECK(v.back() == 101);
  CHECK(v.size() == 103);
  v.erase(v.begin(), v.begin() + 2);
  CHECK(v.front() == 1);
  v.resize(2);
  CHECK(v == SV{1, 2});
}

TEST_CASE("SmallVector copies, moves and compares like std::vector") {
  SV a{1, 2, 3, 4, 5};  // on the heap
  SV b = a;
  CHECK(a == b);
  SV c = std::move(b);
  CHECK(c == a);
  CHECK(b.empty());
  SV d{7};  // inline
  SV e = std::move(d);
  CHECK(e == SV{7});
  const std::vector<int64_t> std_v = a;
  CHECK(std_v == std::vector<int64_t>{1, 2, 3, 4, 5});
  const SV from_std = std_v;
  CHECK(from_std == a);
  CHECK(SV{1, 2} < SV{1, 3});
  SV f(4, 9);
  CHECK(f == SV{9, 9, 9, 9});
  f.insert(f.begin() + 1, f.begin(), f.begin() + 2);  // a range aliasing the vector
  CHECK(f == SV{9, 9, 9, 9, 9, 9});
  f.assign(a.begin(), a.end());
  CHECK(std::accumulate(f.begin(), f.end(), int64_t{0}) == 15);
  f.swap(e);
  CHECK(f == SV{7});
  CHECK(e == a);
}

TEST_CASE("SmallVector refuses a count whose bytes overflow instead of allocating too little") {
  SV v;
  CHECK_THROWS_AS(v.reserve(SIZE_MAX / 4), std::length_error);
  CHECK_THROWS_AS(v.assign(SIZE_MAX / 8 + 2, 7), std::length_error);
  CHECK(v.empty());
}
