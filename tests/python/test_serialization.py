"""save/load: safetensors (checked against a file written by hand from the
format's spec) and .npy (checked against numpy)."""
import json
import struct

import numpy as np
import pytest

import axle


def handwritten_safetensors(path):
    """The format: u64 little-endian header length, JSON header, raw data."""
    a = np.array([[1.5, -2.0], [3.25, 4.0]], dtype="<f4").tobytes()
    b = np.array([7, -8, 9], dtype="<i8").tobytes()
    header = {"b": {"dtype": "I64", "shape": [3], "data_offsets": [len(a), len(a) + len(b)]},
              "a": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, len(a)]},
              "__metadata__": {"format": "pt"}}
    text = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + a + b)


def test_reads_a_spec_file(tmp_path):
    p = tmp_path / "spec.safetensors"
    handwritten_safetensors(p)
    d = axle.load(p)
    assert sorted(d) == ["a", "b"]
    assert d["a"].dtype is axle.float32 and d["a"].tolist() == [[1.5, -2.0], [3.25, 4.0]]
    assert d["b"].dtype is axle.int64 and d["b"].tolist() == [7, -8, 9]


def test_round_trip_every_dtype(tmp_path):
    tensors = {d.name: axle.arange(6, dtype=axle.float64).view(2, 3).t().to(d) for d in axle._dtype_list}
    p = tmp_path / "all.safetensors"
    axle.save(tensors, p, metadata={"who": "test"})
    back = axle.load(p)
    for name, t in tensors.items():
        assert back[name].dtype is t.dtype
        assert back[name].tolist() == t.tolist()
    raw = p.read_bytes()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    assert header["__metadata__"] == {"who": "test"}
    assert header["float32"]["dtype"] == "F32" and header["float32"]["shape"] == [3, 2]


def test_npy_interoperates_with_numpy(tmp_path):
    t = axle.arange(12, dtype=axle.int32).view(3, 4)[:, 1:]
    p = tmp_path / "t.npy"
    axle.save(t, p)
    a = np.load(p)
    assert a.dtype == np.int32 and a.tolist() == t.tolist()
    f = tmp_path / "f.npy"
    np.save(f, np.asfortranarray(np.arange(6.0).reshape(2, 3)))
    assert axle.load(f).tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    np.save(tmp_path / "s.npy", np.float64(2.5))
    assert axle.load(tmp_path / "s.npy").shape == ()


@pytest.mark.parametrize("content", [
    b"", b"\x05\x00\x00\x00\x00\x00\x00\x00{}", b"\xff" * 8 + b"{}",
    struct.pack("<Q", 2) + b"[]",
    struct.pack("<Q", 9) + b'{"a": 1}',
    struct.pack("<Q", 58) + b'{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}    ',
    struct.pack("<Q", 52) + b'{"a":{"dtype":"X","shape":[1],"data_offsets":[0,4]}}' + b"\0" * 4,
    struct.pack("<Q", 53) + b'{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,4]}}' + b"\0" * 4,
])
def test_malformed_safetensors_raise_value_error(tmp_path, content):
    p = tmp_path / "bad.safetensors"
    p.write_bytes(content)
    with pytest.raises(axle.ValueError):
        axle.load(p)


def test_save_errors(tmp_path):
    with pytest.raises(axle.TypeError):
        axle.save([axle.ones(1)], tmp_path / "x.safetensors")
    with pytest.raises(axle.DTypeError):
        axle.save(axle.ones(1, dtype=axle.bfloat16), tmp_path / "x.npy")
    with pytest.raises(axle.ValueError):
        axle.load(tmp_path / "missing.safetensors")
    (tmp_path / "bad.npy").write_bytes(b"\x93NUMPY\x01\x00\x10\x00{'descr': '>f4'}")
    with pytest.raises(axle.ValueError):
        axle.load(tmp_path / "bad.npy")
