"""CUDA DLPack and __cuda_array_interface__: the contracts checkable without a
GPU (host tensors have no CUDA interface; CUDA producers on a machine without
CUDA devices are a DeviceError naming why), and zero-copy round trips with
torch and CuPy where a GPU, torch.cuda and CuPy exist (scripts/gpu-check)."""
import ctypes

import pytest

import axle


def cuda_count():
    return sum(d["count"] for d in axle.devices() if d["type"] == "cuda")


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int), ("device_id", ctypes.c_int)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


def cuda_capsule(keep):
    """An unused 'dltensor' capsule claiming 4 float32 on cuda:0 (never dereferenced)."""
    shape = (ctypes.c_int64 * 1)(4)
    m = DLManagedTensor()
    m.dl_tensor.data = 0x1000
    m.dl_tensor.device = DLDevice(2, 0)  # kDLCUDA
    m.dl_tensor.ndim = 1
    m.dl_tensor.dtype = DLDataType(2, 32, 1)  # float32
    m.dl_tensor.shape = shape
    keep += [shape, m]
    new = ctypes.pythonapi.PyCapsule_New
    new.restype = ctypes.py_object
    new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return new(ctypes.addressof(m), b"dltensor", None)


def test_host_tensors_have_no_cuda_interface():
    t = axle.ones(3)
    assert not hasattr(t, "__cuda_array_interface__")
    assert t.__dlpack_device__() == (1, 0)


@pytest.mark.skipif(cuda_count() > 0, reason="a CUDA device exists: the producers below would be imported")
def test_cuda_producers_without_a_device_are_a_device_error():
    keep = []
    with pytest.raises(axle.DeviceError, match="cuda"):
        axle.from_dlpack(cuda_capsule(keep))

    class FakeCuPy:
        __cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (0x1000, False), "version": 3,
                                    "strides": None, "stream": None}

    with pytest.raises(axle.DeviceError, match="cuda"):
        axle.from_dlpack(FakeCuPy())


@pytest.mark.skipif(cuda_count() == 0, reason="no CUDA device")
def test_cuda_round_trips_without_copies():
    x = axle.arange(6, dtype=axle.float32, device="cuda").view(2, 3)
    cai = x.__cuda_array_interface__
    assert cai["shape"] == (2, 3) and cai["typestr"] == "<f4" and cai["strides"] == (12, 4)
    assert x.__dlpack_device__() == (2, 0)
    y = axle.from_dlpack(x)
    assert y.data_ptr() == x.data_ptr() and y.tolist() == x.tolist()
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        t = torch.utils.dlpack.from_dlpack(x.__dlpack__())
        assert t.data_ptr() == x.data_ptr() and t.cpu().tolist() == x.tolist()
        back = axle.from_dlpack(t)
        assert back.data_ptr() == t.data_ptr()
    try:
        import cupy
    except ImportError:
        return
    c = cupy.asarray(x)  # through __cuda_array_interface__
    assert c.data.ptr == x.data_ptr()
    assert axle.from_dlpack(c).data_ptr() == c.data.ptr
