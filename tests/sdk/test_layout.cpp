// The SDK's layout metadata helpers (axle/plugin/layout.hpp): broadcast
// strides, coalesced dims for N operands and the contiguous fast-path test,
// on hand-written cases and against a naive enumeration of element offsets
// over random shapes, strides and broadcasts. Views carry no data: the
// helpers must never need it.
#include <axle/plugin/helpers.hpp>

#include <doctest/doctest.h>

#include <random>
#include <vector>

namespace {

using namespace axle::plugin;

// A view with only metadata (data NULL: the helpers never read it).
struct View {
  std::vector<int64_t> sizes, strides;
  axle_tensor_view v{};
  View(std::vector<int64_t> s, std::vector<int64_t> st) : sizes(std::move(s)), strides(std::move(st)) {
    v.struct_size = sizeof v;
    v.dtype = AXLE_DTYPE_FLOAT32;
    v.ndim = static_cast<int32_t>(sizes.size());
    v.sizes = sizes.data();
    v.strides = strides.data();
  }
  View(const View&) = delete;
};

View contiguous(std::vector<int64_t> sizes) {
  std::vector<int64_t> st(sizes.size());
  int64_t e = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    st[d] = e;
    e *= sizes[d];
  }
  return View(std::move(sizes), std::move(st));
}

std::vector<int64_t> bstrides(const View& a, const std::vector<int64_t>& shape, bool* ok) {
  std::vector<int64_t> out(shape.size(), -7);
  *ok = broadcast_strides(a.v, static_cast<int32_t>(shape.size()), shape.data(), out.data());
  return out;
}

// Every operand's element offsets, row-major over `sizes` with the given strides.
template <size_t N>
std::vector<std::array<int64_t, N>> enumerate(const std::vector<int64_t>& sizes,
                                              const std::array<std::vector<int64_t>, N>& strides) {
  std::vector<std::array<int64_t, N>> out;
  int64_t total = 1;
  for (int64_t s : sizes) total *= s;
  std::vector<int64_t> index(sizes.size(), 0);
  for (int64_t i = 0; i < total; ++i) {
    std::array<int64_t, N> offs{};
    for (size_t k = 0; k < N; ++k)
      for (size_t d = 0; d < sizes.size(); ++d) offs[k] += index[d] * strides[k][d];
    out.push_back(offs);
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++index[d] < sizes[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

template <size_t N>
std::vector<std::array<int64_t, N>> enumerate(const CoalescedLayout<N>& c) {
  std::vector<int64_t> sizes(c.sizes, c.sizes + c.ndim);
  std::array<std::vector<int64_t>, N> strides;
  for (size_t k = 0; k < N; ++k) strides[k].assign(c.strides[k], c.strides[k] + c.ndim);
  return enumerate<N>(sizes, strides);
}

}  // namespace

TEST_CASE("broadcast_strides right-aligns an operand and zeroes size-1 and missing dims") {
  const std::vector<int64_t> shape{2, 3, 4};
  bool ok = false;
  {
    const View a({3, 1}, {1, 1});
    CHECK(bstrides(a, shape, &ok) == std::vector<int64_t>{0, 1, 0});
    CHECK(ok);
  }
  {
    const View a({4}, {5});
    CHECK(bstrides(a, shape, &ok) == std::vector<int64_t>{0, 0, 5});
    CHECK(ok);
  }
  {
    const View a = contiguous({2, 3, 4});
    CHECK(bstrides(a, shape, &ok) == std::vector<int64_t>{12, 4, 1});
    CHECK(ok);
  }
  {
    const View a({1, 1, 1}, {9, 9, 9});
    CHECK(bstrides(a, shape, &ok) == std::vector<int64_t>{0, 0, 0});
    CHECK(ok);
  }
  {
    const View a({}, {});  // a 0-d operand broadcasts everywhere
    CHECK(bstrides(a, shape, &ok) == std::vector<int64_t>{0, 0, 0});
    CHECK(ok);
  }
}

TEST_CASE("broadcast_strides refuses what does not broadcast and ranks above 64") {
  bool ok = true;
  const View wrong({3}, {1});
  bstrides(wrong, {2, 4}, &ok);
  CHECK_FALSE(ok);
  const View longer = contiguous({2, 3});
  bstrides(longer, {3}, &ok);
  CHECK_FALSE(ok);
  const View v = contiguous({2});
  std::vector<int64_t> big(65, 2), out(65);
  CHECK_FALSE(broadcast_strides(v.v, 65, big.data(), out.data()));
  std::vector<int64_t> ok64(64, 1), out64(64);
  ok64.back() = 2;
  CHECK(broadcast_strides(v.v, 64, ok64.data(), out64.data()));
  CHECK(out64.back() == 1);
  axle_tensor_view none{};
  none.ndim = -1;  // a None item of a Tensor?[] list
  CHECK_FALSE(broadcast_strides(none, 1, ok64.data(), out64.data()));
}

TEST_CASE("coalesce_dims merges contiguous operands into one dim") {
  const View out = contiguous({2, 3, 4}), a = contiguous({2, 3, 4}), b = contiguous({2, 3, 4});
  CoalescedLayout<3> c;
  REQUIRE(coalesce_dims<3>({&out.v, &a.v, &b.v}, &c));
  REQUIRE(c.ndim == 1);
  CHECK(c.sizes[0] == 24);
  for (int k = 0; k < 3; ++k) CHECK(c.strides[k][0] == 1);
}

TEST_CASE("coalesce_dims drops size-1 dims and keeps what one operand breaks") {
  SUBCASE("size-1 dims with odd strides") {
    const View out({2, 1, 3}, {3, 99, 1});
    CoalescedLayout<1> c;
    REQUIRE(coalesce_dims<1>({&out.v}, &c));
    REQUIRE(c.ndim == 1);
    CHECK(c.sizes[0] == 6);
    CHECK(c.strides[0][0] == 1);
  }
  SUBCASE("a transposed input keeps both dims") {
    const View out = contiguous({3, 4}), t({3, 4}, {1, 3});
    CoalescedLayout<2> c;
    REQUIRE(coalesce_dims<2>({&out.v, &t.v}, &c));
    REQUIRE(c.ndim == 2);
    CHECK(c.sizes[0] == 3);
    CHECK(c.sizes[1] == 4);
    CHECK(c.strides[0][0] == 4);
    CHECK(c.strides[0][1] == 1);
    CHECK(c.strides[1][0] == 1);
    CHECK(c.strides[1][1] == 3);
  }
  SUBCASE("a row broadcast over a matrix keeps both dims") {
    const View out = contiguous({3, 4}), row({4}, {1});
    CoalescedLayout<2> c;
    REQUIRE(coalesce_dims<2>({&out.v, &row.v}, &c));
    REQUIRE(c.ndim == 2);
    CHECK(c.strides[1][0] == 0);
    CHECK(c.strides[1][1] == 1);
  }
  SUBCASE("a slice of a wider matrix (row stride 5) with leading dims that do merge") {
    const View out = contiguous({2, 3, 4}), in({2, 3, 4}, {15, 5, 1});
    CoalescedLayout<2> c;
    REQUIRE(coalesce_dims<2>({&out.v, &in.v}, &c));
    REQUIRE(c.ndim == 2);
    CHECK(c.sizes[0] == 6);
    CHECK(c.sizes[1] == 4);
    CHECK(c.strides[0][0] == 4);
    CHECK(c.strides[1][0] == 5);
    CHECK(c.strides[1][1] == 1);
  }
  SUBCASE("a scalar broadcast everywhere still coalesces (stride 0 merges with 0)") {
    const View out = contiguous({5, 6}), s({}, {});
    CoalescedLayout<2> c;
    REQUIRE(coalesce_dims<2>({&out.v, &s.v}, &c));
    REQUIRE(c.ndim == 1);
    CHECK(c.sizes[0] == 30);
    CHECK(c.strides[1][0] == 0);
  }
}

TEST_CASE("coalesce_dims on empty, one-element and too-high-rank shapes") {
  CoalescedLayout<2> c;
  const View e = contiguous({4, 0, 3}), e2({4, 0, 3}, {1, 1, 1});
  REQUIRE(coalesce_dims<2>({&e.v, &e2.v}, &c));
  CHECK(c.ndim == 1);
  CHECK(c.sizes[0] == 0);
  CHECK(c.numel() == 0);
  const View one({1, 1}, {7, 7}), scalar({}, {});
  REQUIRE(coalesce_dims<2>({&one.v, &scalar.v}, &c));
  CHECK(c.ndim == 0);
  CHECK(c.numel() == 1);
  std::vector<int64_t> big(65, 1);
  const View high(big, big);
  CHECK_FALSE(coalesce_dims<2>({&high.v, &scalar.v}, &c));
  const View mismatch = contiguous({3});
  const View out = contiguous({2, 4});
  CHECK_FALSE(coalesce_dims<2>({&out.v, &mismatch.v}, &c));
}

TEST_CASE("coalesce_dims visits exactly the naive element offsets (random shapes, strides, broadcasts)") {
  std::mt19937 rng(1234);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int iter = 0; iter < 2000; ++iter) {
    const int nd = pick(0, 6);
    std::vector<int64_t> shape(nd);
    for (auto& s : shape) s = pick(0, 9) == 0 ? 1 : pick(1, 4);
    // Three operands: the contiguous output, a permuted or sliced input, a broadcast input.
    const View out = contiguous(shape);
    std::vector<int64_t> in_strides(nd);
    {
      int64_t e = pick(1, 2);
      std::vector<int> order(nd);
      for (int d = 0; d < nd; ++d) order[d] = nd - 1 - d;
      if (nd > 1 && pick(0, 1)) std::swap(order[0], order[pick(1, nd - 1)]);
      for (int d : order) {
        in_strides[d] = e;
        e *= shape[d] + (pick(0, 3) == 0 ? 1 : 0);
      }
    }
    const View in(shape, in_strides);
    const int bnd = pick(0, nd);
    std::vector<int64_t> bsizes(shape.end() - bnd, shape.end());
    for (auto& s : bsizes)
      if (pick(0, 2) == 0) s = 1;
    const View b = contiguous(bsizes);
    std::array<std::vector<int64_t>, 3> naive_strides;
    bool ok = false;
    naive_strides[0] = bstrides(out, shape, &ok);
    REQUIRE(ok);
    naive_strides[1] = bstrides(in, shape, &ok);
    REQUIRE(ok);
    naive_strides[2] = bstrides(b, shape, &ok);
    REQUIRE(ok);
    CoalescedLayout<3> c;
    REQUIRE(coalesce_dims<3>({&out.v, &in.v, &b.v}, &c));
    CHECK(c.ndim <= nd);
    for (int32_t d = 0; d < c.ndim; ++d) CHECK(c.sizes[d] > 1);
    REQUIRE(enumerate<3>(c) == enumerate<3>(shape, naive_strides));
  }
}

TEST_CASE("contiguous_same_shape is the fast-path test") {
  const View a = contiguous({2, 3}), b = contiguous({2, 3});
  CHECK(contiguous_same_shape<2>({&a.v, &b.v}));
  const View odd({2, 1, 3}, {3, 42, 1}), odd2 = contiguous({2, 1, 3});
  CHECK(contiguous_same_shape<2>({&odd.v, &odd2.v}));
  const View t({2, 3}, {1, 2});
  CHECK_FALSE(contiguous_same_shape<2>({&a.v, &t.v}));
  const View row = contiguous({3});
  CHECK_FALSE(contiguous_same_shape<2>({&a.v, &row.v}));  // broadcasting is not the fast path
  const View other = contiguous({3, 2});
  CHECK_FALSE(contiguous_same_shape<2>({&a.v, &other.v}));
  const View sliced({2, 3}, {4, 1});
  CHECK_FALSE(contiguous_same_shape<2>({&a.v, &sliced.v}));
  const View e({0, 3}, {7, 9}), e2 = contiguous({0, 3});
  CHECK(contiguous_same_shape<2>({&e.v, &e2.v}));
  std::vector<int64_t> big(65, 1);
  const View high(big, big);
  CHECK_FALSE(contiguous_same_shape<1>({&high.v}));
}

TEST_CASE("for_each_element and map_elements decline ranks above kMaxDims instead of overflowing") {
  std::vector<float> data(1, 1.0f);
  std::vector<int64_t> ones(kMaxDims + 6, 1);
  View high(ones, ones);
  high.v.data = data.data();
  int calls = 0;
  CHECK_FALSE(for_each_element<1>(high.v.ndim, high.v.sizes, {&high.v}, [&](char**) { ++calls; }));
  CHECK(calls == 0);
  CHECK_FALSE(map_elements<double, 1>(high.v, {&high.v}, [](double x) { return x + 1; }));
  CHECK(data[0] == 1.0f);
  View neg({}, {});
  neg.v.ndim = -1;
  CHECK_FALSE(for_each_element<1>(-1, nullptr, {&neg.v}, [&](char**) { ++calls; }));
  CHECK(calls == 0);
  // At the bound it runs: 64 dims of size 1 is one element.
  std::vector<int64_t> max_ones(kMaxDims, 1);
  View at(max_ones, max_ones);
  at.v.data = data.data();
  CHECK(for_each_element<1>(at.v.ndim, at.v.sizes, {&at.v}, [&](char**) { ++calls; }));
  CHECK(calls == 1);
}
