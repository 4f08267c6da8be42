"""axle.special: torch.special's names that axle serves, as aliases of declared
operators (lgamma, digamma, polygamma, mvlgamma, erfinv, i0 and special_i1 with
their exp-scaled forms, special_erfcx, special_ndtri, igamma / igammac,
special_zeta, erf, sigmoid, ...) or short compositions of them (ndtr, log_ndtr,
xlog1py, entr), with torch 1.13's dtype rules and edge values. Compared with torch.special in
tests/python/test_special.py.
"""
import builtins as _builtins
import math as _math

import axle as _axle

__all__ = ["digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc",
           "gammaln", "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp",
           "modified_bessel_i0", "modified_bessel_i1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round", "sinc", "softmax", "xlog1py", "xlogy", "zeta"]


def _floating(input):
    """input as a floating tensor: integer and bool inputs give the default dtype."""
    return input if input.is_floating_point() else input.to(_axle.get_default_dtype())


def gammaln(input):
    """log |Gamma(input)| (torch.special.gammaln)."""
    return _axle.lgamma(input)


def digamma(input):
    """The logarithmic derivative of Gamma (torch.special.digamma)."""
    return _axle.digamma(input)


psi = digamma


def polygamma(n, input):
    """The n-th derivative of digamma (torch.special.polygamma)."""
    return _axle.polygamma(n, input)


def multigammaln(input, p):
    """The multivariate log-gamma function of dimension p (torch.special.multigammaln)."""
    return _axle.mvlgamma(input, p)


def erf(input):
    return _axle.erf(input)


def erfc(input):
    return _axle.erfc(input)


def erfcx(input):
    """exp(input**2) * erfc(input), accurate where erfc underflows (torch.special.erfcx)."""
    return _axle.special_erfcx(input)


def erfinv(input):
    return _axle.erfinv(input)


def i0(input):
    """The modified Bessel function of the first kind of order 0."""
    return _axle.i0(input)


def i0e(input):
    """exp(-|input|) * i0(input)."""
    return _axle.special_i0e(input)


def i1(input):
    """The modified Bessel function of the first kind of order 1."""
    return _axle.special_i1(input)


# torch 1.13's modified_bessel_i0 / _i1 are i0 / i1 computed again (the same values).
modified_bessel_i0 = i0
modified_bessel_i1 = i1


def i1e(input):
    """exp(-|input|) * i1(input)."""
    return _axle.special_i1e(input)


def ndtr(input):
    """The standard normal CDF: erfc(-input / sqrt(2)) / 2 (torch.special.ndtr)."""
    x = _floating(input)
    return _axle.erfc(x * -_math.sqrt(0.5)) * 0.5


def ndtri(input):
    """The standard normal quantile, the inverse of ndtr on [0, 1] (torch.special.ndtri)."""
    return _axle.special_ndtri(input)


def log_ndtr(input):
    """log(ndtr(input)), accurate in both tails (torch's formula): below -1 from
    erfcx, log(erfcx(-t) / 2) - t**2 with t = input / sqrt(2); else log1p(-erfc(t) / 2).
    Each branch sees only its own arguments (no infinite gradients from the other)."""
    x = _floating(input)
    low = x < -1
    t_low = _axle.where(low, x, _axle.full_like(x, -1.0)) * _math.sqrt(0.5)
    t_high = _axle.where(low, _axle.zeros_like(x), x) * _math.sqrt(0.5)
    lower = _axle.log(_axle.special_erfcx(-t_low) * 0.5) - t_low * t_low
    upper = _axle.log1p(_axle.erfc(t_high) * -0.5)
    return _axle.where(low, lower, upper)


def logit(input, eps=None):
    """log(p / (1 - p)), p clamped to [eps, 1 - eps] when eps is given."""
    return _axle.logit(input, eps)


def expit(input):
    """The logistic sigmoid."""
    return _axle.sigmoid(input)


def xlogy(input, other):
    """input * log(other), 0 where input is 0 (NaN where other is NaN)."""
    return _axle.xlogy(input, other)


def _operands(name, input, other):
    """(input, other) as floating tensors of torch's promoted dtype, broadcast."""
    if not isinstance(input, _axle.Tensor) and not isinstance(other, _axle.Tensor):
        raise _axle.TypeError("%s(): expected at least one Tensor argument" % name)
    like = input if isinstance(input, _axle.Tensor) else other
    dt = _axle.result_type(input, other)
    dt = dt if dt.is_floating_point else _axle.get_default_dtype()
    x = input.to(dt) if isinstance(input, _axle.Tensor) else _axle.tensor(input, dtype=dt, device=like.device)
    y = other.to(dt) if isinstance(other, _axle.Tensor) else _axle.tensor(other, dtype=dt, device=like.device)
    shape = _axle.broadcast_shapes(tuple(x.shape), tuple(y.shape))
    return x.expand(shape), y.expand(shape)


def xlog1py(input, other):
    """input * log1p(other), 0 where input is 0 (NaN where other is NaN), as torch."""
    x, y = _operands("xlog1py", input, other)
    log1p_y = _axle.log1p(y)
    # 0 * log1p(y) is 0 also where log1p(y) is infinite or NaN (other <= -1)
    log1p_y = _axle.where((x == 0) & ~_axle.isfinite(log1p_y), _axle.zeros_like(log1p_y), log1p_y)
    return _axle.where(_axle.isnan(y), y, x * log1p_y)


def entr(input):
    """-input * log(input) for input > 0, 0 at 0, -inf below 0, NaN for NaN."""
    x = _floating(input)
    positive = x > 0
    safe = _axle.where(positive, x, _axle.ones_like(x))
    out = _axle.where(positive, -safe * _axle.log(safe),
                      _axle.where(x == 0, _axle.zeros_like(x), _axle.full_like(x, float("-inf"))))
    return _axle.where(_axle.isnan(x), x, out)


def sinc(input):
    """sin(pi x) / (pi x), 1 at 0."""
    return _axle.sinc(input)


def round(input, *, decimals=0):  # noqa: A001 - torch.special's name
    """Rounds half to even, to `decimals` decimal places (torch.special.round always
    takes round's decimals overload: integer inputs are refused, as torch's CPU does)."""
    return _axle.round(input, decimals=decimals)


def log1p(input):
    return _axle.log1p(input)


def expm1(input):
    return _axle.expm1(input)


def exp2(input):
    return _axle.exp2(input)


def logsumexp(input, dim, keepdim=False):
    return _axle.logsumexp(input, dim, keepdim)


def softmax(input, dim, *, dtype=None):
    return _axle.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    return _axle.log_softmax(input, dim, dtype=dtype)


def zeta(input, other):
    """The Hurwitz zeta function: the sum over k >= 0 of (other + k) ** -input."""
    return _axle.special_zeta(input, other)


def gammainc(input, other):
    """The regularized lower incomplete gamma function P(input, other)."""
    return _axle.igamma(input, other)


def gammaincc(input, other):
    """The regularized upper incomplete gamma function Q(input, other)."""
    return _axle.igammac(input, other)


del _builtins
