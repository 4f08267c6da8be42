"""Values that used to come out silently wrong, and mistakes that used to raise
untyped errors: each is now torch 1.13's result or an axle typed error (deriving
from the builtin torch raises, worded as torch words it)."""
import numpy as np
import pytest

import axle

OVERLAP = "more than one element of the written-to tensor refers to a single memory location"


def expanded():
    return axle.ones(1, 4).expand(3, 4)


# ---------------------------------------------------------------- Python ints outside int64


@pytest.mark.parametrize("call", [
    lambda: axle.add(axle.ones(2), 2**70),
    lambda: axle.ones(2) + 2**70,
    lambda: axle.add(axle.ones(2, dtype=axle.int64), 2**70),
    lambda: axle.mul(axle.ones(2), -2**70),
    lambda: axle.add(axle.ones(2), axle.ones(2), alpha=2**70),
    lambda: axle.full((2,), 2**70),
    lambda: axle.full((2,), 2**63),
    lambda: axle.full((2,), 2**70, dtype=axle.float32),
    lambda: axle.ones(2).clone().fill_(2**70),
    lambda: axle.ones(2).clamp(max=2**70),
    lambda: axle.ones(2).sum(2**70),
    lambda: axle.tensor(2**70),
    lambda: axle.tensor([1, 2**70]),
], ids=range(13))
def test_int_beyond_int64_overflows(call):
    # torch 1.13: RuntimeError "Overflow when unpacking long" for each (never a bool or a wrapped value).
    with pytest.raises(RuntimeError, match="Overflow when unpacking long") as e:
        call()
    assert isinstance(e.value, axle.DTypeError)


def test_int_beyond_double_as_float_argument_is_overflow_error():
    # torch 1.13: OverflowError "int too large to convert to float" (a float argument, a float in floating data).
    with pytest.raises(OverflowError, match="int too large to convert to float"):
        axle.nn.functional.layer_norm(axle.ones(2), (2,), eps=10**400)
    with pytest.raises(OverflowError, match="int too large to convert to float"):
        axle.tensor([10**400, 1.5])


def test_int_beyond_int64_in_floating_data_is_a_float():
    # torch 1.13: torch.tensor([2**70], dtype=float32) and torch.tensor([1.0, 2**70]) hold 2**70 as a float.
    assert axle.tensor([2**70], dtype=axle.float64).tolist() == [float(2**70)]
    assert axle.tensor([1.0, 2**70], dtype=axle.float64).tolist() == [1.0, float(2**70)]
    assert axle.tensor([1.0, -2**70]).dtype == axle.float32


# ---------------------------------------------------------------- writes into aliasing elements


@pytest.mark.parametrize("call", [
    lambda: expanded().add_(1),
    lambda: expanded().mul_(2),
    lambda: expanded().relu_(),
    lambda: expanded().clamp_(0, 1),
    lambda: expanded().copy_(axle.zeros(3, 4)),
    lambda: axle.add(axle.ones(3, 4), 1, out=expanded()),
    lambda: axle.neg(axle.ones(3, 4), out=expanded()),
], ids=["add_", "mul_", "relu_", "clamp_", "copy_", "add out=", "neg out="])
def test_inplace_write_to_overlapping_elements_is_refused(call):
    with pytest.raises(axle.ShapeError, match=OVERLAP) as info:
        call()
    assert isinstance(info.value, RuntimeError)
    assert "clone() the tensor" in str(info.value)


def test_inplace_allowed_where_torch_allows():
    # A broadcast dim of size 1 or 0 holds no two elements at one address; fill_ and
    # masked_fill_ may write an expanded view (torch 1.13 allows both).
    assert axle.ones(1, 4).expand(1, 4).add_(1).tolist() == [[2.0] * 4]
    assert axle.ones(1, 0).expand(3, 0).add_(1).shape == (3, 0)
    base = axle.ones(1, 4)
    base.expand(3, 4).fill_(5)
    assert base.tolist() == [[5.0] * 4]
    base.expand(3, 4).masked_fill_(axle.ones(3, 4, dtype=axle.bool), 0)  # torch: deprecated, allowed
    assert base.tolist() == [[0.0] * 4]
    # A value left untouched by the refused write.
    base = axle.ones(1, 4)
    with pytest.raises(axle.ShapeError):
        base.expand(3, 4).add_(1)
    assert base.tolist() == [[1.0] * 4]


# ---------------------------------------------------------------- int(), pow, full


def test_int_of_float_tensors_as_python_int_of_float():
    with pytest.raises(ValueError, match="cannot convert float NaN to integer"):
        int(axle.tensor(float("nan")))
    with pytest.raises(OverflowError, match="cannot convert float infinity to integer"):
        int(axle.tensor(float("inf")))
    with pytest.raises(OverflowError, match="cannot convert float infinity to integer"):
        int(axle.tensor(float("-inf")))
    assert int(axle.tensor(1e300, dtype=axle.float64)) == int(1e300)
    assert int(axle.tensor(-2.5)) == -2
    assert int(axle.tensor(7)) == 7 and int(axle.tensor(True)) == 1


@pytest.mark.parametrize("call", [
    lambda: axle.tensor([2, 3]).pow(-1),
    lambda: axle.pow(axle.tensor([2, 3]), -2),
    lambda: axle.tensor([2, 3]).pow_(-1),
    lambda: axle.tensor([2, 3], dtype=axle.uint8).pow(-1),
    lambda: axle.tensor([1, -1]).pow(-2),
], ids=range(5))
def test_integer_to_negative_integer_power_raises(call):
    with pytest.raises(axle.AxleError, match="Integers to negative integer powers are not allowed."):
        call()


def test_integer_pow_tensor_exponents_as_torch():
    # torch 1.13 raises only for a scalar exponent; a tensor of exponents (0-dim too) computes (0 for 2**-1).
    assert axle.tensor([2, 3]).pow(axle.tensor([-1, 2])).tolist() == [0, 9]
    assert axle.tensor([2, 3]).pow(axle.tensor(-1)).tolist() == [0, 0]
    assert axle.tensor([2, 3]).pow(-1.0).tolist() == pytest.approx([0.5, 1 / 3])


@pytest.mark.parametrize("value,dtype", [
    (300, axle.uint8), (-256, axle.uint8), (300, axle.int8), (2**40, axle.int32), (1e10, axle.int32),
    (1e300, axle.float32), (1e5, axle.float16),
])
def test_full_value_must_fit_the_dtype(value, dtype):
    # torch 1.13: RuntimeError "value cannot be converted to type uint8_t without overflow".
    with pytest.raises(RuntimeError, match="without overflow"):
        axle.full((2,), value, dtype=dtype)
    with pytest.raises(RuntimeError, match="without overflow"):
        axle.zeros(2, dtype=dtype).fill_(value)


def test_full_values_torch_accepts():
    assert axle.full((2,), -1, dtype=axle.uint8).tolist() == [255, 255]  # c10 lets negatives wrap into uint8
    assert axle.full((2,), 255, dtype=axle.uint8).tolist() == [255, 255]
    assert axle.full((1,), float("inf"), dtype=axle.float16).tolist() == [float("inf")]
    assert axle.full((1,), 2.5, dtype=axle.int32).tolist() == [2]


# ---------------------------------------------------------------- typed errors


def test_keyword_name_not_utf8_is_a_type_error():
    with pytest.raises(axle.TypeError, match="unexpected keyword"):
        axle.add(axle.ones(2), axle.ones(2), **{"\udcff": 1})


def test_from_numpy_read_only_is_a_value_error():
    a = np.zeros(3)
    a.setflags(write=False)
    with pytest.raises(axle.ValueError, match="not writable"):
        axle.from_numpy(a)
    with pytest.raises(axle.ValueError, match="not writable"):
        axle.from_numpy(b"abcd")
    assert axle.tensor(a).tolist() == [0.0, 0.0, 0.0]  # tensor() copies, as torch.tensor


def test_save_metadata_must_be_strings(tmp_path):
    with pytest.raises(axle.TypeError, match="metadata"):
        axle.save({"a": axle.ones(2)}, tmp_path / "x.safetensors", metadata={"k": 1})


def test_manual_seed_range_as_torch():
    with pytest.raises(RuntimeError, match="Overflow when unpacking long"):
        axle.manual_seed(2**64)
    with pytest.raises(RuntimeError, match="Overflow when unpacking long"):
        axle.Generator().manual_seed(-2**63 - 1)
    # torch 1.13 takes [-2**63, 2**64): negatives as their two's complement.
    assert axle.manual_seed(2**64 - 1).initial_seed() == 2**64 - 1
    assert axle.manual_seed(-1).initial_seed() == 2**64 - 1
    assert axle.Generator().manual_seed(2**63).initial_seed() == 2**63
    axle.manual_seed(0)


def test_promote_types_wants_dtypes():
    with pytest.raises(axle.TypeError, match="argument 'type2' \\(position 2\\) must be axle.dtype, not str"):
        axle.promote_types(axle.float32, "x")
    assert axle.promote_types(axle.int32, axle.float16) == axle.float16


def test_set_default_device_unknown_type():
    before = axle.get_default_device() if hasattr(axle, "get_default_device") else None
    with pytest.raises(axle.DeviceError, match="nosuch"):
        axle.set_default_device("nosuch")
    if before is not None:
        assert axle.get_default_device() == before
    assert axle.ones(1).device.type == "cpu"


def test_error_message_not_utf8_is_kept():
    # JSON text with an invalid UTF-8 byte (bytes reach the C++ string as they are):
    # the ConfigError names it as \xff; it used to have an empty message.
    with pytest.raises(axle.ConfigError) as info:
        axle._C._configure(b'{"log_level": "\xff"}')
    assert "malformed JSON" in str(info.value) and "\\xff" in str(info.value)
    with pytest.raises(axle.ConfigError, match="number overflow"):
        axle._C._configure(b'{"plugins": {"x": {"rank": 1e400}}}')
    with pytest.raises(axle.ConfigError, match="plugins.x.rank"):
        axle._C._configure(b'{"plugins": {"x": {"rank": 4294967297}}}')
    with pytest.raises(axle.ConfigError, match="plugins.x.rank"):
        axle._C._configure(b'{"plugins": {"x": {"rank": 18446744073709551615}}}')


@pytest.mark.parametrize("data,dtype", [
    ([300], axle.uint8), ([-256], axle.uint8), ([-0.5], axle.uint8), ([2**40], axle.int32),
    ([1.5e10], axle.int32), ([float("nan")], axle.int64), ([float("inf")], axle.int16),
])
def test_tensor_data_must_fit_an_integral_dtype(data, dtype):
    # torch 1.13: RuntimeError "value cannot be converted to type uint8 without overflow".
    with pytest.raises(RuntimeError, match="value cannot be converted to type .* without overflow"):
        axle.tensor(data, dtype=dtype)


def test_tensor_data_torch_accepts():
    assert axle.tensor([-1, 255], dtype=axle.uint8).tolist() == [255, 255]
    assert axle.tensor([2.9], dtype=axle.int32).tolist() == [2]
    assert axle.tensor([1e300], dtype=axle.float32).tolist() == [float("inf")]  # floating dtypes: not checked
    assert axle.tensor([2], dtype=axle.bool).tolist() == [True]
