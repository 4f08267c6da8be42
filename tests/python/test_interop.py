"""Zero-copy interop with numpy and lifetimes."""
import ctypes
import gc

import numpy as np
import pytest

import axle


def test_numpy_views_axle_memory_zero_copy():
    t = axle.arange(6, dtype=axle.float32).view(2, 3)
    a = np.asarray(t)
    assert a.ctypes.data == t.data_ptr()
    a[0, 0] = 42
    assert t[0, 0].item() == 42
    tt = t.t()
    b = tt.numpy()
    assert b.strides == (4, 12)
    assert b.ctypes.data == tt.data_ptr()


def test_numpy_keeps_the_tensor_alive():
    t = axle.arange(1000, dtype=axle.float64)
    a = np.asarray(t)
    del t
    gc.collect()
    assert a[999] == 999.0
    assert a.sum() == sum(range(1000))


def test_from_numpy_shares_memory_and_keeps_the_array_alive():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    t = axle.from_numpy(a)
    assert t.dtype is axle.int32
    assert t.data_ptr() == a.ctypes.data
    a[1, 1] = -5
    assert t[1, 1].item() == -5
    del a
    gc.collect()
    assert t.sum().item() == sum(range(12)) - 5 - 5
    s = axle.from_numpy(np.arange(10.0)[::2])
    assert s.stride() == (2,)
    assert s.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]


@pytest.mark.parametrize("np_dtype,axle_dtype", [
    (np.float32, axle.float32), (np.float64, axle.float64), (np.float16, axle.float16), (np.int8, axle.int8),
    (np.uint8, axle.uint8), (np.int16, axle.int16), (np.int32, axle.int32), (np.int64, axle.int64),
    (np.bool_, axle.bool)])
def test_dtypes_round_trip_through_numpy(np_dtype, axle_dtype):
    a = (np.arange(6) % 2 == 1) if np_dtype is np.bool_ else np.arange(6).astype(np_dtype)
    t = axle.from_numpy(a)
    assert t.dtype is axle_dtype
    assert np.array_equal(np.asarray(t), a)


def test_interop_errors():
    with pytest.raises(axle.ValueError):
        axle.from_numpy(np.arange(5)[::-1])
    with pytest.raises(axle.DTypeError):
        np.asarray(axle.ones(2, dtype=axle.bfloat16))


def test_dlpack_with_numpy_both_ways():
    t = axle.arange(6, dtype=axle.float32).view(2, 3)
    a = np.from_dlpack(t)
    assert a.ctypes.data == t.data_ptr()
    assert a.tolist() == t.tolist()
    assert t.__dlpack_device__() == (1, 0)
    src = np.arange(12, dtype=np.int64).reshape(3, 4)[:, 1:]
    u = axle.from_dlpack(src)
    assert u.data_ptr() == src.ctypes.data
    assert u.stride() == (4, 1)
    del src
    gc.collect()
    assert u.tolist() == [[1, 2, 3], [5, 6, 7], [9, 10, 11]]


def test_dlpack_with_torch_shares_memory():
    torch = pytest.importorskip("torch")
    t = axle.arange(8, dtype=axle.float64)
    tt = torch.from_dlpack(t)
    assert tt.data_ptr() == t.data_ptr()
    tt[0] = 100.0
    assert t[0].item() == 100.0
    back = axle.from_dlpack(tt)
    assert back.data_ptr() == tt.data_ptr()
    x = torch.arange(6, dtype=torch.int32).reshape(2, 3).t()
    ax = axle.from_dlpack(x)
    assert ax.data_ptr() == x.data_ptr() and ax.stride() == tuple(x.stride())
    del x
    gc.collect()
    assert ax.tolist() == [[0, 3], [1, 4], [2, 5]]


def test_dlpack_errors():
    with pytest.raises(axle.DTypeError):
        axle.ones(2, dtype=axle.bool).__dlpack__()
    with pytest.raises(axle.ValueError):
        axle.from_dlpack(object())


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


def crafted_capsule(shape, strides=None, ndim=None, nbytes=64, byte_offset=0):
    """A 'dltensor' capsule over a float32 buffer of `nbytes`, with whatever
    metadata a producer claims (no deleter); returns it and what keeps its
    memory alive."""
    buf = ctypes.create_string_buffer(nbytes)
    shp = (ctypes.c_int64 * max(len(shape), 1))(*shape)
    st = (ctypes.c_int64 * max(len(strides), 1))(*strides) if strides is not None else None
    m = _DLManagedTensor()
    m.dl_tensor.data = ctypes.addressof(buf)
    m.dl_tensor.device = _DLDevice(1, 0)  # kDLCPU
    m.dl_tensor.ndim = len(shape) if ndim is None else ndim
    m.dl_tensor.dtype = _DLDataType(2, 32, 1)  # kDLFloat, 32 bits
    m.dl_tensor.shape = shp
    m.dl_tensor.strides = st
    m.dl_tensor.byte_offset = byte_offset
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return new(ctypes.addressof(m), b"dltensor", None), (buf, shp, st, m)


def test_dlpack_crafted_capsule_imports():
    cap, keep = crafted_capsule([2, 3], [1, 2], nbytes=24)
    ctypes.memmove(keep[0], np.arange(6, dtype=np.float32).tobytes(), 24)
    t = axle.from_dlpack(cap)
    assert t.shape == (2, 3) and t.stride() == (1, 2)
    assert t.tolist() == [[0.0, 2.0, 4.0], [1.0, 3.0, 5.0]]


@pytest.mark.parametrize("kwargs, match", [
    (dict(shape=[4], ndim=-1), "ndim -1"),
    (dict(shape=[4], ndim=2**31 - 1), "ndim 2147483647"),
    (dict(shape=[1] * 70), "ndim 70"),
    (dict(shape=[-4]), "negative size"),
    (dict(shape=[2**62, 4]), "overflows int64"),
    (dict(shape=[2**62]), "reach past"),               # 2^62 float32: 2^64 bytes
    (dict(shape=[2**40], strides=[2**24]), "reach past"),  # the extent overflows int64
    (dict(shape=[4], strides=[-1]), "negative strides"),
    (dict(shape=[4], byte_offset=2**64 - 8), "byte_offset"),
])
def test_dlpack_producer_metadata_is_validated(kwargs, match):
    cap, keep = crafted_capsule(**kwargs)
    with pytest.raises(axle.ValueError, match=match):
        axle.from_dlpack(cap)
    del keep


def test_importing_axle_after_torch_works():
    # torch's libraries use up glibc's static TLS reserve: a libaxle built with
    # the initial-exec TLS model then fails to load ("cannot allocate memory in
    # static TLS block"). Both import orders must work.
    pytest.importorskip("torch")
    import subprocess
    import sys
    for first, second in (("torch", "axle"), ("axle", "torch")):
        script = f"import {first}, {second}; print(float(axle.add(axle.ones(2), axle.ones(2)).sum()))"
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
        assert out.returncode == 0, (first, second, out.stderr)
        assert out.stdout.strip() == "4.0"
