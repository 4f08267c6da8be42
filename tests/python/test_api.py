"""The torch-like Python API: creation, properties, views vs copies, indexing,
operators, repr, pickling, runtime functions."""
import copy
import pickle

import numpy as np

import pytest

import axle


def test_creation_call_forms_and_defaults():
    assert axle.ones(2, 3).shape == (2, 3)
    assert axle.ones((2, 3)).shape == (2, 3)
    assert axle.zeros([4]).tolist() == [0.0] * 4
    assert axle.ones(2).dtype is axle.float32
    assert axle.full((2,), 7).dtype is axle.int64
    assert axle.full((2,), True).dtype is axle.bool
    assert axle.arange(5).tolist() == [0, 1, 2, 3, 4]
    assert axle.arange(1, 2, 0.5).tolist() == [1.0, 1.5]
    assert axle.empty(3, dtype=axle.float64).dtype is axle.float64
    assert axle.tensor([[1, 2], [3, 4]]).dtype is axle.int64
    assert axle.tensor([1.5, 2]).dtype is axle.float32
    assert axle.tensor([True, False]).dtype is axle.bool
    assert axle.tensor(3.5).shape == ()
    assert axle.tensor([[1, 2]], dtype=axle.float16).tolist() == [[1.0, 2.0]]
    assert axle.__version__ == axle._C.version()
    assert axle.device("cpu") == axle.ones(1).device
    assert repr(axle.device("cuda:1")) == "device(type='cuda', index=1)"


def test_properties():
    t = axle.arange(24).view(2, 3, 4)
    assert t.ndim == 3 and t.dim() == 3
    assert t.numel() == 24
    assert t.stride() == (12, 4, 1) and t.stride(1) == 4
    assert t.size() == (2, 3, 4) and t.size(-1) == 4
    assert t.is_contiguous()
    assert not t.transpose(0, 2).is_contiguous()
    assert axle.tensor(5).item() == 5
    assert isinstance(axle.tensor(2.5).item(), float)
    assert len(t) == 2


def test_views_share_storage_and_copies_do_not():
    t = axle.zeros(3, 4)
    v = t[1]
    v += 1
    assert t.tolist()[1] == [1.0] * 4
    s = t[:, 1:3]
    assert s._same_storage(t)
    assert t.reshape(12)._same_storage(t)
    c = t.t().contiguous()
    assert not c._same_storage(t)
    assert t.clone().tolist() == t.tolist()
    assert not t.clone()._same_storage(t)


def test_indexing_and_assignment():
    t = axle.arange(24).view(2, 3, 4)
    assert t[1, 2, 3].item() == 23
    assert t[-1, -1].tolist() == [20, 21, 22, 23]
    assert t[:, ::2, 1].tolist() == [[1, 9], [13, 21]]
    assert t[None].shape == (1, 2, 3, 4)
    assert t[..., 0].tolist() == [[0, 4, 8], [12, 16, 20]]
    assert t[1:3, ::2, None, ..., 0].shape == (1, 2, 1)
    u = axle.zeros(2, 3)
    u[0] = 5
    u[1, 1:] = axle.tensor([7.0, 8.0])
    assert u.tolist() == [[5.0, 5.0, 5.0], [0.0, 7.0, 8.0]]
    with pytest.raises(IndexError):
        t[2]
    with pytest.raises(IndexError):
        t[0, 0, 0, 0]


def test_arithmetic_operators_and_promotion():
    a = axle.tensor([1.0, 2.0, 3.0])
    assert (a + 1).tolist() == [2.0, 3.0, 4.0]
    assert (1 + a).tolist() == [2.0, 3.0, 4.0]
    assert (10 - a).tolist() == [9.0, 8.0, 7.0]
    assert (a * 2).tolist() == [2.0, 4.0, 6.0]
    assert (6 / a).tolist() == [6.0, 3.0, 2.0]
    assert (-a).tolist() == [-1.0, -2.0, -3.0]
    assert (a @ a).item() == 14.0
    i = axle.tensor([1, 2], dtype=axle.int32)
    assert (i + 1).dtype is axle.int32
    assert (i + 1.5).dtype is axle.float32
    assert (i / 2).dtype is axle.float32
    b = axle.ones(3)
    b *= 3
    b -= 1
    b /= 2
    assert b.tolist() == [1.0, 1.0, 1.0]
    with pytest.raises(axle.DTypeError):
        i += 1.5


def test_ops_from_declarations_and_methods():
    t = axle.tensor([[1.0, -2.0], [3.0, -4.0]])
    assert axle.relu(t).tolist() == [[1.0, 0.0], [3.0, 0.0]]
    assert t.relu().tolist() == [[1.0, 0.0], [3.0, 0.0]]
    assert axle.nn.functional.relu(t).tolist() == [[1.0, 0.0], [3.0, 0.0]]
    assert t.sum().item() == -2.0
    assert t.sum(0).tolist() == [4.0, -6.0]
    assert t.sum(dim=1, keepdim=True).shape == (2, 1)
    assert axle.mean(t, (0, 1)).item() == -0.5
    assert axle.add(t, t, alpha=2).tolist() == [[3.0, -6.0], [9.0, -12.0]]
    assert axle.matmul(t, t).tolist() == [[-5.0, 6.0], [-9.0, 10.0]]
    assert axle.nonzero(axle.tensor([0, 3, 0, 4])).tolist() == [[1], [3]]
    assert "add.Tensor(Tensor self" in axle.add.__doc__
    assert t.to(axle.int32).dtype is axle.int32
    assert t.to("cpu", axle.float64).dtype is axle.float64
    assert t.to(dtype=axle.float16).dtype is axle.float16


def test_repr_like_torch():
    assert repr(axle.tensor([[1.0, 2.0]])) == "tensor([[1., 2.]])"
    assert repr(axle.tensor([1.5, 2.0])) == "tensor([1.5000, 2.0000])"
    assert repr(axle.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(axle.tensor([1, 2], dtype=axle.int32)) == "tensor([1, 2], dtype=axle.int32)"
    assert repr(axle.tensor([True])) == "tensor([True])"
    assert repr(axle.tensor(3.0)) == "tensor(3.)"
    axle.set_printoptions(precision=2)
    try:
        assert repr(axle.tensor([1.25, 2.0])) == "tensor([1.25, 2.00])"
    finally:
        axle.set_printoptions(precision=4)


def test_deepcopy_and_pickle():
    t = axle.arange(6, dtype=axle.float32).view(2, 3)
    d = copy.deepcopy(t)
    assert d.tolist() == t.tolist() and not d._same_storage(t)
    p = pickle.loads(pickle.dumps(t))
    assert p.tolist() == t.tolist() and p.dtype is axle.float32
    assert pickle.loads(pickle.dumps(axle.int16)) is axle.int16


def test_runtime_functions():
    names = [p["name"] for p in axle.plugins()]
    assert "reference" in names
    assert any(d["type"] == "cpu" and d["count"] == 1 for d in axle.devices())
    chain = axle.explain("add.Tensor")["cpu"]
    assert chain[0]["kind"] == "kernel"
    # The highest-ranked plugin first (the oneDNN cpu plugin when built), the reference last.
    assert chain[-1]["plugin"] == "reference" and chain[-1]["kind"] == "kernel"
    assert isinstance(axle.fallback_stats(), dict)
    assert axle.get_default_dtype() is axle.float32
    axle.set_default_dtype(axle.float64)
    try:
        assert axle.ones(1).dtype is axle.float64
        assert axle.tensor([1.5]).dtype is axle.float64
    finally:
        axle.set_default_dtype(axle.float32)
    with pytest.raises(axle.ValueError):
        axle.set_default_dtype(axle.int32)


def test_type_stubs_are_generated_from_the_declarations():
    import ast
    import os

    path = os.path.join(os.path.dirname(axle.__file__), "__init__.pyi")
    tree = ast.parse(open(path).read())
    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    for name in axle._op_groups:
        if name not in axle._FACTORY_OPS:
            assert name in functions, name
    assert {"tensor", "zeros", "ones", "arange", "save", "load"} <= functions


def test_comparison_operators():
    a = axle.tensor([1.0, 2.0, 3.0])
    assert (a == 2).tolist() == [False, True, False]
    assert (a != 2).dtype is axle.bool
    assert (a < 2).tolist() == [True, False, False]
    assert (2 < a).tolist() == [False, False, True]
    assert (a >= axle.tensor([3])).tolist() == [False, False, True]
    assert axle.eq(a, a).tolist() == [True] * 3
    assert a.gt(1).tolist() == [False, True, True]
    assert (a == None) is False  # noqa: E711 - not an operand: identity comparison
    assert bool(axle.tensor([1]) == 1)
    with pytest.raises(axle.ValueError):
        bool(a == a)
    assert len({a, a.clone()}) == 2


def test_tensor_from_numpy_data_copies_and_keeps_dtype():
    a = np.arange(6, dtype=np.float64).reshape(2, 3)[:, ::-1]  # negative strides
    t = axle.tensor(a)
    assert t.dtype is axle.float64 and t.tolist() == a.tolist()
    a[0, 0] = 100
    assert t.tolist()[0][0] == 2.0  # a copy, as torch.tensor
    assert axle.tensor(np.float32(1.5)).dtype is axle.float32
    assert axle.tensor(np.ones(2, dtype=np.int16), dtype=axle.float32).dtype is axle.float32
