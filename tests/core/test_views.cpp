// Every dtype x view op: sizes, strides, storage sharing and values; errors.
#include <axle/axle.h>

#include <doctest/doctest.h>
#include <axle/plugin/helpers.hpp>

using namespace axle;

namespace {

// A 2x3x4 tensor holding 0..23 in `dtype` (bool: i % 2).
Tensor iota(DType dtype) {
  Tensor t = empty({2, 3, 4}, TensorOptions().dtype(dtype));
  for (int64_t i = 0; i < 24; ++i)
    plugin::store_from<double>(static_cast<char*>(t.data_ptr()) + i * t.element_size(), static_cast<axle_dtype>(dtype),
                               dtype == kBool ? static_cast<double>(i % 2) : static_cast<double>(i));
  return t;
}

double at(const Tensor& t, const IntList& idx) {
  int64_t off = 0;
  for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * t.strides()[d];
  return plugin::load_as<double>(static_cast<char*>(t.data_ptr()) + off * static_cast<int64_t>(t.element_size()),
                                 static_cast<axle_dtype>(t.dtype()));
}

double expect(DType d, int64_t linear) {
  return d == kBool ? static_cast<double>(linear % 2) : static_cast<double>(linear);
}

}  // namespace

TEST_CASE("views over every dtype") {
  for (DType d : kAllDTypes) {
    CAPTURE(d);
    const Tensor t = iota(d);
    CHECK(t.is_contiguous());
    CHECK(t.strides() == IntList{12, 4, 1});

    const Tensor v = t.view({6, 4});
    CHECK(v.sizes() == IntList{6, 4});
    CHECK(v.storage() == t.storage());
    CHECK(at(v, {5, 3}) == expect(d, 23));
    CHECK(t.view({-1}).sizes() == IntList{24});

    const Tensor p = t.permute({2, 0, 1});
    CHECK(p.sizes() == IntList{4, 2, 3});
    CHECK(p.strides() == IntList{1, 12, 4});
    CHECK_FALSE(p.is_contiguous());
    CHECK(at(p, {3, 1, 2}) == expect(d, 1 * 12 + 2 * 4 + 3));

    const Tensor tr = t.transpose(0, 2);
    CHECK(tr.sizes() == IntList{4, 3, 2});
    CHECK(at(tr, {1, 2, 1}) == expect(d, 12 + 8 + 1));

    const Tensor s = t.slice(2, 1, 4, 2);
    CHECK(s.sizes() == IntList{2, 3, 2});
    CHECK(s.strides() == IntList{12, 4, 2});
    CHECK(s.storage_offset() == 1);
    CHECK(at(s, {1, 2, 1}) == expect(d, 12 + 8 + 3));
    CHECK(t.slice(0, -1).sizes() == IntList{1, 3, 4});
    CHECK(t.slice(1, 5, 10).sizes() == IntList{2, 0, 4});

    const Tensor sel = t.select(1, -1);
    CHECK(sel.sizes() == IntList{2, 4});
    CHECK(at(sel, {1, 3}) == expect(d, 12 + 8 + 3));
    CHECK(t[1].sizes() == IntList{3, 4});

    const Tensor e = t.select(2, 0).unsqueeze(2).expand({2, 3, 5});
    CHECK(e.strides()[2] == 0);
    CHECK(at(e, {1, 1, 4}) == expect(d, 12 + 4));
    CHECK(t.unsqueeze(0).expand({3, 2, 3, 4}).strides() == IntList{0, 12, 4, 1});

    const Tensor u = t.unsqueeze(-1);
    CHECK(u.sizes() == IntList{2, 3, 4, 1});
    CHECK(u.squeeze().sizes() == IntList{2, 3, 4});
    CHECK(u.squeeze(3).sizes() == IntList{2, 3, 4});
    CHECK(u.squeeze(0).sizes() == IntList{2, 3, 4, 1});

    // reshape is a view when strides allow, a copy otherwise (as in PyTorch).
    CHECK(t.reshape({4, 6}).storage() == t.storage());
    const Tensor r = p.reshape({24});
    CHECK(r.storage() != t.storage());
    CHECK(at(r, {1}) == expect(d, 4));  // p[0][0][1] == t[0][1][0]
    CHECK(t.reshape({-1, 2}).sizes() == IntList{12, 2});

    const Tensor c = p.contiguous();
    CHECK(c.is_contiguous());
    CHECK(at(c, {3, 1, 2}) == expect(d, 23));

    const Tensor as = t.as_strided({3, 3}, {1, 2}, 2);
    CHECK(at(as, {2, 2}) == expect(d, 2 + 2 + 4));
  }
}

TEST_CASE("view errors are typed and name the values") {
  const Tensor t = zeros({2, 3, 4});
  CHECK_THROWS_AS(t.view({5, 5}), ShapeError);
  CHECK_THROWS_AS(t.view({-1, -1}), ShapeError);
  CHECK_THROWS_AS(t.permute({0, 1}), ShapeError);
  CHECK_THROWS_AS(t.permute({0, 0, 1}), ShapeError);
  CHECK_THROWS_AS(t.transpose(0, 3), IndexError);
  CHECK_THROWS_AS(t.select(1, 3), IndexError);
  CHECK_THROWS_AS(t.select(-4, 0), IndexError);
  CHECK_THROWS_AS(t.slice(0, 0, 2, 0), ValueError);
  CHECK_THROWS_AS(t.expand({2, 5, 4}), ShapeError);
  CHECK_THROWS_AS(t.expand({4}), ShapeError);
  CHECK_THROWS_AS(t.unsqueeze(4), IndexError);
  CHECK_THROWS_AS(t.t(), ShapeError);
  CHECK_THROWS_AS(t.as_strided({100}, {1}, 0), ValueError);
  CHECK_THROWS_AS(t.permute({0, 2, 1}).view({24}), ShapeError);
  try {
    t.select(1, 7);
  } catch (const IndexError& e) {
    CHECK(std::string(e.what()).find("index 7 out of range") != std::string::npos);
  }
}

TEST_CASE("sizes that overflow are errors, not crashes") {
  CHECK_THROWS_AS(empty({1LL << 40, 1LL << 40}), ValueError);
  CHECK_THROWS_AS(empty({-1, 2}), ValueError);
  CHECK_THROWS_AS(empty({1LL << 62}, TensorOptions().dtype(kFloat64)), ValueError);
}
