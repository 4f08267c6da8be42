"""default_collate and default_convert, as torch 1.13's.

default_collate turns a list of samples into a batch: tensors are stacked
along a new first dimension, numpy arrays become tensors and are stacked,
numpy scalars become one tensor of their dtype, Python floats a float64
tensor, Python ints an int64 tensor (bools a bool tensor), strings and bytes
stay a list; mappings, namedtuples and sequences are collated field by field
(tuples give lists, as torch). collate(batch, collate_fn_map=...) is the
general form: the map sends an element type to the function collating it.

default_convert (used when automatic batching is off) only turns numpy
arrays and scalars into tensors, looking inside mappings and sequences."""
import collections.abc
import re

try:
    import numpy as _np
except ImportError:  # axle works without numpy; then no sample is a numpy value
    _np = None

import axle as _axle

__all__ = ["collate", "default_collate", "default_collate_fn_map", "default_convert",
           "collate_tensor_fn", "collate_numpy_array_fn", "collate_numpy_scalar_fn",
           "collate_float_fn", "collate_int_fn", "collate_str_fn"]

# numpy dtypes (by their .str code) that cannot become tensors: bytes, unicode, objects.
np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, "
    "dicts or lists; found {}")

_string_types = (str, bytes)


def _as_tensor(data):
    """torch.as_tensor for a numpy array or scalar: shares memory where axle can."""
    array = _np.asarray(data)
    if not array.flags.writeable:  # torch warns and shares; axle needs a writable buffer
        array = array.copy()
    return _axle.from_numpy(array)


def _is_numpy_value(data):
    kind = type(data)
    return kind.__module__ == "numpy" and kind.__name__ not in ("str_", "string_")


def default_convert(data):
    """Converts numpy arrays and scalars (also inside mappings and sequences) to tensors."""
    if isinstance(data, _axle.Tensor):
        return data
    kind = type(data)
    if _is_numpy_value(data):
        if isinstance(data, _np.ndarray) and np_str_obj_array_pattern.search(data.dtype.str):
            return data
        return _as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        converted = {key: default_convert(data[key]) for key in data}
        try:
            return kind(converted)
        except TypeError:  # the mapping type cannot be built from a dict
            return converted
    if isinstance(data, tuple):
        if hasattr(data, "_fields"):  # namedtuple
            return kind(*(default_convert(d) for d in data))
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, _string_types):
        converted = [default_convert(d) for d in data]
        try:
            return kind(converted)
        except TypeError:
            return converted
    return data


def collate(batch, *, collate_fn_map=None):
    """Collates a list of samples, with collate_fn_map choosing the function for an
    element type (exact type first, then the first key it is an instance of)."""
    elem = batch[0]
    kind = type(elem)
    if collate_fn_map is not None:
        fn = collate_fn_map.get(kind)
        if fn is None:
            fn = next((f for key, f in collate_fn_map.items() if isinstance(elem, key)), None)
        if fn is not None:
            return fn(batch, collate_fn_map=collate_fn_map)

    def sub(samples):
        return collate(samples, collate_fn_map=collate_fn_map)

    if isinstance(elem, collections.abc.Mapping):
        collated = {key: sub([sample[key] for sample in batch]) for key in elem}
        try:
            return kind(collated)
        except TypeError:
            return collated
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return kind(*(sub(field) for field in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(sample) != size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        fields = [sub(field) for field in zip(*batch)]  # tuples: strings stay tuples, as torch
        if isinstance(elem, tuple):
            return fields  # tuples give lists, as torch
        try:
            return kind(fields)
        except TypeError:
            return fields
    raise TypeError(default_collate_err_msg_format.format(kind))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    return _axle.stack(list(batch), 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    dtype = batch[0].dtype
    if np_str_obj_array_pattern.search(dtype.str):
        raise TypeError(default_collate_err_msg_format.format(dtype))
    return collate([_as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return _as_tensor(_np.array(batch))


def collate_float_fn(batch, *, collate_fn_map=None):
    return _axle.tensor(list(batch), dtype=_axle.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return _axle.tensor(list(batch))


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {_axle.Tensor: collate_tensor_fn}
if _np is not None:
    default_collate_fn_map[_np.ndarray] = collate_numpy_array_fn
    default_collate_fn_map[(_np.bool_, _np.number, _np.object_)] = collate_numpy_scalar_fn
default_collate_fn_map.update({float: collate_float_fn, int: collate_int_fn,
                               _string_types: collate_str_fn})


def default_collate(batch):
    """Puts a list of samples into a batch (see the module docstring for the rules)."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
