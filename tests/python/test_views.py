"""The view family against PyTorch 1.13: values, shapes and dtypes; torch raising
means axle raises; the view ops share storage with their input where torch's do,
and torch's call forms (t.view(2, 3), t.repeat(2, 3), t.flip(0, 1), axle.split)."""
import numpy as np
import pytest

import axle

torch = pytest.importorskip("torch")


def pair(shape, dtype="float32", transposed=False):
    a = (np.arange(int(np.prod(shape))) - 3).reshape(shape).astype(dtype)
    x, t = axle.from_numpy(a.copy()), torch.from_numpy(a.copy())
    if transposed:
        x, t = x.transpose(-1, -2), t.transpose(-1, -2)
    return x, t


def same(got, want):
    if isinstance(want, (tuple, list)):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)
        return
    assert tuple(got.shape) == tuple(want.shape)
    assert got.dtype.name == str(want.dtype).replace("torch.", "")
    np.testing.assert_array_equal(np.asarray(got.contiguous()), want.contiguous().numpy())


# (axle call, torch call) on (x, t); each a view in torch.
VIEW_CASES = [
    ("view", lambda m, x: x.view(3, 4)),
    ("view tuple", lambda m, x: x.view((4, -1))),
    ("flatten", lambda m, x: m.flatten(x)),
    ("flatten dims", lambda m, x: m.flatten(x, 0, 1)),
    ("unflatten", lambda m, x: m.unflatten(x, 1, (2, -1))),
    ("permute", lambda m, x: x.permute(1, 0)),
    ("permute fn", lambda m, x: m.permute(x, (1, 0))),
    ("transpose", lambda m, x: m.transpose(x, 0, -1)),
    ("t", lambda m, x: m.t(x)),
    ("squeeze", lambda m, x: m.squeeze(x.unsqueeze(1))),
    ("squeeze dim", lambda m, x: m.squeeze(x.unsqueeze(0), 0)),
    ("unsqueeze", lambda m, x: m.unsqueeze(x, -1)),
    ("expand", lambda m, x: x.unsqueeze(0).expand(2, 3, 4)),
    ("expand_as", lambda m, x: x.expand_as(m.zeros(2, 3, 4))),
    ("narrow", lambda m, x: m.narrow(x, 1, 1, 2)),
    ("narrow negative start", lambda m, x: x.narrow(-1, -2, 2)),
    ("select", lambda m, x: m.select(x, 1, -1)),
    ("movedim", lambda m, x: m.movedim(x, 0, 1)),
    ("movedim lists", lambda m, x: m.movedim(x, (0, 1), (1, 0))),
    ("as_strided", lambda m, x: m.as_strided(x, (2, 2), (1, 2), 1)),
    ("view of a view", lambda m, x: x.t().narrow(0, 1, 2).unsqueeze(0).squeeze(0).select(1, 2)),
]


@pytest.mark.parametrize("name,fn", VIEW_CASES, ids=[c[0] for c in VIEW_CASES])
def test_views_match_torch_and_share_storage(name, fn):
    x, t = pair((3, 4))
    got, want = fn(axle, x), fn(torch, t)
    same(got, want)
    assert want.storage().data_ptr() == t.storage().data_ptr()
    assert x._same_storage(got)
    start = x.data_ptr()
    assert start <= got.data_ptr() < start + x.numel() * x.element_size()


SPLIT_CASES = [
    ("split", lambda m, x: m.split(x, 2, dim=1)),
    ("split sizes", lambda m, x: m.split(x, [1, 3], 1)),
    ("split method", lambda m, x: x.split(2)),
    ("split_with_sizes", lambda m, x: m.split_with_sizes(x, [1, 2], 0)),
    ("chunk", lambda m, x: m.chunk(x, 3, 1)),
    ("chunk method", lambda m, x: x.chunk(2, dim=0)),
    ("unbind", lambda m, x: m.unbind(x)),
    ("unbind dim", lambda m, x: m.unbind(x, -1)),
]


@pytest.mark.parametrize("name,fn", SPLIT_CASES, ids=[c[0] for c in SPLIT_CASES])
def test_split_family_tuples_of_views(name, fn):
    x, t = pair((3, 4), transposed=False)
    got, want = fn(axle, x), fn(torch, t)
    assert isinstance(want, tuple)
    same(got, want)
    assert all(x._same_storage(g) for g in got)


COPY_CASES = [
    ("flip", lambda m, x: m.flip(x, (0, 1))),
    ("flip varargs", lambda m, x: x.flip(0, 1)),
    ("flip one", lambda m, x: x.flip(-1)),
    ("roll flat", lambda m, x: m.roll(x, 5)),
    ("roll dims", lambda m, x: m.roll(x, (1, -1), (0, 1))),
    ("roll method", lambda m, x: x.roll(1, 0)),
    ("repeat", lambda m, x: x.repeat(2, 3)),
    ("repeat tuple", lambda m, x: x.repeat((1, 2, 1))),
    ("tril", lambda m, x: m.tril(x)),
    ("tril diagonal", lambda m, x: m.tril(x, -1)),
    ("triu", lambda m, x: x.triu(1)),
    ("cat", lambda m, x: m.cat([x, x], dim=1)),
    ("cat tuple", lambda m, x: m.cat((x, x[:1]))),
    ("stack", lambda m, x: m.stack([x, x], 1)),
    ("flatten copy", lambda m, x: m.flatten(x)),
]


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("name,fn", COPY_CASES, ids=[c[0] for c in COPY_CASES])
def test_copies_match_torch(name, fn, transposed):
    x, t = pair((3, 4), transposed=transposed)
    same(fn(axle, x), fn(torch, t))


@pytest.mark.parametrize("dtype", ["float16", "int8", "uint8", "int64", "bool", "float64"])
def test_dtypes(dtype):
    x, t = pair((2, 3, 4), dtype)
    for fn in [lambda m, v: m.flip(v, (0, 2)), lambda m, v: m.tril(v, 1), lambda m, v: m.triu(v, -1),
               lambda m, v: m.roll(v, (1, 2), (0, 2)), lambda m, v: v.repeat(1, 2, 1, 2),
               lambda m, v: m.stack([v, v], -1)]:
        same(fn(axle, x), fn(torch, t))


def test_cat_promotes_and_skips_legacy_empty():
    x, t = pair((2, 3), "int32")
    y, u = pair((2, 1), "float64")
    same(axle.cat([x, y], 1), torch.cat([t, u], 1))
    e, f = axle.from_numpy(np.zeros(0, np.float32)), torch.zeros(0)
    same(axle.cat([e, x], 1), torch.cat([f, t], 1))
    same(axle.cat([e, e], 3), torch.cat([f, f], 3))
    b, c = pair((2, 3), "bool")
    same(axle.cat([b, x]), torch.cat([c, t]))


def test_zero_size_and_0d():
    z, zt = pair((0, 3))
    s, st = axle.tensor(2.5), torch.tensor(2.5)
    same(axle.chunk(z, 3), torch.chunk(zt, 3))
    same(axle.split(z, 0), torch.split(zt, 0))
    same(axle.unbind(z), torch.unbind(zt))
    same(axle.flatten(s), torch.flatten(st))
    same(axle.roll(s, 1), torch.roll(st, 1))
    same(s.repeat(2, 3), st.repeat(2, 3))
    same(axle.stack([s, s]), torch.stack([st, st]))
    same(axle.flip(s, 0), torch.flip(st, [0]))
    same(axle.movedim(s, 0, -1), torch.movedim(st, 0, -1))


ERROR_CASES = [
    lambda m, x: x.view(5, -1),
    lambda m, x: x.t().view(-1),
    lambda m, x: m.flatten(x, 1, 0),
    lambda m, x: m.unflatten(x, 1, (3, 3)),
    lambda m, x: m.unflatten(x, 2, (4,)),
    lambda m, x: m.permute(x, (0, 0)),
    lambda m, x: m.transpose(x, 0, 2),
    lambda m, x: m.t(x.unsqueeze(0)),
    lambda m, x: m.squeeze(x, 2),
    lambda m, x: m.unsqueeze(x, 3),
    lambda m, x: x.expand(4, 4),
    lambda m, x: m.narrow(x, 1, 3, 2),
    lambda m, x: m.narrow(x, 1, 5, 0),
    lambda m, x: m.select(x, 0, 3),
    lambda m, x: m.split(x, -1),
    lambda m, x: m.split(x, 0),
    lambda m, x: m.split(x, [1, 1]),
    lambda m, x: m.chunk(x, 0),
    lambda m, x: m.unbind(x, 2),
    lambda m, x: m.movedim(x, (0, 0), (1, 0)),
    lambda m, x: m.movedim(x, (0,), (1, 0)),
    lambda m, x: m.as_strided(x, (4, 4), (4, 1)),
    lambda m, x: m.flip(x, (0, 0)),
    lambda m, x: m.flip(x, 2),
    lambda m, x: m.roll(x, (1, 2)),
    lambda m, x: m.roll(x, 1, 2),
    lambda m, x: x.repeat(2),
    lambda m, x: m.tril(x[0]),
    lambda m, x: m.cat([]),
    lambda m, x: m.cat([x, x[0]]),
    lambda m, x: m.cat([x, x[:, :2]], 0),
    lambda m, x: m.cat([x, x], 2),
    lambda m, x: m.cat([x[0, 0], x[0, 0]]),
    lambda m, x: m.stack([]),
    lambda m, x: m.stack([x, x.t()]),
    lambda m, x: m.stack([x, x], 3),
]


@pytest.mark.parametrize("i", range(len(ERROR_CASES)))
def test_errors_like_torch(i):
    fn = ERROR_CASES[i]
    x, t = pair((3, 4))
    with pytest.raises(Exception):
        fn(torch, t)
    with pytest.raises(axle.AxleError):
        fn(axle, x)


def test_dim_errors_are_index_errors():
    x = axle.zeros(2, 3)
    for fn in [lambda: axle.flip(x, 2), lambda: axle.narrow(x, 2, 0, 1), lambda: axle.cat([x, x], -3),
               lambda: axle.unbind(axle.tensor(1.0)), lambda: axle.tril(axle.zeros(3))]:
        with pytest.raises(axle.IndexError):
            fn()
    with pytest.raises(axle.ShapeError):
        x.view(4, -1)


def test_flatten_copies_only_when_it_must():
    x = axle.zeros(2, 3, 4)
    assert x._same_storage(axle.flatten(x))
    assert not x._same_storage(axle.flatten(x.transpose(0, 2)))
    assert axle.flatten(x, 1, 1) is not None and x._same_storage(axle.flatten(x, 1, 1))


def test_at_most_64_dims_everywhere_a_tensor_is_made():
    # Device loops keep per-dimension state in 64-entry arrays: more dims wrote
    # past them (axle.zeros(*[1] * 70).sum() smashed the stack).
    t = axle.zeros(*[1] * 64)
    assert t.dim() == 64 and t.sum().item() == 0 and (t + 1).sum().item() == 1
    one = axle.ones(1)
    deep = [1.0]
    for _ in range(100000):  # the nested-data converter recursed once per level
        deep = [deep]
    for make in [lambda: axle.zeros(*[1] * 70), lambda: axle.tensor(deep), lambda: axle.empty([1] * 65), lambda: axle.ones([1] * 65),
                 lambda: axle.full([1] * 65, 2.0), lambda: t.unsqueeze(0), lambda: one.view(*[1] * 65),
                 lambda: one.reshape([1] * 65), lambda: one.expand(*[1] * 65),
                 lambda: one.as_strided([1] * 65, [1] * 65), lambda: t[None]]:
        with pytest.raises(axle.ShapeError, match="at most 64 dimensions"):
            make()
