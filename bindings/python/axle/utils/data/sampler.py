"""Samplers, as torch 1.13's torch.utils.data.sampler: they give the indices
(or, BatchSampler, the lists of indices) a DataLoader reads.

Random samplers draw from the generator they are given; without one,
RandomSampler seeds a fresh generator from axle's default generator each pass
(so axle.manual_seed makes it repeatable) and the other samplers use axle's
default generator. The draws are axle's (axle.randperm, axle.multinomial,
axle.randint), not torch's."""
from typing import Generic, TypeVar

import axle as _axle

from ._utils import rng as _rng

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler"]

T_co = TypeVar("T_co", covariant=True)


class Sampler(Generic[T_co]):
    """Base class: subclasses define __iter__ and, when they know it, __len__."""

    def __init__(self, data_source):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """The indices of data_source shuffled; with replacement=True, num_samples
    independent uniform draws. Without replacement num_samples (default
    len(data_source)) may exceed the length: whole permutations follow each other."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError("replacement should be a boolean value, but got "
                            "replacement={}".format(self.replacement))
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer "
                             "value, but got num_samples={}".format(self.num_samples))

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            generator = _axle.Generator()
            generator.manual_seed(_rng.random_seed())
        if self.replacement:
            left = self.num_samples
            while left > 0:  # in blocks, so a huge num_samples costs no memory up front
                block = min(left, 32)
                yield from _rng.randint(n, (block,), generator).tolist()
                left -= block
        else:
            for _ in range(self.num_samples // n):
                yield from _axle.randperm(n, generator=generator).tolist()
            rest = self.num_samples % n
            if rest:
                yield from _axle.randperm(n, generator=generator).tolist()[:rest]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in random order."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in _axle.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """num_samples indices of weights drawn with probabilities proportional to the
    weights (need not sum to 1); without replacement an index comes at most once."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError("num_samples should be a positive integer "
                             "value, but got num_samples={}".format(num_samples))
        if not isinstance(replacement, bool):
            raise ValueError("replacement should be a boolean value, but got "
                             "replacement={}".format(replacement))
        weights = _as_double_tensor(weights)
        if weights.dim() != 1:
            raise ValueError("weights should be a 1d sequence but given "
                             "weights have shape {}".format(tuple(weights.shape)))
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        yield from _axle.multinomial(self.weights, self.num_samples, self.replacement,
                                     generator=self.generator).tolist()

    def __len__(self):
        return self.num_samples


def _as_double_tensor(data):
    if isinstance(data, _axle.Tensor):
        return data.detach().to(_axle.float64)
    return _axle.as_tensor(data, dtype=_axle.float64)


class BatchSampler(Sampler):
    """Lists of batch_size consecutive indices of sampler; the last one shorter,
    or dropped when drop_last is True."""

    def __init__(self, sampler, batch_size, drop_last):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, "
                             "but got batch_size={}".format(batch_size))
        if not isinstance(drop_last, bool):
            raise ValueError("drop_last should be a boolean value, but got "
                             "drop_last={}".format(drop_last))
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
