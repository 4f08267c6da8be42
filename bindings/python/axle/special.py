"""axle.special: torch.special's names that axle serves, as aliases of declared
operators (lgamma, digamma, polygamma, mvlgamma, erfinv, i0 and special_i1 with
their exp-scaled forms, special_erfcx, special_ndtri, igamma / igammac,
special_zeta, erf, sigmoid, ...) or short compositions of them (ndtr, log_ndtr,
xlog1py, entr), with torch 1.13's dtype rules and edge values, and out= where
torch.special has it. Compared with torch.special in
tests/python/test_special.py.
"""
import math as _math

import axle as _axle

__all__ = ["digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc",
           "gammaln", "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax", "logit", "logsumexp",
           "modified_bessel_i0", "modified_bessel_i1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
           "sinc", "softmax", "xlog1py", "xlogy", "zeta"]


def _out(name, result, out):
    """result, or result written into out (resized to it; torch's cast rule: no float
    into an integer out) when out is given."""
    if out is None:
        return result
    if not _axle.can_cast(result.dtype, out.dtype):
        raise _axle.DTypeError("%s: result type %s can't be cast to the desired output type %s" %
                               (name, result.dtype.name, out.dtype.name))
    return _axle.clone(result, out=out)


def _floating(input):
    """input as a floating tensor: integer and bool inputs give the default dtype."""
    return input if input.is_floating_point() else input.to(_axle.get_default_dtype())


def gammaln(input, *, out=None):
    """log |Gamma(input)| (torch.special.gammaln)."""
    return _out("gammaln", _axle.lgamma(input), out)


def digamma(input, *, out=None):
    """The logarithmic derivative of Gamma (torch.special.digamma)."""
    return _out("digamma", _axle.digamma(input), out)


psi = digamma


def polygamma(n, input, *, out=None):
    """The n-th derivative of digamma (torch.special.polygamma)."""
    return _out("polygamma", _axle.polygamma(n, input), out)


def multigammaln(input, p, *, out=None):
    """The multivariate log-gamma function of dimension p (torch.special.multigammaln)."""
    return _out("multigammaln", _axle.mvlgamma(input, p), out)


def erf(input, *, out=None):
    return _out("erf", _axle.erf(input), out)


def erfc(input, *, out=None):
    return _out("erfc", _axle.erfc(input), out)


def erfcx(input, *, out=None):
    """exp(input**2) * erfc(input), accurate where erfc underflows (torch.special.erfcx)."""
    return _out("erfcx", _axle.special_erfcx(input), out)


def erfinv(input, *, out=None):
    return _out("erfinv", _axle.erfinv(input), out)


def i0(input, *, out=None):
    """The modified Bessel function of the first kind of order 0."""
    return _out("i0", _axle.i0(input), out)


def i0e(input, *, out=None):
    """exp(-|input|) * i0(input)."""
    return _out("i0e", _axle.special_i0e(input), out)


def i1(input, *, out=None):
    """The modified Bessel function of the first kind of order 1."""
    return _out("i1", _axle.special_i1(input), out)


# torch 1.13's modified_bessel_i0 / _i1 are i0 / i1 computed again (the same values).
modified_bessel_i0 = i0
modified_bessel_i1 = i1


def i1e(input, *, out=None):
    """exp(-|input|) * i1(input)."""
    return _out("i1e", _axle.special_i1e(input), out)


def ndtr(input, *, out=None):
    """The standard normal CDF: erfc(-input / sqrt(2)) / 2 (torch.special.ndtr)."""
    x = _floating(input)
    return _out("ndtr", _axle.erfc(x * -_math.sqrt(0.5)) * 0.5, out)


def ndtri(input, *, out=None):
    """The standard normal quantile, the inverse of ndtr on [0, 1] (torch.special.ndtri)."""
    return _out("ndtri", _axle.special_ndtri(input), out)


def log_ndtr(input, *, out=None):
    """log(ndtr(input)), accurate in both tails (torch's formula): below -1 from
    erfcx, log(erfcx(-t) / 2) - t**2 with t = input / sqrt(2); else log1p(-erfc(t) / 2).
    Each branch sees only its own arguments (no infinite gradients from the other)."""
    x = _floating(input)
    low = x < -1
    t_low = _axle.where(low, x, _axle.full_like(x, -1.0)) * _math.sqrt(0.5)
    t_high = _axle.where(low, _axle.zeros_like(x), x) * _math.sqrt(0.5)
    lower = _axle.log(_axle.special_erfcx(-t_low) * 0.5) - t_low * t_low
    upper = _axle.log1p(_axle.erfc(t_high) * -0.5)
    return _out("log_ndtr", _axle.where(low, lower, upper), out)


def logit(input, eps=None, *, out=None):
    """log(p / (1 - p)), p clamped to [eps, 1 - eps] when eps is given."""
    return _out("logit", _axle.logit(input, eps), out)


def expit(input, *, out=None):
    """The logistic sigmoid."""
    return _out("expit", _axle.sigmoid(input), out)


def xlogy(input, other, *, out=None):
    """input * log(other), 0 where input is 0 (NaN where other is NaN)."""
    return _out("xlogy", _axle.xlogy(input, other), out)


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


def xlog1py(input, other, *, out=None):
    """input * log1p(other), 0 where input is 0 (NaN where other is NaN), as torch."""
    x, y = _operands("xlog1py", input, other)
    log1p_y = _axle.log1p(y)
    # 0 * log1p(y) is 0 also where log1p(y) is infinite or NaN (other <= -1)
    log1p_y = _axle.where((x == 0) & ~_axle.isfinite(log1p_y), _axle.zeros_like(log1p_y), log1p_y)
    return _out("xlog1py", _axle.where(_axle.isnan(y), y, x * log1p_y), out)


def entr(input, *, out=None):
    """-input * log(input) for input > 0, 0 at 0, -inf below 0, NaN for NaN."""
    x = _floating(input)
    positive = x > 0
    safe = _axle.where(positive, x, _axle.ones_like(x))
    value = _axle.where(positive, -safe * _axle.log(safe),
                        _axle.where(x == 0, _axle.zeros_like(x), _axle.full_like(x, float("-inf"))))
    return _out("entr", _axle.where(_axle.isnan(x), x, value), out)


def sinc(input, *, out=None):
    """sin(pi x) / (pi x), 1 at 0."""
    return _out("sinc", _axle.sinc(input), out)


def round(input, *, decimals=0, out=None):  # noqa: A001 - torch.special's name
    """Rounds half to even, to `decimals` decimal places (torch.special.round always
    takes round's decimals overload: integer inputs are refused, as torch's CPU does)."""
    return _out("round", _axle.round(input, decimals=decimals), out)


def log1p(input, *, out=None):
    return _out("log1p", _axle.log1p(input), out)


def expm1(input, *, out=None):
    return _out("expm1", _axle.expm1(input), out)


def exp2(input, *, out=None):
    return _out("exp2", _axle.exp2(input), out)


def logsumexp(input, dim, keepdim=False, *, out=None):
    return _out("logsumexp", _axle.logsumexp(input, dim, keepdim), out)


def softmax(input, dim, *, dtype=None):
    return _axle.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    return _axle.log_softmax(input, dim, dtype=dtype)


def zeta(input, other, *, out=None):
    """The Hurwitz zeta function: the sum over k >= 0 of (other + k) ** -input."""
    return _out("zeta", _axle.special_zeta(input, other), out)


def gammainc(input, other, *, out=None):
    """The regularized lower incomplete gamma function P(input, other)."""
    return _out("gammainc", _axle.igamma(input, other), out)


def gammaincc(input, other, *, out=None):
    """The regularized upper incomplete gamma function Q(input, other)."""
    return _out("gammaincc", _axle.igammac(input, other), out)

