"""Random draws the samplers need: axle's randperm, randint and multinomial on
the given generator. The draws differ from torch's, but a seeded generator
always gives the same result."""
import axle as _axle

_INT64_MAX = 2 ** 63 - 1


def randperm(n, generator=None):
    """A random permutation of range(n) as an int64 axle tensor."""
    return _axle.randperm(int(n), generator=generator)


def randint(high, size, generator=None):
    """Integers uniform in [0, high) as an int64 axle tensor of the given size."""
    return _axle.randint(0, int(high), tuple(size), generator=generator, dtype=_axle.int64)


def random_seed(generator=None):
    """A seed in [0, 2**63 - 1) drawn from the generator (axle's default one when None)."""
    return int(_axle.randint(0, _INT64_MAX, (), generator=generator).item())


def multinomial(weights, num_samples, replacement=False, generator=None):
    """Indices drawn from a 1-d float64 tensor of non-negative weights, as a list of
    ints: axle.multinomial(weights, num_samples, replacement).tolist()."""
    return _axle.multinomial(weights, num_samples, replacement, generator=generator).tolist()
