// The C++ API of the reductions (axle/ops/reduction.h): every overload resolves
// to its operator (libtorch's call forms), with values computed by hand.
#include "tensor_values.h"

#include <axle/axle.h>

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

using namespace axle;

namespace {
using testing::from;
using testing::values;
using V = std::vector<double>;
}  // namespace

TEST_CASE("reduction C++ API") {
  const Tensor x = from({3, -1, 2, 0, 5, -4}, {2, 3});
  CHECK(values(prod(x)) == V{0});
  CHECK(prod(from({1, 2}, {2}, kInt8)).dtype() == kInt64);
  CHECK(values(prod(x, 1, true)) == V{-6, 0});
  CHECK(values(amax(x)) == V{5});
  CHECK(values(amin(x, {1})) == V{-1, -4});
  CHECK(values(max(x)) == V{5});
  auto [mv, mi] = max(x, 1);
  CHECK(values(mv) == V{3, 5});
  CHECK(values(mi) == V{0, 1});
  auto [nv, ni] = min(x, 0, true);
  CHECK(nv.sizes() == IntList{1, 3});
  CHECK(values(ni) == V{1, 0, 1});
  CHECK(values(max(x, from({0}, {1}))) == V{3, 0, 2, 0, 5, 0});
  CHECK(values(min(x, from({0}, {1}))) == V{0, -1, 0, 0, 0, -4});
  CHECK(values(argmax(x)) == V{4});
  CHECK(values(argmin(x, 1)) == V{1, 2});
  CHECK(values(var(from({1, 2, 3, 4}, {4}, kFloat64))) == V{5.0 / 3.0});
  CHECK(values(var(from({1, 2, 3, 4}, {2, 2}), IntList{1}, false)) == V{0.25, 0.25});
  CHECK(values(var(from({1, 2, 3, 4}, {4}), std::nullopt, int64_t{0})) == V{1.25});
  CHECK(values(axle::std(from({1, 3}, {2}), false)) == V{1});
  CHECK(values(axle::std(from({1, 3, 5, 7}, {2, 2}, kFloat64), IntList{0}, true, true)) ==
        V{std::sqrt(8.0), std::sqrt(8.0)});
  CHECK(values(norm(from({3, 4}, {2}))) == V{5});
  CHECK(values(norm(x, 1, {1})) == V{6, 9});
  CHECK(values(norm(x, std::numeric_limits<double>::infinity(), {0, 1})) == V{5});
  CHECK(values(norm(from({3, 4}, {2}), "fro")) == V{5});
  CHECK_THROWS_AS(norm(x, std::string("abc")), ValueError);
  CHECK(std::fabs(values(logsumexp(from({1000, 1000}, {2}, kFloat64), {0}))[0] - (1000 + std::log(2.0))) < 1e-9);
  CHECK(all(x).dtype() == kBool);
  CHECK(values(all(x)) == V{0});
  CHECK(values(any(x, 1)) == V{1, 1});
  CHECK(values(all(from({1, 0, 2}, {3}, kUInt8))) == V{0});
  CHECK(all(from({1, 0, 2}, {3}, kUInt8)).dtype() == kUInt8);
  CHECK(values(cumsum(x, 1)) == V{3, 2, 4, 0, 5, 1});
  CHECK(cumsum(from({1, 2}, {2}, kInt16), 0).dtype() == kInt64);
  CHECK(values(cumprod(x, 0, kFloat64)) == V{3, -1, 2, 0, -5, -8});
  CHECK(values(count_nonzero(x)) == V{5});
  CHECK(values(count_nonzero(x, 1)) == V{3, 2});
  CHECK(values(count_nonzero(x, IntList{0, 1})) == V{5});
  auto [tv, ti] = topk(x, 2);
  CHECK(values(tv) == V{3, 2, 5, 0});
  CHECK(values(ti) == V{0, 2, 1, 0});
  auto [sv, si] = sort(x, 1, true);
  CHECK(values(sv) == V{3, 2, -1, 5, 0, -4});
  auto [stv, sti] = sort(from({2, 1, 2, 1}, {4}), std::optional<bool>(true));
  CHECK(values(sti) == V{1, 3, 0, 2});
  CHECK(values(argsort(x)) == V{1, 2, 0, 2, 0, 1});
  CHECK(values(argsort(x, true, 0, true)) == V{0, 1, 0, 1, 0, 1});
  CHECK_THROWS_AS(max(empty({0, 2})), IndexError);
  CHECK_THROWS_AS(topk(x, 4), IndexError);
  CHECK_THROWS_AS(var(from({1, 2}, {2}, kInt32)), DTypeError);
}
