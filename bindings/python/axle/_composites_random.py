"""torch 1.13's random draws that axle has no kernel for, written in Python over its uniform
stream (``axle.rand`` with an ``axle.Generator``): poisson (multiplication of uniforms for
rates under 10, Hoermann's transformed rejection PTRS above), binomial (geometric waiting
times when count * min(p, 1 - p) < 10, Hoermann's BTRS above), and the default generator's
state as a uint8 tensor (get_rng_state / set_rng_state).

``install(axle)`` attaches each name where it is free: a declared op always wins.
Tested by their distributions (fixed seeds, loose bounds) in tests/python/test_composites_more.py.

Where axle differs from torch 1.13: the state tensor is axle's generator state, (seed, offset)
of its Philox stream as 16 bytes, not torch's 5056-byte Mersenne Twister state; a NaN or
infinite rate, a probability outside [0, 1] and a negative or fractional count are refused
(torch returns arbitrary numbers for them). The draws differ from torch's (other streams).
"""
import math as _math
import struct as _struct

from . import _C

_HALF_LOG_2PI = 0.5 * _math.log(2 * _math.pi)
# lgamma(k + 1) - ((k + 0.5) log(k + 1) - (k + 1) + log(2 pi) / 2) for k < 10: Stirling's remainder.
_TAIL = [_math.lgamma(k + 1) - ((k + 0.5) * _math.log(k + 1) - (k + 1) + _HALF_LOG_2PI) for k in range(10)]


def install(axle):
    """Attaches the functions to the axle module where the name is free."""
    installed = {}

    def uniform(n, generator, device):
        return axle.rand(n, generator=generator, dtype=axle.float64, device=device)

    def stirling_tail(k):
        """lgamma(k + 1) minus Stirling's approximation, for float64 tensors of integers k >= 0."""
        table = axle.tensor(_TAIL, dtype=axle.float64, device=k.device)
        small = table[k.clamp(0, 9).to(axle.int64)]
        n2 = (k + 1) * (k + 1)
        large = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / n2) / n2) / (k + 1)
        return axle.where(k < 10, small, large)

    def log_factorial(k):
        return (k + 0.5) * axle.log(k + 1) - (k + 1) + _HALF_LOG_2PI + stirling_tail(k)

    class NoGradient(axle.autograd.Function):
        """The draws as a function of their parameters: poisson's gradient is zero (as torch's);
        binomial has none (torch raises at backward too)."""

        @staticmethod
        def forward(ctx, name, sample, *params):
            ctx.name, ctx.shapes = name, [tuple(p.shape) for p in params]
            return sample

        @staticmethod
        def backward(ctx, grad):
            if ctx.name == "binomial":
                raise axle.AutogradError("the derivative for binomial is not implemented")
            return (None, None) + tuple(axle.zeros(s, dtype=grad.dtype, device=grad.device) for s in ctx.shapes)

    def with_history(name, sample, params):
        if axle.is_grad_enabled() and any(p.requires_grad for p in params):
            return NoGradient.apply(name, sample, *params)
        return sample

    # ================================================================ poisson
    def poisson_draws(lam, generator):
        """Poisson draws for a flat float64 tensor of finite rates >= 0."""
        n, dev = lam.shape[0], lam.device
        out = axle.zeros_like(lam)
        small = lam < 10
        if bool(small.any()):  # count the uniforms whose running product stays above exp(-rate)
            limit = axle.exp(-axle.where(small, lam, axle.zeros_like(lam)))
            prod, k = axle.ones_like(lam), axle.zeros_like(lam)
            active = small & (lam > 0)
            while bool(active.any()):
                prod = axle.where(active, prod * uniform(n, generator, dev), prod)
                active = active & (prod > limit)
                k = k + active.to(axle.float64)
            out = axle.where(small, k, out)
        active = ~small
        if bool(active.any()):  # PTRS: transformed rejection with squeeze
            rate = axle.where(active, lam, axle.full_like(lam, 10.0))
            slam, loglam = axle.sqrt(rate), axle.log(rate)
            b = 0.931 + 2.53 * slam
            a = -0.059 + 0.02483 * b
            inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
            vr = 0.9277 - 3.6224 / (b - 2)
            while bool(active.any()):
                u = uniform(n, generator, dev) - 0.5
                v = uniform(n, generator, dev)
                us = 0.5 - u.abs()
                k = axle.floor((2 * a / us + b) * u + rate + 0.43)
                quick = (us >= 0.07) & (v <= vr)
                rejected = (k < 0) | ((us < 0.013) & (v > us))
                kk = k.clamp(min=0)
                bound = -rate + kk * loglam - log_factorial(kk)
                slow = ~rejected & (axle.log(v) + axle.log(inv_alpha) - axle.log(a / (us * us) + b) <= bound)
                accepted = active & (quick | slow)
                out = axle.where(accepted, k, out)
                active = active & ~accepted
        return out

    def poisson(input, generator=None):
        """A tensor of Poisson draws, one per element of input (the rates)."""
        if not input.dtype.is_floating_point:
            raise axle.DTypeError("poisson(): the rates must be a floating-point tensor, got %s" % input.dtype)
        lam = input.detach().to(axle.float64).reshape(-1)
        if lam.numel() and not bool(((lam >= 0) & axle.isfinite(lam)).all()):
            raise axle.ValueError("poisson(): invalid Poisson rate, expected rate to be non-negative and finite")
        sample = poisson_draws(lam, generator).to(input.dtype).view(tuple(input.shape))
        return with_history("poisson", sample, (input,))

    # ================================================================ binomial
    def binomial_draws(n, p, generator):
        """Binomial draws for flat float64 tensors of counts (integers >= 0) and probabilities in [0, 1]."""
        size, dev = n.shape[0], n.device
        flip = p > 0.5
        q = axle.where(flip, 1 - p, p)
        x = axle.zeros_like(n)
        small = n * q < 10
        active = small & (q > 0) & (n > 0)
        if bool(active.any()):  # count geometric waiting times until they pass the count
            log_miss = axle.log1p(-axle.where(active, q, axle.full_like(q, 0.5)))
            waited = axle.zeros_like(n)
            while bool(active.any()):
                waited = waited + axle.where(active, axle.ceil(axle.log(uniform(size, generator, dev)) / log_miss),
                                             axle.zeros_like(n))
                active = active & (waited <= n)
                x = x + active.to(axle.float64)
        active = ~small
        if bool(active.any()):  # BTRS: transformed rejection with squeeze
            nn = axle.where(active, n, axle.full_like(n, 40.0))
            qq = axle.where(active, q, axle.full_like(q, 0.5))
            r = qq / (1 - qq)
            spq = axle.sqrt(nn * qq * (1 - qq))
            b = 1.15 + 2.53 * spq
            a = -0.0873 + 0.0248 * b + 0.01 * qq
            c = nn * qq + 0.5
            vr = 0.92 - 4.2 / b
            alpha = (2.83 + 5.1 / b) * spq
            m = axle.floor((nn + 1) * qq)
            fixed = ((m + 0.5) * axle.log((m + 1) / (r * (nn - m + 1))) + stirling_tail(m) + stirling_tail(nn - m))
            while bool(active.any()):
                u = uniform(size, generator, dev) - 0.5
                v = uniform(size, generator, dev)
                us = 0.5 - u.abs()
                k = axle.floor((2 * a / us + b) * u + c)
                inside = (k >= 0) & (k <= nn)
                quick = inside & (us >= 0.07) & (v <= vr)
                kk = axle.where(inside, k, axle.zeros_like(k))
                bound = (fixed + (nn + 1) * axle.log((nn - m + 1) / (nn - kk + 1)) +
                         (kk + 0.5) * axle.log(r * (nn - kk + 1) / (kk + 1)) - stirling_tail(kk) -
                         stirling_tail(nn - kk))
                slow = inside & (axle.log(v * alpha / (a / (us * us) + b)) <= bound)
                accepted = active & (quick | slow)
                x = axle.where(accepted, k, x)
                active = active & ~accepted
        return axle.where(flip, n - x, x)

    def binomial(count, prob, generator=None):
        """Binomial draws: successes in count trials of probability prob (broadcast together)."""
        if count.dtype != prob.dtype:
            raise axle.DTypeError("binomial(): count and prob must have one dtype, got %s and %s"
                                  % (count.dtype, prob.dtype))
        if not count.dtype.is_floating_point:
            raise axle.DTypeError("binomial(): count and prob must be floating-point tensors, got %s" % count.dtype)
        shape = tuple(axle.broadcast_tensors(count, prob)[0].shape)
        n = count.detach().to(axle.float64).expand(shape).reshape(-1)
        p = prob.detach().to(axle.float64).expand(shape).reshape(-1)
        if n.numel():
            if not bool(((p >= 0) & (p <= 1)).all()):
                raise axle.ValueError("binomial(): prob must be in [0, 1] (and not NaN)")
            if not bool(((n >= 0) & axle.isfinite(n) & (n == axle.floor(n))).all()):
                raise axle.ValueError("binomial(): count must hold finite non-negative integers")
        sample = binomial_draws(n, p, generator).to(count.dtype).view(shape)
        return with_history("binomial", sample, (count, prob))

    # ================================================================ generator state
    def get_rng_state():
        """The default CPU generator's state as a uint8 tensor (its seed and offset, 16 bytes)."""
        seed, offset = axle.default_generator.get_state()
        data = _struct.pack("<QQ", seed, offset)
        return axle.tensor(list(data), dtype=axle.uint8)

    def set_rng_state(new_state):
        """Restores the default CPU generator from a get_rng_state() tensor."""
        if not isinstance(new_state, _C.Tensor) or new_state.dtype != axle.uint8:
            raise axle.TypeError("set_rng_state(): expected an axle.ByteTensor (uint8) state, got %s" % (
                axle.typename(new_state) if isinstance(new_state, _C.Tensor) else type(new_state).__name__))
        if new_state.numel() != 16:
            raise axle.ValueError("set_rng_state(): expected a state of 16 bytes (seed and offset), got %d"
                                  % new_state.numel())
        seed, offset = _struct.unpack("<QQ", bytes(new_state.reshape(-1).tolist()))
        axle.default_generator.set_state((seed, offset))

    functions = {"poisson": poisson, "binomial": binomial, "get_rng_state": get_rng_state,
                 "set_rng_state": set_rng_state}
    for name, fn in functions.items():
        if not hasattr(axle, name):
            setattr(axle, name, fn)
            installed[name] = fn
    return installed
