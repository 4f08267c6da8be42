"""PyTorch checkpoints: axle.load reads what torch.save (1.13) writes, torch.load reads
what axle.save writes, and malicious or malformed files raise typed axle errors
without running anything. The files for the last part are built by hand here
(zip + pickle opcodes), so those tests need no torch."""
import collections
import io
import os
import pickle
import struct
import subprocess
import sys
import warnings
import zipfile

import numpy as np
import pytest

import axle


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


# 1, the smallest subnormal, the largest finite, -inf, -0, 3.140625, the smallest normal
BF16_BITS = np.array([0x3F80, 0x0001, 0x7F7F, 0xFF80, 0x8000, 0x4049, 0x0080], dtype=np.uint16)
DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16", "int32", "int64", "bool"]


def torch_values(torch, name):
    """A tensor of each dtype with values that are exact in it (incl. extremes)."""
    if name == "bool":
        return torch.tensor([[True, False, True], [False, False, True]])
    if name.startswith(("float", "bfloat")):
        return torch.tensor([[1.5, -2.25, 0.0], [-0.0, 1e4, float("inf")]], dtype=getattr(torch, name))
    info = torch.iinfo(getattr(torch, name))
    return torch.tensor([[info.min, info.max, 0], [1, 2, info.max - 1]], dtype=getattr(torch, name))


def same(a, t):
    """axle tensor a equals torch tensor t: dtype, shape, values."""
    assert a.dtype is getattr(axle, str(t.dtype).split(".")[1]), (a.dtype, t.dtype)
    assert tuple(a.shape) == tuple(t.shape)
    if str(t.dtype) == "torch.bfloat16":
        assert a.float().tolist() == t.float().tolist()
    else:
        assert a.tolist() == t.tolist()


# ---------------------------------------------------------------- torch.save -> axle.load
def test_nested_containers_and_values(torch, tmp_path):
    obj = {"a": [1, -2, 2 ** 70, -2 ** 40, 3.5, "text", "ünï", None, True, False],
           "b": (torch.ones(2), {"deep": [torch.zeros(1), (7,)]}),
           "c": collections.OrderedDict([("z", 1), ("y", 2)]), "bytes": b"\x00\xffraw", "set": {1, 2},
           "fs": frozenset({"q"}), "complex": 1 + 2j, "size": torch.Size([2, 3]), "dtype": torch.float16,
           "device": torch.device("cpu"), 5: "int key", (1, 2): "tuple key", "empty": {}}
    torch.save(obj, tmp_path / "n.pt")
    r = axle.load(tmp_path / "n.pt")
    assert r["a"] == obj["a"]
    assert r["b"][0].tolist() == [1.0, 1.0] and r["b"][1]["deep"][0].tolist() == [0.0]
    assert r["b"][1]["deep"][1] == (7,)
    assert type(r["c"]) is collections.OrderedDict and list(r["c"].items()) == [("z", 1), ("y", 2)]
    assert r["bytes"] == b"\x00\xffraw" and r["set"] == {1, 2} and r["fs"] == frozenset({"q"})
    assert r["complex"] == 1 + 2j and r["size"] == (2, 3) and r["dtype"] is axle.float16
    assert r["device"] == axle.device("cpu")
    assert r[5] == "int key" and r[(1, 2)] == "tuple key" and r["empty"] == {}


def test_shared_objects_stay_shared(torch, tmp_path):
    t = torch.arange(3.0)
    lst = [1]
    torch.save({"x": t, "y": t, "l1": lst, "l2": lst}, tmp_path / "s.pt")
    r = axle.load(tmp_path / "s.pt")
    assert r["x"] is r["y"] and r["l1"] is r["l2"]


def test_state_dict_of_a_model_loads_into_the_same_axle_model(torch, tmp_path):
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Conv2d(2, 3, 3), torch.nn.BatchNorm2d(3), torch.nn.ReLU(),
                             torch.nn.Flatten(), torch.nn.Linear(48, 5))
    x = torch.randn(4, 2, 6, 6)
    tm(x)  # train mode: updates the running statistics and num_batches_tracked
    tm(x)
    tm.eval()
    torch.save(tm.state_dict(), tmp_path / "m.pth")
    sd = axle.load(tmp_path / "m.pth")
    assert type(sd) is collections.OrderedDict and list(sd) == list(tm.state_dict())
    assert sd._metadata == tm.state_dict()._metadata
    nbt = sd["1.num_batches_tracked"]
    assert nbt.dtype is axle.int64 and nbt.shape == () and nbt.item() == 2
    for k, v in tm.state_dict().items():
        same(sd[k], v)
        assert not isinstance(sd[k], axle.nn.Parameter)  # a state_dict holds plain tensors
    am = axle.nn.Sequential(axle.nn.Conv2d(2, 3, 3), axle.nn.BatchNorm2d(3), axle.nn.ReLU(), axle.nn.Flatten(),
                            axle.nn.Linear(48, 5))
    am.load_state_dict(sd)
    am.eval()
    got = am(axle.tensor(x.numpy()))
    np.testing.assert_allclose(np.asarray(got.detach()), tm(x).detach().numpy(), rtol=1e-5, atol=1e-5)


def test_views_share_one_storage_in_axle(torch, tmp_path):
    base = torch.arange(12.0)
    views = {"base": base, "mat": base.view(3, 4), "t": base.view(3, 4).t(), "tail": base[5:],
             "step": base[1::3], "exp": base[:1].expand(4, 3)}
    torch.save(views, tmp_path / "v.pt")
    r = axle.load(tmp_path / "v.pt")
    for k, v in views.items():
        same(r[k], v)
        assert r[k].stride() == v.stride() and r[k].storage_offset() == v.storage_offset(), k
        assert r[k]._same_storage(r["base"]), k
    assert not r["t"].is_contiguous()
    r["base"].fill_(-1.0)  # one storage: the views see the write
    assert r["tail"].tolist() == [-1.0] * 7 and r["t"].tolist() == [[-1.0] * 3] * 4


@pytest.mark.parametrize("name", DTYPES)
def test_every_dtype_from_torch(torch, tmp_path, name):
    t = torch_values(torch, name)
    torch.save({"c": t, "nc": t.t(), "scalar": t[1, 1].clone(), "empty": t[:0]}, tmp_path / "d.pt")
    r = axle.load(tmp_path / "d.pt")
    same(r["c"], t)
    same(r["nc"], t.t())
    same(r["scalar"], t[1, 1])
    same(r["empty"], t[:0])


def test_bfloat16_bits_are_exact(torch, tmp_path):
    bits = torch.from_numpy(BF16_BITS.view(np.int16).copy())
    t = bits.view(torch.bfloat16)
    torch.save(t, tmp_path / "b.pt")
    r = axle.load(tmp_path / "b.pt")
    assert r.dtype is axle.bfloat16
    assert r.float().tolist() == t.float().tolist()
    nan = torch.tensor([float("nan")], dtype=torch.bfloat16)
    torch.save(nan, tmp_path / "nan.pt")
    assert axle.load(tmp_path / "nan.pt").isnan().tolist() == [True]


def test_parameters_empty_and_zero_d(torch, tmp_path):
    p = torch.nn.Parameter(torch.randn(2, 3))
    q = torch.nn.Parameter(torch.ones(2), requires_grad=False)
    g = torch.ones(3, requires_grad=True)
    obj = {"p": p, "q": q, "g": g, "e": torch.empty(0), "e2": torch.empty(3, 0, 2), "z": torch.tensor(2.5),
           "zi": torch.tensor(7)}
    torch.save(obj, tmp_path / "p.pt")
    r = axle.load(tmp_path / "p.pt")
    assert isinstance(r["p"], axle.nn.Parameter) and r["p"].requires_grad
    np.testing.assert_array_equal(np.asarray(r["p"].detach()), p.detach().numpy())
    assert isinstance(r["q"], axle.nn.Parameter) and not r["q"].requires_grad
    assert type(r["g"]) is axle.Tensor and r["g"].requires_grad and r["g"].is_leaf
    assert tuple(r["e"].shape) == (0,) and tuple(r["e2"].shape) == (3, 0, 2)
    assert r["z"].shape == () and r["z"].item() == 2.5 and r["zi"].item() == 7 and r["zi"].dtype is axle.int64


def test_loaded_tensors_own_their_memory(torch, tmp_path):
    torch.save({"a": torch.arange(1000.0)}, tmp_path / "o.pt")
    r = axle.load(tmp_path / "o.pt")
    import gc

    gc.collect()
    junk = [bytearray(8000) for _ in range(100)]  # reuse whatever was freed
    assert r["a"].sum().item() == sum(range(1000))
    del junk


def test_file_objects_protocol_4_and_map_location(torch, tmp_path):
    buf = io.BytesIO()
    torch.save({"t": torch.arange(4)[1:], "s": "x" * 300, "l": list(range(2000))}, buf, pickle_protocol=4)
    buf.seek(0)
    r = axle.load(buf, map_location="cpu")
    assert r["t"].tolist() == [1, 2, 3] and r["s"] == "x" * 300 and r["l"] == list(range(2000))

    class Unseekable(io.RawIOBase):
        def __init__(self, data):
            self.inner = io.BytesIO(data)

        def readable(self):
            return True

        def seekable(self):
            return False

        def readinto(self, b):
            return self.inner.readinto(b)

    r = axle.load(Unseekable(buf.getvalue()), map_location={"cpu": "cpu"})
    assert r["t"].tolist() == [1, 2, 3]
    seen = []
    r = axle.load(io.BytesIO(buf.getvalue()), map_location=lambda s, loc: seen.append(loc))
    assert seen == ["cpu"] and r["t"].tolist() == [1, 2, 3]


def test_loading_needs_no_torch(torch, tmp_path):
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
    torch.save({"sd": model.state_dict(), "v": torch.arange(6.0).view(2, 3)[:, 1:]}, tmp_path / "m.pt")
    expected = model.state_dict()["0.weight"].tolist()
    code = ("import sys; sys.modules['torch'] = None\n"  # any import of torch fails
            "import axle\n"
            "r = axle.load(sys.argv[1])\n"
            "assert r['v'].tolist() == [[1.0, 2.0], [4.0, 5.0]]\n"
            "print(r['sd']['0.weight'].tolist())\n"
            "assert 'torch' not in sys.modules or sys.modules['torch'] is None\n")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "m.pt")], capture_output=True, text=True,
                         env=dict(os.environ), check=False)
    assert out.returncode == 0, out.stderr
    import ast

    np.testing.assert_allclose(ast.literal_eval(out.stdout.strip()), expected, rtol=1e-7)


def test_a_whole_pickled_module_is_refused_by_name(torch, tmp_path):
    torch.save(torch.nn.Linear(2, 2), tmp_path / "model.pt")
    with pytest.raises(axle.ValueError, match="torch.nn.modules.linear.Linear.*not allowed"):
        axle.load(tmp_path / "model.pt")


def test_complex_storage_is_a_dtype_error(torch, tmp_path):
    torch.save(torch.ones(2, dtype=torch.complex64), tmp_path / "c.pt")
    with pytest.raises(axle.DTypeError, match="ComplexFloatStorage"):
        axle.load(tmp_path / "c.pt")


def test_torchscript_archive_is_refused(torch, tmp_path):
    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 2)), str(tmp_path / "s.pt"))
    with pytest.raises(axle.ValueError, match="TorchScript"):
        axle.load(tmp_path / "s.pt")


def test_legacy_format_is_refused(torch, tmp_path):
    torch.save(torch.ones(2), tmp_path / "l.pt", _use_new_zipfile_serialization=False)
    with pytest.raises(axle.ValueError, match="legacy format"):
        axle.load(tmp_path / "l.pt")


# ---------------------------------------------------------------- axle.save -> torch.load
def test_axle_state_dict_loads_into_the_same_torch_model(torch, tmp_path):
    axle.manual_seed(3)
    am = axle.nn.Sequential(axle.nn.Conv2d(2, 3, 3), axle.nn.BatchNorm2d(3), axle.nn.ReLU(), axle.nn.Flatten(),
                            axle.nn.Linear(48, 5))
    x = axle.randn(4, 2, 6, 6)
    am(x)
    am.eval()
    sd = am.state_dict()
    axle.save(sd, tmp_path / "a.pt")
    for weights_only in (False, True):
        back = torch.load(tmp_path / "a.pt", weights_only=weights_only)
        assert type(back) is collections.OrderedDict and list(back) == list(sd)
        assert back._metadata == sd._metadata
        assert back["1.num_batches_tracked"].dtype == torch.int64 and back["1.num_batches_tracked"].item() == 1
        tm = torch.nn.Sequential(torch.nn.Conv2d(2, 3, 3), torch.nn.BatchNorm2d(3), torch.nn.ReLU(),
                                 torch.nn.Flatten(), torch.nn.Linear(48, 5))
        tm.load_state_dict(back)
        tm.eval()
        np.testing.assert_allclose(tm(torch.from_numpy(np.asarray(x))).detach().numpy(),
                                   np.asarray(am(x).detach()), rtol=1e-5, atol=1e-5)


def test_axle_views_share_one_storage_in_torch(torch, tmp_path):
    base = axle.arange(12.0)
    views = {"base": base, "mat": base.view(3, 4), "t": base.view(3, 4).t(), "tail": base[5:],
             "step": base[1::3], "exp": base[:1].expand(4, 3), "other": axle.ones(2)}
    axle.save(views, tmp_path / "v.pt")
    with zipfile.ZipFile(tmp_path / "v.pt") as z:
        assert sorted(n for n in z.namelist() if "/data/" in n) == ["archive/data/0", "archive/data/1"]
    back = torch.load(tmp_path / "v.pt")
    ptr = back["base"].storage().data_ptr()
    for k, v in views.items():
        assert back[k].tolist() == v.tolist(), k
        assert back[k].stride() == v.stride() and back[k].storage_offset() == v.storage_offset(), k
        assert (back[k].storage().data_ptr() == ptr) == (k != "other"), k
    # A view alone: its storage is written as far as it reaches.
    axle.save(base[2:4], tmp_path / "part.pt")
    part = torch.load(tmp_path / "part.pt")
    assert part.tolist() == [2.0, 3.0] and part.storage_offset() == 2


@pytest.mark.parametrize("name", DTYPES)
def test_every_dtype_to_torch(torch, tmp_path, name):
    t = torch_values(torch, name)
    a = axle.load(_saved(torch, t, tmp_path))  # axle's copy of the values
    axle.save({"c": a, "nc": a.t(), "scalar": a[1, 1].clone(), "empty": a[:0]}, tmp_path / "d.pt")
    back = torch.load(tmp_path / "d.pt", weights_only=True)
    for k, want in (("c", t), ("nc", t.t()), ("scalar", t[1, 1]), ("empty", t[:0])):
        assert back[k].dtype == t.dtype and back[k].shape == want.shape
        assert torch.equal(back[k], want), k
    assert not back["nc"].is_contiguous()


def _saved(torch, t, tmp_path):
    p = tmp_path / "src.pt"
    torch.save(t, p)
    return p


def test_bfloat16_bits_to_torch(torch, tmp_path):
    bits = torch.from_numpy(BF16_BITS.view(np.int16).copy())
    a = axle.load(_saved(torch, bits.view(torch.bfloat16), tmp_path))
    axle.save(a, tmp_path / "b.pt")
    assert torch.equal(torch.load(tmp_path / "b.pt").view(torch.int16), bits)


def test_parameters_values_and_containers_to_torch(torch, tmp_path):
    p = axle.nn.Parameter(axle.randn(2, 3))
    q = axle.nn.Parameter(axle.ones(2), requires_grad=False)
    od = collections.OrderedDict([("b", 1), ("a", 2)])
    od._metadata = {"": {"version": 1}}
    obj = {"p": p, "q": q, "g": axle.ones(3).requires_grad_(), "e": axle.empty(0), "e2": axle.empty(3, 0, 2),
           "z": axle.tensor(2.5), "zi": axle.tensor(7), "od": od, "vals": [1, -1, 2 ** 80, -2 ** 80, 300, 70000,
                                                                         -70000, 1.25, "s", "ünï\ud800", None],
           "tup": (1, (2, 3), ()), "bytes": b"\x00\xff", "set": {3}, "fs": frozenset([4]), "cx": 3 - 1j,
           "dtype": axle.bfloat16, "device": axle.device("cpu"), 9: "k", "same": p}
    axle.save(obj, tmp_path / "p.pt")
    back = torch.load(tmp_path / "p.pt")
    assert isinstance(back["p"], torch.nn.Parameter) and back["p"].requires_grad
    np.testing.assert_array_equal(back["p"].detach().numpy(), np.asarray(p.detach()))
    assert back["same"] is back["p"]
    assert isinstance(back["q"], torch.nn.Parameter) and not back["q"].requires_grad
    assert back["g"].requires_grad and back["g"].is_leaf
    assert back["e"].shape == (0,) and back["e2"].shape == (3, 0, 2)
    assert back["z"].shape == () and back["z"].item() == 2.5 and back["zi"].dtype == torch.int64
    assert type(back["od"]) is collections.OrderedDict and list(back["od"].items()) == [("b", 1), ("a", 2)]
    assert back["od"]._metadata == {"": {"version": 1}}
    assert back["vals"] == obj["vals"] and back["tup"] == (1, (2, 3), ())
    assert back["bytes"] == b"\x00\xff" and back["set"] == {3} and back["fs"] == frozenset([4])
    assert back["cx"] == 3 - 1j and back["dtype"] is torch.bfloat16 and back["device"] == torch.device("cpu")
    assert back[9] == "k"
    again = axle.load(tmp_path / "p.pt")  # and axle reads its own file back
    assert again["same"] is again["p"] and isinstance(again["p"], axle.nn.Parameter)
    assert again["vals"] == obj["vals"] and again["od"]._metadata == od._metadata


def test_zip_layout_matches_torch(torch, tmp_path):
    axle.save({"w": axle.ones(5), "b": axle.zeros(3, dtype=axle.int64)}, tmp_path / "x.pt")
    raw = (tmp_path / "x.pt").read_bytes()
    with zipfile.ZipFile(tmp_path / "x.pt") as z:
        names = z.namelist()
        assert names[0] == "archive/data.pkl"
        assert set(names) == {"archive/data.pkl", "archive/byteorder", "archive/data/0", "archive/data/1",
                              "archive/version"}
        assert z.read("archive/version") == b"3\n" and z.read("archive/byteorder") == b"little"
        for info in z.infolist():
            assert info.compress_type == zipfile.ZIP_STORED
            n, e = struct.unpack("<HH", raw[info.header_offset + 26:info.header_offset + 30])
            assert (info.header_offset + 30 + n + e) % 64 == 0, info.filename  # torch aligns record data
        assert z.read("archive/data.pkl")[:2] == b"\x80\x02"  # protocol 2


def test_save_to_file_objects(torch, tmp_path):
    buf = io.BytesIO(b"prefix")
    buf.seek(6)
    axle.save({"w": axle.arange(3)}, buf)
    buf2 = io.BytesIO(buf.getvalue()[6:])
    assert torch.load(buf2)["w"].tolist() == [0, 1, 2]

    class Sink(io.RawIOBase):  # unseekable
        def __init__(self):
            self.data = bytearray()

        def writable(self):
            return True

        def seekable(self):
            return False

        def write(self, b):
            self.data += bytes(b)
            return len(b)

    s = Sink()
    axle.save({"w": axle.arange(3)}, s)
    assert torch.load(io.BytesIO(bytes(s.data)))["w"].tolist() == [0, 1, 2]


def test_save_refuses_what_it_cannot_write(tmp_path):
    with pytest.raises(axle.TypeError, match="object"):
        axle.save({"f": object()}, tmp_path / "x.pt")
    with pytest.raises(axle.TypeError, match="function"):
        axle.save([len], tmp_path / "x.pt")
    with pytest.raises(axle.TypeError, match="metadata"):
        axle.save({"a": axle.ones(1)}, tmp_path / "x.pt", metadata={"k": "v"})
    with pytest.raises(axle.ValueError):
        axle.save({}, tmp_path / "no" / "such" / "dir.pt")


# ---------------------------------------------------------------- dispatch by name and content
def test_dispatch_keeps_safetensors_and_npy_and_sniffs_the_rest(tmp_path):
    d = {"a": axle.arange(4.0)}
    axle.save(d, tmp_path / "x.safetensors")
    assert (tmp_path / "x.safetensors").read_bytes()[8:9] == b"{"
    axle.save(d, tmp_path / "x.bin")  # not a known suffix: torch's format
    assert (tmp_path / "x.bin").read_bytes()[:4] == b"PK\x03\x04"
    assert axle.load(tmp_path / "x.bin")["a"].tolist() == [0.0, 1.0, 2.0, 3.0]
    # Content decides for other names and file objects.
    os.rename(tmp_path / "x.safetensors", tmp_path / "st.model")
    assert axle.load(tmp_path / "st.model")["a"].tolist() == [0.0, 1.0, 2.0, 3.0]
    with open(tmp_path / "st.model", "rb") as f:
        assert axle.load(f)["a"].tolist() == [0.0, 1.0, 2.0, 3.0]
    axle.save(d["a"], tmp_path / "x.npy")
    os.rename(tmp_path / "x.npy", tmp_path / "arr")
    assert axle.load(tmp_path / "arr").tolist() == [0.0, 1.0, 2.0, 3.0]
    assert axle.load(io.BytesIO((tmp_path / "arr").read_bytes())).tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(axle.ValueError, match="cannot open"):
        axle.load(tmp_path / "missing.pt")
    with pytest.raises(axle.NotImplementedError, match="weights_only"):
        axle.load(tmp_path / "x.bin", weights_only=False)


# ---------------------------------------------------------------- malicious and malformed files (no torch)
def cases(rows):
    """pytest params named by their expected message."""
    return [pytest.param(*row, id="%d-%s" % (n, row[-1])) for n, row in enumerate(rows)]


def s(text):
    raw = text.encode()
    return b"X" + struct.pack("<I", len(raw)) + raw


def i(v):
    if -2 ** 31 <= v < 2 ** 31:
        return b"J" + struct.pack("<i", v)
    raw = v.to_bytes(16, "little", signed=True)
    return b"\x8a" + bytes([len(raw)]) + raw  # LONG1


def g(module, name):
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def tup(values):
    return b"(" + b"".join(i(v) for v in values) + b"t"


def pid(key="0", storage="FloatStorage", numel=4, location="cpu"):
    return b"(" + s("storage") + g("torch", storage) + s(key) + s(location) + i(numel) + b"tQ"


def tensor_ops(key="0", storage="FloatStorage", numel=4, offset=0, size=(4,), stride=(1,), extra=b""):
    return (g("torch._utils", "_rebuild_tensor_v2") + b"(" + pid(key, storage, numel) + i(offset) + tup(size)
            + tup(stride) + b"\x89" + g("collections", "OrderedDict") + b")R" + extra + b"tR")


def pkl(body):
    return b"\x80\x02" + body + b"."


def checkpoint(path, data_pkl, records=None, prefix="archive/", version=b"3\n", byteorder=None):
    records = {"data/0": np.arange(4, dtype="<f4").tobytes()} if records is None else records
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(prefix + "data.pkl", data_pkl)
        if byteorder is not None:
            z.writestr(prefix + "byteorder", byteorder)
        for name, data in records.items():
            z.writestr(prefix + name, data)
        if version is not None:
            z.writestr(prefix + "version", version)
    return path


def test_handwritten_checkpoint_loads(tmp_path):
    p = checkpoint(tmp_path / "ok.pt", pkl(tensor_ops()))
    assert axle.load(p).tolist() == [0.0, 1.0, 2.0, 3.0]


@pytest.fixture
def marker(tmp_path):
    m = tmp_path / "PWNED"
    yield m
    assert not m.exists(), "the payload ran"


class Evil:
    def __init__(self, marker):
        self.cmd = "touch %s" % marker

    def __reduce__(self):
        return (os.system, (self.cmd,))


@pytest.mark.parametrize("protocol", [0, 2, 4])
def test_os_system_payload_is_refused_and_not_run(tmp_path, marker, protocol):
    data = pickle.dumps({"weights": Evil(marker)}, protocol=protocol)
    assert b"system" in data
    p = checkpoint(tmp_path / "evil.pt", data)
    with pytest.raises(axle.ValueError, match=r"(posix|os)\.system.*not allowed"):
        axle.load(p)
    assert not marker.exists()
    # The payload is real: Python's unpickler would have run it.
    pickle.loads(data)
    assert marker.exists()
    marker.unlink()


@pytest.mark.parametrize("body, match", cases([
    (g("builtins", "eval") + b"(" + s("1") + b"tR", "builtins.eval"),
    (g("__builtin__", "getattr") + b"(" + g("collections", "OrderedDict") + s("fromkeys") + b"tR", "getattr"),
    (g("subprocess", "Popen") + b"(" + s("true") + b"\x85tR", "subprocess.Popen"),
    (s("os") + s("system") + b"\x93", "os.system"),  # STACK_GLOBAL
    (g("torch._utils", "_rebuild_tensor_v3") + b")R", "_rebuild_tensor_v3"),
    (g("torch", "load") + b")R", "torch.load"),
    (b"(" + s("echo") + b"ios\nsystem\n", "INST"),  # protocol 0's instance opcode
    (g("collections", "OrderedDict") + b")\x81", "NEWOBJ"),  # constructing an allowed class is refused too
    (b"\x82\x01", "EXT1"),
    (g("collections", "OrderedDict") + b")R" + b"}" + s("__class__") + s("x") + b"sb", "__class__"),  # BUILD
    (b"}" + b"}" + b"b", "BUILD on a dict"),
    (g("collections", "OrderedDict") + b"(" + s("x") + b"\x85tR", "OrderedDict"),  # not (key, value) pairs
    (g("torch", "FloatStorage") + b")R", "cannot be called"),
    (i(1) + i(2) + b"R", "not an allowed callable"),
    (g("_codecs", "encode") + b"(" + s("x") + s("rot13") + b"tR", "latin1"),
    (b"(" + s("notstorage") + b"tQ", "persistent id kind"),
    (pid() + b"\x85" + b"}" + b"b", "BUILD on a tuple"),
]))
def test_disallowed_pickles_raise_value_error(tmp_path, marker, body, match):
    p = checkpoint(tmp_path / "bad.pt", pkl(body))
    with pytest.raises(axle.ValueError, match=match):
        axle.load(p)


@pytest.mark.parametrize("body, records, match", cases([
    (tensor_ops(offset=4), None, "offset 4 reaches element 7, but the storage has 4 elements"),
    (tensor_ops(offset=2 ** 40), None, "reaches element"),
    (tensor_ops(size=(2, 3), stride=(1, 1)), None, None),  # fits: elements 0..3
    (tensor_ops(size=(2, 3), stride=(2, 1)), None, "reaches element 4"),
    (tensor_ops(size=(2, 2 ** 62), stride=(2 ** 62, 1)), None, "reaches element"),
    (tensor_ops(size=(4,), stride=(-1,)), None, "negative"),
    (tensor_ops(size=(2 ** 64,), stride=(0,)), None, "does not fit in int64"),
    (tensor_ops(size=(0, 2 ** 62, 2 ** 62), stride=(1, 1, 1)), None, "overflows int64"),
    (tensor_ops(size=(-4,), stride=(1,)), None, "negative"),
    (tensor_ops(offset=-1), None, "offset -1"),
    (tensor_ops(size=(4,), stride=(1, 1)), None, "size"),
    (tensor_ops(size=(1,) * 65, stride=(1,) * 65), None, "at most 64"),
    (tensor_ops(numel=5), None, "has 16 bytes but its persistent id says 5 elements"),
    (tensor_ops(numel=2 ** 62), None, "has 16 bytes"),
    (tensor_ops(key="1"), None, "storage record 'archive/data/1' is missing"),
    (tensor_ops(), {}, "missing"),
    (tensor_ops(storage="NotAStorage"), None, "torch.NotAStorage.*not allowed"),
    (tensor_ops(storage="Float99Storage"), None, "not allowed"),
    (g("torch", "float99"), None, "torch.float99.*not allowed"),
    (tensor_ops(storage="FloatStorage") + tensor_ops(storage="IntStorage") + b"\x86", None, "named as float32"),
    (tensor_ops(extra=i(1) + i(2)), None, "takes 6 or 7 arguments"),
    (g("torch._utils", "_rebuild_tensor_v2") + b"(" + s("x") + i(0) + tup([1]) + tup([1]) + b"\x89}tR", None,
     "storage must come from a persistent id"),
    (g("torch._utils", "_rebuild_parameter") + b"(" + i(1) + b"\x88}tR", None, "takes \\(tensor, bool, hooks\\)"),
    (b"(" + s("storage") + g("torch", "FloatStorage") + i(0) + s("cpu") + i(4) + b"tQ", None, "malformed storage"),
]))
def test_bad_tensors_raise_value_error(tmp_path, body, records, match):
    p = checkpoint(tmp_path / "bad.pt", pkl(body), records)
    if match is None:
        assert tuple(axle.load(p).shape) == (2, 3)
        return
    with pytest.raises(axle.ValueError, match=match):
        axle.load(p)


def test_unsupported_dtypes_are_dtype_errors(tmp_path):
    for body in (tensor_ops(storage="ComplexDoubleStorage"), g("torch", "complex64"),
                 tensor_ops(storage="QInt8Storage")):
        with pytest.raises(axle.DTypeError, match="axle does not support"):
            axle.load(checkpoint(tmp_path / "c.pt", pkl(body)))


def valid_bytes(tmp_path):
    return checkpoint(tmp_path / "good.pt", pkl(b"}" + s("w") + tensor_ops() + b"s")).read_bytes()


@pytest.mark.parametrize("cut", [0.1, 0.5, 0.9, -1, -22])
def test_truncated_zip_raises_value_error(tmp_path, cut):
    raw = valid_bytes(tmp_path)
    end = int(len(raw) * cut) if cut > 0 else len(raw) + cut
    p = tmp_path / "cut.pt"
    p.write_bytes(raw[:end])
    with pytest.raises(axle.ValueError):
        axle.load(p)


def test_corrupt_record_fails_its_crc(tmp_path):
    raw = bytearray(valid_bytes(tmp_path))
    data = np.arange(4, dtype="<f4").tobytes()
    at = raw.index(data)
    raw[at + 5] ^= 0xFF
    p = tmp_path / "crc.pt"
    p.write_bytes(bytes(raw))
    with pytest.raises(axle.ValueError, match="CRC|Bad"):
        axle.load(p)


@pytest.mark.parametrize("build, match", cases([
    (lambda p: p.write_bytes(b""), "empty"),
    (lambda p: p.write_bytes(b"hello world, not a checkpoint"), "not a torch checkpoint"),
    (lambda p: p.write_bytes(b"PK\x03\x04" + b"\0" * 100), "not a readable zip"),
    (lambda p: checkpoint(p, pkl(tensor_ops()), version=None), "no version record"),
    (lambda p: checkpoint(p, pkl(tensor_ops()), version=b"99\n"), "version"),
    (lambda p: checkpoint(p, pkl(tensor_ops()), version=b"three"), "version"),
    (lambda p: checkpoint(p, pkl(tensor_ops()), byteorder=b"middle"), "byteorder"),
    (lambda p: checkpoint(p, pkl(tensor_ops()), prefix=""), "not in a folder"),
    (lambda p: checkpoint(p, pkl(tensor_ops()), prefix="archive/x/"), "no .archive/data.pkl. record"),
    (lambda p: checkpoint(p, pkl(tensor_ops())[:-1]), "truncated"),
    (lambda p: checkpoint(p, pkl(tensor_ops())[:40]), "truncated"),
    (lambda p: checkpoint(p, b"\x80\x02" + s("a")[:3]), "truncated"),
    (lambda p: checkpoint(p, b"\x80\x02."), "stack is empty"),
    (lambda p: checkpoint(p, b"\x80\x02t."), "no MARK"),
    (lambda p: checkpoint(p, b"\x80\x02h\x05."), "memo entry 5"),
    (lambda p: checkpoint(p, b"\x80\x02\xff."), "unknown pickle opcode 0xff"),
    (lambda p: checkpoint(p, b"\x80\x09N."), "protocol 9"),
    (lambda p: checkpoint(p, b"\x80\x02]" + s("k") + b"a}" + b"(]" + s("v") + b"u."), "unhashable|dict key"),
    (lambda p: checkpoint(p, b"\x80\x02" + g("collections", "OrderedDict") + b"."), None),
    (lambda p: p.write_bytes(b"\x80\x02\x8a\x0al\xfc\x9cF\xf9 j\xa8P\x19.rest"), "legacy format"),
]))
def test_malformed_files_raise_value_error(tmp_path, build, match):
    p = tmp_path / "bad.pt"
    build(p)
    if match is None:  # a bare allowed global is data, not a call
        axle.load(p)
        return
    with pytest.raises(axle.ValueError, match=match):
        axle.load(p)


def test_duplicate_records_are_refused(tmp_path):
    p = checkpoint(tmp_path / "dup.pt", pkl(tensor_ops()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns about the duplicate name
        with zipfile.ZipFile(p, "a") as z:
            z.writestr("archive/data/0", np.ones(4, dtype="<f4").tobytes())
    with pytest.raises(axle.ValueError, match="twice"):
        axle.load(p)


def test_big_endian_checkpoints_are_byteswapped(tmp_path):
    body = (b"}" + s("f") + tensor_ops("0", "FloatStorage", 4) + s("h") + tensor_ops("1", "BFloat16Storage", 4)
            + s("b") + tensor_ops("2", "BoolStorage", 4) + s("l") + tensor_ops("3", "LongStorage", 4) + b"u")
    body = b"}(" + body[1:]  # SETITEMS needs a MARK after the dict
    records = {"data/0": np.array([1.5, -2, 0, 7], dtype=">f4").tobytes(),
               "data/1": np.array([0x3FC0, 0xC000, 0, 0x40E0], dtype=">u2").tobytes(),
               "data/2": bytes([1, 0, 1, 1]),
               "data/3": np.array([-1, 2 ** 40, 0, 3], dtype=">i8").tobytes()}
    r = axle.load(checkpoint(tmp_path / "be.pt", pkl(body), records, byteorder=b"big"))
    assert r["f"].tolist() == [1.5, -2.0, 0.0, 7.0]
    assert r["h"].float().tolist() == [1.5, -2.0, 0.0, 7.0]
    assert r["b"].tolist() == [True, False, True, True]
    assert r["l"].tolist() == [-1, 2 ** 40, 0, 3]


def test_torch_2_forms(tmp_path):
    """What torch 2.x writes beyond 1.13: the byteorder and .data/ records, a 7th (metadata)
    argument, tensors with Python state through _rebuild_from_type_v2, Parameters with state,
    UntypedStorage."""
    meta = b"}"
    plain = tensor_ops(extra=meta)
    with_state = (g("torch._tensor", "_rebuild_from_type_v2") + b"(" + g("torch._utils", "_rebuild_tensor_v2")
                  + g("torch", "Tensor") + b"(" + pid() + i(1) + tup([2]) + tup([1]) + b"\x89" + b"}" + b"t"
                  + b"}" + b"tR")
    param = (g("torch._utils", "_rebuild_parameter_with_state") + b"(" + tensor_ops() + b"\x88}" + b"}"
             + s("tag") + i(7) + b"s" + b"tR")
    untyped = (g("torch._utils", "_rebuild_tensor_v2") + b"(" + pid("1", "UntypedStorage", 3) + i(0) + tup([3])
               + tup([1]) + b"\x89}tR")
    body = b"}(" + s("a") + plain + s("b") + with_state + s("p") + param + s("u") + untyped + b"u"
    records = {"data/0": np.arange(4, dtype="<f4").tobytes(), "data/1": b"\x01\x02\x03",
               ".data/serialization_id": b"1234", ".data/version": b"3\n"}
    r = axle.load(checkpoint(tmp_path / "t2.pt", pkl(body), records, byteorder=b"little", version=None))
    assert r["a"].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert r["b"].tolist() == [1.0, 2.0] and r["b"]._same_storage(r["a"])
    assert isinstance(r["p"], axle.nn.Parameter) and r["p"].tag == 7 and r["p"].requires_grad
    assert r["u"].dtype is axle.uint8 and r["u"].tolist() == [1, 2, 3]


def test_a_record_larger_than_the_file_is_refused_before_allocating(tmp_path):
    p = checkpoint(tmp_path / "big.pt", pkl(tensor_ops(numel=2 ** 28)))  # 1 GiB of float32 claimed
    raw = bytearray(p.read_bytes())
    name = b"archive/data/0"
    for sig, at in ((b"PK\x01\x02", 20), (b"PK\x03\x04", 18)):  # central and local headers: both sizes
        pos = 0
        while True:
            pos = raw.index(sig, pos)
            n = struct.unpack("<H", raw[pos + (28 if sig == b"PK\x01\x02" else 26):][:2])[0]
            start = pos + (46 if sig == b"PK\x01\x02" else 30)
            if raw[start:start + n] == name:
                raw[pos + at:pos + at + 8] = struct.pack("<II", 2 ** 30, 2 ** 30)
                break
            pos += 4
    p.write_bytes(bytes(raw))
    with pytest.raises(axle.ValueError, match="claims 1073741824 bytes, more than the archive holds"):
        axle.load(p)


def test_saved_attributes_may_not_replace_methods(tmp_path):
    body = g("collections", "OrderedDict") + b")R" + b"}" + s("keys") + i(1) + b"sb"
    with pytest.raises(axle.ValueError, match="would replace OrderedDict.keys"):
        axle.load(checkpoint(tmp_path / "k.pt", pkl(body)))
    body = g("collections", "OrderedDict") + b")R" + b"}" + s("_metadata") + b"}sb"
    assert axle.load(checkpoint(tmp_path / "m.pt", pkl(body)))._metadata == {}


def test_weights_only_and_legacy_writer_options(tmp_path):
    p = checkpoint(tmp_path / "ok.pt", pkl(tensor_ops()))
    assert axle.load(p, weights_only=None).tolist() == [0.0, 1.0, 2.0, 3.0]  # torch 2.6's default: True
    with pytest.raises(axle.NotImplementedError):
        axle.load(p, weights_only=False)
    with pytest.raises(axle.NotImplementedError, match="legacy"):
        axle.save(axle.ones(1), tmp_path / "l.pt", _use_new_zipfile_serialization=False)
    with pytest.raises(axle.ValueError, match="protocol"):
        axle.save(axle.ones(1), tmp_path / "l.pt", pickle_protocol=4)


def test_recompressed_torch_checkpoint_still_loads(torch, tmp_path):
    torch.save({"w": torch.arange(100.0)}, tmp_path / "a.pt")
    with zipfile.ZipFile(tmp_path / "a.pt") as src, zipfile.ZipFile(tmp_path / "z.pt", "w",
                                                                      zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info))
    assert axle.load(tmp_path / "z.pt")["w"].tolist() == [float(v) for v in range(100)]


# ---------------------------------------------------------------- resource attacks (review, session 12)
def _archive(path, pkl, extra=()):
    import zipfile
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("archive/data.pkl", pkl)
        z.writestr("archive/version", "3\n")
        for name, data, method in extra:
            z.writestr(zipfile.ZipInfo(name), data, compress_type=method)


def test_a_deeply_nested_dict_key_is_refused_not_a_crash(tmp_path):
    # CPython hashes nested tuples recursively in C: a million levels would overflow the stack.
    path = tmp_path / "deep.pt"
    _archive(path, b"\x80\x02}" + b")" + b"\x85" * 100000 + b"Ns.")
    with pytest.raises(axle.ValueError, match="nested more than"):
        axle.load(str(path))


def test_a_pickle_that_multiplies_its_data_is_refused(tmp_path):
    import struct
    n = 1 << 16
    p = b"\x80\x02cbuiltins\nbytearray\nq\x00B" + struct.pack("<I", n) + b"\0" * n + b"q\x01("
    p += b"h\x00h\x01\x85R" * 400 + b"l."
    path = tmp_path / "amp.pt"
    _archive(path, p)
    with pytest.raises(axle.ValueError, match="copies more data"):
        axle.load(str(path))


def test_a_compressed_record_claiming_more_than_deflate_expands_to_is_refused(tmp_path):
    import io
    import struct
    import zipfile
    claim = 1 << 31
    pkl = (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storagectorch\nFloatStorage\n"
           b"X\x01\x00\x00\x000X\x03\x00\x00\x00cpu\x8a\x05" + (claim // 4).to_bytes(5, "little") +
           b"tQK\x00K\x01\x85K\x01\x85\x89}tR.")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/data.pkl", pkl)
        z.writestr("archive/version", "3\n")
        z.writestr(zipfile.ZipInfo("archive/data/0"), b"\0" * 4096, compress_type=zipfile.ZIP_DEFLATED)
    raw = bytearray(buf.getvalue())
    i = raw.find(b"PK\x01\x02")
    while i >= 0:  # the central directory's uncompressed size of the storage record
        n = struct.unpack_from("<H", raw, i + 28)[0]
        if raw[i + 46:i + 46 + n] == b"archive/data/0":
            struct.pack_into("<I", raw, i + 24, claim & 0xffffffff)
        i = raw.find(b"PK\x01\x02", i + 4)
    path = tmp_path / "bomb.pt"
    path.write_bytes(bytes(raw))
    with pytest.raises(axle.ValueError, match="compressed storage record"):
        axle.load(str(path))
