"""The in-place spellings of torch's functions and Tensor methods, and a few
small runtime names, each called by its own name and compared with torch 1.13:
the same values, the same tensor object returned (an in-place call writes and
returns its first argument), the same dtype. Names of the coverage table
(scripts/torch_coverage.py) that no other test calls by name."""
import math

import numpy as np
import pytest

import axle

torch = pytest.importorskip("torch")

# Unary in-place functions and methods: torch.<name>(t) and t.<name>() on
# values inside every op's domain (acosh and log need > 1 / > 0, atanh and
# logit (0, 1), asin / acos [-1, 1]).
UNARY = {
    "acos_": (0.1, 0.9), "acosh_": (1.1, 3.0), "arccos_": (0.1, 0.9), "arccosh_": (1.1, 3.0),
    "arcsin_": (0.1, 0.9), "arcsinh_": (-2.0, 2.0), "arctan_": (-2.0, 2.0), "arctanh_": (0.1, 0.9),
    "asin_": (0.1, 0.9), "asinh_": (-2.0, 2.0), "atan_": (-2.0, 2.0), "atanh_": (0.1, 0.9),
    "ceil_": (-3.0, 3.0), "cos_": (-3.0, 3.0), "cosh_": (-2.0, 2.0), "deg2rad_": (-180.0, 180.0),
    "erf_": (-2.0, 2.0), "erfc_": (-2.0, 2.0), "exp2_": (-3.0, 3.0), "expm1_": (-2.0, 2.0),
    "fix_": (-3.0, 3.0), "floor_": (-3.0, 3.0), "frac_": (-3.0, 3.0), "log10_": (0.1, 9.0),
    "log1p_": (0.1, 9.0), "log2_": (0.1, 9.0), "log_": (0.1, 9.0), "logit_": (0.1, 0.9), "neg_": (-3.0, 3.0),
    "negative_": (-3.0, 3.0), "rad2deg_": (-3.0, 3.0), "reciprocal_": (0.5, 3.0), "rsqrt_": (0.1, 9.0),
    "sin_": (-3.0, 3.0), "sinh_": (-2.0, 2.0), "sqrt_": (0.1, 9.0), "square_": (-3.0, 3.0), "tan_": (-1.0, 1.0),
    "tanh_": (-3.0, 3.0), "trunc_": (-3.0, 3.0), "absolute_": (-3.0, 3.0), "sgn_": (-3.0, 3.0),
    "sign_": (-3.0, 3.0), "arccosh": (1.1, 3.0), "arcsinh": (-2.0, 2.0), "arctanh": (0.1, 0.9),
}
# Functions with their extra arguments (arrays become tensors of both libraries).
WITH_ARGS = {
    "clamp_max_": lambda r: (0.3,), "clamp_min_": lambda r: (-0.3,), "rrelu_": lambda r: (0.1, 0.1),
    "detach_": lambda r: (),
}
# Tensor methods with other tensors or numbers.
METHODS = {
    "arctan2_": lambda r: (r.uniform(0.5, 2, (3, 4)),), "atan2_": lambda r: (r.uniform(0.5, 2, (3, 4)),),
    "divide_": lambda r: (r.uniform(0.5, 2, (3, 4)),), "true_divide_": lambda r: (r.uniform(0.5, 2, (3, 4)),),
    "multiply_": lambda r: (r.uniform(-2, 2, (3, 4)),), "subtract_": lambda r: (r.uniform(-2, 2, (3, 4)),),
    "floor_divide_": lambda r: (r.uniform(0.5, 2, (3, 4)),), "fmod_": lambda r: (r.uniform(0.5, 2, (3, 4)),),
    "remainder_": lambda r: (r.uniform(0.5, 2, (3, 4)),), "heaviside_": lambda r: (r.uniform(-1, 1, (3, 4)),),
    "lerp_": lambda r: (r.uniform(-2, 2, (3, 4)), 0.3), "cumprod_": lambda r: (1,), "triu_": lambda r: (1,),
    "ge_": lambda r: (r.uniform(-2, 2, (3, 4)),), "gt_": lambda r: (r.uniform(-2, 2, (3, 4)),),
    "le_": lambda r: (r.uniform(-2, 2, (3, 4)),), "lt_": lambda r: (r.uniform(-2, 2, (3, 4)),),
    "ne_": lambda r: (r.uniform(-2, 2, (3, 4)).round(),), "greater_": lambda r: (r.uniform(-2, 2, (3, 4)),),
    "greater_equal_": lambda r: (r.uniform(-2, 2, (3, 4)),), "less_": lambda r: (r.uniform(-2, 2, (3, 4)),),
    "less_equal_": lambda r: (r.uniform(-2, 2, (3, 4)),), "not_equal_": lambda r: (r.uniform(-2, 2, (3, 4)).round(),),
    "logical_and_": lambda r: (r.uniform(-1, 1, (3, 4)).round(),), "logical_or_": lambda r: (r.uniform(-1, 1, (3, 4)).round(),),
    "logical_xor_": lambda r: (r.uniform(-1, 1, (3, 4)).round(),),
}
INT_METHODS = {"bitwise_and_": 6, "bitwise_or_": 6, "bitwise_xor_": 6}


def convert(L, v):
    return L.tensor(v) if isinstance(v, np.ndarray) else v


def check(got, want, t_axle, t_torch, got_obj, want_obj):
    assert got_obj is t_axle and want_obj is t_torch  # in place: the argument itself comes back
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64), want.double().numpy(), rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_in_place_functions_and_methods(name):
    lo, hi = UNARY[name]
    x = np.random.default_rng(len(name)).uniform(lo, hi, (3, 4))
    for call in ("function", "method"):
        if call == "function" and not hasattr(torch, name):
            continue
        ta, tt = axle.tensor(x), torch.tensor(x)
        fa = getattr(axle, name) if call == "function" else getattr(ta, name)
        ft = getattr(torch, name) if call == "function" else getattr(tt, name)
        ra, rt = (fa(ta), ft(tt)) if call == "function" else (fa(), ft())
        if name.endswith("_"):
            check(ta, tt, ta, tt, ra, rt)
        else:  # the out-of-place aliases (arccosh...): new tensors
            np.testing.assert_allclose(np.asarray(ra), rt.numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", sorted(WITH_ARGS))
def test_in_place_functions_with_arguments(name):
    rng = np.random.default_rng(3)
    x = rng.uniform(-2, 2, (3, 4))
    args = WITH_ARGS[name](rng)
    ta, tt = axle.tensor(x), torch.tensor(x)
    ra = getattr(axle, name)(ta, *args)
    rt = getattr(torch, name)(tt, *args)
    check(ta, tt, ta, tt, ra, rt)


@pytest.mark.parametrize("name", sorted(METHODS))
def test_in_place_methods_with_operands(name):
    rng = np.random.default_rng(5)
    x = rng.uniform(-2, 2, (3, 4))
    if name.startswith(("logical_", "ne_", "not_equal_")):
        x = x.round()
    if name in ("arctan2_", "atan2_"):
        x = np.abs(x) + 0.1
    args = METHODS[name](rng)
    ta, tt = axle.tensor(x), torch.tensor(x)
    ra = getattr(ta, name)(*(convert(axle, a) for a in args))
    rt = getattr(tt, name)(*(convert(torch, a) for a in args))
    check(ta, tt, ta, tt, ra, rt)


@pytest.mark.parametrize("name", sorted(INT_METHODS))
def test_integer_in_place_methods(name):
    x = np.array([[1, 2, 3], [12, 7, 0]], dtype=np.int64)
    ta, tt = axle.tensor(x), torch.tensor(x)
    ra, rt = getattr(ta, name)(INT_METHODS[name]), getattr(tt, name)(INT_METHODS[name])
    assert ra is ta and rt is tt
    np.testing.assert_array_equal(np.asarray(ta), tt.numpy())


def test_random_fills_in_place():
    # normal_ / uniform_ draw from axle's own generator (values differ from
    # torch's): the same tensor back, its dtype, and the moments torch's give.
    for name, args, mean, std in (("normal_", (2.0, 0.5), 2.0, 0.5), ("uniform_", (-1.0, 3.0), 1.0, 4 / math.sqrt(12))):
        for L in (axle, torch):
            t = L.zeros(200000, dtype=L.float64)
            assert getattr(t, name)(*args) is t
            v = t.numpy()
            assert abs(v.mean() - mean) < 0.01 and abs(v.std() - std) < 0.01, (L.__name__, name, v.mean(), v.std())


def test_runtime_names():
    # promote_types, initial_seed, set_printoptions, is_pinned, retains_grad,
    # record_stream: the answers torch gives.
    for a, b in (("float32", "int64"), ("int32", "float64"), ("bool", "int8"), ("bfloat16", "float16")):
        got = axle.promote_types(getattr(axle, a), getattr(axle, b))
        want = torch.promote_types(getattr(torch, a), getattr(torch, b))
        assert got.name == str(want).split(".")[-1]
    axle.manual_seed(123)
    torch.manual_seed(123)
    assert axle.initial_seed() == torch.initial_seed() == 123
    axle.set_printoptions(precision=2)
    torch.set_printoptions(precision=2)
    try:
        assert str(axle.tensor([1.23456, 2.5])) == str(torch.tensor([1.23456, 2.5]))
    finally:
        axle.set_printoptions(precision=4)
        torch.set_printoptions(precision=4)
    assert axle.ones(2).is_pinned() is torch.ones(2).is_pinned() is False
    for L in (axle, torch):
        x = L.ones(2, requires_grad=True)
        y = x * 2
        assert not y.retains_grad
        y.retain_grad()
        assert y.retains_grad and x.retains_grad is False


def test_functional_names():
    # F.dropout1d / dropout3d at p = 0 and p = 1 (deterministic), F.rrelu_ in
    # evaluation (the mean slope), F.upsample_nearest (deprecated alias).
    F, TF = axle.nn.functional, torch.nn.functional
    x = np.random.default_rng(2).standard_normal((2, 3, 4, 4, 4))
    for name, arr in (("dropout1d", x[:, :, 0, 0, :]), ("dropout3d", x)):
        for p in (0.0, 1.0):
            got = getattr(F, name)(axle.tensor(arr), p=p, training=True)
            want = getattr(TF, name)(torch.tensor(arr), p=p, training=True)
            np.testing.assert_array_equal(np.asarray(got), want.numpy())
    ta, tt = axle.tensor(x[0, 0]), torch.tensor(x[0, 0])
    ra, rt = F.rrelu_(ta, 0.1, 0.3, training=False), TF.rrelu_(tt, 0.1, 0.3, training=False)
    assert ra is ta and rt is tt
    np.testing.assert_allclose(np.asarray(ta), tt.numpy(), rtol=1e-12)
    img = x[:, :, 0]
    got = F.upsample_nearest(axle.tensor(img), scale_factor=2)
    want = TF.upsample_nearest(torch.tensor(img), scale_factor=2)
    np.testing.assert_array_equal(np.asarray(got), want.numpy())


def test_rnn_relu_and_rnn_tanh_follow_torch():
    # torch.rnn_relu / rnn_tanh: the flat-weight Elman layers (input [T, B, I], one layer, biases).
    rng = np.random.default_rng(4)
    x, h0 = rng.standard_normal((5, 2, 3)), rng.standard_normal((1, 2, 4))
    weights = [rng.standard_normal(s) for s in ((4, 3), (4, 4), (4,), (4,))]
    for name in ("rnn_relu", "rnn_tanh"):
        out = []
        for L in (axle, torch):
            o, h = getattr(L, name)(L.tensor(x), L.tensor(h0), [L.tensor(w) for w in weights], True, 1, 0.0, False,
                                    False, False)
            out.append((np.asarray(o), np.asarray(h)))
        np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-10)
        np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-10)
