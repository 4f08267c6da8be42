"""Random draws the samplers need, built on axle's generators.

axle has no randperm or multinomial, so a permutation is the argsort of n
uniform float64 draws (53 random bits each: ties, which would only bias the
order, are vanishingly rare), and multinomial sampling is done on the weights
with numpy from uniform draws of the given generator. The draws differ from
torch's, but a seeded generator always gives the same result."""
import numpy as _np

import axle as _axle

_INT64_MAX = 2 ** 63 - 1


def randperm(n, generator=None):
    """A random permutation of range(n) as an int64 axle tensor."""
    n = int(n)
    if n < 0:
        raise RuntimeError("n must be non-negative, got %d" % n)
    return _axle.rand(n, generator=generator, dtype=_axle.float64).argsort()


def randint(high, size, generator=None):
    """Integers uniform in [0, high) as an int64 axle tensor of the given size."""
    return _axle.randint(0, int(high), tuple(size), generator=generator, dtype=_axle.int64)


def random_seed(generator=None):
    """A seed in [0, 2**63 - 1) drawn from the generator (axle's default one when None)."""
    return int(_axle.randint(0, _INT64_MAX, (), generator=generator).item())


def _uniform(n, generator):
    return _axle.rand(n, generator=generator, dtype=_axle.float64).numpy()


def _check_distribution(p, num_samples, replacement):
    # torch.multinomial's checks, in its order and with its messages.
    if not replacement and num_samples > p.shape[0]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    bad = _np.flatnonzero(~(p >= 0) | _np.isinf(p))
    if bad.size:
        if not p[bad[0]] >= 0:
            raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
        raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity or NaN)")
    if not p.sum() > 0:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


def multinomial(weights, num_samples, replacement=False, generator=None):
    """Indices drawn from a 1-d float64 axle tensor of non-negative weights, as a
    list of ints (torch.multinomial(weights, num_samples, replacement).tolist())."""
    p = _np.array(weights.numpy(), dtype=_np.float64)
    _check_distribution(p, num_samples, replacement)
    p = p / p.max()  # no overflow in the cumulative sum below
    positive = p > 0
    if replacement:
        # Inverse of the cumulative distribution: u in [0, total) falls in the
        # interval of exactly one positive weight.
        cdf = _np.cumsum(p)
        u = _uniform(num_samples, generator) * cdf[-1]
        idx = _np.searchsorted(cdf, u, side="right")
        return _np.minimum(idx, _np.flatnonzero(positive)[-1]).tolist()
    # Without replacement: order by the keys log(u) / w (largest first), which
    # draws the categories one after the other with probability proportional to
    # their weight among those left; zero weights come after, in random order.
    u = 1.0 - _uniform(p.shape[0], generator)  # in (0, 1]
    with _np.errstate(divide="ignore"):
        keys = _np.where(positive, -_np.log(u) / _np.where(positive, p, 1.0), u)
    order = _np.lexsort((keys, ~positive))
    return order[:num_samples].tolist()
