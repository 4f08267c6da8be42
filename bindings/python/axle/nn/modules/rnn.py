"""RNN, LSTM, GRU and their cells, with torch's parameters (weight_ih_l{k}[_reverse],
weight_hh_..., bias_ih_..., bias_hh_...; gate order i, f, g, o for the LSTM and
r, z, n for the GRU), options (num_layers, bias, batch_first, dropout between
layers, bidirectional, proj_size for the LSTM) and U(-1/sqrt(hidden),
1/sqrt(hidden)) initialization; a PackedSequence input (nn.utils.rnn) gives a
PackedSequence output. One layer and direction at a time: the input's
projection for all steps in one matrix product, then per step the hidden
state's product and the cell (the LSTM's and the GRU's as one fused op each,
_thnn_fused_lstm_cell / _thnn_fused_gru_cell, with their own backward ops;
the Elman cell's as axle ops, which autograd differentiates)."""
import math

import axle as _axle

from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


def _lstm_gates_step(gates_x, h, c, w_hh, b_ih, b_hh, w_hr=None):
    """One LSTM step from the input's gate projection x W_ih^T: the hidden state's
    product, then the cell as one fused op (_thnn_fused_lstm_cell adds the biases)."""
    h, c, _ = _axle._thnn_fused_lstm_cell(gates_x, F.linear(h, w_hh), c, b_ih, b_hh)
    if w_hr is not None:
        h = F.linear(h, w_hr)
    return h, c


def _lstm_step(x, h, c, w_ih, w_hh, b_ih, b_hh, w_hr=None):
    return _lstm_gates_step(F.linear(x, w_ih), h, c, w_hh, b_ih, b_hh, w_hr)


def _gru_gates_step(gi, h, w_hh, b_ih, b_hh):
    """One GRU step from the input's gate projection gi = x W_ih^T: the hidden state's
    product, then the cell as one fused op (_thnn_fused_gru_cell adds the biases)."""
    return _axle._thnn_fused_gru_cell(gi, F.linear(h, w_hh), h, b_ih, b_hh)[0]


def _gru_step(x, h, w_ih, w_hh, b_ih, b_hh):
    return _gru_gates_step(F.linear(x, w_ih), h, w_hh, b_ih, b_hh)


def _rnn_gates_step(pre_x, h, w_hh, b_hh, nonlinearity):
    """One Elman step from the input's projection x W_ih^T + b_ih."""
    pre = pre_x + F.linear(h, w_hh, b_hh)
    return _axle.tanh(pre) if nonlinearity == "tanh" else F.relu(pre)


def _rnn_step(x, h, w_ih, w_hh, b_ih, b_hh, nonlinearity):
    return _rnn_gates_step(F.linear(x, w_ih, b_ih), h, w_hh, b_hh, nonlinearity)


def _stacked(mode, input, h0, c0, weights, num_layers, directions, dropout, train):
    """The stacked, possibly bidirectional recurrence over a time-major (T, B, F) input: mode LSTM, GRU,
    RNN_TANH or RNN_RELU; weights[layer * directions + direction] = (w_ih, w_hh, b_ih, b_hh, w_hr), any
    of the last three None; dropout between layers when train. Returns (output, h_n, c_n or None)."""
    lstm = mode == "LSTM"
    steps = input.shape[0]
    layer_input = input
    final_h, final_c = [], []
    for layer in range(num_layers):
        outputs = []
        for direction in range(directions):
            k = layer * directions + direction
            w_ih, w_hh, b_ih, b_hh, w_hr = weights[k]
            h, c = h0[k], c0[k] if lstm else None
            order = range(steps - 1, -1, -1) if direction == 1 else range(steps)
            seq = [None] * steps
            # The input's projection for every step at once (one matrix product);
            # the LSTM's and GRU's biases go to their fused cells, the Elman
            # cell's into the product.
            fused = lstm or mode == "GRU"
            xs = F.linear(layer_input, w_ih, None if fused else b_ih).unbind(0) if steps else ()
            for t in order:
                if lstm:
                    h, c = _lstm_gates_step(xs[t], h, c, w_hh, b_ih, b_hh, w_hr)
                elif mode == "GRU":
                    h = _gru_gates_step(xs[t], h, w_hh, b_ih, b_hh)
                else:
                    h = _rnn_gates_step(xs[t], h, w_hh, b_hh, "tanh" if mode == "RNN_TANH" else "relu")
                seq[t] = h
            outputs.append(_axle.stack(seq) if steps else
                           _axle.zeros((0,) + tuple(h.shape), dtype=input.dtype, device=input.device))
            final_h.append(h)
            if lstm:
                final_c.append(c)
        layer_input = outputs[0] if directions == 1 else _axle.cat(outputs, -1)
        if dropout and train and layer < num_layers - 1:
            layer_input = F.dropout(layer_input, dropout, True)
    return layer_input, _axle.stack(final_h), _axle.stack(final_c) if lstm else None


class RNNBase(Module):
    _gates = 1

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        if not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an element "
                             "being zeroed")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        chunks = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
        if mode not in chunks:
            raise ValueError("Unrecognized RNN mode: " + str(mode))
        gate_size = chunks[mode] * hidden_size
        directions = 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        kw = {"device": device, "dtype": dtype or _axle.get_default_dtype()}
        self._flat_weights_names = []
        for layer in range(num_layers):
            for direction in range(directions):
                layer_input = input_size if layer == 0 else real_hidden * directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih", (gate_size, layer_input)), ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes += [("weight_hr", (proj_size, hidden_size))]
                for name, shape in shapes:
                    full = "%s_l%d%s" % (name, layer, suffix)
                    setattr(self, full, Parameter(_axle.empty(shape, **kw)))
                    self._flat_weights_names.append(full)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def flatten_parameters(self):
        """torch packs the weights into one buffer for cuDNN; axle's steps read them where they are."""

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    def _weights(self, layer, direction):
        suffix = "_reverse" if direction == 1 else ""
        get = lambda name: getattr(self, "%s_l%d%s" % (name, layer, suffix), None)  # noqa: E731
        return get("weight_ih"), get("weight_hh"), get("bias_ih"), get("bias_hh"), get("weight_hr")

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _initial_states(self, hx, batch, like, order=None):
        """(h0, c0 or None), each [layers * directions, batch, size]: hx's, checked
        with torch's messages (and reordered along the batch by `order`), or zeros
        of `like`'s dtype and device."""
        lstm = self.mode == "LSTM"
        rows = (2 if self.bidirectional else 1) * self.num_layers
        given = (None, None) if hx is None else tuple(hx) if lstm else (hx, None)
        sizes = (self.proj_size if self.proj_size > 0 else self.hidden_size, self.hidden_size)
        states = []
        for k in range(2 if lstm else 1):
            state, expected = given[k], (rows, batch, sizes[k])
            if state is None:
                state = _axle.zeros(expected, dtype=like.dtype, device=like.device)
            elif tuple(state.shape) != expected:
                name = "hidden[%d]" % k if lstm else "hidden"
                raise RuntimeError("Expected {} size {}, got {}".format(name, expected, list(state.shape)))
            elif order is not None:
                state = state.index_select(1, order)
            states.append(state)
        return states[0], states[1] if lstm else None

    def _mode(self):
        return self.mode if self.mode != "RNN" else "RNN_" + self.nonlinearity.upper()

    def _run_packed(self, input, hx):
        """The recurrence over a PackedSequence (torch's order: hx is in the
        batch's original order, permuted to the sorted one and back)."""
        from .._rnn_functional import _packed  # it imports this module
        data, batch_sizes, sorted_indices, unsorted_indices = input
        if data.shape[-1] != self.input_size:
            raise RuntimeError("input.size(-1) must be equal to input_size. Expected {}, got {}".format(
                self.input_size, data.shape[-1]))
        batch = int(batch_sizes[0]) if batch_sizes.numel() else 0
        h0, c0 = self._initial_states(hx, batch, data, sorted_indices)
        output, h_n, c_n = _packed(self._mode(), data, batch_sizes, h0, c0, self._flat_weights, self.bias,
                                   self.num_layers, self.dropout, self.training, self.bidirectional)
        if unsorted_indices is not None:
            h_n = h_n.index_select(1, unsorted_indices)
            c_n = None if c_n is None else c_n.index_select(1, unsorted_indices)
        packed = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
        return packed, (h_n, c_n) if self.mode == "LSTM" else h_n

    def _run(self, input, hx):
        """The stacked, possibly bidirectional recurrence: the output sequence and
        the final states (one [layers * directions, batch, hidden] tensor per state)."""
        if isinstance(input, PackedSequence):
            return self._run_packed(input, hx)
        batched = input.dim() == 3
        if input.dim() not in (2, 3):
            raise ValueError("{}: Expected input to be 2D or 3D, got {}D instead".format(self.mode, input.dim()))
        if not batched:
            input = input.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        if input.shape[-1] != self.input_size:
            raise RuntimeError("input.size(-1) must be equal to input_size. Expected {}, got {}".format(
                self.input_size, input.shape[-1]))
        lstm = self.mode == "LSTM"
        if hx is not None and not batched:
            hx = tuple(h.unsqueeze(1) for h in hx) if lstm else hx.unsqueeze(1)
        h0, c0 = self._initial_states(hx, input.shape[1], input)
        directions = 2 if self.bidirectional else 1
        weights = [self._weights(layer, direction) for layer in range(self.num_layers)
                   for direction in range(directions)]
        output, h_n, c_n = _stacked(self._mode(), input, h0, c0, weights, self.num_layers, directions, self.dropout,
                                    self.training)
        if not batched:
            output, h_n = output.squeeze(1), h_n.squeeze(1)
            c_n = c_n.squeeze(1) if lstm else None
        elif self.batch_first:
            output = output.transpose(0, 1)
        return output, (h_n, c_n) if lstm else h_n


class RNN(RNNBase):
    def __init__(self, *args, **kwargs):
        nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if len(args) > 3:
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError("Unknown nonlinearity '{}'".format(nonlinearity))
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)
        self.mode = "RNN"

    def forward(self, input, hx=None):
        return self._run(input, hx)


class LSTM(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._run(input, hx)


class GRU(RNNBase):
    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._run(input, hx)


class RNNCellBase(Module):
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        kw = {"device": device, "dtype": dtype or _axle.get_default_dtype()}
        self.weight_ih = Parameter(_axle.empty((num_chunks * hidden_size, input_size), **kw))
        self.weight_hh = Parameter(_axle.empty((num_chunks * hidden_size, hidden_size), **kw))
        if bias:
            self.bias_ih = Parameter(_axle.empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(_axle.empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.bias is not True:
            s += ", bias={bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def _state(self, input, hx, size):
        batched = input.dim() == 2
        if input.dim() not in (1, 2):
            raise ValueError("{}: Expected input to be 1D or 2D, got {}D instead".format(type(self).__name__,
                                                                                     input.dim()))
        x = input if batched else input.unsqueeze(0)
        if x.shape[1] != self.input_size:
            raise _axle.ShapeError("input has inconsistent input_size: got {} expected {}".format(
                x.shape[1], self.input_size))
        if hx is None:
            hx = _axle.zeros(x.shape[0], size, dtype=input.dtype, device=input.device)
        elif not batched:
            hx = hx.unsqueeze(0)
        self._check_hidden(x, hx, size)
        return x, hx, batched

    @staticmethod
    def _check_hidden(x, h, size):
        # torch's checks (its LSTMCell checks the cell state as "hidden0" too).
        if h.shape[0] != x.shape[0]:
            raise _axle.ShapeError("Input batch size {} doesn't match hidden0 batch size {}".format(
                x.shape[0], h.shape[0]))
        if h.shape[1] != size:
            raise _axle.ShapeError("hidden0 has inconsistent hidden_size: got {}, expected {}".format(
                h.shape[1], size))


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        self.nonlinearity = nonlinearity
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)

    def forward(self, input, hx=None):
        x, h, batched = self._state(input, hx, self.hidden_size)
        h = _rnn_step(x, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh, self.nonlinearity)
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        batched = input.dim() == 2
        if hx is None:
            x, h, _ = self._state(input, None, self.hidden_size)
            c = _axle.zeros_like(h)
        else:
            x, h, _ = self._state(input, hx[0], self.hidden_size)
            c = hx[1] if batched else hx[1].unsqueeze(0)
            self._check_hidden(x, c, self.hidden_size)
        h, c = _lstm_step(x, h, c, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        x, h, batched = self._state(input, hx, self.hidden_size)
        h = _gru_step(x, h, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return h if batched else h.squeeze(0)
