"""Whole pickled objects in torch's checkpoint format, as pytorch/examples' word_language_model
uses them: axle.save(model, f) of a whole nn.Module and, with the classes and functions
allowed (axle.serialization.safe_globals / add_safe_globals, as torch 2.x), axle.load(f);
whole models saved by torch load into axle's modules; everything else a file names stays
refused with a typed error, and nothing a file names is imported or called unless allowed."""
import collections
import copy
import enum
import io
import math
import os
import pickle
import struct
import sys
import threading
import zipfile

import numpy as np
import pytest

import axle
import axle.nn as nn
import axle.nn.functional as F
from axle import serialization

HERE = __name__  # the module the classes below are pickled under


# ---------------------------------------------------------------- models (module level: pickled by name)
class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=64):
        super().__init__()
        self.dropout = nn.Dropout(p=0.1)
        position = axle.arange(max_len, dtype=axle.float32).unsqueeze(1)
        div_term = axle.exp(axle.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe = axle.zeros(max_len, d_model)
        pe[:, 0::2] = axle.sin(position * div_term)
        pe[:, 1::2] = axle.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0).transpose(0, 1))

    def forward(self, x):
        return self.dropout(x + self.pe[:x.size(0), :])


class WordModel(nn.Module):
    """word_language_model's RNNModel and TransformerModel in one: an encoder, an LSTM, a Transformer
    encoder, a decoder tied to the encoder, functions and plain values as attributes, buffers."""

    def __init__(self, ntoken=20, ninp=8, nhid=16, nlayers=2):
        super().__init__()
        self.ntoken, self.ninp, self.nhid, self.nlayers = ntoken, ninp, nhid, nlayers
        self.rnn_type, self.model_type, self.src_mask = "LSTM", "Transformer", None
        self.config = {"tied": True, "sizes": (ntoken, ninp), "names": ["a", "b"], "rate": 0.25}
        self.drop = nn.Dropout(0.5)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.pos_encoder = PositionalEncoding(ninp)
        self.rnn = nn.LSTM(ninp, ninp, nlayers, dropout=0.5)
        layer = nn.TransformerEncoderLayer(ninp, 2, nhid, 0.5)
        self.transformer = nn.TransformerEncoder(layer, nlayers)
        self.decoder = nn.Linear(ninp, ntoken)
        self.decoder.weight = self.encoder.weight  # tied
        self.act = F.relu               # a Python function
        self.gate = F.gelu              # a C++ builtin
        self.register_buffer("steps", axle.zeros((), dtype=axle.int64))
        self.register_buffer("scratch", axle.ones(3), persistent=False)

    def forward(self, tokens):
        emb = self.drop(self.encoder(tokens)) * math.sqrt(self.ninp)
        out, _ = self.rnn(self.pos_encoder(emb))
        out = self.transformer(self.gate(self.act(out)))
        return F.log_softmax(self.decoder(self.drop(out)), dim=-1)


class TransformerModel(nn.Transformer):
    """word_language_model's TransformerModel: a subclass of nn.Transformer."""

    def __init__(self, ntoken=20, ninp=8, nhead=2, nhid=16, nlayers=1):
        super().__init__(d_model=ninp, nhead=nhead, dim_feedforward=nhid, num_encoder_layers=nlayers,
                         num_decoder_layers=1)
        self.input_emb = nn.Embedding(ntoken, ninp)
        self.pos_encoder = PositionalEncoding(ninp)
        self.ninp = ninp
        self.decoder = nn.Linear(ninp, ntoken)

    def forward(self, src):
        src = self.pos_encoder(self.input_emb(src) * math.sqrt(self.ninp))
        return F.log_softmax(self.decoder(self.encoder(src)), dim=-1)


LAYERS = [nn.modules.linear.Linear, nn.modules.sparse.Embedding, nn.modules.dropout.Dropout, nn.modules.rnn.LSTM,
          nn.modules.activation.MultiheadAttention, nn.modules.linear.NonDynamicallyQuantizableLinear,
          nn.modules.transformer.TransformerEncoder, nn.modules.transformer.TransformerEncoderLayer,
          nn.modules.container.ModuleList, nn.modules.normalization.LayerNorm, F.relu, F.gelu]
WORD_MODEL = [WordModel, PositionalEncoding] + LAYERS


class Color(enum.Enum):
    RED = 1
    BLUE = 2


class Slotted:
    __slots__ = ("a", "b")


class WithSetstate:
    def __init__(self):
        self.value = 1

    def __getstate__(self):
        return {"packed": self.value}

    def __setstate__(self, state):
        self.value = state["packed"] * 10


def make_pair(a, b):
    return ("made", a, b)


class ByFactory:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def __reduce__(self):
        return (make_pair, (self.a, self.b))


class Holder(nn.Module):
    """A module holding anything (for the tests that put one object in a model)."""

    def __init__(self, thing=None):
        super().__init__()
        self.thing = thing
        self.lin = nn.Linear(2, 2)

    def forward(self, x):
        return self.lin(x)


def saved(obj):
    buf = io.BytesIO()
    axle.save(obj, buf)
    return buf.getvalue()


def loaded(data, allowed):
    with serialization.safe_globals(allowed):
        return axle.load(io.BytesIO(data))


@pytest.fixture(autouse=True)
def no_process_globals():
    serialization.clear_safe_globals()
    yield
    serialization.clear_safe_globals()


# ---------------------------------------------------------------- round trips
def test_word_language_model_round_trip():
    axle.manual_seed(0)
    model = WordModel().eval()
    tokens = axle.tensor([[1, 2], [3, 4], [5, 6], [7, 8]])
    want = model(tokens)
    with serialization.safe_globals(WORD_MODEL):
        back = loaded(saved(model), [])  # nested blocks add up
    assert type(back) is WordModel and not back.training
    assert back.decoder.weight is back.encoder.weight  # still tied: one Parameter
    assert isinstance(back.decoder.weight, nn.Parameter) and back.decoder.weight.requires_grad
    assert back.act is F.relu and back.gate is F.gelu
    assert back.config == model.config and back.rnn_type == "LSTM" and back.src_mask is None
    assert back.steps.dtype is axle.int64 and back.scratch.tolist() == [1.0, 1.0, 1.0]
    assert "scratch" in back._non_persistent_buffers_set
    assert type(back.transformer.layers[0].self_attn) is nn.MultiheadAttention
    assert [n for n, _ in back.named_parameters()] == [n for n, _ in model.named_parameters()]
    for (n, p), (_, q) in zip(back.state_dict().items(), model.state_dict().items()):
        assert p.tolist() == q.tolist(), n
    np.testing.assert_array_equal(back(tokens).numpy(), want.numpy())
    # The loaded model trains: its parameters are leaves that get gradients.
    back.train()
    back(tokens).sum().backward()
    assert back.encoder.weight.grad is not None and back.rnn.weight_ih_l0.grad is not None


def test_transformer_subclass_round_trip():
    axle.manual_seed(1)
    model = TransformerModel().eval()
    src = axle.tensor([[1, 2], [3, 4], [5, 6]])
    allowed = [TransformerModel, PositionalEncoding, nn.TransformerDecoder, nn.TransformerDecoderLayer] + LAYERS
    back = loaded(saved(model), allowed)
    np.testing.assert_array_equal(back(src).numpy(), model(src).numpy())


def test_the_file_is_torchs_format_with_parameters_as_torch_writes_them(tmp_path):
    model = WordModel()
    axle.save(model, tmp_path / "m.pt")
    with zipfile.ZipFile(tmp_path / "m.pt") as z:
        data = z.read("archive/data.pkl")
        records = [n for n in z.namelist() if n.startswith("archive/data/")]
    assert data.startswith(b"\x80\x02")
    assert b"c%s\nWordModel\n" % HERE.encode() in data
    assert b"caxle.nn.modules.rnn\nLSTM\n" in data and b"caxle.nn.functional\nrelu\n" in data
    assert b"ctorch._utils\n_rebuild_parameter\n" in data and b"ctorch._utils\n_rebuild_tensor_v2\n" in data
    # One record per storage: the tied weight once, every parameter and buffer once.
    tensors = {id(t) for t in list(model.parameters()) + list(model.buffers())}
    assert len(records) == len(tensors)
    with serialization.safe_globals(WORD_MODEL):
        assert type(axle.load(tmp_path / "m.pt")) is WordModel


def test_functions_enums_slots_setstate_and_factories():
    h = Holder({"color": Color.BLUE, "fn": make_pair, "cls": Slotted, "od": collections.OrderedDict(a=1)})
    slotted = Slotted()
    slotted.a, slotted.b = 1, [2]
    h.slotted, h.custom, h.factory = slotted, WithSetstate(), ByFactory(3, 4)
    back = loaded(saved(h), [Holder, nn.Linear, Color, make_pair, Slotted, WithSetstate])
    assert back.thing["color"] is Color.BLUE and back.thing["fn"] is make_pair and back.thing["cls"] is Slotted
    assert back.slotted.a == 1 and back.slotted.b == [2]
    assert back.custom.value == 10  # its own __setstate__ ran
    assert back.factory == ("made", 3, 4)  # an allowed function is called by REDUCE


def test_shared_and_cyclic_objects():
    a = Holder()
    b = Holder(a)
    a.thing = b  # a cycle through plain attributes
    pair = [a, b, a.lin]
    back = loaded(saved(pair), [Holder, nn.Linear])
    assert back[0].thing is back[1] and back[1].thing is back[0] and back[2] is back[0].lin
    # A tuple reached again through the state of an object inside it (Python's POP / GET form).
    c = Holder()
    t = (c, 1, 2, 3, 4)
    c.thing = t
    small = (Holder(),)
    small[0].thing = small
    back_t, back_small = loaded(saved([t, small]), [Holder, nn.Linear])
    assert back_t[0].thing is back_t and back_t[1:] == (1, 2, 3, 4)
    assert back_small[0].thing is back_small


def test_plain_checkpoints_keep_their_form():
    """What torch.load reads stays as it was: an op's named result is a tuple; a namedtuple of one's
    own is pickled by its class."""
    Point = collections.namedtuple("Point", "x y")
    globals()["Point"] = Point
    Point.__module__ = HERE
    try:
        data = saved({"max": axle.max(axle.tensor([[1.0, 5.0]]), 1), "p": Point(1, 2)})
        back = loaded(data, [Point])
    finally:
        del globals()["Point"]
    assert type(back["max"]) is tuple and back["max"][0].tolist() == [5.0]
    assert type(back["p"]) is Point and back["p"] == (1, 2)


def test_map_location_and_a_module_inside_a_dict():
    model = Holder()
    ckpt = {"model": model, "epoch": 3, "optim": {"lr": 0.1}}
    back = loaded(saved(ckpt), [Holder, nn.Linear])
    assert back["epoch"] == 3 and back["model"].lin.weight.tolist() == model.lin.weight.tolist()
    with serialization.safe_globals([Holder, nn.Linear]):
        again = axle.load(io.BytesIO(saved(ckpt)), map_location="cpu")
    assert again["model"].lin.bias.tolist() == model.lin.bias.tolist()


# ---------------------------------------------------------------- the allow-list API
def test_load_without_the_classes_names_the_first_one():
    data = saved(WordModel())
    with pytest.raises(axle.ValueError, match=r"Unsupported global: GLOBAL %s\.WordModel was not an allowed global"
                       % HERE):
        axle.load(io.BytesIO(data))
    with pytest.raises(axle.ValueError, match=r"add_safe_globals\(\[Dropout\]\)"):
        loaded(data, [WordModel])  # the next one it meets
    with pytest.raises(axle.ValueError, match=r"GLOBAL axle\.nn\.functional\.gelu"):
        loaded(data, [c for c in WORD_MODEL if c is not F.gelu])


def test_add_get_clear_and_the_context_manager():
    assert serialization.get_safe_globals() == []
    serialization.add_safe_globals([Holder])
    serialization.add_safe_globals([Holder, nn.Linear])  # no duplicates
    assert serialization.get_safe_globals() == [Holder, nn.Linear]
    data = saved(Holder())
    assert type(axle.load(io.BytesIO(data))) is Holder
    with serialization.safe_globals([Color]) as block:
        assert serialization.get_safe_globals() == [Holder, nn.Linear, Color]
        assert block.safe_globals == [Color]
    assert serialization.get_safe_globals() == [Holder, nn.Linear]
    serialization.clear_safe_globals()
    assert serialization.get_safe_globals() == []
    with pytest.raises(axle.ValueError, match="Holder"):
        axle.load(io.BytesIO(data))
    # The axle names torch's are at: axle.serialization as an attribute, as torch.serialization.
    assert axle.serialization is serialization
    for name in ("add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals"):
        assert name in serialization.__all__


def test_safe_globals_is_per_thread():
    data = saved(Holder())
    seen = {}

    def other():
        try:
            axle.load(io.BytesIO(data))
            seen["other"] = "loaded"
        except axle.ValueError:
            seen["other"] = "refused"

    with serialization.safe_globals([Holder, nn.Linear]):
        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert type(axle.load(io.BytesIO(data))) is Holder
    assert seen["other"] == "refused"


def test_bad_entries_are_type_errors():
    with pytest.raises(axle.TypeError, match="list"):
        serialization.add_safe_globals(Holder)
    with pytest.raises(axle.TypeError, match="not a class or function"):
        serialization.add_safe_globals([lambda: 0])
    with pytest.raises(axle.TypeError, match="not a class or function"):
        serialization.safe_globals(["os.system"])
    with pytest.raises(axle.TypeError, match="module.qualname"):
        serialization.add_safe_globals([(Holder, 3)])


def rewritten(data, old, new):
    """The checkpoint data with old replaced by new in its data.pkl."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            raw = src.read(info)
            dst.writestr(info.filename, raw.replace(old, new) if info.filename.endswith("data.pkl") else raw)
    return out.getvalue()


def test_an_object_under_another_name_by_a_pair():
    data = rewritten(saved(Holder()), b"c%s\nHolder\n" % HERE.encode(), b"cold.place\nHolder\n")
    with pytest.raises(axle.ValueError, match=r"old\.place\.Holder"):
        loaded(data, [Holder, nn.Linear])
    assert type(loaded(data, [(Holder, "old.place.Holder"), nn.Linear])) is Holder


# ---------------------------------------------------------------- whole models saved by torch
@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def test_a_torch_saved_sequential_loads_into_axle_modules(torch, tmp_path):
    torch.manual_seed(0)
    tm = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.ReLU(), torch.nn.LayerNorm(6), torch.nn.Linear(6, 3))
    torch.save(tm, tmp_path / "seq.pt")
    with pytest.raises(axle.ValueError, match=r"GLOBAL torch\.nn\.modules\.container\.Sequential.*allow "
                                              r"axle\.nn\.modules\.container\.Sequential"):
        axle.load(tmp_path / "seq.pt")
    with serialization.safe_globals([nn.Sequential, nn.Linear, nn.ReLU]):
        with pytest.raises(axle.ValueError, match=r"torch\.nn\.modules\.normalization\.LayerNorm"):
            axle.load(tmp_path / "seq.pt")
    with serialization.safe_globals([nn.Sequential, nn.Linear, nn.ReLU, nn.LayerNorm]):
        am = axle.load(tmp_path / "seq.pt")
    assert type(am) is nn.Sequential and [type(m) for m in am] == [nn.Linear, nn.ReLU, nn.LayerNorm, nn.Linear]
    assert am[2].normalized_shape == (6,) and isinstance(am[0].weight, nn.Parameter)
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    with torch.no_grad():
        want = tm(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(am(axle.from_numpy(x)).detach().numpy(), want, rtol=1e-5, atol=1e-6)
    # The axle model works as one made here: a state_dict with torch's keys, training.
    assert list(am.state_dict()) == list(tm.state_dict())
    am(axle.from_numpy(x)).sum().backward()
    assert am[0].weight.grad is not None


def test_torch_saved_lstm_and_transformer_encoder(torch, tmp_path):
    torch.manual_seed(0)
    x = np.random.default_rng(1).standard_normal((5, 2, 8)).astype(np.float32)
    gelu_layer = torch.nn.TransformerEncoderLayer(8, 2, 16, activation="gelu")  # torch._C._nn.gelu
    for tm in (torch.nn.LSTM(8, 4, 2), torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16), 2),
               gelu_layer):
        tm.eval()
        torch.save(tm, tmp_path / "t.pt")
        with serialization.safe_globals(LAYERS):  # MultiheadAttention: torch's activation, axle's re-export
            am = axle.load(tmp_path / "t.pt")
        with torch.no_grad():
            want = tm(torch.from_numpy(x))
        got = am(axle.from_numpy(x))
        want, got = (want[0], got[0]) if isinstance(want, tuple) else (want, got)
        np.testing.assert_allclose(got.detach().numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    assert am.activation is F.gelu


def test_a_torch_name_means_only_axles_object_at_the_same_path(torch, tmp_path):
    torch.save(torch.nn.Linear(2, 2), tmp_path / "lin.pt")

    class Linear(nn.Linear):  # same qualname, another module path
        pass

    Linear.__qualname__ = "Linear"
    with pytest.raises(axle.ValueError, match=r"torch\.nn\.modules\.linear\.Linear"):
        loaded((tmp_path / "lin.pt").read_bytes(), [(Linear, "elsewhere.Linear")])
    assert type(loaded((tmp_path / "lin.pt").read_bytes(), [nn.Linear])) is nn.Linear


# ---------------------------------------------------------------- copy and Python's pickle
def test_modules_copy_and_pickle():
    axle.manual_seed(2)
    model = WordModel().eval()
    tokens = axle.tensor([[1], [2], [3]])
    want = model(tokens).numpy()
    copied = copy.deepcopy(model)
    assert copied.gate is F.gelu
    # Python's pickle cannot name a C++ builtin function (F.gelu: pybind11 gives it no module);
    # axle.save names it by where axle.nn.functional holds it. The rest pickles as torch's.
    with pytest.raises(TypeError):
        pickle.dumps(F.gelu)
    model.gate = F.relu
    want = model(tokens).numpy()
    for other in (copied, pickle.loads(pickle.dumps(model))):
        other.gate = F.relu
        assert other.decoder.weight is other.encoder.weight and other.decoder.weight is not model.encoder.weight
        np.testing.assert_array_equal(other(tokens).numpy(), want)
    shallow = copy.copy(model)
    assert shallow.encoder is model.encoder and shallow._parameters is model._parameters


def hook(module, inputs, output):
    return None


def test_hooks_and_their_handles_pickle():
    model = Holder()
    handle = model.register_forward_hook(hook)
    back, handle_back = pickle.loads(pickle.dumps((model, handle)))
    assert list(back._forward_hooks.values()) == [hook]
    handle_back.remove()
    assert not back._forward_hooks and list(model._forward_hooks.values()) == [hook]
    again = loaded(saved(model), [Holder, nn.Linear, hook])
    assert list(again._forward_hooks.values()) == [hook]


def test_an_old_module_state_gets_defaults():
    m = Holder.__new__(Holder)
    m.__setstate__({"_parameters": collections.OrderedDict(), "_modules": collections.OrderedDict(), "thing": 1})
    assert m.training is True and m._forward_hooks == {} and m._non_persistent_buffers_set == set()


# ---------------------------------------------------------------- what save refuses
def local_class():
    class Local:
        pass

    return Local()


@pytest.mark.parametrize("thing, match", [
    (lambda x: x, r"function %s\.<lambda>: .* not found under its own .*\(at obj\.thing\)" % HERE),
    (local_class(), r"class %s\.local_class\.<locals>\.Local: .*\(at obj\.thing\)" % HERE),
    (Holder().forward, r"bound method Holder\.forward: .*\(at obj\.thing\)"),
    (threading.Lock(), r"lock"),
    (sys, r"module"),
    ({"deep": [1, len]}, r"built-in function len: .*\(at obj\.thing\['deep'\]\[1\]\)"),
])
def test_unsavable_attributes_are_type_errors_naming_where(thing, match):
    with pytest.raises(axle.TypeError, match=match):
        saved(Holder(thing))


# ---------------------------------------------------------------- malicious files
def s(text):
    raw = text.encode()
    return b"X" + struct.pack("<I", len(raw)) + raw


def g(module, name):
    return b"c" + module.encode() + b"\n" + name.encode() + b"\n"


def i_(v):
    return b"J" + struct.pack("<i", v)


def new(cls_module, cls_name):
    return g(cls_module, cls_name) + b")\x81"  # NEWOBJ with no arguments


def checkpoint(data_pkl):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("archive/data.pkl", b"\x80\x02" + data_pkl + b".")
        z.writestr("archive/version", b"3\n")
    return buf.getvalue()


class Trap:
    """An allowed class whose methods leave a mark: loading must call none of them."""

    marker = None

    def __init__(self, *args):
        Trap.touch("__init__")

    @staticmethod
    def touch(what):
        if Trap.marker is not None:
            with open(Trap.marker, "a") as f:
                f.write(what + "\n")

    def __call__(self, *args):
        Trap.touch("__call__")

    def method(self):
        Trap.touch("method")

    def __setattr__(self, name, value):
        Trap.touch("__setattr__")
        object.__setattr__(self, name, value)

    @property
    def prop(self):
        return 1

    @prop.setter
    def prop(self, value):
        Trap.touch("prop.setter")


class TrapDict(dict):
    def __setitem__(self, key, value):
        Trap.touch("__setitem__")


class TrapList(list):
    def append(self, value):
        Trap.touch("append")

    def extend(self, values):
        Trap.touch("extend")


@pytest.fixture
def marker(tmp_path):
    m = tmp_path / "PWNED"
    Trap.marker = str(m)
    yield m
    Trap.marker = None
    assert not m.exists(), "code ran: " + m.read_text()


class Evil:
    def __init__(self, path):
        self.cmd = "touch %s" % path

    def __reduce__(self):
        return (os.system, (self.cmd,))


OS_SYSTEM = (g("os", "system") + b"(" + s("touch /nonexistent/x") + b"tR")
TRAP = [Trap, TrapDict, TrapList, make_pair, Color]


@pytest.mark.parametrize("body, match", [
    # os.system through an allowed class's REDUCE arguments, NEWOBJ arguments, a factory's arguments
    (g(HERE, "Trap") + b"(" + OS_SYSTEM + b"tR", r"os\.system.*not allowed"),
    (g(HERE, "Trap") + b"(" + g("os", "system") + b"t\x81", r"os\.system.*not allowed"),
    (g(HERE, "make_pair") + b"(" + g("posix", "system") + s("x") + b"tR", r"posix\.system.*not allowed"),
    # ... through BUILD state, as a value or as the state itself
    (new(HERE, "Trap") + b"}" + s("cmd") + OS_SYSTEM + b"sb", r"os\.system.*not allowed"),
    (new(HERE, "Trap") + OS_SYSTEM + b"b", r"os\.system.*not allowed"),
    # ... through copyreg helpers
    (g("copyreg", "__newobj__") + b"(" + g("os", "system") + b"tR", r"os\.system.*not allowed"),
    (g("copy_reg", "_reconstructor") + b"(" + g("subprocess", "Popen") + g("__builtin__", "object") + b"NtR",
     r"subprocess\.Popen.*not allowed"),
    # REDUCE may call only allowed classes and functions: not an instance (its __call__), not a method
    (new(HERE, "Trap") + b")R", r"REDUCE calls .*Trap object.*not an allowed callable"),
    (g("builtins", "getattr") + b"(" + new(HERE, "Trap") + s("method") + b"tR", r"getattr is only allowed to name a "
                                                                              r"member of an allowed Enum"),
    (g("builtins", "getattr") + b"(" + g(HERE, "Color") + s("__class__") + b"tR", "member of an allowed Enum"),
    # NEWOBJ and the copyreg helpers make only allowed classes
    (g("collections", "OrderedDict") + b")\x81", r"NEWOBJ makes an instance of collections\.OrderedDict, which is "
                                                  r"not an allowed class"),
    (g(HERE, "make_pair") + b")\x81", r"NEWOBJ makes an instance of .*make_pair.*not an allowed class"),
    (g("copyreg", "__newobj__") + b"(" + g("builtins", "object") + b"tR", "not an allowed class"),
    (g("copyreg", "_reconstructor") + b"(" + g(HERE, "Trap") + g(HERE, "TrapDict") + b"NtR",
     "only allowed with base builtins.object"),
    (g("copyreg", "__newobj_ex__") + b"(" + g(HERE, "Trap") + b")" + b"}" + i_(1) + i_(2) + b"stR",
     "keyword arguments .* must be a dict of str"),
    (g("builtins", "object") + b")R", "cannot be called"),
    # BUILD: no dunder names, no hiding methods, nothing on classes, functions or markers
    (new(HERE, "Trap") + b"}" + s("__class__") + g(HERE, "TrapDict") + b"sb", "__class__"),
    (new(HERE, "Trap") + b"}" + s("__dict__") + b"}sb", "__dict__"),
    (new(HERE, "Trap") + b"}" + s("method") + g(HERE, "make_pair") + b"sb", "would replace Trap.method"),
    (new(HERE, "Trap") + b"}" + s("__setattr__") + b"Nsb", "__setattr__"),
    (new(HERE, "Trap") + b"}" + i_(1) + b"Nsb", "not a string"),
    (new(HERE, "Trap") + b"N}" + s("prop") + i_(1) + b"s\x86b", "'prop' in the slot state is not a slot"),
    (new(HERE, "Trap") + b"]b", "state of a Trap must be a dict"),
    (g(HERE, "Trap") + b"}" + s("marker") + s("x") + b"sb", "BUILD on a type"),
    (g(HERE, "make_pair") + b"}b", "BUILD on a function"),
    (g("collections", "OrderedDict") + b"}b", "BUILD on a _Global"),
    # an allowed class's instance is not a list or dict to fill unless it is one
    (new(HERE, "Trap") + i_(1) + b"a", "APPEND on a Trap"),
    (new(HERE, "Trap") + i_(1) + i_(2) + b"s", "SETITEM on a Trap"),
    # INST and OBJ stay refused (they import and call what they name)
    (b"(" + s("echo") + b"ios\nsystem\n", "INST"),
    (b"(" + g(HERE, "Trap") + b"o", "OBJ"),
])
def test_malicious_pickles_are_refused_and_run_nothing(marker, body, match):
    with pytest.raises(axle.ValueError, match=match):
        loaded(checkpoint(body), TRAP)


def test_allowed_subclasses_of_dict_and_list_are_filled_by_the_base_class(marker):
    body = (new(HERE, "TrapDict") + s("k") + i_(1) + b"s" + b"(" + s("j") + i_(2) + b"u"
            + new(HERE, "TrapList") + i_(3) + b"a(" + i_(4) + i_(5) + b"e" + b"\x86")
    d, lst = loaded(checkpoint(body), TRAP)
    assert type(d) is TrapDict and dict(d) == {"k": 1, "j": 2}
    assert type(lst) is TrapList and list(lst) == [3, 4, 5]


def test_allowed_classes_are_made_without_init_or_setattr(marker):
    body = new(HERE, "Trap") + b"}" + s("cmd") + s("data") + b"sb"
    t = loaded(checkpoint(body), TRAP)
    assert type(t) is Trap and t.__dict__ == {"cmd": "data"}


def test_nothing_named_is_imported():
    name = "axle_test_never_imported_module"
    for body in (new(name, "Thing"), g(name, "f") + b")R", s(name) + s("Thing") + b"\x93"):
        with pytest.raises(axle.ValueError, match=name):
            loaded(checkpoint(body), TRAP)
    assert name not in sys.modules


def test_a_model_holding_an_os_system_payload_saves_but_never_runs(tmp_path):
    path = tmp_path / "PWNED"
    data = saved(Holder(Evil(path)))
    assert b"system" in data
    for allowed in ([Holder, nn.Linear], [Holder, nn.Linear, Evil]):
        with pytest.raises(axle.ValueError, match=r"(posix|os)\.system.*not allowed"):
            loaded(data, allowed)
    assert not path.exists()


def test_python_pickles_of_allowed_classes_load(marker):
    """What Python's own pickler writes for allowed classes (protocols 0, 1 use copy_reg._reconstructor,
    2 NEWOBJ, 4 STACK_GLOBAL and NEWOBJ_EX-free frames), as data.pkl."""
    for protocol in (0, 1, 2, 4):
        obj = {"w": WithSetstate(), "c": Color.RED, "f": make_pair, "h": Holder.__new__(Holder)}
        obj["h"].__dict__.update(value=7)
        if protocol >= 2:  # slots need protocol 2 without a __getstate__
            obj["s"] = Slotted()
            obj["s"].a = 5
        data = pickle.dumps(obj, protocol=protocol)
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr("archive/data.pkl", data)
            z.writestr("archive/version", b"3\n")
        back = loaded(buf.getvalue(), [WithSetstate, Slotted, Color, make_pair, Holder])
        assert back["w"].value == 10 and back["c"] is Color.RED and back["f"] is make_pair, protocol
        assert type(back["h"]) is Holder and back["h"].value == 7 and back["h"].training  # Module's defaults
        assert protocol < 2 or back["s"].a == 5
