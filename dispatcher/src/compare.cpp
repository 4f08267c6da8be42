// The element-wise tensor comparison (axle/compare.h).
#include <axle/compare.h>
#include <axle/error.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

namespace axle {

namespace {

template <typename T>
bool matches(T a, T e, const Tolerance& t) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(e)) return t.equal_nan && std::isnan(a) && std::isnan(e);
    if (a == e) return true;
    if (std::isinf(a) || std::isinf(e)) return false;
    return std::fabs(a - e) <= t.atol + t.rtol * std::fabs(e);
  } else {
    if (a == e) return true;
    // The difference in unsigned arithmetic: exact where float64 would round both alike.
    const uint64_t diff = a > e ? static_cast<uint64_t>(a) - static_cast<uint64_t>(e)
                                : static_cast<uint64_t>(e) - static_cast<uint64_t>(a);
    return static_cast<double>(diff) <= t.atol + t.rtol * std::fabs(static_cast<double>(e));
  }
}

template <typename T>
void compare_values(const T* a, const T* e, Comparison& c, const Tolerance& t) {
  for (int64_t i = 0; i < c.numel; ++i) {
    const double x = static_cast<double>(a[i]), y = static_cast<double>(e[i]);
    if (std::isfinite(x) && std::isfinite(y)) {
      const double abs = std::fabs(x - y);
      c.max_abs = std::max(c.max_abs, abs);
      c.max_rel = std::max(c.max_rel, abs / std::max(std::fabs(y), std::numeric_limits<double>::min()));
    }
    if (matches(a[i], e[i], t)) continue;
    if (c.differing++ == 0) {
      c.first = i;
      c.first_actual = x;
      c.first_expected = y;
    }
  }
}

}  // namespace

std::string Comparison::describe() const {
  if (!mismatch.empty()) return mismatch;
  if (differing == 0) return "";
  return detail::concat(differing, " of ", numel, " elements differ (first at flat index ", first, ": ", first_actual,
                        " vs ", first_expected, ")");
}

Comparison compare(const Tensor& actual, const Tensor& expected, const Tolerance& tolerance, bool check_dtype) {
  Comparison c;
  if (actual.sizes() != expected.sizes()) {
    c.mismatch =
        detail::concat("shape ", shape_string(actual.sizes()), " != expected ", shape_string(expected.sizes()));
    return c;
  }
  if (check_dtype && actual.dtype() != expected.dtype()) {
    c.mismatch = detail::concat("dtype ", dtype_name(actual.dtype()), " != expected ", dtype_name(expected.dtype()));
    return c;
  }
  c.numel = actual.numel();
  const bool exact_ints = !is_floating_point(actual.dtype()) && !is_floating_point(expected.dtype());
  const DType as = exact_ints ? kInt64 : kFloat64;
  const Tensor a = actual.to(Device("cpu"), as).contiguous();
  const Tensor e = expected.to(Device("cpu"), as).contiguous();
  if (exact_ints)
    compare_values(a.data_ptr<int64_t>(), e.data_ptr<int64_t>(), c, tolerance);
  else
    compare_values(a.data_ptr<double>(), e.data_ptr<double>(), c, tolerance);
  return c;
}

}  // namespace axle
