"""axle.Size: what Tensor.shape and Tensor.size() return, as torch.Size is: a tuple
of ints (equal to and hashing as the plain tuple) whose slices, sums with
tuples and repeats stay Sizes, with numel() and torch's repr."""
import operator

__all__ = ["Size"]


class Size(tuple):
    def __new__(cls, sizes=()):
        items = tuple(sizes)
        for i, s in enumerate(items):
            if not hasattr(s, "__index__"):
                raise TypeError("axle.Size() takes an iterable of 'int' (item %d is '%s')" % (i, type(s).__name__))
        return super().__new__(cls, (operator.index(s) for s in items))

    def __repr__(self):
        return "axle.Size([%s])" % ", ".join(str(s) for s in self)

    __str__ = __repr__

    def __getitem__(self, i):
        r = super().__getitem__(i)
        # A slice of a Size holds its ints already: no second check.
        return tuple.__new__(Size, r) if isinstance(i, slice) else r

    def __add__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(self) + tuple(other))

    def __mul__(self, n):
        return tuple.__new__(Size, tuple(self) * n)

    __rmul__ = __mul__

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __reduce__(self):
        return (Size, (tuple(self),))
