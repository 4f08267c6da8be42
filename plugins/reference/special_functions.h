// Special functions in double precision for the reference kernels
// (pointwise_special.cpp): digamma and polygamma with the Hurwitz zeta function
// (also torch.special.zeta), erfinv / erfcinv / ndtri (Halley iterations on erf,
// erfc and erfcx), the modified Bessel functions I0 and I1 (and their
// exp-scaled forms), erfcx and the regularized incomplete gamma functions P and Q. Edge values
// (poles, infinities, NaN, out-of-domain arguments) follow PyTorch 1.13.
#pragma once

#include <array>
#include <cmath>
#include <limits>

namespace axle::reference::special {

constexpr double kPi = 3.141592653589793238462643383279502884;
constexpr double kSqrtPi = 1.772453850905516027298167483341145182;
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kEps = std::numeric_limits<double>::epsilon();

// ---------------------------------------------------------------- digamma, polygamma

// psi(x): the recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10, then the
// asymptotic series ln x - 1/(2x) - sum B_2k / (2k x^2k). Negative x by the
// reflection psi(x) = psi(1 - x) - pi / tan(pi x) (with x's fractional part, for
// accuracy); psi(+-0) = -+inf, NaN at the negative integers and -inf.
inline double digamma(double x) {
  if (x == 0) return std::copysign(kInf, -x);
  if (x != x) return x;
  if (x < 0) {
    if (x == std::trunc(x)) return kNaN;
    return digamma(1 - x) - kPi / std::tan(kPi * (x - std::trunc(x)));
  }
  double acc = 0;
  while (x < 10) {
    acc -= 1 / x;
    x += 1;
  }
  const double z = 1 / (x * x);
  const double tail =
      z *
      (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
  return acc + std::log(x) - 0.5 / x - tail;
}

// psi'(x): the recurrence psi'(x) = psi'(x + 1) + 1/x^2 up to x >= 10, then
// 1/x + 1/(2x^2) + sum B_2k / x^(2k+1); x < 1/2 by the reflection
// psi'(x) = pi^2 / sin^2(pi x) - psi'(1 - x). As torch 1.13, sin(pi x) is not
// reduced first: +inf at 0, but at the negative integers the rounding of pi x
// gives finite values (6.6e32 at -1), and NaN at -inf.
inline double trigamma(double x) {
  if (x != x || x == -kInf) return kNaN;
  double acc = 0;
  if (x < 0.5) {
    const double s = std::sin(kPi * x);
    acc = kPi * kPi / (s * s);
    return acc - trigamma(1 - x);
  }
  while (x < 10) {
    acc += 1 / (x * x);
    x += 1;
  }
  const double r = 1 / x, z = r * r;
  const double tail =
      z * r *
      (1.0 / 6 - z * (1.0 / 30 - z * (1.0 / 42 - z * (1.0 / 30 - z * (5.0 / 66 - z * (691.0 / 2730 - z * 7.0 / 6))))));
  return acc + r + 0.5 * z + tail;
}

// B_2j / (2j)!, j = 1..12: the Euler-Maclaurin coefficients.
constexpr double kEulerMaclaurin[] = {
    1.0 / 6 / 2,
    -1.0 / 30 / 24,
    1.0 / 42 / 720,
    -1.0 / 30 / 40320,
    5.0 / 66 / 3628800,
    -691.0 / 2730 / 479001600,
    7.0 / 6 / 87178291200.0,
    -3617.0 / 510 / 20922789888000.0,
    43867.0 / 798 / 6402373705728000.0,
    -174611.0 / 330 / 2432902008176640000.0,
    854513.0 / 138 / 1.1240007277776077e21,
    -236364091.0 / 2730 / 6.204484017332394e23,
};

// zeta(s, q) = sum over k >= 0 of (q + k)^-s for q > 0: the first terms summed
// until q + k >= s + 10 (or the rest is below rounding), the rest by the
// Euler-Maclaurin formula.
inline double hurwitz_zeta_positive(double s, double q) {
  double sum = 0, w = q;
  while (w < s + 10) {
    const double term = std::pow(w, -s);
    sum += term;
    w += 1;
    // the rest, sum over j >= w of j^-s, is below term (1 + w / (s - 1))
    if (term * (1 + w / (s - 1)) <= kEps * sum) return sum;
  }
  const double wps = std::pow(w, -s);
  sum += w * wps / (s - 1) + 0.5 * wps;
  double rising = s, wpow = wps / w;  // s (s+1) ... (s+2j-2), w^(-s-2j+1)
  for (int j = 0; j < 12; ++j) {
    const double term = kEulerMaclaurin[j] * rising * wpow;
    sum += term;
    if (std::fabs(term) <= kEps * std::fabs(sum)) break;
    rising *= (s + 2 * j + 1) * (s + 2 * j + 2);
    wpow /= w * w;
  }
  return sum;
}

// The Hurwitz zeta function for s > 1 (an integer s where q < 0): +inf at q = 0
// and the negative integers, NaN at q = +inf (torch's Cephes form). A negative non-integer q has K = -floor(q) negative
// terms q + k (exact), -(f + j) for j < K with f = -(q + K - 1): summed directly
// for K <= 64, else as (-1)^s (zeta(s, f) - zeta(s, f + K)); then zeta(s, q + K).
inline double hurwitz_zeta(double s, double q) {
  if (q != q || s != s || q == kInf) return kNaN;
  if (q <= 0 && q == std::floor(q)) return kInf;
  double result;
  if (q > 0) {
    result = hurwitz_zeta_positive(s, q);
  } else {
    const double k = -std::floor(q);
    double negative = 0;
    if (k <= 64) {
      for (double j = 0; j < k; ++j) negative += std::pow(q + j, -s);
    } else {
      const double f = -(q + (k - 1));
      const double sign = std::fmod(s, 2.0) == 0 ? 1.0 : -1.0;
      negative = sign * (hurwitz_zeta_positive(s, f) - hurwitz_zeta_positive(s, f + k));
    }
    result = negative + hurwitz_zeta_positive(s, q + k);
  }
  if (result != 0) return result;
  // Every term underflowed: torch's Cephes form returns 0, or NaN where the
  // product s (s + 1) ... (s + 22) of its Euler-Maclaurin terms overflows.
  double product = 1;
  for (int k = 0; k < 23; ++k) product *= s + k;
  return std::isinf(product) ? kNaN : 0.0;
}

// torch.special.zeta(x, q), with Cephes' conventions as torch 1.13: inf at x = 1,
// NaN for x < 1 and for a negative non-integer q with a non-integer x.
inline double zeta(double x, double q) {
  if (x != x || q != q || x < 1) return kNaN;
  if (x == 1) return kInf;
  if (q <= 0 && q != std::floor(q) && x != std::floor(x)) return kNaN;
  return hurwitz_zeta(x, q);
}

// psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 2.
inline double polygamma(int64_t n, double x) {
  if (n == 0) return digamma(x);
  if (n == 1) return trigamma(x);
  const double nd = static_cast<double>(n);
  return (n % 2 ? 1.0 : -1.0) * std::exp(std::lgamma(nd + 1)) * hurwitz_zeta(nd + 1, x);
}

// ---------------------------------------------------------------- erfcx, erfinv, ndtri

// exp(x^2) with x^2's rounding error taken into account (x^2 = h + l exactly).
inline double exp_square(double x) {
  const double h = x * x;
  const double l = std::fma(x, x, -h);
  return std::exp(h) * (1 + l);
}

// erfcx(x) = exp(x^2) erfc(x): directly below 12; above, Laplace's continued
// fraction 1 / (sqrt(pi) (x + (1/2) / (x + 1 / (x + (3/2) / (x + ...))))).
// Negative x: 2 exp(x^2) - erfcx(-x).
inline double erfcx(double x) {
  if (x != x) return x;
  if (x < 0) {
    if (x < -26.7) return kInf;
    return 2 * exp_square(x) - erfcx(-x);
  }
  if (x < 12) return exp_square(x) * std::erfc(x);
  double f = x;
  for (int k = 60; k >= 1; --k) f = x + 0.5 * k / f;
  return 1 / (kSqrtPi * f);
}

// Halley's method for erf(x) = y or erfc(x) = q: with u = f / f', both steps are
// x -= u / (1 + x u) (f'' = -2 x f').
inline double halley_step(double x, double u) { return u / (1 + x * u); }

inline double erfinv_central(double y) {  // |y| <= 1/2
  const double y2 = y * y;
  double x = kSqrtPi / 2 * y * (1 + y2 * (kPi / 12 + y2 * 7 * kPi * kPi / 480));
  for (int i = 0; i < 8; ++i) {
    const double u = (std::erf(x) - y) * (kSqrtPi / 2) * exp_square(x);
    const double step = halley_step(x, u);
    x -= step;
    if (std::fabs(step) <= 1e-17 + 4 * kEps * std::fabs(x)) break;
  }
  return x;
}

// erfc(x) = q for 0 < q < 1/2 (x > 0.47), from x0 with erfc(x0) ~ exp(-x0^2) / (x0 sqrt(pi)).
inline double erfcinv_tail(double q) {
  const double lq = std::log(q);
  const double t = std::sqrt(-lq);
  double x = std::sqrt(std::fmax(-lq - std::log(t * kSqrtPi), 0.2));
  for (int i = 0; i < 12; ++i) {
    // f = erfc(x) - q, f' = -2/sqrt(pi) exp(-x^2): u = -(sqrt(pi)/2) (erfcx(x) - q exp(x^2)).
    const double u = -(kSqrtPi / 2) * (erfcx(x) - std::exp(lq + x * x));
    const double step = halley_step(x, u);
    x -= step;
    if (std::fabs(step) <= 4 * kEps * x) break;
  }
  return x;
}

// The inverse of erf on [-1, 1] (+-inf at +-1, NaN outside): the tails solve
// erfc(x) = 1 - |y|, exact for |y| >= 1/2.
inline double erfinv(double y) {
  if (y != y) return y;
  const double a = std::fabs(y);
  if (a > 1) return kNaN;
  if (a == 1) return std::copysign(kInf, y);
  if (y == 0) return y;
  if (a <= 0.5) return erfinv_central(y);
  return std::copysign(erfcinv_tail(1 - a), y);
}

// The inverse of erfc on [0, 2].
inline double erfcinv(double q) {
  if (q != q || q < 0 || q > 2) return kNaN;
  if (q == 0) return kInf;
  if (q == 2) return -kInf;
  if (q > 1) return -erfcinv(2 - q);
  if (q >= 0.5) return erfinv_central(1 - q);
  return erfcinv_tail(q);
}

// The standard normal quantile: -sqrt(2) erfcinv(2p), accurate for tiny p.
inline double ndtri(double p) { return -std::sqrt(2.0) * erfcinv(2 * p); }

// ---------------------------------------------------------------- Bessel I0, I1

// exp(-|x|) I_nu(x) for |x| > 30 and nu in {0, 1}: Hankel's asymptotic series
// 1/sqrt(2 pi x) sum_k t_k, t_k = t_(k-1) ((2k-1)^2 - 4 nu^2) / (8 k x).
inline double bessel_scaled_asymptotic(int nu, double ax) {
  double term = 1, sum = 1;
  for (int k = 1; k < 200; ++k) {
    const double next = term * ((2.0 * k - 1) * (2.0 * k - 1) - 4.0 * nu * nu) / (8.0 * k * ax);
    if (std::fabs(next) > std::fabs(term)) break;  // the series starts to diverge
    term = next;
    sum += term;
    if (std::fabs(term) <= kEps * std::fabs(sum)) break;
  }
  return sum / std::sqrt(2 * kPi * ax);
}

// I_nu(|x|) for |x| <= 30 by its power series (positive terms: no cancellation):
// sum_k (x/2)^(2k+nu) / (k! (k+nu)!).
inline double bessel_series(int nu, double ax) {
  const double q = ax * ax / 4;
  double term = nu ? ax / 2 : 1, sum = term;
  for (int k = 1; k < 500; ++k) {
    term *= q / (k * static_cast<double>(k + nu));
    sum += term;
    if (term <= kEps * sum) break;
  }
  return sum;
}

// I0(x), I1(x) and the scaled exp(-|x|) I0(x), exp(-|x|) I1(x) (I1 odd, I0 even).
// As torch 1.13 (e^|x| times a series): I0 and I1 are inf from |x| > log(DBL_MAX)
// on, and NaN at +-inf.
inline double bessel_i(int nu, double x, bool scaled) {
  if (x != x) return x;
  const double ax = std::fabs(x);
  double v;
  if (ax <= 30)
    v = scaled ? bessel_series(nu, ax) * std::exp(-ax) : bessel_series(nu, ax);
  else if (scaled)
    v = bessel_scaled_asymptotic(nu, ax);
  else if (ax == kInf)
    v = kNaN;
  else
    v = bessel_scaled_asymptotic(nu, ax) * std::exp(ax);
  return nu == 1 && x < 0 ? -v : (nu == 1 && x == 0 ? x : v);
}

// ---------------------------------------------------------------- incomplete gamma

// ln(1 + t) - t, accurate for small t.
inline double log1pmx(double t) {
  if (std::fabs(t) > 0.25) return std::log1p(t) - t;
  double tk = t, sum = 0;  // -t^2/2 + t^3/3 - ...
  for (int k = 2; k < 200; ++k) {
    tk *= -t;
    const double term = tk / k;
    sum += term;
    if (std::fabs(term) <= kEps * std::fabs(sum)) break;
  }
  return sum;
}

// x^a e^-x / Gamma(a + 1). Large a: as exp(a (log1p(t) - t)) / (sqrt(2 pi a) e^mu(a))
// with x = a (1 + t) and Stirling's correction mu(a) = lgamma(a + 1) - the Stirling
// approximation, so that no large exponents cancel.
inline double igamma_prefactor(double a, double x) {
  if (a < 20) return std::exp(a * std::log(x) - x - std::lgamma(a + 1));
  const double t = (x - a) / a;
  const double ia = 1 / a, z = ia * ia;
  const double mu = ia * (1.0 / 12 - z * (1.0 / 360 - z * (1.0 / 1260 - z * (1.0 / 1680 - z / 1188))));
  return std::exp(a * log1pmx(t) - mu) / std::sqrt(2 * kPi * a);
}

// P(a, x) by its series x^a e^-x / Gamma(a + 1) * sum_k x^k / ((a+1)...(a+k)).
inline double igamma_series(double a, double x) {
  double term = 1, sum = 1;
  for (int k = 1; k < 10000000; ++k) {
    term *= x / (a + k);
    sum += term;
    if (term <= kEps * sum) break;
  }
  return igamma_prefactor(a, x) * sum;
}

// Q(a, x) by Legendre's continued fraction (modified Lentz), for x >= a + 1:
// Q = a x^a e^-x / Gamma(a + 1) / (x + 1 - a - 1 (1 - a) / (x + 3 - a - 2 (2 - a) / ...)).
inline double igammac_fraction(double a, double x) {
  constexpr double tiny = 1e-300;
  double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
  for (int i = 1; i < 10000000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < tiny) d = tiny;
    c = b + an / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) <= kEps) break;
  }
  return a * igamma_prefactor(a, x) * h;
}

// lgamma(1 + a), accurate as a -> 0: -euler a + sum over k >= 2 of zeta(k) (-a)^k / k.
inline double lgamma1p(double a) {
  if (std::fabs(a) >= 0.2) return std::lgamma(1 + a);
  constexpr double kEuler = 0.57721566490153286060651209008240243;
  // zeta(2) .. zeta(59), computed once (each is a series of its own).
  static const auto zeta = [] {
    std::array<double, 60> z{};
    for (int k = 2; k < 60; ++k) z[static_cast<size_t>(k)] = hurwitz_zeta_positive(k, 1);
    return z;
  }();
  double sum = -kEuler * a, power = -a;  // (-a)^k
  for (int k = 2; k < 60; ++k) {
    power *= -a;
    const double term = zeta[static_cast<size_t>(k)] * power / k;
    sum += term;
    if (std::fabs(term) <= kEps * std::fabs(sum)) break;
  }
  return sum;
}

// Q(a, x) for small a and x, where 1 - P(a, x) would cancel: with
// P = x^a / Gamma(a + 1) (1 + a S), S = sum over k >= 1 of (-x)^k / (k! (a + k)),
// Q = -expm1(a ln x - lgamma(1 + a)) - x^a / Gamma(a + 1) a S.
inline double igammac_small_a(double a, double x) {
  const double lead = a * std::log(x) - lgamma1p(a);
  double term = 1, sum = 0;
  for (int k = 1; k < 200; ++k) {
    term *= -x / k;
    const double t = term / (a + k);
    sum += t;
    if (std::fabs(t) <= kEps * std::fabs(sum)) break;
  }
  return -std::expm1(lead) - std::exp(lead) * a * sum;
}

// The regularized lower incomplete gamma function P(a, x) (torch.igamma) and
// its complement Q(a, x) (torch.igammac), with torch's edge values.
inline double igamma(double a, double x) {
  if (a != a || x != x || x < 0 || a < 0) return kNaN;
  if (a == 0) return x > 0 ? 1.0 : kNaN;
  if (x == 0) return 0.0;
  if (a == kInf) return x == kInf ? kNaN : 0.0;
  if (x == kInf) return 1.0;
  return x < a + 1 ? igamma_series(a, x) : 1 - igammac_fraction(a, x);
}

inline double igammac(double a, double x) {
  if (a != a || x != x || x < 0 || a < 0) return kNaN;
  if (a == 0) return x > 0 ? 0.0 : kNaN;
  if (x == 0) return 1.0;
  if (a == kInf) return x == kInf ? kNaN : 1.0;
  if (x == kInf) return 0.0;
  if (x >= a + 1) return igammac_fraction(a, x);
  return a < 1 && x < 1.5 ? igammac_small_a(a, x) : 1 - igamma_series(a, x);
}

}  // namespace axle::reference::special
