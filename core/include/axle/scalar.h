// Scalar: a number passed to ops (alpha, fill values): double, int64 or bool,
// remembering which, because type promotion depends on it as in PyTorch.
#pragma once

#include <axle/dtype.h>

#include <cstdint>
#include <type_traits>

namespace axle {

class Scalar {
 public:
  enum class Kind : uint8_t { Double, Int, Bool };
  Scalar() : Scalar(int64_t{0}) {}
  Scalar(bool b) : kind_(Kind::Bool), i_(b ? 1 : 0) {}  // NOLINT: implicit like c10::Scalar
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(Kind::Int), i_(static_cast<int64_t>(v)) {}  // NOLINT
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : kind_(Kind::Double), d_(static_cast<double>(v)) {}  // NOLINT

  Kind kind() const { return kind_; }
  bool is_floating_point() const { return kind_ == Kind::Double; }
  bool is_integral() const { return kind_ == Kind::Int; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  double to_double() const { return kind_ == Kind::Double ? d_ : static_cast<double>(i_); }
  int64_t to_int() const { return kind_ == Kind::Double ? static_cast<int64_t>(d_) : i_; }
  bool to_bool() const { return kind_ == Kind::Double ? d_ != 0.0 : i_ != 0; }
  // The dtype a wrapped number of this kind gets: float64 (default float type
  // decides later), int64, bool.
  DType natural_dtype() const { return kind_ == Kind::Double ? kFloat64 : kind_ == Kind::Int ? kInt64 : kBool; }

 private:
  Kind kind_;
  union {
    double d_;
    int64_t i_;
  };
};

}  // namespace axle
