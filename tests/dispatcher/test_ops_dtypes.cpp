// Every op of the reference plugin over every dtype (pairs for binary ops):
// result dtypes follow torch's promotion, values match a double-precision
// computation in the test, and unsupported dtypes raise typed errors.
#include <axle/axle.h>

#include <doctest/doctest.h>

#include <cmath>

using namespace axle;

namespace {

std::vector<double> values(const Tensor& t) {
  Tensor h = t.to(Device("cpu"), kFloat64).contiguous();
  return std::vector<double>(h.data_ptr<double>(), h.data_ptr<double>() + h.numel());
}

Tensor bools() {
  Tensor t = empty({2, 3}, TensorOptions().dtype(kBool));
  bool* p = t.data_ptr<bool>();
  for (int i = 0; i < 6; ++i) p[i] = i % 2 == 1;
  return t;
}

Tensor make(DType d) {
  return d == kBool ? bools() : arange(1, 7, 1, TensorOptions().dtype(kFloat64)).reshape({2, 3}).to(d);
}

}  // namespace

TEST_CASE("binary ops over every dtype pair") {
  for (DType a : kAllDTypes)
    for (DType b : kAllDTypes) {
      CAPTURE(a);
      CAPTURE(b);
      const Tensor x = make(a), y = make(b);
      const auto vx = values(x), vy = values(y);
      const DType r = promote_types(a, b);
      const Tensor s = x + y;
      CHECK(s.dtype() == r);
      const Tensor m = x * y;
      CHECK(m.dtype() == r);
      const Tensor q = x / y;
      CHECK(q.dtype() == (is_floating_point(r) ? r : kFloat32));
      const auto vs = values(s), vm = values(m), vq = values(q);
      for (size_t i = 0; i < vx.size(); ++i) {
        const double tol = (r == kFloat16 || r == kBFloat16) ? 0.02 * std::fabs(vx[i] * vy[i]) + 0.02 : 1e-6;
        if (r == kBool) {
          CHECK(vs[i] == double(vx[i] != 0 || vy[i] != 0));
          CHECK(vm[i] == double(vx[i] != 0 && vy[i] != 0));
        } else {
          CHECK(std::fabs(vs[i] - (vx[i] + vy[i])) <= tol);
          CHECK(std::fabs(vm[i] - vx[i] * vy[i]) <= tol);
        }
        if (vy[i] != 0) CHECK(std::fabs(vq[i] - vx[i] / vy[i]) <= 0.01 * std::fabs(vx[i] / vy[i]) + 1e-6);
      }
      if (a == kBool || b == kBool)
        CHECK_THROWS_AS(x - y, DTypeError);
      else
        CHECK(values(x - y)[0] == doctest::Approx(vx[0] - vy[0]));
    }
}

TEST_CASE("unary ops and reductions over every dtype") {
  for (DType d : kAllDTypes) {
    CAPTURE(d);
    const Tensor x = make(d);
    const auto vx = values(x);
    if (d == kBool) {
      CHECK_THROWS_AS(-x, DTypeError);
      CHECK_THROWS_AS(relu(x), DTypeError);
    } else {
      CHECK((-x).dtype() == d);
      CHECK(relu(-x).dtype() == d);
      if (d != kUInt8) CHECK(values(relu(-x)) == std::vector<double>(6, 0.0));
    }
    const Tensor e = axle::exp(x);
    CHECK(e.dtype() == (is_floating_point(d) ? d : kFloat32));
    CHECK(values(e)[1] == doctest::Approx(std::exp(vx[1])).epsilon(0.01));
    const Tensor s = sum(x);
    CHECK(s.dtype() == (is_floating_point(d) ? d : kInt64));
    double total = 0;
    for (double v : vx) total += v;
    CHECK(s.item<double>() == doctest::Approx(total).epsilon(0.01));
    if (is_floating_point(d))
      CHECK(mean(x, {0}).dtype() == d);
    else
      CHECK_THROWS_AS(mean(x), DTypeError);
    CHECK(values(x.t().contiguous()) == values(x.t().to(kFloat64)));
    if (d != kBool) {
      const Tensor mm = matmul(x, x.t());
      CHECK(mm.dtype() == d);
      const auto vmm = values(mm);
      const double want = vx[0] * vx[0] + vx[1] * vx[1] + vx[2] * vx[2];
      if (d != kInt8 && d != kUInt8) CHECK(vmm[0] == doctest::Approx(want).epsilon(0.01));
    } else {
      CHECK_THROWS_AS(matmul(x, x.t()), DTypeError);
    }
  }
}
