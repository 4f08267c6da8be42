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


def npy_bytes(header, data=b"", version=1):
    """A .npy file around a header string (padded as numpy pads it)."""
    h = header.encode("latin1")
    h += b" " * ((-(len(h) + 11)) % 64) + b"\n"
    if version == 1:
        return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h + data
    return b"\x93NUMPY" + bytes([version, 0]) + struct.pack("<I", len(h)) + h + data


def test_npy_header_parser_reads_what_numpy_writes(tmp_path):
    p = tmp_path / "a.npy"
    # Keys in any order, either quote, tuple forms, Python 2's 3L, version 2.
    for header, shape in [("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 1), }", [2, 1]),
                          ('{"shape": (2,), "fortran_order": False, "descr": "<f4"}', [2]),
                          ("{'descr': '<f8', 'fortran_order': False, 'shape': (2L,), }", [2]),
                          ("{'descr':'|u1','fortran_order':False,'shape':()}", [])]:
        n = 1 if not shape else shape[0] * (shape[1] if len(shape) > 1 else 1)
        size = {"<f8": 8, "<f4": 4, "|u1": 1}[next(d for d in ("<f8", "<f4", "|u1") if d in header)]
        p.write_bytes(npy_bytes(header, b"\0" * (n * size)))
        assert list(axle.load(p).shape) == shape
    p.write_bytes(npy_bytes("{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }", b"\1\0\0\0" * 3, 2))
    assert axle.load(p).tolist() == [1, 1, 1]


def test_npy_header_of_30kb_is_refused_not_a_stack_overflow(tmp_path):
    # Format 1.0 allows a 64 KiB header; std::regex recursed once per character
    # and overflowed the stack. numpy refuses headers above 10,000 bytes.
    p = tmp_path / "big.npy"
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }" + " " * 30000
    p.write_bytes(npy_bytes(header, b"\0" * 8))
    with pytest.raises(axle.ValueError, match="header of 30.* bytes is above numpy's limit"):
        axle.load(p)
    # Under the limit, long padding is fine.
    p.write_bytes(npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }" + " " * 9000, b"\0" * 8))
    assert axle.load(p).tolist() == [0.0]


def test_npy_structured_dtype_is_refused(tmp_path):
    # A field named "'descr': '<f8'" used to match the regex: read as float64.
    a = np.zeros(2, dtype=[("'descr': '<f8'", "<f8")])
    p = tmp_path / "s.npy"
    np.save(p, a)
    with pytest.raises(axle.ValueError, match="structured dtype"):
        axle.load(p)


@pytest.mark.parametrize("header, match", [
    ("{'descr': '<f8', 'fortran_order': False}", "keys"),
    ("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'extra': 1}", "keys"),
    ("{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (1,)}", "appears twice"),
    ("{'descr': '<f8', 'fortran_order': 0, 'shape': (1,)}", "fortran_order"),
    ("{'descr': '<f8', 'fortran_order': False, 'shape': (1)}", "tuple"),
    ("{'descr': '<f8', 'fortran_order': False, 'shape': [1]}", "tuple"),
    ("{'descr': '<f8', 'fortran_order': False, 'shape': (-1,)}", "non-negative"),
    ("{'descr': '<f8', 'fortran_order': False, 'shape': ('1',)}", "non-negative"),
    ("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,)}", "int64"),
    ("{'descr': '<f8', 'fortran_order': False, 'shape': (1,)} junk", "after"),
    ("{'descr': '<f8', 'fortran_order': False, 'shape': (1,)", "expected ','"),
    ("{'descr': '<f8', 'fortran_order': False, 'shape': (1,", "ends inside"),
    ("{'descr': '<c16', 'fortran_order': False, 'shape': (1,)}", "unsupported dtype"),
    ("{'descr': '>f8', 'fortran_order': False, 'shape': (1,)}", "unsupported dtype"),
    ("{'descr': 5, 'fortran_order': False, 'shape': (1,)}", "dtype string"),
    ("[" * 9000, "nested deeper"),
    ("{'descr': '<f8', 'fortran_order': False, 'shape': " + "(" * 3000 + "1," + ")" * 3000 + "}", "nested deeper"),
    ("{'descr': '<f8', 'fortran_order': False, 'shape': (" + "1, " * 70 + ")}", "at most 64"),
    ("{'descr': '<f8', 'fortran_order': False, 'shape': (0, 4611686018427387904, 4611686018427387904)}",
     "overflows"),
], ids=lambda v: v[:40])
def test_malformed_npy_headers_raise_value_error(tmp_path, header, match):
    p = tmp_path / "bad.npy"
    p.write_bytes(npy_bytes(header, b"\0" * 8))
    with pytest.raises(axle.ValueError, match=match):
        axle.load(p)


def safetensors_bytes(header, data=b"", raw_header=None):
    text = raw_header if raw_header is not None else json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + data


def test_safetensors_deep_nesting_is_refused_not_a_stack_overflow(tmp_path):
    p = tmp_path / "deep.safetensors"
    deep = b'{"a":{"dtype":"F32","shape":' + b"[" * 100000 + b"]" * 100000 + b',"data_offsets":[0,4]}}'
    p.write_bytes(safetensors_bytes(None, b"\0" * 4, deep))
    with pytest.raises(axle.ValueError, match="recursion limit exceeded"):
        axle.load(p)
    # Brackets inside strings do not count; a huge bad value is cut in the message.
    p.write_bytes(safetensors_bytes({"a": {"dtype": "[" * 100000, "shape": [1], "data_offsets": [0, 4]}}, b"\0" * 4))
    with pytest.raises(axle.ValueError, match="unsupported dtype") as e:
        axle.load(p)
    assert len(str(e.value)) < 500


@pytest.mark.parametrize("header, data, match", [
    # duplicate tensor names (last won) and duplicate fields
    (b'{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}',
     b"\1\2", "appears twice"),
    (b'{"a":{"dtype":"U8","dtype":"U8","shape":[1],"data_offsets":[0,1]}}', b"\1", "appears twice"),
    # overlapping, gapped, not starting at 0, trailing bytes
    (b'{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}}',
     b"\1\2\3", "overlap"),
    (b'{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"b":{"dtype":"U8","shape":[1],"data_offsets":[2,3]}}',
     b"\1\2\3", "gap"),
    (b'{"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}', b"\1\2", "gap"),
    (b'{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}', b"\1\2", "cover 1 bytes of data but the file has 2"),
    # metadata values must be strings
    (b'{"__metadata__":{"k":1},"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}', b"\1", "must be a string"),
    (b'{"__metadata__":[],"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}', b"\1", "__metadata__"),
    # shapes whose product (zeros skipped) or byte count overflow, negative and too many dims
    (b'{"a":{"dtype":"U8","shape":[0,4611686018427387904,4611686018427387904],"data_offsets":[0,0]}}', b"",
     "overflows"),
    (b'{"a":{"dtype":"F64","shape":[2305843009213693952],"data_offsets":[0,0]}}', b"", "overflows"),
    (b'{"a":{"dtype":"U8","shape":[-1],"data_offsets":[0,0]}}', b"", "bad dimension"),
    (b'{"a":{"dtype":"U8","shape":[' + b"1," * 69 + b'1],"data_offsets":[0,1]}}', b"\1", "at most 64"),
    # the header must be an object
    (b' {"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}', b"\1", "JSON object"),
], ids=lambda v: v[-30:].decode("latin1") if isinstance(v, bytes) else v[:30])
def test_safetensors_validation_matches_the_reference_loader(tmp_path, header, data, match):
    p = tmp_path / "bad.safetensors"
    p.write_bytes(safetensors_bytes(None, data, header))
    with pytest.raises(axle.ValueError, match=match):
        axle.load(p)


def test_safetensors_zero_size_tensors_and_any_offset_order(tmp_path):
    p = tmp_path / "ok.safetensors"
    header = {"z": {"dtype": "F32", "shape": [0, 3], "data_offsets": [2, 2]},
              "b": {"dtype": "U8", "shape": [1], "data_offsets": [1, 2]},
              "a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]},
              "__metadata__": {"k": "v"}}
    p.write_bytes(safetensors_bytes(header, b"\x07\x08"))
    d = axle.load(p)
    assert d["a"].tolist() == [7] and d["b"].tolist() == [8] and list(d["z"].shape) == [0, 3]
