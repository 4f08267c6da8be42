"""Random draws the samplers need on the given generator, beside axle.randperm
and axle.multinomial. The draws differ from torch's, but a seeded generator
always gives the same result."""
import axle as _axle

_INT64_MAX = 2 ** 63 - 1


def randint(high, size, generator=None):
    """Integers uniform in [0, high) as an int64 axle tensor of the given size."""
    return _axle.randint(0, int(high), tuple(size), generator=generator, dtype=_axle.int64)


def random_seed(generator=None):
    """A seed in [0, 2**63 - 1) drawn from the generator (axle's default one when None)."""
    return int(_axle.randint(0, _INT64_MAX, (), generator=generator).item())

