"""axle.nn.utils.rnn (packed sequences) against torch 1.13's torch.nn.utils.rnn:
packing and padding in both layouts, sorted and unsorted batches, the list
helpers, the recurrent modules on packed input (outputs, final states and the
gradients through them), PackedSequence's methods and torch's error messages."""
import numpy as np
import pytest
import torch
from torch.nn.utils import rnn as trnn

import axle
from axle.nn.utils import rnn as arnn


def arrays(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def same(a, t, tol=0.0):
    if t is None:
        assert a is None
        return
    np.testing.assert_allclose(np.asarray(a.detach()), t.detach().numpy(), rtol=tol, atol=tol)


def same_packed(a, t, tol=0.0):
    assert isinstance(a, arnn.PackedSequence)
    same(a.data, t.data, tol)
    assert a.batch_sizes.tolist() == t.batch_sizes.tolist() and a.batch_sizes.dtype == axle.int64
    same(a.sorted_indices, t.sorted_indices)
    same(a.unsorted_indices, t.unsorted_indices)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths,enforce_sorted", [([5, 3, 2], True), ([2, 5, 3, 5], False), ([1], True),
                                                    ([4, 4, 4], True), ([3, 1, 2], False)])
def test_pack_and_pad_round_trip_like_torch(batch_first, lengths, enforce_sorted):
    steps = max(lengths) + 1
    shape = (len(lengths), steps, 2, 3) if batch_first else (steps, len(lengths), 2, 3)
    x = arrays(shape)
    for as_tensor in (False, True):
        lens = torch.tensor(lengths) if as_tensor else lengths
        alens = axle.tensor(lengths) if as_tensor else lengths
        tp = trnn.pack_padded_sequence(torch.tensor(x), lens, batch_first=batch_first, enforce_sorted=enforce_sorted)
        ap = arnn.pack_padded_sequence(axle.tensor(x), alens, batch_first=batch_first, enforce_sorted=enforce_sorted)
        same_packed(ap, tp)
    for kwargs in (dict(), dict(padding_value=-2.5), dict(total_length=steps + 2)):
        tpad, tlen = trnn.pad_packed_sequence(tp, batch_first=batch_first, **kwargs)
        apad, alen = arnn.pad_packed_sequence(ap, batch_first=batch_first, **kwargs)
        same(apad, tpad)
        assert alen.tolist() == tlen.tolist() and alen.dtype == axle.int64


def test_list_helpers_like_torch():
    seqs = [arrays((n, 3), seed=n) for n in (4, 1, 3)]
    tseqs, aseqs = [torch.tensor(s) for s in seqs], [axle.tensor(s) for s in seqs]
    for batch_first in (False, True):
        for value in (0.0, 7.0):
            same(arnn.pad_sequence(aseqs, batch_first, value), trnn.pad_sequence(tseqs, batch_first, value))
    tpacked = trnn.pack_sequence(tseqs, enforce_sorted=False)
    apacked = arnn.pack_sequence(aseqs, enforce_sorted=False)
    same_packed(apacked, tpacked)
    for a, t in zip(arnn.unpack_sequence(apacked), trnn.unpack_sequence(tpacked)):
        same(a, t)
    padded, lengths = arnn.pad_sequence(aseqs), [4, 1, 3]
    for a, s in zip(arnn.unpad_sequence(padded, axle.tensor(lengths)), aseqs):
        same(a, torch.tensor(s.numpy()))
    same(arnn.invert_permutation(axle.tensor([2, 0, 1])), trnn.invert_permutation(torch.tensor([2, 0, 1])))
    assert arnn.invert_permutation(None) is None


@pytest.mark.parametrize("mode,kwargs", [("LSTM", dict(num_layers=2, bidirectional=True)),
                                         ("LSTM", dict(proj_size=3)), ("GRU", dict(num_layers=2)),
                                         ("GRU", dict(bidirectional=True, batch_first=True)),
                                         ("RNN", dict(nonlinearity="relu"))])
@pytest.mark.parametrize("with_hx", [False, True])
def test_modules_on_packed_input_like_torch(mode, kwargs, with_hx):
    torch.manual_seed(3)
    tm = getattr(torch.nn, mode)(4, 5, **kwargs).double()
    am = getattr(axle.nn, mode)(4, 5, **kwargs).double()
    am.load_state_dict({k: axle.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    batch_first = kwargs.get("batch_first", False)
    lengths = [3, 6, 1, 4]
    x = arrays((4, 6, 4) if batch_first else (6, 4, 4), seed=1)
    tx, ax = torch.tensor(x, requires_grad=True), axle.tensor(x, requires_grad=True)
    tp = trnn.pack_padded_sequence(tx, lengths, batch_first=batch_first, enforce_sorted=False)
    ap = arnn.pack_padded_sequence(ax, lengths, batch_first=batch_first, enforce_sorted=False)
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    thx = ahx = None
    if with_hx:
        h = arrays((layers, 4, kwargs.get("proj_size") or 5), seed=2)
        thx, ahx = torch.tensor(h, requires_grad=True), axle.tensor(h, requires_grad=True)
        if mode == "LSTM":
            c = arrays((layers, 4, 5), seed=3)
            thx, ahx = (thx, torch.tensor(c)), (ahx, axle.tensor(c))
    tout, tstate = tm(tp, thx)
    aout, astate = am(ap, ahx)
    same_packed(aout, tout, 1e-12)
    for a, t in zip(astate if mode == "LSTM" else [astate], tstate if mode == "LSTM" else [tstate]):
        same(a, t, 1e-12)
    # Gradients through the padded output and the final hidden state.
    tpad, _ = trnn.pad_packed_sequence(tout, batch_first=batch_first)
    apad, _ = arnn.pad_packed_sequence(aout, batch_first=batch_first)
    weights = arrays(tuple(tpad.shape), seed=4)
    th_n, ah_n = (tstate[0], astate[0]) if mode == "LSTM" else (tstate, astate)
    ((tpad * torch.tensor(weights)).sum() + th_n.sum()).backward()
    ((apad * axle.tensor(weights)).sum() + ah_n.sum()).backward()
    same(ax.grad, tx.grad, 1e-11)
    for (name, ap_), (_, tp_) in zip(am.named_parameters(), tm.named_parameters()):
        np.testing.assert_allclose(np.asarray(ap_.grad), tp_.grad.numpy(), rtol=1e-10, atol=1e-11, err_msg=name)


def test_packed_sequence_methods():
    p = arnn.pack_sequence([axle.ones(3, 2), axle.ones(2, 2)])
    data, batch_sizes, sorted_indices, unsorted_indices = p  # a namedtuple, as torch's
    assert batch_sizes.tolist() == [2, 2, 1] and sorted_indices is None and unsorted_indices is None
    d = p.double()
    assert isinstance(d, arnn.PackedSequence) and d.data.dtype == axle.float64 and d.batch_sizes is p.batch_sizes
    assert p.to(axle.float32) is p and not p.is_cuda
    q = arnn.PackedSequence(p.data, p.batch_sizes, axle.tensor([1, 0]))
    assert q.unsorted_indices.tolist() == [1, 0]


@pytest.mark.parametrize("call", [
    lambda m, x: m.pack_padded_sequence(x, [2, 5, 3]),
    lambda m, x: m.pack_padded_sequence(x, [5, 3, 0]),
    lambda m, x: m.pack_padded_sequence(x, [5, 3]),
])
def test_errors_match_torch(call):
    x = arrays((5, 3, 2))
    with pytest.raises(RuntimeError) as t_err:
        call(trnn, torch.tensor(x))
    with pytest.raises(axle.ValueError) as a_err:
        call(arnn, axle.tensor(x))
    assert str(a_err.value) == str(t_err.value)


def test_errors():
    x = axle.zeros(5, 3, 2)
    with pytest.raises(axle.ValueError, match="1D CPU int64 tensor, but got 2D cpu"):
        arnn.pack_padded_sequence(x, axle.tensor([[5, 3, 2]]))
    with pytest.raises(axle.ValueError, match="a sequence length 6 exceeds the input's 5 steps"):
        arnn.pack_padded_sequence(x, [6, 3, 2])  # torch reads past the input here
    p = arnn.pack_padded_sequence(x, [5, 3, 2])
    with pytest.raises(ValueError) as a_err:
        arnn.pad_packed_sequence(p, total_length=3)
    with pytest.raises(ValueError) as t_err:
        trnn.pad_packed_sequence(trnn.pack_padded_sequence(torch.zeros(5, 3, 2), [5, 3, 2]), total_length=3)
    assert str(a_err.value) == str(t_err.value)
    with pytest.raises(axle.ShapeError, match="sequence 1 has trailing dims"):
        arnn.pad_sequence([axle.zeros(2, 3), axle.zeros(3, 2)])
    with pytest.raises(RuntimeError, match="Expected hidden size"):
        axle.nn.GRU(2, 4)(p, axle.zeros(1, 2, 4))


def test_lengths_dtypes_empty_input_and_copies_like_torch():
    x = arrays((3, 2, 1))
    for dtype in ("int32", "int64"):
        t = trnn.pack_padded_sequence(torch.tensor(x), torch.tensor([3, 1], dtype=getattr(torch, dtype)))
        a = arnn.pack_padded_sequence(axle.tensor(x), axle.tensor([3, 1], dtype=getattr(axle, dtype)))
        same_packed(a, t)
    for call in (lambda m, L: m.pack_sequence([L.ones(0, 2)]), lambda m, L: m.pack_padded_sequence(L.ones(3, 0, 2), [])):
        with pytest.raises(RuntimeError, match="Cannot pack empty tensors"):
            call(trnn, torch)
        with pytest.raises(axle.ValueError, match="Cannot pack empty tensors"):
            call(arnn, axle)
    # pad_sequence writes every sequence in the first one's dtype.
    assert arnn.pad_sequence([axle.ones(2), axle.ones(1, dtype=axle.float64)]).dtype == axle.float32
    assert trnn.pad_sequence([torch.ones(2), torch.ones(1, dtype=torch.float64)]).dtype == torch.float32
    # unpad_sequence returns copies.
    padded = axle.zeros(3, 2)
    first = arnn.unpad_sequence(padded, [3, 1])[0]
    first.fill_(5.0)
    assert float(padded.abs().sum()) == 0.0


def test_cells_check_sizes_with_torch_messages():
    for mode, hx in (("GRUCell", lambda L: L.zeros(3, 4)), ("RNNCell", lambda L: L.zeros(3, 4)),
                     ("LSTMCell", lambda L: (L.zeros(3, 4), L.zeros(3, 4)))):
        cases = [(lambda L: L.zeros(2, 5), lambda L: None), (lambda L: L.zeros(2, 3), hx),
                 (lambda L: L.zeros(2, 3), lambda L: L.zeros(2, 6) if mode != "LSTMCell" else
                  (L.zeros(2, 4), L.zeros(2, 6)))]
        for x, h in cases:
            tm, am = getattr(torch.nn, mode)(3, 4), getattr(axle.nn, mode)(3, 4)
            with pytest.raises(RuntimeError) as t_err:
                tm(x(torch), h(torch))
            with pytest.raises(axle.ShapeError) as a_err:
                am(x(axle), h(axle))
            assert str(a_err.value) == str(t_err.value), mode


@pytest.mark.parametrize("packed", [False, True])
def test_modules_check_initial_states_with_torch_messages(packed):
    # Both paths check h0 and (LSTM) c0 with torch's messages: hidden[0] / hidden[1] for an LSTM.
    for mode, bad in (("LSTM", lambda L: (L.zeros(1, 2, 3), L.zeros(1, 1, 3))),
                      ("LSTM", lambda L: (L.zeros(1, 1, 3), L.zeros(1, 2, 3))),
                      ("GRU", lambda L: L.zeros(1, 2, 3))):
        errors = []
        for L, R in ((torch, trnn), (axle, arnn)):
            m = getattr(L.nn, mode)(2, 3)
            x = L.zeros(4, 1, 2)
            with pytest.raises(RuntimeError) as err:
                m(R.pack_padded_sequence(x, [4]) if packed else x, bad(L))
            errors.append(str(err.value))
        assert errors[0] == errors[1], mode
