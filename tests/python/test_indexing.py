"""The indexing family against PyTorch 1.13: index_select, gather, scatter, masked_fill, where,
embedding, one_hot (values, shapes and dtypes; where torch raises, axle raises an AxleError),
and Tensor indexing from Python: basic (views) and advanced (index.Tensor / index_put_) forms,
reading and assigning, and the errors. Each family case is written once as f(module, T) with T
turning numpy arrays into that module's tensors."""
import numpy as np
import pytest

import axle
import axle.nn.functional as AF

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

DTYPES = ["float32", "float64", "float16", "int32", "int64", "uint8", "bool"]


def arr(shape, dtype, seed, low=-5, high=5):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype.startswith(("int", "uint")):
        return rng.integers(0 if dtype == "uint8" else low, high, shape).astype(dtype)
    return (rng.random(shape) * (high - low) + low).astype(dtype)


def ids(shape, bound, seed):
    return np.random.default_rng(seed).integers(0, bound, shape).astype("int64")


def T_axle(a):
    return axle.from_numpy(np.array(a, order="C"))


def T_torch(a):
    return torch.from_numpy(np.array(a, order="C"))


def to_numpy(t):
    if isinstance(t, axle.Tensor):
        if t.dtype in (axle.float16, axle.bfloat16):
            return np.asarray(t.to(axle.float64)), t.dtype.name
        return np.asarray(t), t.dtype.name
    name = str(t.dtype).replace("torch.", "")
    if t.dtype in (torch.float16, torch.bfloat16):
        return t.double().numpy(), name
    return t.numpy(), name


def compare(case, rtol=0):
    try:
        want = case(torch, T_torch)
    except (RuntimeError, IndexError, ValueError, AssertionError) as e:
        with pytest.raises(axle.AxleError):
            case(axle, T_axle)
        return str(e)
    got = case(axle, T_axle)
    g, gname = to_numpy(got)
    w, wname = to_numpy(want)
    assert gname == wname
    assert g.shape == w.shape
    if rtol:
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-3)
    else:
        np.testing.assert_array_equal(g, w)
    return None


def index_op(m, x, indices):
    return torch.ops.aten.index.Tensor(x, indices) if m is torch else axle.index(x, indices)


def put_op(m, x, indices, values, accumulate=False):
    # torch's Python Tensor.index_put_ refuses None items: use the aten op, as axle's.
    if m is torch:
        return torch.ops.aten.index_put_(x, list(indices), values, accumulate)
    return x.index_put_(list(indices), values, accumulate)


@pytest.mark.parametrize("dtype", DTYPES)
def test_gather_family_values(dtype):
    x = arr((3, 4), dtype, 1)
    x3 = arr((2, 3, 4), dtype, 2)
    cases = [
        lambda m, T: m.index_select(T(x), 0, T(ids((5,), 3, 3))),
        lambda m, T: m.index_select(T(x3).transpose(1, 2), -1, T(ids((2,), 3, 4).astype("int32"))),
        lambda m, T: m.gather(T(x), 1, T(ids((3, 6), 4, 5))),
        lambda m, T: m.gather(T(x3), 0, T(ids((2, 4, 3), 2, 6)).transpose(1, 2)),
        lambda m, T: m.scatter(T(x), 1, T(ids((3, 2), 4, 7)), T(arr((3, 3), dtype, 8))),
        lambda m, T: m.scatter(T(x), 0, T(ids((2, 4), 3, 9)), 1),
        lambda m, T: m.scatter_add(T(x), 1, T(ids((3, 5), 4, 10)), T(arr((3, 5), dtype, 11))),
        lambda m, T: T(x).clone().scatter_(1, T(ids((2, 2), 4, 12)), T(arr((2, 2), dtype, 13))),
        lambda m, T: T(x).clone().scatter_add_(0, T(ids((4, 4), 3, 14)), T(arr((4, 4), dtype, 15))),
        lambda m, T: m.masked_fill(T(x), T(arr((4,), "bool", 16)), 1),
        lambda m, T: m.masked_fill(T(x[0]), T(arr((3, 4), "bool", 17)), T(arr((), dtype, 18))),
        lambda m, T: T(x).clone().masked_fill_(T(arr((3, 4), "bool", 19)), True),
        lambda m, T: m.where(T(arr((3, 1), "bool", 20)), T(x), T(arr((4,), dtype, 21))),
        lambda m, T: m.where(T(arr((3, 4), "bool", 22)), T(x), T(arr((3, 4), "int32", 23))),
        lambda m, T: m.embedding(T(x), T(ids((2, 5), 3, 24))),
        lambda m, T: (AF if m is axle else TF).embedding(T(ids((4,), 3, 25)), T(x), padding_idx=-1),
        lambda m, T: index_op(m, T(x3), [None, T(ids((2, 2), 3, 26))]),
        lambda m, T: index_op(m, T(x3), [T(ids((3,), 2, 27)), None, T(ids((3,), 4, 28))]),
        lambda m, T: index_op(m, T(x3), [T(arr((2, 3), "bool", 29))]),
        lambda m, T: index_op(m, T(x3), [None, T(ids((3,), 3, 30)) - 3]),
        lambda m, T: T(x).clone().index_put_((T(np.array([2, 0])),), T(arr((4,), dtype, 31))),
        lambda m, T: T(x).clone().index_put_((T(arr((3, 4), "bool", 32)),), T(arr((), dtype, 33))),
        lambda m, T: put_op(m, T(x).clone(), (None, T(np.array([3, -4]))), T(arr((3, 2), dtype, 34))),
    ]
    for i, case in enumerate(cases):
        assert compare(case) is None, "case %d raised in torch" % i


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
def test_accumulate(dtype):
    x = arr((5, 3), dtype, 40)
    compare(lambda m, T: T(x).clone().index_put_((T(ids((8,), 5, 41)),), T(arr((8, 3), dtype, 42)), True), rtol=1e-6)
    compare(lambda m, T: m.scatter_add(T(x), 0, T(ids((6, 3), 5, 43)), T(arr((6, 3), dtype, 44))), rtol=1e-6)


def test_one_hot():
    compare(lambda m, T: (AF if m is axle else TF).one_hot(T(ids((2, 3), 4, 50))))
    compare(lambda m, T: (AF if m is axle else TF).one_hot(T(ids((4,), 4, 51)), 6))
    compare(lambda m, T: (AF if m is axle else TF).one_hot(T(np.zeros((0,), "int64")), 2))
    assert not hasattr(axle, "one_hot")


BAD = [
    ("index_select out of range", lambda m, T: m.index_select(T(np.zeros((3, 4))), 0, T(np.array([3])))),
    ("index_select negative", lambda m, T: m.index_select(T(np.zeros((3, 4))), 0, T(np.array([-1])))),
    ("index_select float index", lambda m, T: m.index_select(T(np.zeros((3, 4))), 0, T(np.array([1.0])))),
    ("gather out of range", lambda m, T: m.gather(T(np.zeros((3, 4))), 1, T(np.array([[4]])))),
    ("gather negative", lambda m, T: m.gather(T(np.zeros((3, 4))), 1, T(np.array([[-1]])))),
    ("gather int32 index", lambda m, T: m.gather(T(np.zeros((3, 4))), 1, T(np.array([[1]], "int32")))),
    ("gather dims", lambda m, T: m.gather(T(np.zeros((3, 4))), 1, T(np.array([1])))),
    ("scatter out of range", lambda m, T: m.scatter(T(np.zeros((3, 4))), 1, T(np.array([[4]])), 1.0)),
    ("scatter src dtype", lambda m, T: m.scatter(T(np.zeros((3, 4), "float32")), 1, T(np.array([[1]])),
                                                 T(np.ones((1, 1))))),
    ("scatter src small", lambda m, T: m.scatter(T(np.zeros((3, 4))), 1, T(np.array([[1, 2]])), T(np.ones((1, 1))))),
    ("scatter overflow", lambda m, T: m.scatter(T(np.zeros((3, 4), "int8")), 1, T(np.array([[1]])), 300)),
    ("masked_fill overflow", lambda m, T: m.masked_fill(T(np.zeros(3, "int8")), T(np.ones(3, bool)), 300)),
    ("masked_fill 1-d value", lambda m, T: m.masked_fill(T(np.zeros(3)), T(np.ones(3, bool)), T(np.ones(1)))),
    ("masked_fill_ broadcast self", lambda m, T: T(np.zeros(4)).masked_fill_(T(np.ones((3, 4), bool)), 1.0)),
    ("where float condition", lambda m, T: m.where(T(np.ones(3)), T(np.ones(3)), T(np.ones(3)))),
    ("embedding out of range", lambda m, T: m.embedding(T(np.zeros((3, 2))), T(np.array([3])))),
    ("embedding 1-d weight", lambda m, T: m.embedding(T(np.zeros(3)), T(np.array([1])))),
    ("F.embedding padding_idx", lambda m, T: (AF if m is axle else TF).embedding(T(np.array([1])),
                                                                                  T(np.zeros((3, 2))), padding_idx=3)),
    ("one_hot negative", lambda m, T: (AF if m is axle else TF).one_hot(T(np.array([-1])), 3)),
    ("one_hot too large", lambda m, T: (AF if m is axle else TF).one_hot(T(np.array([3])), 3)),
    ("one_hot empty", lambda m, T: (AF if m is axle else TF).one_hot(T(np.zeros(0, "int64")))),
    ("one_hot int32", lambda m, T: (AF if m is axle else TF).one_hot(T(np.array([1], "int32")))),
    ("index out of range", lambda m, T: index_op(m, T(np.zeros((3, 4))), [None, T(np.array([4]))])),
    ("index negative out of range", lambda m, T: index_op(m, T(np.zeros((3, 4))), [T(np.array([-4]))])),
    ("index int32", lambda m, T: index_op(m, T(np.zeros((3, 4))), [T(np.array([1], "int32"))])),
    ("index too many", lambda m, T: index_op(m, T(np.zeros(3)), [T(np.array([1])), T(np.array([1]))])),
    ("index mask shape", lambda m, T: index_op(m, T(np.zeros((3, 4))), [T(np.ones(4, bool))])),
    ("index broadcast", lambda m, T: index_op(m, T(np.zeros((3, 4))), [T(np.array([0, 1])), T(np.array([0, 1, 2]))])),
    ("index only None", lambda m, T: index_op(m, T(np.zeros((3, 4))), [None])),
    ("index_put_ dtype", lambda m, T: T(np.zeros(3, "float32")).index_put_((T(np.array([1])),), T(np.ones(1)))),
    ("index_put_ out of range", lambda m, T: T(np.zeros(3)).index_put_((T(np.array([3])),), T(np.ones(())))),
    ("index_put_ values shape", lambda m, T: T(np.zeros((3, 4))).index_put_((T(np.array([1])),), T(np.ones(5)))),
]


@pytest.mark.parametrize("name,case", BAD, ids=[b[0] for b in BAD])
def test_bad_inputs_raise(name, case):
    assert compare(case) is not None, "torch accepted " + name


def test_errors_name_op_index_and_size():
    with pytest.raises(axle.IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        axle.index_select(axle.zeros(3), 0, axle.tensor([5]))
    with pytest.raises(axle.IndexError, match=r"gather\(\): index -1 is out of bounds for dimension 1 with size 4"):
        axle.gather(axle.zeros(3, 4), 1, axle.tensor([[-1]]))
    x = axle.zeros(3)
    with pytest.raises(axle.IndexError):
        x.index_put_([axle.tensor([0, 7])], axle.tensor(1.0))
    assert x.tolist() == [0.0, 0.0, 0.0]  # nothing written before the check


def test_inplace_returns_self_and_index_is_a_copy():
    x = axle.zeros(2, 3)
    r = x.scatter_(1, axle.tensor([[0], [2]]), 1.0)
    assert r.tolist() == x.tolist()
    assert x.tolist() == [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    y = axle.index(x, [axle.tensor([0])])
    y.fill_(5)
    assert x.tolist() == [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]


# ---- Tensor indexing from Python (basic and advanced forms)
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
