"""Errors map to axle.AxleError plus the builtin PyTorch raises; bad calls never crash."""
import pytest

import axle

BAD_CALLS = [
    (lambda: axle.ones(2, 3) + axle.ones(4), axle.ShapeError, RuntimeError),
    (lambda: axle.ones(2).view(3), axle.ShapeError, RuntimeError),
    (lambda: axle.matmul(axle.ones(2, 3), axle.ones(4)), axle.ShapeError, RuntimeError),
    (lambda: axle.mean(axle.tensor([1, 2])), axle.DTypeError, RuntimeError),
    (lambda: -axle.tensor([True]), axle.DTypeError, RuntimeError),
    (lambda: axle.ones(2, device="nowhere"), axle.DeviceError, RuntimeError),
    (lambda: axle.ones(2, device="cpu:5"), axle.DeviceError, RuntimeError),
    (lambda: axle.ones(2, 3).transpose(0, 5), axle.IndexError, IndexError),
    (lambda: axle.sum(axle.ones(2), 3), axle.IndexError, IndexError),
    (lambda: axle.arange(0, 5, 0), axle.ValueError, ValueError),
    (lambda: axle.ones(2, 2).item(), axle.ValueError, ValueError),
    (lambda: axle.add(axle.ones(2), "x"), axle.TypeError, TypeError),
    (lambda: axle.add(axle.ones(2)), axle.TypeError, TypeError),
    (lambda: axle.add(axle.ones(2), axle.ones(2), beta=3), axle.TypeError, TypeError),
    (lambda: axle.tensor([[1, 2], [3]]), axle.ValueError, ValueError),
    (lambda: axle.tensor(["a"]), axle.TypeError, TypeError),
    (lambda: axle.load_plugin("/nonexistent.so"), axle.PluginError, RuntimeError),
    (lambda: axle.explain("no_such_op"), axle.NotImplementedError, NotImplementedError),
    (lambda: axle.ones(-1), axle.ValueError, ValueError),
    (lambda: axle.ones(1 << 40, 1 << 40), axle.ValueError, ValueError),
]


@pytest.mark.parametrize("call,axle_error,builtin", BAD_CALLS)
def test_error_mapping(call, axle_error, builtin):
    with pytest.raises(axle_error) as info:
        call()
    assert isinstance(info.value, axle.AxleError)
    assert isinstance(info.value, builtin)
    assert str(info.value)


def test_every_error_kind_maps_both_ways():
    """The C++ list of error kinds (axle/error_kinds.h): each C++ class becomes its
    Python class (derived from AxleError and its builtin), each plugin status its class."""
    import builtins
    kinds = axle._C._error_kinds()
    assert [k["name"] for k in kinds][-1] == "Error"  # the base class last
    for kind in kinds:
        cls = getattr(axle, kind["python_name"])
        assert cls.__doc__ == kind["doc"]
        assert issubclass(cls, getattr(builtins, kind["python_base"]))
        assert issubclass(cls, axle.AxleError)
        with pytest.raises(cls) as info:
            axle._C._raise_error(kind["name"], "message")
        assert type(info.value) is cls and str(info.value) == "message"
        if kind["status"] != 0:
            with pytest.raises(cls) as info:
                axle._C._raise_status(kind["status"], "from a plugin")
            assert type(info.value) is cls
    names = {k["python_name"] for k in kinds} | {"TypeError"}
    assert set(axle._errors.__all__) == names
    assert issubclass(axle.InternalError, RuntimeError) and issubclass(axle.InternalError, axle.AxleError)
    assert not issubclass(axle.InternalError, ValueError)
    with pytest.raises(axle.ValueError):
        axle._C._raise_error("NoSuchError", "x")


VALUES = [None, 0, -1, 7, 1 << 62, 2.5, float("nan"), True, "cpu", "x", (), (2, 3), [1, -1], (-5,),
          axle.float32, axle.ones(2), axle.ones(2, 3), axle.tensor(1), axle.tensor([True]), object(), [[1]]]


def test_every_op_with_bad_arguments_raises_only_axle_errors():
    """Schema-driven: every generated op, called with many wrong argument
    combinations, returns or raises an AxleError; it never crashes."""
    count = 0
    for name in sorted(axle._op_groups):
        fn = getattr(axle, name, None) or axle._nn_functional[name]  # kNNOnly ops: axle.nn.functional only
        for first in VALUES:
            for second in VALUES[::3]:
                for args in ((first,), (first, second), (axle.ones(2, 3), first, second)):
                    try:
                        fn(*args)
                    except axle.AxleError:
                        pass
                    count += 1
    assert count > 20 * len(axle._op_groups)
