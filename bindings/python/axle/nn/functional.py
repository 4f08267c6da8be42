"""NN operators as in torch.nn.functional: the declared ops flagged for it
(OpFlags kNNFunctional / kNNOnly in their C++ declarations), no hand-kept list."""
import axle as _axle
from axle import _C

for _name, _only_nn in _C._nn_functional_ops():
    _fn = _axle._nn_functional.get(_name) or getattr(_axle, _name, None)
    if _fn is not None:
        globals()[_name] = _fn
del _name, _only_nn, _fn


# ---- torch.nn.functional's Python-level conveniences over the declared pooling ops
def _pair_or_default(size, input):
    """adaptive output_size: an int, or a pair whose None entries keep the input's size."""
    if isinstance(size, int):
        return [size, size]
    return [input.shape[-2 + i] if s is None else s for i, s in enumerate(size)]


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """2-d max pooling; returns (values, indices). stride=None means kernel_size."""
    return _axle._nn_functional["max_pool2d_with_indices"](
        input, kernel_size, [] if stride is None else stride, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """2-d max pooling; (values, indices) when return_indices. stride=None means kernel_size."""
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _axle.max_pool2d(input, kernel_size, [] if stride is None else stride, padding, dilation, ceil_mode)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """2-d average pooling. stride=None means kernel_size."""
    return _axle._nn_functional["avg_pool2d"](input, kernel_size, [] if stride is None else stride, padding,
                                              ceil_mode, count_include_pad, divisor_override)


def adaptive_avg_pool2d(input, output_size):
    """Adaptive 2-d average pooling; None in output_size keeps that input size."""
    return _axle._nn_functional["adaptive_avg_pool2d"](input, _pair_or_default(output_size, input))


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Adaptive 2-d max pooling: values, or (values, indices) when return_indices."""
    values, indices = _axle._nn_functional["adaptive_max_pool2d"](input, _pair_or_default(output_size, input))
    return (values, indices) if return_indices else values


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """Adaptive 2-d max pooling returning (values, indices)."""
    return _axle._nn_functional["adaptive_max_pool2d"](input, _pair_or_default(output_size, input))
