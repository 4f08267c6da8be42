// The indexing family through the C++ API: values (computed by hand),
// Tensor?[] index lists with None (std::nullopt), in-place forms returning self,
// index errors naming the value, and the arena device (index tensors on it).
#include "tensor_values.h"

#include <axle/axle.h>
#include <doctest/doctest.h>

using namespace axle;

namespace {
using testing::from;
using testing::values;
Tensor ids(const std::vector<double>& v) { return from(v, {static_cast<int64_t>(v.size())}, kInt64); }
}  // namespace

TEST_CASE("index_select, gather, scatter, scatter_add") {
  const Tensor x = arange(12, TensorOptions().dtype(kFloat32)).view({3, 4});
  CHECK(values(index_select(x, 1, ids({3, 0}))) == std::vector<double>{3, 0, 7, 4, 11, 8});
  CHECK(values(gather(x, 1, from({1, 0, 3, 3}, {2, 2}, kInt64))) == std::vector<double>{1, 0, 7, 7});
  const Tensor s = scatter(x, 0, from({2, 0}, {1, 2}, kInt64), from({-1, -2}, {1, 2}));
  CHECK(values(s) == std::vector<double>{0, -2, 2, 3, 4, 5, 6, 7, -1, 9, 10, 11});
  CHECK(values(x)[0] == 0);  // out of place
  const Tensor a = scatter_add(zeros({3}), 0, ids({1, 1, 2}), from({1, 2, 3}, {3}));
  CHECK(values(a) == std::vector<double>{0, 3, 3});
  Tensor y = zeros({2, 2});
  Tensor& r = scatter_(y, 1, from({1, 0}, {2, 1}, kInt64), 5.0);
  CHECK(r.is_same(y));
  CHECK(values(y) == std::vector<double>{0, 5, 5, 0});
  CHECK_THROWS_WITH_AS(index_select(x, 0, ids({3})),
                       doctest::Contains("index 3 is out of bounds for dimension 0 with size 3"), IndexError);
  CHECK_THROWS_AS(gather(x, 1, ids({0}).to(kInt32).view({1, 1})), DTypeError);
}

TEST_CASE("masked_fill, where, embedding, one_hot") {
  const Tensor x = from({1, 2, 3, 4}, {2, 2});
  const Tensor m = from({1, 0}, {2}, kBool);
  CHECK(values(masked_fill(x, m, 9.0)) == std::vector<double>{9, 2, 9, 4});
  CHECK(values(masked_fill(x, m, full({}, 7.0))) == std::vector<double>{7, 2, 7, 4});
  CHECK(masked_fill(x.to(kInt32), m, 2.5).dtype() == kInt32);
  CHECK_THROWS_AS(masked_fill(x.to(kInt8), m, 300), DTypeError);
  const Tensor w = where(m, x, from({0}, {1}, kInt64));
  CHECK(w.dtype() == kFloat32);
  CHECK(values(w) == std::vector<double>{1, 0, 3, 0});
  const Tensor e = embedding(x, from({1, 0, 1}, {3}, kInt32));
  CHECK(e.sizes() == IntList{3, 2});
  CHECK(values(e) == std::vector<double>{3, 4, 1, 2, 3, 4});
  const Tensor h = one_hot(ids({2, 0}));
  CHECK(h.sizes() == IntList{2, 3});
  CHECK(values(h) == std::vector<double>{0, 0, 1, 1, 0, 0});
  CHECK_THROWS_AS(one_hot(ids({-1})), IndexError);
}

TEST_CASE("index and index_put_ with None, masks and negative indices") {
  const Tensor x = arange(24, TensorOptions().dtype(kFloat32)).view({2, 3, 4});
  const Tensor a = index(x, {std::nullopt, ids({2, -3})});
  CHECK(a.sizes() == IntList{2, 2, 4});
  CHECK(values(a)[0] == 8);
  CHECK(values(a)[4] == 0);
  const Tensor b = index(x, {ids({1, 0}), std::nullopt, ids({3, 0})});  // separated: the index dims go first
  CHECK(b.sizes() == IntList{2, 3});
  CHECK(values(b) == std::vector<double>{15, 19, 23, 0, 4, 8});
  const Tensor c = index(x, {from({0, 1}, {2}, kBool)});
  CHECK(c.sizes() == IntList{1, 3, 4});
  CHECK(values(c)[0] == 12);
  CHECK_THROWS_WITH_AS(index(x, {std::nullopt, ids({3})}), doctest::Contains("index 3 is out of bounds"), IndexError);
  CHECK_THROWS_AS(index(x, {std::nullopt}), IndexError);
  Tensor y = zeros({2, 3});
  Tensor& r = index_put_(y, {ids({1, 1}), ids({0, 2})}, full({}, 1.0), true);
  CHECK(r.is_same(y));
  CHECK(values(y) == std::vector<double>{0, 0, 0, 1, 0, 1});
  index_put_(y, {from({1, 0}, {2}, kBool)}, from({5, 6, 7}, {3}));
  CHECK(values(y) == std::vector<double>{5, 6, 7, 1, 0, 1});
  CHECK_THROWS_AS(index_put_(y, {ids({0})}, full({}, 1.0, TensorOptions().dtype(kFloat64))), DTypeError);
  CHECK_THROWS_AS(index_put_(y, {ids({2})}, full({}, 1.0)), IndexError);
  CHECK(values(y) == std::vector<double>{5, 6, 7, 1, 0, 1});  // a failed call writes nothing
}

TEST_CASE("index lists on a device without kernels for them (host fallback)") {
  const Device arena("arena");
  const Tensor x = arange(6, TensorOptions().dtype(kFloat32)).view({2, 3}).to(arena);
  const Tensor r = index(x, {std::nullopt, ids({2, 0}).to(arena)});
  CHECK(r.device() == arena);
  CHECK(values(r) == std::vector<double>{2, 0, 5, 3});
  Tensor y = zeros({2, 3}).to(arena);
  index_put_(y, {std::nullopt, ids({1}).to(arena)}, full({}, 4.0).to(arena));
  CHECK(values(y) == std::vector<double>{0, 4, 0, 0, 4, 0});
}
