// axle::compare, the one element-wise comparison behind equal/allclose, the
// conformance kit and the parity finder: NaN and infinity rules, tolerances,
// exact integers beyond 2^53, shape and dtype mismatches, strided inputs.
#include <axle/axle.h>

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

using namespace axle;

namespace {
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

Tensor doubles(const std::vector<double>& v, DType d = kFloat64) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, TensorOptions().dtype(kFloat64));
  for (size_t i = 0; i < v.size(); ++i) t.data_ptr<double>()[i] = v[i];
  return t.to(d);
}
Tensor longs(const std::vector<int64_t>& v) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, TensorOptions().dtype(kInt64));
  for (size_t i = 0; i < v.size(); ++i) t.data_ptr<int64_t>()[i] = v[i];
  return t;
}
}  // namespace

TEST_CASE("NaN matches NaN only with equal_nan; equal infinities match, others never") {
  const Tensor a = doubles({kNaN, kInf, -kInf, 1.0});
  CHECK(compare(a, a, Tolerance{.equal_nan = true}).matches());
  const Comparison strict = compare(a, a, Tolerance{.equal_nan = false});
  CHECK(strict.differing == 1);
  CHECK(strict.first == 0);
  CHECK(compare(doubles({kInf}), doubles({-kInf}), Tolerance{.rtol = 1, .atol = 1}).differing == 1);
  CHECK(compare(doubles({kInf}), doubles({1e308}), Tolerance{.rtol = 1, .atol = 1}).differing == 1);
  CHECK(compare(doubles({kNaN}), doubles({1.0}), Tolerance{.rtol = 1, .atol = 1}).differing == 1);
}

TEST_CASE("tolerance is atol + rtol * |expected|; errors over finite pairs") {
  const Tensor want = doubles({1.0, 100.0, -2.0});
  const Tensor got = doubles({1.05, 101.0, -2.0});
  CHECK(compare(got, want, Tolerance{.rtol = 0.01, .atol = 0.05}).matches());
  const Comparison c = compare(got, want, Tolerance{.rtol = 0.001, .atol = 0.01});
  CHECK(c.differing == 2);
  CHECK(c.first == 0);
  CHECK(c.first_actual == doctest::Approx(1.05));
  CHECK(c.first_expected == 1.0);
  CHECK(c.max_abs == doctest::Approx(1.0));
  CHECK(c.max_rel == doctest::Approx(0.05));
  CHECK(c.describe() == "2 of 3 elements differ (first at flat index 0: 1.05 vs 1)");
}

TEST_CASE("integers compare exactly, beyond float64's 2^53") {
  const int64_t big = (int64_t{1} << 60) + 1;
  CHECK(compare(longs({big}), longs({big}), Tolerance{}).matches());
  CHECK(compare(longs({big}), longs({big - 1}), Tolerance{}).differing == 1);
}

TEST_CASE("shape and dtype mismatches are reported, dtype only when asked") {
  CHECK(compare(doubles({1, 2}), doubles({1, 2, 3}), Tolerance{}).mismatch == "shape [2] != expected [3]");
  const Comparison d = compare(doubles({1, 2}, kFloat32), doubles({1, 2}), Tolerance{});
  CHECK(d.mismatch == "dtype float32 != expected float64");
  CHECK_FALSE(d.matches());
  CHECK(compare(doubles({1, 2}, kFloat32), doubles({1, 2}), Tolerance{}, /*check_dtype=*/false).matches());
}

TEST_CASE("strided and expanded inputs compare by logical element") {
  const Tensor m = doubles({1, 2, 3, 4, 5, 6}).reshape({2, 3});
  const Tensor t = m.t().contiguous();
  CHECK(compare(m.t(), t, Tolerance{}).matches());
  CHECK(compare(doubles({7}).expand({3}), doubles({7, 7, 7}), Tolerance{}).matches());
}

TEST_CASE("equal and allclose follow torch: NaN equals nothing, allclose broadcasts and wants one dtype") {
  const Tensor n = doubles({kNaN, 1.0});
  CHECK_FALSE(equal(n, n));
  CHECK(equal(doubles({1, 2}), doubles({1, 2}, kInt64)));
  CHECK_FALSE(equal(doubles({1, 2}), doubles({1, 2, 3})));
  CHECK_FALSE(allclose(n, n));
  CHECK(allclose(doubles({1, 1}), doubles({1.0 + 1e-9})));
  CHECK_FALSE(allclose(doubles({1, 2}), doubles({1})));
  CHECK_THROWS_AS(allclose(doubles({1, 2}), doubles({1, 2, 3})), ShapeError);
  CHECK_THROWS_WITH_AS(allclose(doubles({1}, kInt64), doubles({1})), "allclose: Long did not match Double", DTypeError);
}
