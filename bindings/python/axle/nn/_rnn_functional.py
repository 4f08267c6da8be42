"""torch's flat-weight recurrent functions (torch.lstm, torch.gru, torch.rnn_tanh, torch.rnn_relu:
aten's `.input` forms) and the single-step cells (torch.lstm_cell, gru_cell, rnn_tanh_cell,
rnn_relu_cell), over the same steps as nn.LSTM / nn.GRU / nn.RNN (modules/rnn.py).

params is the flat list nn.LSTM._flat_weights holds: per layer and direction w_ih, w_hh, then
b_ih, b_hh when has_biases, then w_hr for an LSTM with projections (h's size differing from c's).
Both of aten's forms are taken: (input, hx, params, has_biases, num_layers, dropout, train,
bidirectional, batch_first) and the packed one (data, batch_sizes, hx, params, has_biases,
num_layers, dropout, train, bidirectional), data holding each step's rows of the sequences still
running (batch_sizes non-increasing), as a PackedSequence's."""
import axle as _axle

from .modules.rnn import _gru_step, _lstm_step, _rnn_step, _stacked

__all__ = ["lstm", "gru", "rnn_tanh", "rnn_relu", "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"]


def _split_params(params, per, count, has_biases, proj):
    weights = []
    for k in range(count):
        group = params[k * per:(k + 1) * per]
        b_ih, b_hh = (group[2], group[3]) if has_biases else (None, None)
        weights.append((group[0], group[1], b_ih, b_hh, group[-1] if proj else None))
    return weights


def _prepare(mode, h0, c0, params, has_biases, num_layers, bidirectional):
    directions = 2 if bidirectional else 1
    proj = mode == "LSTM" and h0.shape[-1] != c0.shape[-1]
    per = 2 + 2 * bool(has_biases) + int(proj)
    params = list(params)
    if len(params) != num_layers * directions * per:
        raise _axle.ValueError("got an incorrect number of RNN parameters")
    if h0.dim() != 3 or h0.shape[0] < num_layers * directions:
        raise _axle.ShapeError("Expected more hidden states in stacked_rnn")
    return directions, _split_params(params, per, num_layers * directions, has_biases, proj)


def _layers(mode, input, h0, c0, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    if input.dim() != 3:
        raise _axle.ShapeError("{}(): input must be 3-D (seq, batch, feature), got {}-D".format(mode.lower(),
                                                                                                input.dim()))
    directions, weights = _prepare(mode, h0, c0, params, has_biases, num_layers, bidirectional)
    x = input.transpose(0, 1) if batch_first else input
    output, h_n, c_n = _stacked(mode, x, h0, c0, weights, num_layers, directions, dropout, train)
    return (output.transpose(0, 1) if batch_first else output), h_n, c_n


def _step(mode, x, h, c, w):
    w_ih, w_hh, b_ih, b_hh, w_hr = w
    if mode == "LSTM":
        return _lstm_step(x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr)
    if mode == "GRU":
        return _gru_step(x, h, w_ih, w_hh, b_ih, b_hh), None
    return _rnn_step(x, h, w_ih, w_hh, b_ih, b_hh, "tanh" if mode == "RNN_TANH" else "relu"), None


def _packed_direction(mode, data, sizes, h0, c0, w, reverse):
    """One layer and direction over packed data: the per-step outputs (in time order) and the final
    states of every sequence. Going forward, a sequence that ends keeps its last state; going backward,
    one that starts takes its initial state from h0 / c0."""
    lstm = mode == "LSTM"
    starts = [sum(sizes[:t]) for t in range(len(sizes))]
    outs = [None] * len(sizes)
    if not reverse:
        h, c = h0, c0
        for t, bs in enumerate(sizes):
            hn, cn = _step(mode, data.narrow(0, starts[t], bs), h.narrow(0, 0, bs), c.narrow(0, 0, bs) if lstm
                           else None, w)
            outs[t] = hn
            rest = h.shape[0] - bs
            h = _axle.cat([hn, h.narrow(0, bs, rest)]) if rest else hn
            if lstm:
                c = _axle.cat([cn, c.narrow(0, bs, rest)]) if rest else cn
        return outs, h, c
    h = h0.narrow(0, 0, 0)
    c = c0.narrow(0, 0, 0) if lstm else None
    for t in range(len(sizes) - 1, -1, -1):
        bs, have = sizes[t], h.shape[0]
        if bs > have:  # sequences whose last step is t start here
            h = _axle.cat([h, h0.narrow(0, have, bs - have)])
            if lstm:
                c = _axle.cat([c, c0.narrow(0, have, bs - have)])
        h, c = _step(mode, data.narrow(0, starts[t], bs), h, c, w)
        outs[t] = h
    return outs, h, c


def _packed(mode, data, batch_sizes, h0, c0, params, has_biases, num_layers, dropout, train, bidirectional):
    if data.dim() != 2:
        raise _axle.ShapeError("{}(): packed data must be 2-D (steps, feature), got {}-D".format(mode.lower(),
                                                                                                 data.dim()))
    directions, weights = _prepare(mode, h0, c0, params, has_biases, num_layers, bidirectional)
    sizes = [int(v) for v in batch_sizes.tolist()]
    if sum(sizes) != data.shape[0] or any(b < a for a, b in zip(sizes[1:], sizes)) or (sizes and sizes[-1] <= 0):
        raise _axle.ValueError("{}(): batch_sizes {} must be positive, non-increasing and sum to data's {} rows"
                               .format(mode.lower(), sizes, data.shape[0]))
    lstm = mode == "LSTM"
    layer_input = data
    final_h, final_c = [], []
    for layer in range(num_layers):
        per_dir = []
        for direction in range(directions):
            k = layer * directions + direction
            outs, h, c = _packed_direction(mode, layer_input, sizes, h0[k], c0[k] if lstm else None, weights[k],
                                           direction == 1)
            per_dir.append(outs)
            final_h.append(h)
            if lstm:
                final_c.append(c)
        steps = [per_dir[0][t] if directions == 1 else _axle.cat([per_dir[0][t], per_dir[1][t]], -1)
                 for t in range(len(sizes))]
        layer_input = _axle.cat(steps) if steps else data.narrow(1, 0, 0)
        if dropout and train and layer < num_layers - 1:
            from . import functional as F
            layer_input = F.dropout(layer_input, dropout, True)
    return layer_input, _axle.stack(final_h), _axle.stack(final_c) if lstm else None


def lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first=None):
    """(output, h_n, c_n) of a stacked LSTM; hx = (h_0, c_0), each (layers * directions, batch, size).
    The packed form: lstm(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
    bidirectional)."""
    if isinstance(hx, _axle.Tensor):  # (data, batch_sizes, hx, params, has_biases, layers, dropout, train, bidir)
        data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional = (
            input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first)
        if len(hx) != 2:
            raise _axle.TypeError("lstm(): hx must be a sequence (h_0, c_0) of two Tensors")
        return _packed("LSTM", data, batch_sizes, hx[0], hx[1], params, has_biases, num_layers, dropout, train,
                       bidirectional)
    if len(hx) != 2 or batch_first is None:
        raise _axle.TypeError("lstm(): expected (input, hx=(h_0, c_0), params, has_biases, num_layers, dropout, "
                              "train, bidirectional, batch_first)")
    return _layers("LSTM", input, hx[0], hx[1], params, has_biases, num_layers, dropout, train, bidirectional,
                   batch_first)


def _single_state(mode):
    def fn(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first=None):
        if isinstance(params, _axle.Tensor):  # (data, batch_sizes, hx, params, ...)
            data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional = (
                input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first)
            output, h_n, _ = _packed(mode, data, batch_sizes, hx, None, params, has_biases, num_layers, dropout,
                                     train, bidirectional)
            return output, h_n
        if batch_first is None:
            raise _axle.TypeError("{}(): expected (input, hx, params, has_biases, num_layers, dropout, train, "
                                  "bidirectional, batch_first)".format(mode.lower()))
        output, h_n, _ = _layers(mode, input, hx, None, params, has_biases, num_layers, dropout, train,
                                 bidirectional, batch_first)
        return output, h_n

    fn.__name__ = fn.__qualname__ = mode.lower()
    fn.__doc__ = ("(output, h_n) of a stacked {} over flat params (see lstm); also the packed form (data, "
                  "batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional).".format(mode))
    return fn


gru = _single_state("GRU")
rnn_tanh = _single_state("RNN_TANH")
rnn_relu = _single_state("RNN_RELU")


def _check_cell(input, hidden, w_ih, w_hh):
    if input.dim() < 2 or any(h.dim() < 2 for h in hidden):
        raise _axle.IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if input.shape[1] != w_ih.shape[1]:
        raise _axle.ShapeError("input has inconsistent input_size: got {} expected {}".format(input.shape[1],
                                                                                           w_ih.shape[1]))
    for h in hidden:  # torch's messages name every state hidden0
        if input.shape[0] != h.shape[0]:
            raise _axle.ShapeError("Input batch size {} doesn't match hidden0 batch size {}".format(
                input.shape[0], h.shape[0]))
        if h.shape[1] != w_hh.shape[1]:
            raise _axle.ShapeError("hidden0 has inconsistent hidden_size: got {}, expected {}".format(
                h.shape[1], w_hh.shape[1]))


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step: (h_1, c_1) from input (batch, in) and hx = (h_0, c_0)."""
    _check_cell(input, list(hx), w_ih, w_hh)
    return _lstm_step(input, hx[0], hx[1], w_ih, w_hh, b_ih, b_hh)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step: h_1 from input (batch, in) and hx (batch, hidden)."""
    _check_cell(input, [hx], w_ih, w_hh)
    return _gru_step(input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman step: tanh(x w_ih^T + b_ih + h w_hh^T + b_hh)."""
    _check_cell(input, [hx], w_ih, w_hh)
    return _rnn_step(input, hx, w_ih, w_hh, b_ih, b_hh, "tanh")


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman step with relu."""
    _check_cell(input, [hx], w_ih, w_hh)
    return _rnn_step(input, hx, w_ih, w_hh, b_ih, b_hh, "relu")
