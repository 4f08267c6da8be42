// C++ API of the pointwise family (axle/ops/pointwise.h): each function calls its
// declared operator; the operators on Tensor call those functions.
#include <axle/ops/creation.h>
#include <axle/ops/pointwise.h>

#include "op_handle.h"

namespace axle {

Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  return detail::call_one(AXLE_OP("add.Tensor"), a, b, alpha);
}
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  return detail::call_one(AXLE_OP("sub.Tensor"), a, b, alpha);
}
Tensor mul(const Tensor& a, const Tensor& b) { return detail::call_one(AXLE_OP("mul.Tensor"), a, b); }
Tensor div(const Tensor& a, const Tensor& b) { return detail::call_one(AXLE_OP("div.Tensor"), a, b); }
Tensor eq(const Tensor& a, const Tensor& b) { return detail::call_one(AXLE_OP("eq.Tensor"), a, b); }
Tensor ne(const Tensor& a, const Tensor& b) { return detail::call_one(AXLE_OP("ne.Tensor"), a, b); }
Tensor lt(const Tensor& a, const Tensor& b) { return detail::call_one(AXLE_OP("lt.Tensor"), a, b); }
Tensor le(const Tensor& a, const Tensor& b) { return detail::call_one(AXLE_OP("le.Tensor"), a, b); }
Tensor gt(const Tensor& a, const Tensor& b) { return detail::call_one(AXLE_OP("gt.Tensor"), a, b); }
Tensor ge(const Tensor& a, const Tensor& b) { return detail::call_one(AXLE_OP("ge.Tensor"), a, b); }
Tensor neg(const Tensor& t) { return detail::call_one(AXLE_OP("neg"), t); }
Tensor exp(const Tensor& t) { return detail::call_one(AXLE_OP("exp"), t); }
#define AXLE_DEFINE_UNARY(name) \
  Tensor name(const Tensor& t) { return detail::call_one(AXLE_OP(#name), t); }
AXLE_UNARY_MATH_OPS(AXLE_DEFINE_UNARY)
#undef AXLE_DEFINE_UNARY
Tensor relu(const Tensor& t) { return detail::call_one(AXLE_OP("relu"), t); }
Tensor polygamma(int64_t n, const Tensor& t) { return detail::call_one(AXLE_OP("polygamma"), n, t); }
Tensor mvlgamma(const Tensor& t, int64_t p) { return detail::call_one(AXLE_OP("mvlgamma"), t, p); }
Tensor igamma(const Tensor& a, const Tensor& x) { return detail::call_one(AXLE_OP("igamma"), a, x); }
Tensor igammac(const Tensor& a, const Tensor& x) { return detail::call_one(AXLE_OP("igammac"), a, x); }
Tensor special_zeta(const Tensor& x, const Tensor& q) { return detail::call_one(AXLE_OP("special_zeta"), x, q); }
Tensor bitwise_left_shift(const Tensor& a, const Tensor& b) {
  return detail::call_one(AXLE_OP("bitwise_left_shift.Tensor"), a, b);
}
Tensor bitwise_right_shift(const Tensor& a, const Tensor& b) {
  return detail::call_one(AXLE_OP("bitwise_right_shift.Tensor"), a, b);
}
Tensor operator<<(const Tensor& a, const Tensor& b) { return bitwise_left_shift(a, b); }
Tensor operator>>(const Tensor& a, const Tensor& b) { return bitwise_right_shift(a, b); }
Tensor operator<<(const Tensor& a, const Scalar& b) { return bitwise_left_shift(a, scalar_to_tensor(b)); }
Tensor operator>>(const Tensor& a, const Scalar& b) { return bitwise_right_shift(a, scalar_to_tensor(b)); }
Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator-(const Tensor& a) { return neg(a); }
Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, scalar_to_tensor(b)); }
Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, scalar_to_tensor(b)); }
Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, scalar_to_tensor(b)); }
Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, scalar_to_tensor(b)); }
Tensor operator+(const Scalar& a, const Tensor& b) { return add(scalar_to_tensor(a), b); }
Tensor operator*(const Scalar& a, const Tensor& b) { return mul(scalar_to_tensor(a), b); }
Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }

}  // namespace axle
