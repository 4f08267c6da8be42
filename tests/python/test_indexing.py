"""Tensor indexing from Python as torch: basic (views) and advanced (index.Tensor /
index_put_) forms, reading and assigning, and the errors."""
import numpy as np
import pytest

import axle

torch = pytest.importorskip("torch")

BASE = np.arange(24, dtype=np.float32).reshape(2, 3, 4)

READS = [
    lambda m, T: m[1],
    lambda m, T: m[:, 1:, ::2],
    lambda m, T: m[None, ..., 0],
    lambda m, T: m[[0, 1]],
    lambda m, T: m[:, [0, 2]],
    lambda m, T: m[..., [1, 3]],
    lambda m, T: m[0, [0, 2], 1:],
    lambda m, T: m[m > 10],
    lambda m, T: m[:, [0, 2], [1, 3]],
    lambda m, T: m[[0, 1], :, [1, 3]],
    lambda m, T: m[True],
    lambda m, T: m[False],
    lambda m, T: m[None, [1], 0],
    lambda m, T: m[T([1, 0])],
    lambda m, T: m[T([[0, 1], [1, 1]]), 2],
    lambda m, T: m[T([True, False])],
    lambda m, T: m[[-1, -2]],
]


def pair():
    return axle.from_numpy(BASE.copy()), torch.from_numpy(BASE.copy())


def same(g, w):
    assert tuple(g.shape) == tuple(w.shape)
    np.testing.assert_array_equal(np.asarray(g), w.numpy())


@pytest.mark.parametrize("k", range(len(READS)))
def test_read_matches_torch(k):
    x, t = pair()
    same(READS[k](x, axle.tensor), READS[k](t, torch.tensor))


def test_basic_indexing_is_a_view_and_advanced_a_copy():
    x, _ = pair()
    assert x[1, :, ::2]._same_storage(x)
    assert not x[[0, 1]]._same_storage(x)


WRITES = [
    (lambda m, T: m.__setitem__(m > 20, 0)),
    (lambda m, T: m.__setitem__((slice(None), [0, 2]), 1.5)),
    (lambda m, T: m.__setitem__(([1], 1, [0]), 7)),
    (lambda m, T: m.__setitem__((T([0, 1]), T([2, 0])), T([[9.0, 8, 7, 6]] * 2))),
    (lambda m, T: m.__setitem__(([0, 0],), T(1.0))),
]


@pytest.mark.parametrize("k", range(len(WRITES)))
def test_assignment_matches_torch(k):
    x, t = pair()
    WRITES[k](x, axle.tensor)
    WRITES[k](t, torch.tensor)
    same(x, t)


def test_bad_indices_raise_typed_errors():
    x, _ = pair()
    with pytest.raises(axle.IndexError, match="out of bounds"):
        x[[5]]
    with pytest.raises(axle.IndexError, match="long, int, byte or bool"):
        x[axle.tensor([0.5])]
    with pytest.raises(axle.IndexError, match="too many indices"):
        x[0, 0, 0, 0]
    with pytest.raises(axle.TypeError):
        x["a"]
    with pytest.raises(axle.IndexError):
        x[axle.tensor([True, False, True])]  # mask shape does not match
