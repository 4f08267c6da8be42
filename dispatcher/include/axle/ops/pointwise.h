// C++ API of the pointwise family (libtorch's names and operators); declarations
// with their dtype rules: dispatcher/src/ops/pointwise.cpp.
#pragma once

#include <axle/dispatcher.h>
#include <axle/tensor.h>

namespace axle {

AXLE_API Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
AXLE_API Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
AXLE_API Tensor mul(const Tensor& a, const Tensor& b);
AXLE_API Tensor div(const Tensor& a, const Tensor& b);
AXLE_API Tensor eq(const Tensor& a, const Tensor& b);
AXLE_API Tensor ne(const Tensor& a, const Tensor& b);
AXLE_API Tensor lt(const Tensor& a, const Tensor& b);
AXLE_API Tensor le(const Tensor& a, const Tensor& b);
AXLE_API Tensor gt(const Tensor& a, const Tensor& b);
AXLE_API Tensor ge(const Tensor& a, const Tensor& b);
AXLE_API Tensor neg(const Tensor& t);

// Unary math: axle::sqrt(t), axle::sigmoid(t), ... Each calls the operator of the same name.
// (clang-format reflows this list differently on every run: left as written.)
// clang-format off
#define AXLE_UNARY_MATH_OPS(X)                                                                                    \
  X(abs) X(sign) X(exp2) X(expm1) X(log) X(log2) X(log10) X(log1p) X(sqrt) X(rsqrt) X(reciprocal) X(sin) X(cos) \
  X(tan) X(asin) X(acos) X(atan) X(sinh) X(cosh) X(tanh) X(sigmoid) X(erf) X(erfc) X(floor) X(ceil) X(trunc)      \
  X(frac) X(square) X(lgamma) X(digamma) X(erfinv) X(i0) X(special_i1) X(special_i0e) X(special_i1e)         \
  X(special_erfcx) X(special_ndtri)
// clang-format on
#define AXLE_DECLARE_UNARY(name) AXLE_API Tensor name(const Tensor& t);
AXLE_UNARY_MATH_OPS(AXLE_DECLARE_UNARY)
#undef AXLE_DECLARE_UNARY
AXLE_API Tensor exp(const Tensor& t);
AXLE_API Tensor relu(const Tensor& t);
// Special functions (dispatcher/src/ops/pointwise_special.cpp) with two arguments.
AXLE_API Tensor polygamma(int64_t n, const Tensor& t);
AXLE_API Tensor mvlgamma(const Tensor& t, int64_t p);
AXLE_API Tensor igamma(const Tensor& a, const Tensor& x);
AXLE_API Tensor igammac(const Tensor& a, const Tensor& x);
AXLE_API Tensor special_zeta(const Tensor& x, const Tensor& q);
// Shifts of integer tensors (torch 1.13's semantics for counts outside [0, bits)).
AXLE_API Tensor bitwise_left_shift(const Tensor& a, const Tensor& b);
AXLE_API Tensor bitwise_right_shift(const Tensor& a, const Tensor& b);
AXLE_API Tensor operator<<(const Tensor& a, const Tensor& b);
AXLE_API Tensor operator>>(const Tensor& a, const Tensor& b);
AXLE_API Tensor operator<<(const Tensor& a, const Scalar& b);
AXLE_API Tensor operator>>(const Tensor& a, const Scalar& b);

AXLE_API Tensor operator+(const Tensor& a, const Tensor& b);
AXLE_API Tensor operator-(const Tensor& a, const Tensor& b);
AXLE_API Tensor operator*(const Tensor& a, const Tensor& b);
AXLE_API Tensor operator/(const Tensor& a, const Tensor& b);
AXLE_API Tensor operator-(const Tensor& a);
AXLE_API Tensor operator+(const Tensor& a, const Scalar& b);
AXLE_API Tensor operator-(const Tensor& a, const Scalar& b);
AXLE_API Tensor operator*(const Tensor& a, const Scalar& b);
AXLE_API Tensor operator/(const Tensor& a, const Scalar& b);
AXLE_API Tensor operator+(const Scalar& a, const Tensor& b);
// Elementwise comparisons returning bool tensors, as in libtorch.
AXLE_API Tensor operator==(const Tensor& a, const Tensor& b);
AXLE_API Tensor operator!=(const Tensor& a, const Tensor& b);
AXLE_API Tensor operator<(const Tensor& a, const Tensor& b);
AXLE_API Tensor operator<=(const Tensor& a, const Tensor& b);
AXLE_API Tensor operator>(const Tensor& a, const Tensor& b);
AXLE_API Tensor operator>=(const Tensor& a, const Tensor& b);
AXLE_API Tensor operator*(const Scalar& a, const Tensor& b);

}  // namespace axle
