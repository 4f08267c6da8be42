// The reference plugin's ops through the dispatcher: values, dtypes and errors
// (PyTorch semantics; expected values computed independently in the test).
#include "tensor_values.h"

#include <axle/axle.h>

#include <doctest/doctest.h>

#include <cmath>

using namespace axle;

namespace {
using testing::from;
using testing::values;
}  // namespace

TEST_CASE("creation ops follow torch defaults") {
  CHECK(ones({2, 3}).dtype() == kFloat32);
  CHECK(ones({2, 3}).device() == Device("cpu"));
  CHECK(values(zeros({3})) == std::vector<double>{0, 0, 0});
  CHECK(full({2}, 1).dtype() == kInt64);
  CHECK(full({2}, true).dtype() == kBool);
  CHECK(full({2}, 2.5).dtype() == kFloat32);
  CHECK(values(arange(5)) == std::vector<double>{0, 1, 2, 3, 4});
  CHECK(arange(5).dtype() == kInt64);
  CHECK(arange(0, 1, 0.25).dtype() == kFloat32);
  CHECK(values(arange(0, 1, 0.25)) == std::vector<double>{0, 0.25, 0.5, 0.75});
  CHECK(values(arange(5, 0, -2)) == std::vector<double>{5, 3, 1});
  CHECK_THROWS_AS(arange(0, 5, 0), ValueError);
  CHECK_THROWS_AS(arange(5, 0, 1), ValueError);
  for (DType d : kAllDTypes) {
    CAPTURE(d);
    const Tensor o = ones({2, 2}, TensorOptions().dtype(d));
    CHECK(o.dtype() == d);
    CHECK(values(o) == std::vector<double>{1, 1, 1, 1});
    CHECK(o.select(0, 1).select(0, 1).item<double>() == 1.0);
  }
}

TEST_CASE("binary ops broadcast and promote like torch") {
  const Tensor a = from({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor b = from({10, 20, 30}, {3});
  CHECK(values(a + b) == std::vector<double>{11, 22, 33, 14, 25, 36});
  CHECK(values(add(a, b, 2)) == std::vector<double>{21, 42, 63, 24, 45, 66});
  CHECK(values(a - b) == std::vector<double>{-9, -18, -27, -6, -15, -24});
  CHECK(values(a * b) == std::vector<double>{10, 40, 90, 40, 100, 180});
  CHECK(values(b / from({4}, {1})) == std::vector<double>{2.5, 5, 7.5});
  CHECK(values(a.t() + from({1, 2}, {2})) == std::vector<double>{2, 6, 3, 7, 4, 8});

  const Tensor i = from({1, 2, 3}, {3}, kInt32);
  CHECK((i + i).dtype() == kInt32);
  CHECK((i + from({1}, {1}, kInt64)).dtype() == kInt64);
  CHECK((i + 2.5).dtype() == kFloat32);
  CHECK((i + 2).dtype() == kInt32);  // wrapped ints do not promote
  CHECK((i / i).dtype() == kFloat32);
  CHECK(values(i / from({2}, {1}, kInt32)) == std::vector<double>{0.5, 1, 1.5});
  CHECK((from({1}, {1}, kFloat16) + from({1}, {}, kFloat64)).dtype() == kFloat16);  // 0-dim ranks below dims
  CHECK((from({1}, {1}, kUInt8) + from({1}, {1}, kInt8)).dtype() == kInt16);
  const Tensor bools = from({1, 0, 1}, {3}, kBool);
  CHECK((bools + bools).dtype() == kBool);
  CHECK(values(bools * bools) == std::vector<double>{1, 0, 1});

  CHECK_THROWS_AS(a + from({1, 2}, {2}), ShapeError);
  CHECK_THROWS_AS(bools - bools, DTypeError);
  CHECK_THROWS_AS(add(i, i, 1.5), DTypeError);
  try {
    (void)(a + from({1, 2}, {2}));
  } catch (const ShapeError& e) {
    CHECK(std::string(e.what()).find("The size of tensor a (3) must match the size of tensor b (2)") !=
          std::string::npos);
  }
  // Integer arithmetic wraps like torch's.
  CHECK(values(from({127}, {1}, kInt8) + from({1}, {1}, kInt8)) == std::vector<double>{-128});
}

TEST_CASE("in-place ops write through views and check casts") {
  Tensor a = zeros({2, 3});
  Tensor col = a.select(1, 1);
  col.add_(from({1, 2}, {2}));
  CHECK(values(a) == std::vector<double>{0, 1, 0, 0, 2, 0});
  a.mul_(from({2}, {1}));
  CHECK(values(a) == std::vector<double>{0, 2, 0, 0, 4, 0});
  Tensor l = zeros({3}, TensorOptions().dtype(kInt64));
  CHECK_THROWS_AS(l.add_(ones({3})), DTypeError);
  CHECK_THROWS_AS(zeros({3}).add_(ones({2, 3})), ShapeError);
}

TEST_CASE("unary ops") {
  const Tensor x = from({-1, 0, 2}, {3});
  CHECK(values(-x) == std::vector<double>{1, 0, -2});
  CHECK(values(relu(x)) == std::vector<double>{0, 0, 2});
  const auto e = values(exp(x));
  CHECK(e[0] == doctest::Approx(std::exp(-1.0)).epsilon(1e-6));
  CHECK(exp(from({1}, {1}, kInt64)).dtype() == kFloat32);
  CHECK(std::isnan(values(relu(from({NAN}, {1})))[0]));
  CHECK_THROWS_AS(-from({1}, {1}, kBool), DTypeError);
  CHECK_THROWS_AS(relu(from({1}, {1}, kBool)), DTypeError);
}

TEST_CASE("reductions") {
  const Tensor a = from({1, 2, 3, 4, 5, 6}, {2, 3});
  CHECK(sum(a).item<double>() == 21);
  CHECK(sum(a).dim() == 0);
  CHECK(values(sum(a, {0})) == std::vector<double>{5, 7, 9});
  CHECK(values(sum(a, {-1}, true)) == std::vector<double>{6, 15});
  CHECK(sum(a, {-1}, true).sizes() == IntList{2, 1});
  CHECK(values(mean(a, {1})) == std::vector<double>{2, 5});
  CHECK(mean(a).item<double>() == 3.5);
  CHECK(sum(from({1, 2}, {2}, kInt32)).dtype() == kInt64);
  CHECK(sum(from({1, 1}, {2}, kBool)).item<int64_t>() == 2);
  CHECK(sum(a, {}, false, kFloat64).dtype() == kFloat64);
  CHECK(sum(a.t(), {1}).sizes() == IntList{3});
  CHECK(values(sum(a.t(), {1})) == std::vector<double>{5, 7, 9});
  CHECK(sum(zeros({0, 3}), {0}).sizes() == IntList{3});
  CHECK(std::isnan(mean(zeros({0})).item<double>()));
  CHECK_THROWS_AS(mean(from({1, 2}, {2}, kInt64)), DTypeError);
  CHECK_THROWS_AS(sum(a, {2}), IndexError);
  CHECK_THROWS_AS(sum(a, {0, 0}), ValueError);
}

TEST_CASE("matmul covers every torch.matmul case") {
  const Tensor v = from({1, 2, 3}, {3});
  const Tensor m = from({1, 2, 3, 4, 5, 6}, {2, 3});
  CHECK(matmul(v, v).item<double>() == 14);
  CHECK(matmul(v, v).dim() == 0);
  CHECK(values(matmul(m, v)) == std::vector<double>{14, 32});
  CHECK(values(matmul(from({1, 1}, {2}), m)) == std::vector<double>{5, 7, 9});
  CHECK(values(matmul(m, m.t())) == std::vector<double>{14, 32, 32, 77});
  const Tensor batch = ones({4, 1, 2, 3});
  const Tensor r = matmul(batch, ones({5, 3, 7}));
  CHECK(r.sizes() == IntList{4, 5, 2, 7});
  CHECK(values(r)[0] == 3);
  CHECK(matmul(ones({2, 3, 4}), ones({4})).sizes() == IntList{2, 3});
  CHECK(matmul(ones({4}), ones({2, 4, 3})).sizes() == IntList{2, 3});
  CHECK(matmul(from({1, 2, 3, 4}, {2, 2}, kInt64), from({1, 1}, {2}, kInt64)).dtype() == kInt64);
  CHECK_THROWS_AS(matmul(ones({2, 3}), ones({4, 5})), ShapeError);
  CHECK_THROWS_AS(matmul(ones({3}), ones({4})), ShapeError);
  CHECK_THROWS_AS(matmul(ones({}), ones({4})), ShapeError);
  CHECK_THROWS_AS(matmul(ones({2, 3}), ones({3}, TensorOptions().dtype(kFloat64))), DTypeError);
}

TEST_CASE("copy, clone, to(dtype) and nonzero") {
  const Tensor m = from({1.7, -2.7, 0, 4}, {2, 2}, kFloat64);
  CHECK(values(m.to(kInt32)) == std::vector<double>{1, -2, 0, 4});  // truncation, like torch
  CHECK(values(m.to(kBool)) == std::vector<double>{1, 1, 0, 1});
  const Tensor c = m.t().clone();
  CHECK(c.is_contiguous());
  CHECK(values(c) == std::vector<double>{1.7, 0, -2.7, 4});
  CHECK(m.to(kFloat64).is_same(m));
  CHECK_FALSE(m.to(kFloat64, false, true).is_same(m));
  const Tensor nz = nonzero(m);
  CHECK(nz.sizes() == IntList{3, 2});
  CHECK(nz.dtype() == kInt64);
  CHECK(values(nz) == std::vector<double>{0, 0, 0, 1, 1, 1});
  CHECK(nonzero(zeros({0})).sizes() == IntList{0, 1});
  Tensor dst = zeros({2, 3});
  dst.copy_(from({1, 2, 3}, {3}));
  CHECK(values(dst) == std::vector<double>{1, 2, 3, 1, 2, 3});
  CHECK_THROWS_AS(dst.copy_(ones({2})), ShapeError);
  CHECK(from({3.5}, {}).item<float>() == 3.5f);
  CHECK_THROWS_AS(m.item<float>(), ValueError);
  CHECK_THROWS_AS(m.data_ptr<float>(), DTypeError);
}

TEST_CASE("from_blob wraps external memory and runs the deleter") {
  static int deleted = 0;
  float* data = new float[6]{1, 2, 3, 4, 5, 6};
  {
    Tensor t = from_blob(data, {2, 3}, {3, 1}, [](void* p) {
      delete[] static_cast<float*>(p);
      ++deleted;
    });
    CHECK(sum(t).item<double>() == 21);
    CHECK(t.data_ptr<float>() == data);
  }
  CHECK(deleted == 1);
}

TEST_CASE("from_blob checks the rank and computes its extent without overflow") {
  float data[4] = {1, 2, 3, 4};
  // (2^40 - 1) * 2^24 elements wrapped around int64: a small storage under a huge view.
  CHECK_THROWS_AS(from_blob(data, {int64_t(1) << 40}, {int64_t(1) << 24}, nullptr, TensorOptions()), ValueError);
  CHECK_THROWS_AS(from_blob(data, {int64_t(1) << 62}, TensorOptions()), ValueError);  // 2^64 bytes
  CHECK_THROWS_AS(from_blob(data, IntList(65, 1), TensorOptions()), ShapeError);
  const Tensor t = from_blob(data, IntList(64, 1), TensorOptions());
  CHECK(t.dim() == 64);
  CHECK(sum(t).item<double>() == 1);
  CHECK(from_blob(data, {2, 2}, {1, 2}, nullptr, TensorOptions()).storage()->nbytes == 16);
}

TEST_CASE("tensors have at most 64 dimensions, wherever they are made") {
  CHECK_THROWS_AS(zeros(IntList(70, 1)), ShapeError);
  CHECK_THROWS_AS(make_empty(IntList(65, 1), kFloat32, Device("cpu")), ShapeError);
  const Tensor t = zeros(IntList(64, 1));
  CHECK(sum(t).item<double>() == 0);
  CHECK_THROWS_AS(t.unsqueeze(0), ShapeError);
  CHECK_THROWS_AS(t.view(IntList(65, 1)), ShapeError);
  CHECK_THROWS_AS(t.expand(IntList(65, 1)), ShapeError);
  CHECK_THROWS_AS(t.as_strided(IntList(65, 1), IntList(65, 1)), ShapeError);
  CHECK_THROWS_AS(t.reshape(IntList(65, 1)), ShapeError);
  // A shape whose elements are few but whose strides would overflow.
  CHECK_THROWS_AS(zeros({0, int64_t(1) << 62, int64_t(1) << 62}), ValueError);
}

TEST_CASE("unknown ops and devices are typed errors") {
  CHECK_THROWS_AS(call_op("no_such_op", {}), NotImplementedError);
  CHECK_THROWS_AS(ones({2}, TensorOptions().device("nodevice")), DeviceError);
  CHECK_THROWS_AS(ones({2}, TensorOptions().device("cpu:3")), DeviceError);
  CHECK_THROWS_AS(call_op("add.Tensor", {ones({2})}), ValueError);
  CHECK(version() == AXLE_TEST_VERSION);
}

TEST_CASE("comparisons broadcast, compare in the promoted type and return bool") {
  const Tensor a = from({1, 2, 3}, {3});
  const Tensor b = from({2}, {1}, kInt64);
  CHECK((a == b).dtype() == kBool);
  CHECK(values(a == b) == std::vector<double>{0, 1, 0});
  CHECK(values(a != b) == std::vector<double>{1, 0, 1});
  CHECK(values(a < b) == std::vector<double>{1, 0, 0});
  CHECK(values(a <= b) == std::vector<double>{1, 1, 0});
  CHECK(values(a > b) == std::vector<double>{0, 0, 1});
  CHECK(values(a >= b) == std::vector<double>{0, 1, 1});
  CHECK(values(from({0.5}, {1}) > from({0}, {1}, kInt32)) == std::vector<double>{1});  // not truncated to int
  CHECK(values(eq(a.view({3, 1}), a)).size() == 9);
  CHECK(values(from({NAN}, {1}) == from({NAN}, {1})) == std::vector<double>{0});
  CHECK_THROWS_AS(a == from({1, 2}, {2}), ShapeError);
}

TEST_CASE("unary math through the C++ API follows torch's dtype rules") {
  const Tensor f = from({0.25, 4}, {2});
  CHECK(values(axle::sqrt(f)) == std::vector<double>{0.5, 2});
  CHECK(axle::sqrt(from({4}, {1}, kInt32)).dtype() == kFloat32);
  CHECK(values(axle::abs(from({-3, 2}, {2}, kInt64))) == std::vector<double>{3, 2});
  CHECK(axle::abs(from({-3}, {1}, kInt64)).dtype() == kInt64);
  CHECK(values(axle::floor(from({-1.5, 1.5}, {2}))) == std::vector<double>{-2, 1});
  CHECK(axle::square(from({1, 0}, {2}, kBool)).dtype() == kInt64);
  CHECK(values(axle::sign(from({-2, 0, 5}, {3}, kInt32))) == std::vector<double>{-1, 0, 1});
  CHECK(std::isnan(values(axle::log(from({-1}, {1})))[0]));
  CHECK_THROWS_AS(axle::frac(from({1}, {1}, kInt64)), DTypeError);
  CHECK_THROWS_AS(axle::abs(from({1}, {1}, kBool)), DTypeError);
}

TEST_CASE("special functions and shifts through the C++ API") {
  const double pi = 3.14159265358979323846, euler = 0.57721566490153286061;
  auto one = [](const Tensor& t) { return values(t).at(0); };
  const Tensor half = from({0.5}, {1}, kFloat64), unit = from({1}, {1}, kFloat64);
  CHECK(one(axle::lgamma(half)) == doctest::Approx(0.5 * std::log(pi)).epsilon(1e-14));
  CHECK(one(axle::digamma(unit)) == doctest::Approx(-euler).epsilon(1e-14));
  CHECK(one(axle::polygamma(1, unit)) == doctest::Approx(pi * pi / 6).epsilon(1e-14));
  CHECK(one(axle::special_zeta(from({2}, {1}, kFloat64), unit)) == doctest::Approx(pi * pi / 6).epsilon(1e-14));
  CHECK(one(axle::mvlgamma(half + 2, 1)) == doctest::Approx(std::lgamma(2.5)).epsilon(1e-14));
  CHECK(one(axle::erf(axle::erfinv(half))) == doctest::Approx(0.5).epsilon(1e-15));
  CHECK(one(axle::i0(from({0}, {1}, kFloat64))) == 1);
  CHECK(one(axle::igamma(unit, from({2}, {1}, kFloat64))) == doctest::Approx(1 - std::exp(-2.0)).epsilon(1e-14));
  CHECK(one(axle::igammac(unit, from({2}, {1}, kFloat64))) == doctest::Approx(std::exp(-2.0)).epsilon(1e-14));
  CHECK(axle::lgamma(from({3}, {1}, kInt64)).dtype() == kFloat32);
  CHECK_THROWS_AS(axle::polygamma(-1, unit), ValueError);
  CHECK_THROWS_AS(axle::igamma(from({1}, {1}, kInt64), from({1}, {1}, kInt64)), DTypeError);
  // Shifts: counts outside [0, bits) as torch 1.13 (modulo 32 for the narrow types: int8 1 << 9 is 0).
  const Tensor a = from({1, -8, 100}, {3}, kInt8), n = from({7, 9, -1}, {3}, kInt8);
  CHECK(values(a << n) == std::vector<double>{-128, 0, 0});
  CHECK(values(a >> n) == std::vector<double>{0, -1, 0});
  CHECK(values(a >> 2) == std::vector<double>{0, -2, 25});
  CHECK((a << 1).dtype() == kInt8);
  CHECK_THROWS_AS(from({1.5}, {1}) << 1, DTypeError);
}
