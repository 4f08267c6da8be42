// Formulas of the pointwise family (dispatcher/src/ops/pointwise.cpp and the
// pointwise extras declared with the activations). g: the output's gradient.
#include "derivatives.h"

#include <cmath>
#include <numbers>

namespace axle::derivatives {

namespace {
const Tensor& g(VjpContext& c) { return c.grad(0); }
Tensor sign_of(const Tensor& x) { return call(AXLE_OP("sign"), x); }
Tensor op1(const OpHandle& h, const Tensor& x) { return call(h, x); }
}  // namespace

void add(VjpContext& c) {
  if (c.needs(0)) c.set(0, g(c));
  if (c.needs(1)) c.set(1, c.arg(2).to_double() == 1.0 ? g(c) : g(c) * c.arg(2).scalar());
}

void sub(VjpContext& c) {
  if (c.needs(0)) c.set(0, g(c));
  if (c.needs(1)) c.set(1, g(c) * scalar(-c.arg(2).to_double()));
}

void mul(VjpContext& c) {
  if (c.needs(0)) c.set(0, g(c) * c.input(1));
  if (c.needs(1)) c.set(1, g(c) * c.input(0));
}

void div(VjpContext& c) {
  const Tensor& b = c.input(1);
  if (c.needs(0)) c.set(0, g(c) / b);
  if (c.needs(1)) c.set(1, -g(c) * c.input(0) / (b * b));
}

void div_mode(VjpContext& c) {
  if (c.arg(2).is_none()) return div(c);
  // Rounded quotients are piecewise constant.
  if (c.needs(0)) c.set(0, zeros_for(c, 0));
  if (c.needs(1)) c.set(1, zeros_for(c, 1));
}

void neg(VjpContext& c) { c.set(0, -g(c)); }
void exp(VjpContext& c) { c.set(0, g(c) * c.result(0)); }
void exp2(VjpContext& c) { c.set(0, g(c) * c.result(0) * scalar(std::numbers::ln2)); }
void expm1(VjpContext& c) { c.set(0, g(c) * (c.result(0) + scalar(1.0))); }
void log(VjpContext& c) { c.set(0, g(c) / c.input(0)); }
void log2(VjpContext& c) { c.set(0, g(c) / (c.input(0) * scalar(std::numbers::ln2))); }
void log10(VjpContext& c) { c.set(0, g(c) / (c.input(0) * scalar(std::numbers::ln10))); }
void log1p(VjpContext& c) { c.set(0, g(c) / (c.input(0) + scalar(1.0))); }
void sqrt(VjpContext& c) { c.set(0, g(c) / (c.result(0) * scalar(2.0))); }
void rsqrt(VjpContext& c) {
  const Tensor& r = c.result(0);
  c.set(0, g(c) * r * r * r * scalar(-0.5));
}
void reciprocal(VjpContext& c) {
  const Tensor& r = c.result(0);
  c.set(0, -g(c) * r * r);
}
void sin(VjpContext& c) { c.set(0, g(c) * op1(AXLE_OP("cos"), c.input(0))); }
void cos(VjpContext& c) { c.set(0, -g(c) * op1(AXLE_OP("sin"), c.input(0))); }
void tan(VjpContext& c) {
  const Tensor& r = c.result(0);
  c.set(0, g(c) * (r * r + scalar(1.0)));
}
void asin(VjpContext& c) {
  const Tensor& x = c.input(0);
  c.set(0, g(c) * op1(AXLE_OP("rsqrt"), scalar(1.0) - x * x));
}
void acos(VjpContext& c) {
  const Tensor& x = c.input(0);
  c.set(0, -g(c) * op1(AXLE_OP("rsqrt"), scalar(1.0) - x * x));
}
void atan(VjpContext& c) {
  const Tensor& x = c.input(0);
  c.set(0, g(c) / (x * x + scalar(1.0)));
}
void sinh(VjpContext& c) { c.set(0, g(c) * op1(AXLE_OP("cosh"), c.input(0))); }
void cosh(VjpContext& c) { c.set(0, g(c) * op1(AXLE_OP("sinh"), c.input(0))); }
void tanh(VjpContext& c) {
  const Tensor& r = c.result(0);
  c.set(0, g(c) * (scalar(1.0) - r * r));
}
void sigmoid(VjpContext& c) {
  const Tensor& r = c.result(0);
  c.set(0, g(c) * r * (scalar(1.0) - r));
}
void erf(VjpContext& c) {
  const Tensor& x = c.input(0);
  c.set(0, g(c) * axle::exp(-x * x) * scalar(2.0 / std::sqrt(std::numbers::pi)));
}
void erfc(VjpContext& c) {
  const Tensor& x = c.input(0);
  c.set(0, g(c) * axle::exp(-x * x) * scalar(-2.0 / std::sqrt(std::numbers::pi)));
}
void abs(VjpContext& c) { c.set(0, g(c) * sign_of(c.input(0))); }
void zero_self(VjpContext& c) { c.set(0, zeros_for(c, 0)); }
void identity(VjpContext& c) { c.set(0, g(c)); }
void square(VjpContext& c) { c.set(0, g(c) * c.input(0) * scalar(2.0)); }
void relu(VjpContext& c) { c.set(0, call(AXLE_OP("threshold_backward"), g(c), c.result(0), Scalar(0))); }

namespace {
// The share of maximum/minimum's gradient going to self: 1 where self wins,
// 1/2 at ties (torch).
void min_max(VjpContext& c, bool is_max) {
  const Tensor& a = c.input(0);
  const Tensor& b = c.input(1);
  const Tensor wins = is_max ? gt(a, b) : lt(a, b);
  const Tensor share = wins + eq(a, b) * scalar(0.5);
  if (c.needs(0)) c.set(0, g(c) * share);
  if (c.needs(1)) c.set(1, g(c) * (scalar(1.0) - share));
}
}  // namespace
void maximum(VjpContext& c) { min_max(c, true); }
void minimum(VjpContext& c) { min_max(c, false); }

void atan2(VjpContext& c) {
  const Tensor& y = c.input(0);
  const Tensor& x = c.input(1);
  const Tensor r = x * x + y * y;
  if (c.needs(0)) c.set(0, g(c) * x / r);
  if (c.needs(1)) c.set(1, -g(c) * y / r);
}

void remainder(VjpContext& c) {
  if (c.needs(0)) c.set(0, g(c));
  if (c.needs(1)) c.set(1, -g(c) * op1(AXLE_OP("floor"), c.input(0) / c.input(1)));
}

void fmod(VjpContext& c) {
  if (c.needs(0)) c.set(0, g(c));
  if (c.needs(1)) c.set(1, -g(c) * op1(AXLE_OP("trunc"), c.input(0) / c.input(1)));
}

void pow_tensor_scalar(VjpContext& c) {
  const Scalar e = c.arg(1).scalar();
  const double ed = c.arg(1).to_double();
  if (ed == 0.0) return c.set(0, zeros_for(c, 0));
  c.set(0, g(c) * pow(c.input(0), Scalar(ed - 1.0)) * scalar(e));
}

void pow_scalar(VjpContext& c) {
  // d/dt s^t = s^t ln s; s == 0 gives 0 where t >= 0 (torch masks it).
  const double s = c.arg(0).to_double();
  if (s == 0.0) {
    c.set(1, zeros_for(c, 1));
    return;
  }
  c.set(1, g(c) * c.result(0) * scalar(std::log(s)));
}

void pow_tensor_tensor(VjpContext& c) {
  const Tensor& x = c.input(0);
  const Tensor& e = c.input(1);
  if (c.needs(0)) c.set(0, g(c) * e * call(AXLE_OP("pow.Tensor_Tensor"), x, e - scalar(1.0)));
  if (c.needs(1)) {
    // log(x) where x != 0; at x == 0 (and e >= 0) the derivative is 0 (torch).
    const Tensor zero = eq(x, scalar(0.0));
    const Tensor safe_log = axle::where(zero, scalar(0.0), op1(AXLE_OP("log"), x));
    c.set(1, g(c) * c.result(0) * safe_log);
  }
}

}  // namespace axle::derivatives

// ---- special functions (ops/pointwise_special.cpp), torch's formulas.
namespace axle::derivatives {

namespace {
Tensor polygamma_of(int64_t n, const Tensor& x) { return call(AXLE_OP("polygamma"), n, x); }
double epsilon_of(DType d) {
  switch (d) {
    case kFloat16: return 0x1p-10;
    case kBFloat16: return 0x1p-7;
    case kFloat32: return 0x1p-23;
    default: return 0x1p-52;
  }
}
// i1 and i1e at x = 0: the limit 1/2 (x's magnitude at most epsilon counts as 0).
void bessel_i1_like(VjpContext& c, const OpHandle& order0, bool scaled) {
  const Tensor& x = c.input(0);
  const double eps = epsilon_of(c.dtype(0));
  const Tensor not_tiny = gt(axle::abs(x), scalar(eps));
  const Tensor safe = axle::where(not_tiny, x, scalar(eps));
  const Tensor slope = scaled ? sign_of(safe) + axle::reciprocal(safe) : axle::reciprocal(safe);
  const Tensor dx = call(order0, safe) - c.result(0) * slope;
  c.set(0, g(c) * axle::where(not_tiny, dx, scalar(0.5)));
}
// d/dx P(a, x) = x^(a-1) e^-x / Gamma(a); torch has no formula for d/da.
Tensor igamma_dx(VjpContext& c, const char* op) {
  AXLE_CHECK(!c.needs(0), NotImplementedError, "the derivative for '", op,
             "' with respect to self (the shape parameter) is not implemented (as in torch)");
  const Tensor& a = c.input(0);
  const Tensor& x = c.input(1);
  return g(c) * axle::exp((a - scalar(1.0)) * op1(AXLE_OP("log"), x) - x - op1(AXLE_OP("lgamma"), a));
}
}  // namespace

void lgamma(VjpContext& c) { c.set(0, g(c) * op1(AXLE_OP("digamma"), c.input(0))); }
void digamma(VjpContext& c) { c.set(0, g(c) * polygamma_of(1, c.input(0))); }
void polygamma(VjpContext& c) { c.set(1, g(c) * polygamma_of(c.arg(0).to_int() + 1, c.input(1))); }
void erfinv(VjpContext& c) {
  const Tensor& r = c.result(0);
  c.set(0, g(c) * axle::exp(r * r) * scalar(std::sqrt(std::numbers::pi) / 2));
}
void i0(VjpContext& c) { c.set(0, g(c) * op1(AXLE_OP("special_i1"), c.input(0))); }
void special_i1(VjpContext& c) { bessel_i1_like(c, AXLE_OP("i0"), false); }
void special_i0e(VjpContext& c) {
  const Tensor& x = c.input(0);
  c.set(0, g(c) * (op1(AXLE_OP("special_i1e"), x) - sign_of(x) * c.result(0)));
}
void special_i1e(VjpContext& c) { bessel_i1_like(c, AXLE_OP("special_i0e"), true); }
void special_erfcx(VjpContext& c) {
  c.set(0, g(c) * (c.input(0) * c.result(0) * scalar(2.0) - scalar(2.0 / std::sqrt(std::numbers::pi))));
}
void special_ndtri(VjpContext& c) {
  const Tensor& r = c.result(0);
  c.set(0, g(c) * axle::exp(r * r * scalar(0.5)) * scalar(std::sqrt(2 * std::numbers::pi)));
}
void igamma(VjpContext& c) { c.set(1, igamma_dx(c, "igamma")); }
void igammac(VjpContext& c) { c.set(1, -igamma_dx(c, "igammac")); }
// d/dq zeta(x, q) = -x zeta(x + 1, q); torch has no formula for d/dx.
void special_zeta(VjpContext& c) {
  AXLE_CHECK(!c.needs(0), NotImplementedError,
             "the derivative for 'special_zeta' with respect to self is not implemented (as in torch)");
  const Tensor& x = c.input(0);
  c.set(1, -g(c) * x * call(AXLE_OP("special_zeta"), x + scalar(1.0), c.input(1)));
}

}  // namespace axle::derivatives
