"""torch's flat-weight recurrent functions (torch.lstm, torch.gru, torch.rnn_tanh, torch.rnn_relu:
aten's `.input` forms) and the single-step cells (torch.lstm_cell, gru_cell, rnn_tanh_cell,
rnn_relu_cell), over the same steps as nn.LSTM / nn.GRU / nn.RNN (modules/rnn.py).

params is the flat list nn.LSTM._flat_weights holds: per layer and direction w_ih, w_hh, then
b_ih, b_hh when has_biases, then w_hr for an LSTM with projections (h's size differing from c's).
The packed-sequence `.data` forms (data, batch_sizes, ...) are not provided: axle has no
PackedSequence."""
import axle as _axle

from .modules.rnn import _gru_step, _lstm_step, _rnn_step, _stacked

__all__ = ["lstm", "gru", "rnn_tanh", "rnn_relu", "lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"]


def _layers(mode, input, h0, c0, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    if isinstance(params, _axle.Tensor):
        raise _axle.TypeError("{}(): the packed (data, batch_sizes, ...) form is not supported; expected (input, hx, "
                              "params, has_biases, num_layers, dropout, train, bidirectional, batch_first)".format(
                                  mode.lower()))
    if input.dim() != 3:
        raise _axle.ShapeError("{}(): input must be 3-D (seq, batch, feature), got {}-D".format(mode.lower(),
                                                                                                input.dim()))
    directions = 2 if bidirectional else 1
    proj = mode == "LSTM" and h0.shape[-1] != c0.shape[-1]
    per = 2 + 2 * bool(has_biases) + int(proj)
    params = list(params)
    if len(params) != num_layers * directions * per:
        raise _axle.ValueError("got an incorrect number of RNN parameters")
    if h0.dim() != 3 or h0.shape[0] < num_layers * directions:
        raise _axle.ShapeError("Expected more hidden states in stacked_rnn")
    x = input.transpose(0, 1) if batch_first else input
    weights = []
    for k in range(num_layers * directions):
        group = params[k * per:(k + 1) * per]
        w_ih, w_hh = group[0], group[1]
        b_ih, b_hh = (group[2], group[3]) if has_biases else (None, None)
        weights.append((w_ih, w_hh, b_ih, b_hh, group[-1] if proj else None))
    output, h_n, c_n = _stacked(mode, x, h0, c0, weights, num_layers, directions, dropout, train)
    return (output.transpose(0, 1) if batch_first else output), h_n, c_n


def lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """(output, h_n, c_n) of a stacked LSTM; hx = (h_0, c_0), each (layers * directions, batch, size)."""
    if isinstance(hx, _axle.Tensor) or len(hx) != 2:
        raise _axle.TypeError("lstm(): hx must be a sequence (h_0, c_0) of two Tensors; the packed (data, "
                              "batch_sizes, ...) form is not supported")
    return _layers("LSTM", input, hx[0], hx[1], params, has_biases, num_layers, dropout, train, bidirectional,
                   batch_first)


def _single_state(mode):
    def fn(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
        if not isinstance(hx, _axle.Tensor):
            raise _axle.TypeError("{}(): hx must be a Tensor; the packed (data, batch_sizes, ...) form is not "
                                  "supported".format(mode.lower()))
        output, h_n, _ = _layers(mode, input, hx, None, params, has_biases, num_layers, dropout, train,
                                 bidirectional, batch_first)
        return output, h_n

    fn.__name__ = fn.__qualname__ = mode.lower()
    fn.__doc__ = "(output, h_n) of a stacked {} over flat params (see lstm).".format(mode)
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
