// Random ops: reproducible per seed (default generator and explicit ones),
// independent streams, values in range, sane moments, typed errors.
#include <axle/axle.h>

#include <doctest/doctest.h>

#include <cmath>

using namespace axle;

namespace {
Tensor rand_of(const IntList& size, std::optional<Generator> g = {}, DType d = kFloat32) {
  return call_op("rand", {size, g ? Value(*g) : Value(), d})[0].tensor();
}
double mean_of(const Tensor& t) { return mean(t.to(kFloat64)).item<double>(); }
}  // namespace

TEST_CASE("the same seed gives the same numbers") {
  manual_seed(42);
  const Tensor a = rand_of({1000});
  manual_seed(42);
  const Tensor b = rand_of({1000});
  CHECK(equal(a, b));
  const Tensor c = rand_of({1000});  // the stream moved on
  CHECK_FALSE(equal(b, c));
  Generator g1, g2;
  g1.manual_seed(7);
  g2.manual_seed(7);
  CHECK(equal(rand_of({64}, g1), rand_of({64}, g2)));
  CHECK(g1.offset() == 64);
  g2.manual_seed(8);
  CHECK_FALSE(equal(rand_of({64}, g1), rand_of({64}, g2)));
}

TEST_CASE("a split draw continues the stream exactly") {
  // Element i uses counter offset + i: two draws of 3 equal one draw of 6.
  Generator g;
  g.manual_seed(3);
  const Tensor whole = rand_of({6}, g, kFloat64);
  g.manual_seed(3);
  const Tensor first = rand_of({3}, g, kFloat64), second = rand_of({3}, g, kFloat64);
  CHECK(equal(whole.slice(0, 0, 3), first));
  CHECK(equal(whole.slice(0, 3, 6), second));
}

TEST_CASE("uniform, normal and integer draws have the right range and moments") {
  Generator g;
  g.manual_seed(1);
  for (DType d : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    const Tensor u = rand_of({20000}, g, d).to(kFloat64);
    const double* p = u.data_ptr<double>();
    bool in_range = true;
    for (int64_t i = 0; i < u.numel(); ++i) in_range &= p[i] >= 0 && p[i] < 1;
    CHECK_MESSAGE(in_range, dtype_name(d));
    CHECK(std::fabs(mean_of(u) - 0.5) < 0.02);
  }
  const Tensor n = call_op("randn", {IntList{50000}, g, kFloat64})[0].tensor();
  CHECK(std::fabs(mean_of(n)) < 0.02);
  CHECK(std::fabs(mean_of(n * n) - 1.0) < 0.03);
  const Tensor r = call_op("randint.low", {-3, 4, IntList{10000}, g})[0].tensor();
  CHECK(r.dtype() == kInt64);
  const int64_t* q = r.data_ptr<int64_t>();
  int seen[7] = {};
  for (int64_t i = 0; i < r.numel(); ++i) {
    REQUIRE(q[i] >= -3);
    REQUIRE(q[i] < 4);
    ++seen[q[i] + 3];
  }
  for (int k = 0; k < 7; ++k) CHECK(seen[k] > 1200);
}

TEST_CASE("random ops reject bad arguments with typed errors") {
  CHECK_THROWS_AS(call_op("rand", {IntList{2}, Value(), kInt64}), DTypeError);
  CHECK_THROWS_AS(call_op("randint.low", {5, 5, IntList{2}}), ValueError);
  CHECK_THROWS_AS(call_op("rand", {IntList{-1}}), ValueError);
}

TEST_CASE("bernoulli.p: the same draws on every plugin, p's frequency, self's dtype") {
  // Four draws per Philox block (plugin-sdk random.hpp): the reference plugin
  // alone and the plugins as a user gets them (the cpu plugin's vectorized
  // loop where it is loaded) give the same values for the same seed.
  auto draw = [](const IntList& size, DType d, double p, uint64_t seed) {
    Generator g;
    g.manual_seed(seed);
    const Tensor self = zeros(size, TensorOptions().dtype(d));
    return call_op("bernoulli.p", {self, p, g})[0].tensor();
  };
  for (DType d : {kFloat32, kFloat64, kBool, kUInt8, kInt64, kInt32}) {
    for (const IntList& size : {IntList{1000003}, IntList{7}, IntList{3, 5}, IntList{0}}) {
      Tensor mine = draw(size, d, 0.3, 11), ref;
      {
        PluginFilterGuard only(PluginFilterGuard::Mode::Only, {"reference"});
        ref = draw(size, d, 0.3, 11);
      }
      CHECK_MESSAGE(mine.dtype() == d, dtype_name(d));
      CHECK_MESSAGE(equal(mine, ref), dtype_name(d), " ", size.size());
    }
  }
  const Tensor big = draw({200000}, kFloat64, 0.3, 5);
  CHECK(std::fabs(mean_of(big) - 0.3) < 0.005);
  CHECK(mean_of(draw({1000}, kFloat32, 0.0, 5)) == 0.0);
  CHECK(mean_of(draw({1000}, kFloat32, 1.0, 5)) == 1.0);
  Generator g;
  g.manual_seed(1);
  (void)call_op("bernoulli.p", {zeros({10}), 0.5, g});
  CHECK(g.offset() == 3);  // ceil(10 / 4) counters
  CHECK_THROWS_AS(call_op("bernoulli.p", {zeros({3}), 1.5}), ValueError);
}
