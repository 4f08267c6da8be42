"""out= on every op (torch's *.out overloads), generically: the result is written
into out, which is resized when its shape differs; dtype casting as torch."""
import numpy as np
import pytest

import axle

torch = pytest.importorskip("torch")


def test_out_is_written_and_returned():
    a = axle.ones(2, 3)
    out = axle.empty(0)
    assert axle.add(a, a, out=out) is out
    np.testing.assert_array_equal(np.asarray(out), np.full((2, 3), 2.0, np.float32))
    keep = axle.zeros(2, 3, dtype=axle.float64)
    axle.mul(a, 3, out=keep)
    assert keep.dtype == axle.float64
    np.testing.assert_array_equal(np.asarray(keep), np.full((2, 3), 3.0))


def test_out_tuple_for_several_results():
    x = axle.tensor([[1.0, 5.0], [7.0, 2.0]])
    values, indices = axle.empty(0), axle.empty(0, dtype=axle.int64)
    axle.max(x, 1, out=(values, indices))
    tv, ti = torch.empty(0), torch.empty(0, dtype=torch.int64)
    torch.max(torch.tensor([[1.0, 5.0], [7.0, 2.0]]), 1, out=(tv, ti))
    np.testing.assert_array_equal(np.asarray(values), tv.numpy())
    np.testing.assert_array_equal(np.asarray(indices), ti.numpy())


def test_out_errors_like_torch():
    a = axle.ones(2)
    with pytest.raises(axle.DTypeError, match="can't be cast"):
        axle.add(a, a, out=axle.empty(2, dtype=axle.int64))
    with pytest.raises(RuntimeError):
        torch.add(torch.ones(2), torch.ones(2), out=torch.empty(2, dtype=torch.int64))
    with pytest.raises(axle.TypeError):
        axle.add(a, a, out=3)
    with pytest.raises(axle.TypeError):
        axle.max(axle.ones(2, 2), 1, out=axle.empty(0))


def test_out_is_written_in_place_without_a_temporary():
    a, b = axle.rand(64, 32), axle.rand(64, 32)
    out = axle.empty(64, 32)
    ptr = out.data_ptr()
    axle.add(a, b, out=out)
    assert out.data_ptr() == ptr
    np.testing.assert_allclose(np.asarray(out), np.asarray(a) + np.asarray(b), rtol=1e-6)
    m = axle.empty(64, 64)
    axle.matmul(a, b.t(), out=m)
    np.testing.assert_allclose(np.asarray(m), np.asarray(a) @ np.asarray(b).T, rtol=1e-5, atol=1e-5)


def test_out_aliasing_an_input_is_still_right():
    # matmul reads its inputs after writing part of out: axle computes into a
    # temporary when out shares memory with an input.
    x = axle.rand(16, 16)
    want = np.asarray(x) @ np.asarray(x)
    axle.matmul(x, x, out=x)
    np.testing.assert_allclose(np.asarray(x), want, rtol=1e-5, atol=1e-5)
