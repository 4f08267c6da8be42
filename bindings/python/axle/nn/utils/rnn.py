"""Packed sequences (torch.nn.utils.rnn): a batch of variable-length sequences as
one tensor of the rows still running at each step (``data``), the count of
those rows per step (``batch_sizes``, non-increasing) and the permutation that
sorted the batch by decreasing length. nn.RNN / nn.LSTM / nn.GRU take a
PackedSequence and return one; padding and packing convert to and from padded
[T, B, *] (or [B, T, *]) tensors, with torch 1.13's messages."""
from collections import namedtuple

import axle as _axle

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]

_PackedSequenceBase = namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


def invert_permutation(permutation):
    """The inverse of a permutation tensor (None stays None)."""
    if permutation is None:
        return None
    output = _axle.empty_like(permutation)
    output.scatter_(0, permutation, _axle.arange(0, permutation.numel(), device=permutation.device))
    return output


class PackedSequence(_PackedSequenceBase):
    """Holds the data and the list of batch_sizes of a packed sequence (see the
    module docstring). Build one with pack_padded_sequence or pack_sequence."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is not None:
            if batch_sizes.device.type != "cpu":
                raise _axle.ValueError(
                    "batch_sizes should always be on CPU. Instances of PackedSequence should never be created "
                    "manually. They should be instantiated by functions like pack_sequence and "
                    "pack_padded_sequences in nn.utils.rnn. https://pytorch.org/docs/stable/nn.html"
                    "#torch.nn.utils.rnn.pack_sequence")
            return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)
        if not isinstance(data, (list, tuple)) or len(data) != 2:
            raise _axle.TypeError("PackedSequence(data, batch_sizes, ...) or PackedSequence((data, batch_sizes))")
        return super().__new__(cls, data[0], data[1], sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """The same packed sequence with data moved or cast as Tensor.to does (the
        index tensors follow a device change; batch_sizes stays on the CPU)."""
        return self._with_data(self.data.to(*args, **kwargs))

    def cuda(self, device=None, non_blocking=False):
        return self._with_data(self.data.cuda(device, non_blocking))

    def cpu(self):
        return self._with_data(self.data.cpu())

    def _with_data(self, data):
        if data is self.data or (data.dtype == self.data.dtype and data.device == self.data.device and
                                 data.data_ptr() == self.data.data_ptr()):
            return self  # nothing moved or cast, as torch
        indices = [None if t is None else t.to(data.device) for t in (self.sorted_indices, self.unsorted_indices)]
        return type(self)(data, self.batch_sizes, *indices)

    @property
    def is_cuda(self):
        return self.data.device.type == "cuda"

    def is_pinned(self):
        return self.data.is_pinned()


# Tensor's dtype casts, applied to the data (torch's PackedSequence has the same).
for _name, _dtype in (("double", "float64"), ("float", "float32"), ("half", "float16"), ("long", "int64"),
                      ("int", "int32"), ("short", "int16"), ("char", "int8"), ("byte", "uint8")):
    setattr(PackedSequence, _name, lambda self, _dtype=_dtype: self.to(dtype=getattr(_axle, _dtype)))
del _name, _dtype


def _lengths_list(lengths):
    # torch takes lengths as torch.as_tensor(lengths, dtype=torch.int64): any
    # integer (or float) values, a 1-D CPU tensor.
    if isinstance(lengths, _axle.Tensor):
        if lengths.dim() != 1 or lengths.device.type != "cpu":
            raise _axle.ValueError("'lengths' argument should be a 1D CPU int64 tensor, but got {}D {} {} tensor"
                                   .format(lengths.dim(), lengths.device.type, str(lengths.dtype).split(".")[-1]))
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded [T, B, *] (or [B, T, *] with batch_first) tensor of
    sequences of the given lengths. With enforce_sorted the lengths must be
    decreasing; otherwise the batch is sorted first and the permutation kept."""
    values = _lengths_list(lengths)
    if input.numel() == 0:
        raise _axle.ValueError("Cannot pack empty tensors.")
    sorted_indices = None
    if enforce_sorted:
        if any(b > a for a, b in zip(values, values[1:])):
            raise _axle.ValueError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
                "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement "
                "if you do not need ONNX exportability.")
    else:
        order = sorted(range(len(values)), key=lambda i: -values[i])
        sorted_indices = _axle.tensor(order, dtype=_axle.int64, device=input.device)
        values = [values[i] for i in order]
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    steps_first = input.transpose(0, 1) if batch_first else input
    steps, batch = steps_first.shape[0], steps_first.shape[1]
    if len(values) != batch:
        raise _axle.ValueError("Expected `len(lengths)` to be equal to batch_size, but got {} (batch_size={})"
                               .format(len(values), batch))
    if values and values[-1] <= 0:
        raise _axle.ValueError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                               "that is <= 0")
    if values and values[0] > steps:
        raise _axle.ValueError("pack_padded_sequence: a sequence length {} exceeds the input's {} steps"
                               .format(values[0], steps))
    sizes = [sum(1 for v in values if v > t) for t in range(values[0] if values else 0)]
    data = _axle.cat([steps_first[t].narrow(0, 0, bs) for t, bs in enumerate(sizes)]) if sizes else \
        steps_first.reshape((0,) + tuple(steps_first.shape[2:]))
    return PackedSequence(data, _axle.tensor(sizes, dtype=_axle.int64), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of pack_padded_sequence: (padded [T, B, *] or [B, T, *],
    lengths as a CPU int64 tensor), in the batch's original order; T is the
    longest length or total_length."""
    sizes = [int(v) for v in sequence.batch_sizes.tolist()]
    max_len = len(sizes)
    if total_length is not None:
        if total_length < max_len:
            raise _axle.ValueError("Expected total_length to be at least the length of the longest sequence in "
                                   "input, but got total_length={} and max sequence length being {}"
                                   .format(total_length, max_len))
        max_len = total_length
    data = sequence.data
    batch = sizes[0] if sizes else 0
    trailing = tuple(data.shape[1:])

    def fill(rows):
        return _axle.full((rows,) + trailing, padding_value, dtype=data.dtype, device=data.device)

    # Step by step: the running rows, then padding (cat and stack, so gradients reach data).
    steps, start = [], 0
    for bs in sizes:
        rows = data.narrow(0, start, bs)
        steps.append(_axle.cat([rows, fill(batch - bs)]) if bs < batch else rows)
        start += bs
    steps += [fill(batch)] * (max_len - len(sizes))
    out = _axle.stack(steps) if steps else fill(0).reshape((0, 0) + trailing)
    lengths = [sum(1 for bs in sizes if bs > b) for b in range(batch)]
    lengths_t = _axle.tensor(lengths, dtype=_axle.int64)
    if batch_first:
        out = out.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        out = out.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths_t = lengths_t.index_select(0, sequence.unsorted_indices.cpu())
    return out, lengths_t


def pad_sequence(sequences, batch_first=False, padding_value=0.0):
    """Stacks tensors of shape [L_i, *] into [T, B, *] (or [B, T, *]), T the
    longest L_i, shorter ones padded with padding_value."""
    if isinstance(sequences, _axle.Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    if not sequences:
        raise _axle.ValueError("pad_sequence: received an empty list of sequences")
    trailing = tuple(sequences[0].shape[1:])
    for i, s in enumerate(sequences):
        if tuple(s.shape[1:]) != trailing:
            raise _axle.ShapeError("pad_sequence: sequence {} has trailing dims {}, expected {} as sequence 0's"
                                   .format(i, list(s.shape[1:]), list(trailing)))
    max_len = max(s.shape[0] for s in sequences)
    first = sequences[0]

    def padded(s):
        s = s.to(first.dtype)  # torch writes every sequence into a tensor of the first one's dtype
        if s.shape[0] == max_len:
            return s
        pad = _axle.full((max_len - s.shape[0],) + trailing, padding_value, dtype=s.dtype, device=s.device)
        return _axle.cat([s, pad])

    return _axle.stack([padded(s) for s in sequences], 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences pad_sequence stacked: each row cut to its length
    (copies, as torch's)."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq.narrow(0, 0, length).clone() for seq, length in zip(padded_sequences, _lengths_list(lengths))]


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of tensors [L_i, *] (decreasing lengths unless
    enforce_sorted is False)."""
    lengths = _axle.tensor([s.shape[0] for s in sequences], dtype=_axle.int64)
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of tensors pack_sequence packed, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
