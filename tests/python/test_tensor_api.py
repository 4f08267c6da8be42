"""The everyday Tensor API that spells declared ops (bindings/python/axle/_tensor_methods.py
and return_types.py), compared with torch 1.13: Python operators and their reflected
and in-place forms, dtype casts, transposes, new_* factories, aliases, isclose /
allclose / equal, and named results of multi-output ops."""
import math

import numpy as np
import pytest

import axle

torch = pytest.importorskip("torch")


def both(fn, *arrays, dtypes=None):
    """fn run on axle and torch tensors made from the same arrays."""
    out = []
    for L in (axle, torch):
        ts = [L.tensor(a) for a in arrays]
        out.append(fn(L, *ts))
    return out


def same(a, t):
    if isinstance(t, torch.Tensor):
        assert isinstance(a, axle.Tensor), type(a)
        assert str(a.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], (a.dtype, t.dtype)
        assert tuple(a.shape) == tuple(t.shape)
        values = a.float() if a.dtype == axle.bfloat16 else a  # numpy has no bfloat16
        np.testing.assert_allclose(np.asarray(values, dtype=np.float64), t.double().numpy(), rtol=1e-6, equal_nan=True)
    else:
        assert a == t, (a, t)


F = np.array([[1.5, -2.25, 3.0], [0.5, 4.0, -0.75]], dtype=np.float32)
I = np.array([[7, -3, 4], [2, 9, -8]], dtype=np.int64)
I32 = np.array([5, 6, 12], dtype=np.int32)
B = np.array([True, False, True])


@pytest.mark.parametrize("expr", [
    "a ** 2", "a ** 0.5", "2 ** a", "2.5 ** a", "a ** b", "i ** 2", "2 ** i",
    "a // 2", "a // b", "7 // a", "i // 3", "-7 // i", "7.5 // i", "i // 2.5",
    "a % 2", "a % b", "5 % a", "i % 3", "-7 % i", "i % 2.5", "5.5 % i",
    "i & 6", "i | 6", "i ^ 6", "6 & i", "6 | i", "6 ^ i", "m & n", "m | n", "m ^ n", "True & m", "~m", "~i",
    "abs(a)", "abs(i)", "+a", "+i",
])
def test_operators_match_torch(expr):
    def run(L, a, b, i, j, m, n):
        return eval(expr)
    got, want = both(run, F, np.flip(F, 1).copy() + 5, I, I32, B, ~B)
    same(got, want)


@pytest.mark.parametrize("stmt", ["a **= 2", "a //= 2", "a %= 2", "i //= 3", "i %= 3", "i &= 6", "i |= 6", "i ^= 6",
                                  "m &= n", "m |= n", "m ^= n"])
def test_in_place_operators_match_torch_and_keep_the_tensor(stmt):
    def run(L, a, i, m, n):
        env = {"a": a, "i": i, "m": m, "n": n}
        before = {k: id(v) for k, v in env.items()}
        exec(stmt, {}, env)
        name = stmt.split()[0]
        assert id(env[name]) == before[name]  # the same tensor, written in place
        return env[name]
    got, want = both(run, F, I, B, ~B)
    same(got, want)


def test_in_place_operators_refuse_what_torch_refuses():
    for L in (axle, torch):
        i = L.tensor(I)
        with pytest.raises(RuntimeError):
            i //= 2.5  # a float result into an int64 tensor
        with pytest.raises((RuntimeError, TypeError)):
            +L.tensor(B)  # unary + on bool


@pytest.mark.parametrize("method", ["float", "double", "half", "bfloat16", "long", "int", "short", "char", "byte",
                                    "bool"])
def test_casts_match_torch(method):
    got, want = both(lambda L, a: getattr(a, method)(), F)
    same(got, want)
    got, want = both(lambda L, a, b: a.type_as(b), F, I)
    same(got, want)


def test_transposes_match_torch():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for expr in ("a.T", "a.mT", "a.mH", "a.H", "a.adjoint()", "a.swapaxes(0, 2)", "a.swapdims(1, 2)"):
        arr = F if expr in ("a.T", "a.H") else x
        got, want = both(lambda L, a: eval(expr), arr)
        same(got, want)
    got, want = both(lambda L, a: a.T, x)  # torch 1.13 reverses the dims of other ranks
    same(got, want)
    with pytest.raises(RuntimeError):
        axle.ones(3).mT


def test_new_factories_match_torch():
    for expr in ("a.new_zeros(2, 3)", "a.new_zeros((4,))", "a.new_ones([2, 2], dtype=L.int64)", "a.new_empty(3).shape",
                 "a.new_full((2, 2), 7)", "a.new_tensor([1, 2])", "a.new_tensor([1.5], dtype=L.float64)",
                 "a.new_zeros(2, requires_grad=True).requires_grad", "i.new_ones(3)"):
        got, want = both(lambda L, a, i: eval(expr), F, I)
        if expr.endswith(".shape"):
            assert tuple(got) == tuple(want)
        else:
            same(got, want)


def test_aliases_match_torch():
    for expr in ("a.view_as(b)", "a.reshape_as(b)", "c.broadcast_to((2, 3))", "a.nelement()", "a.ndimension()",
                 "a.clone().zero_()"):
        got, want = both(lambda L, a, b, c: eval(expr), F, F.reshape(3, 2), F[0])
        same(got, want)


@pytest.mark.parametrize("kwargs", [{}, {"rtol": 0.1}, {"atol": 0.5}, {"equal_nan": True}, {"rtol": 0, "atol": 0}])
def test_isclose_allclose_equal_match_torch(kwargs):
    a = np.array([1.0, 2.0, np.nan, np.inf, -np.inf, 1e-9, 3.0], dtype=np.float64)
    b = np.array([1.0 + 1e-6, 2.2, np.nan, np.inf, np.inf, 0.0, 3.4], dtype=np.float64)
    got, want = both(lambda L, x, y: L.isclose(x, y, **kwargs), a, b)
    same(got, want)
    got, want = both(lambda L, x, y: L.allclose(x, y, **kwargs), a[:2], b[:2])
    assert got == want
    got, want = both(lambda L, x, y: x.isclose(y, **kwargs), I, I + 1)
    same(got, want)
    for x, y in ((a, a), (a, b), (I, I), (I, I[:1])):
        got, want = both(lambda L, p, q: L.equal(p, q), x, y)
        assert got == want
    with pytest.raises(RuntimeError):
        axle.isclose(axle.ones(2), axle.ones(2, dtype=axle.float64))


def test_multi_output_ops_return_named_tuples_as_torch():
    x = np.array([[3.0, 1.0, 2.0], [0.5, 9.0, -1.0]], dtype=np.float32)
    for expr in ("L.sort(a)", "a.sort(descending=True)", "L.topk(a, 2)", "a.max(1)", "L.min(a, 0)"):
        got, want = both(lambda L, a: eval(expr), x)
        assert got._fields == ("values", "indices") == want._fields if hasattr(want, "_fields") else True
        same(got.values, want.values)
        same(got.indices, want.indices)
        values, indices = got  # still unpacks as a tuple
        same(values, want[0])
    assert type(axle.sort(axle.tensor(x))).__name__ == "sort"
    assert isinstance(axle.max(axle.tensor(x)), axle.Tensor)  # the overload with one result
    assert axle.return_types.topk(1, 2).values == 1


def test_cuda_and_backends_namespaces():
    cuda = [d for d in axle.devices() if d["type"] == "cuda"]
    count = cuda[0]["count"] if cuda else 0
    assert axle.cuda.device_count() == count and axle.cuda.is_available() == (count > 0)
    if count == 0:
        with pytest.raises(axle.DeviceError):
            axle.cuda.current_device()
    assert axle.backends.mps.is_available() is False
    before = axle.get_float32_matmul_precision()
    try:
        axle.backends.cuda.matmul.allow_tf32 = True
        assert axle.get_float32_matmul_precision() == "high" and axle.backends.cudnn.allow_tf32
        axle.backends.cudnn.allow_tf32 = False
        assert axle.get_float32_matmul_precision() == "highest"
    finally:
        axle.set_float32_matmul_precision(before)
    axle.backends.cudnn.deterministic = True
    assert axle.are_deterministic_algorithms_enabled()
    axle.backends.cudnn.deterministic = False
    with pytest.raises(AttributeError):
        axle.backends.cudnn.no_such_flag = 1


def test_tensor_of_no_values_has_the_default_dtype_as_torch():
    for data in ([], [[]], [[], []]):
        a, t = axle.tensor(data), torch.tensor(data)
        assert a.dtype.name == str(t.dtype).split(".")[-1] and tuple(a.shape) == tuple(t.shape)


def test_accelerator_namespace_follows_cuda():
    assert axle.accelerator.is_available() == axle.cuda.is_available()
    acc = axle.accelerator.current_accelerator()
    assert (acc is None) == (not axle.cuda.is_available())
    if acc is None:
        with pytest.raises(RuntimeError):
            axle.accelerator.current_accelerator(check_available=True)


def test_type_names_and_legacy_casts_as_torch():
    for arr in (F, I, B):
        a, t = axle.tensor(arr), torch.tensor(arr)
        assert a.type() == t.type().replace("torch", "axle")
        assert axle.typename(a) == torch.typename(t).replace("torch", "axle")
        same(a.type(axle.float64), t.type(torch.float64))
        same(a.type("torch.IntTensor"), t.type("torch.IntTensor"))
    assert axle.is_tensor(axle.ones(1)) and not axle.is_tensor([1])
    assert not axle.ones(1).is_complex() and not axle.ones(1).is_sparse
    from axle import onnx
    with pytest.raises(axle.NotImplementedError):
        onnx.export(None, None, "m.onnx")


UNARY = ["absolute", "arccos", "arcsin", "arctan", "negative", "fix", "sgn", "deg2rad", "rad2deg", "logit",
         "abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "exp2", "expm1", "floor",
         "frac", "log", "log10", "log1p", "log2", "neg", "reciprocal", "rsqrt", "sigmoid", "sign", "sin", "sinh",
         "sqrt", "square", "tan", "tanh", "trunc"]
BINARY = ["divide", "true_divide", "multiply", "subtract", "greater", "greater_equal", "less", "less_equal",
          "not_equal", "arctan2", "atan2", "fmod", "remainder", "logical_and", "logical_or", "logical_xor", "ge", "gt",
          "le", "lt", "ne", "eq", "floor_divide"]


@pytest.mark.parametrize("name", UNARY + BINARY)
def test_aliases_and_in_place_forms_match_torch(name):
    rng = np.random.default_rng(8)
    x = rng.uniform(0.1, 0.9, (3, 4))  # inside every op's domain (acos, logit, log...)
    y = rng.uniform(0.2, 2.0, (3, 4))
    args = (x,) if name in UNARY else (x, y)
    got, want = both(lambda L, *ts: getattr(L, name)(*ts), *args)
    same(got, want)
    got, want = both(lambda L, *ts: getattr(ts[0], name)(*ts[1:]), *args)
    same(got, want)
    if hasattr(torch.Tensor, name + "_"):
        def in_place(L, *ts):
            t = ts[0].clone()
            assert getattr(t, name + "_")(*ts[1:]) is t
            return t
        got, want = both(in_place, *args)
        same(got, want)


def test_other_spellings_match_torch():
    x = np.array([[0.2, -1.5, 3.0], [4.0, 0.25, -0.5]])
    for expr in ("L.clamp_min(a, 0.3)", "a.clamp_max(1.0)", "L.clip(a, -1, 1)", "a.clip_(-1, 1)",
                 "L.lerp(a, a * 2, 0.3)", "L.lerp(a, a * 2, 0.7)", "a.lerp(a + 1, L.full_like(a, 0.6))",
                 "L.moveaxis(a.unsqueeze(0), 0, 2)", "L.concat([a, a])", "L.swapaxes(a, 0, 1)", "L.detach(a)",
                 "L.logit(a.sigmoid(), eps=0.1)", "a.tril_()", "a.cumsum_(1)"):
        got, want = both(lambda L, a: eval(expr), x)
        same(got, want)


def test_reshape_of_a_permuted_tensor_copies_as_torch():
    x = np.arange(36.0).reshape(2, 3, 3, 2)
    got, want = both(lambda L, a: a.permute(0, 3, 1, 2).reshape(4, 9), x)
    same(got, want)
    got, want = both(lambda L, a: a.permute(0, 3, 1, 2).contiguous(memory_format=L.channels_last).reshape(-1), x)
    same(got, want)


@pytest.mark.parametrize("name", ["abs_", "sigmoid_", "relu_", "clamp_", "exp_"])
def test_module_level_in_place_functions_as_torch(name):
    x = np.array([[0.5, -1.0], [2.0, -0.25]])
    extra = {"addcmul_": (2,), "clamp_": (-0.5, 0.5)}.get(name, ())

    def run(L, a):
        args = [L.tensor(np.full((2, 2), v)) if isinstance(v, int) else v for v in extra]
        if name == "addcmul_":
            args = [L.tensor(x), L.tensor(x)]
        out = getattr(L, name)(a, *args)
        assert out is a
        return a
    got, want = both(run, x)
    same(got, want)


@pytest.mark.parametrize("expr", [
    "L.max_pool1d(x3, 2)", "L.avg_pool1d(x3, 3, 1)", "L.adaptive_avg_pool1d(x3, 2)",
    "L.adaptive_max_pool1d(x3, 2)[0]", "L.adaptive_max_pool1d(x3, 2)[1]", "L.cosine_similarity(a, b, 1)",
    "L.pairwise_distance(a, b)", "L.pixel_shuffle(x4, 2)", "L.hardshrink(a, 0.3)", "L.channel_shuffle(x4, 2)",
    "L.kl_div(a.log_softmax(1), b.softmax(1), 1)", "L.kl_div(a.log_softmax(1), b.softmax(1), 2, log_target=False)",
    "L.hinge_embedding_loss(a, t, 0.5, 2)", "L.margin_ranking_loss(a, b, t, 0.1, 1)",
    "L.cosine_embedding_loss(a, b, t[:, 0], 0.2, 0)", "L.triplet_margin_loss(a, b, a * 2, 1.0, 2.0, 1e-6, False, 1)",
])
def test_torch_level_nn_functions_as_torch(expr):
    rng = np.random.default_rng(12)
    arrays = {"x3": rng.standard_normal((2, 3, 6)), "x4": rng.standard_normal((1, 8, 2, 2)),
              "a": rng.standard_normal((4, 5)), "b": rng.standard_normal((4, 5)),
              "t": np.where(rng.random((4, 5)) > 0.5, 1.0, -1.0)}
    out = [eval(expr, {"L": L, **{k: L.tensor(v) for k, v in arrays.items()}}) for L in (axle, torch)]
    same(*out)


@pytest.mark.parametrize("stmt", ["a.squeeze_()", "a.squeeze_(1)", "a.unsqueeze_(0)", "b.t_()", "a.transpose_(0, 2)",
                                  "a.swapaxes_(0, 1)", "a.swapdims_(2, 1)"])
def test_in_place_view_ops_as_torch(stmt):
    x, y = np.arange(6.0).reshape(2, 1, 3), np.arange(6.0).reshape(2, 3)

    def run(L, a, b):
        target = a if stmt.startswith("a") else b
        out = eval(stmt)
        assert out is target
        return target.contiguous()
    got, want = both(run, x, y)
    same(got, want)
    with pytest.raises(axle.NotImplementedError):
        axle.ones(2, 1, requires_grad=True).squeeze_()


def test_size_is_torch_size_like():
    import pickle
    for L in (axle, torch):
        x = L.zeros(2, 3, 4)
        s = x.shape
        assert isinstance(s, L.Size) and isinstance(s, tuple) and x.size() == s == (2, 3, 4)
        assert hash(s) == hash((2, 3, 4)) and s.numel() == 24
        assert type(s[1:]) is L.Size and s[1:] == (3, 4) and type(s[0]) is int
        assert type(s + (5,)) is L.Size and type((1,) + s) is tuple and type(s * 2) is L.Size
        assert type(pickle.loads(pickle.dumps(s))) is L.Size
        assert tuple(x.new(x.size()).shape) == (2, 3, 4)
        assert L.Size([]) == () and L.Size() == ()
        with pytest.raises(TypeError, match="item 0 is 'float'"):
            L.Size([2.0])
    assert repr(axle.zeros(2, 3).shape) == "axle.Size([2, 3])" and str(axle.Size([1])) == "axle.Size([1])"
