"""torch.nn.functional's 3-d pooling, max unpooling and grid sampling (torch 1.13
semantics) over the declared ops: max_pool3d_with_indices / avg_pool3d /
adaptive_avg_pool3d / adaptive_max_pool3d, grid_sampler and
affine_grid_generator (dispatcher/src/ops/conv_pool3d.cpp and
conv_pool_grid_sample.cpp). max_unpool3d scatters into a zero volume, as
max_unpool2d does (_functional_extra.py).
"""
import warnings as _warnings

import axle as _axle

from ._functional_extra import _tuple_n, _unpool_output_size, _unpool_scatter
from ._losses import _list_str, _scalar_name

__all__ = [
    "max_pool3d", "max_pool3d_with_indices", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices", "max_unpool3d", "grid_sample", "affine_grid",
]


def _nn(name):
    return _axle._nn_functional[name]


def _stride(stride):
    return [] if stride is None else stride


def _with_default(size, input, n):
    """adaptive output_size: an int, or n entries whose None keeps the input's size."""
    if isinstance(size, int):
        return [size] * n
    size = list(size)
    if input.dim() <= len(size):
        raise _axle.ValueError("Input dimension should be at least {}".format(len(size) + 1))
    lead = input.dim() - len(size)
    return [input.shape[lead + i] if s is None else s for i, s in enumerate(size)]


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    """3-d max pooling; returns (values, indices), indices flat within each D*H*W volume."""
    return _nn("max_pool3d_with_indices")(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """3-d max pooling over (N, C, D, H, W) or (C, D, H, W); (values, indices) when return_indices.
    stride=None means kernel_size."""
    if return_indices:
        return max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return _axle.max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """3-d average pooling. stride=None means kernel_size."""
    return _nn("avg_pool3d")(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad,
                             divisor_override)


def adaptive_avg_pool3d(input, output_size):
    """Adaptive 3-d average pooling; None in output_size keeps that input size."""
    return _nn("adaptive_avg_pool3d")(input, _with_default(output_size, input, 3))


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Adaptive 3-d max pooling: values, or (values, indices) when return_indices."""
    values, indices = _nn("adaptive_max_pool3d")(input, _with_default(output_size, input, 3))
    return (values, indices) if return_indices else values


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """Adaptive 3-d max pooling returning (values, indices)."""
    return _nn("adaptive_max_pool3d")(input, _with_default(output_size, input, 3))


def _max_unpool3d(input, indices, output_size, stride, padding):
    """torch's max_unpool3d: checks in its order and words, then each value written at its
    flat D*H*W index of a zero volume."""
    if indices.dtype != _axle.int64:
        raise _axle.DTypeError("elements in indices should be type int64 but got: " + _scalar_name(indices.dtype))
    ndim = input.dim()
    if ndim not in (4, 5):
        raise _axle.ShapeError("Input to max_unpooling3d should be a 4d or 5d Tensor, but got a tensor with {} "
                               "dimensions.".format(ndim))
    for name, v in (("output_size", output_size), ("stride", stride), ("padding", padding)):
        if len(v) != 3:
            raise _axle.ShapeError("There should be exactly three elements (depth, height, width) in {}, but got "
                                   "{} elements.".format(name, len(v)))
    if tuple(input.shape) != tuple(indices.shape):
        raise _axle.ShapeError("Expected shape of indices to be same as that of the input tensor ({}) but got "
                               "indices tensor with shape: {}".format(_list_str(input.shape),
                                                                      _list_str(indices.shape)))
    for i in range(1, ndim):
        if input.shape[i] <= 0:
            raise _axle.ShapeError("max_unpooling3d_forward_out_cpu(): Expected input to have non-zero size for "
                                   "non-batch dimensions, but got {} with dimension {} being empty.".format(
                                       _list_str(input.shape), i))
    if any(s <= 0 for s in stride):
        raise _axle.ValueError("strides should be greater than zero, but got stride: {}".format(_list_str(stride)))
    if not input.dtype.is_floating_point:
        raise _axle.DTypeError('"max_unpool3d" not implemented for \'{}\''.format(_scalar_name(input.dtype)))
    return _unpool_scatter(input, indices, output_size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """MaxPool3d's partial inverse: each value written at its (flat per-volume) index in a zero output."""
    kernel_size = _tuple_n(kernel_size, 3)
    stride = _tuple_n(stride, 3) if stride is not None else kernel_size
    padding = _tuple_n(padding, 3)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _max_unpool3d(input, indices, list(size), list(stride), list(padding))


_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_PADDING_MODES = {"zeros": 0, "border": 1, "reflection": 2}


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Samples input (N, C, H, W) or (N, C, D, H, W) at grid (N, H_out, W_out, 2) or
    (N, D_out, H_out, W_out, 3), coordinates in [-1, 1] (x first); mode 'bilinear', 'nearest' or
    'bicubic' (4-d only), padding_mode 'zeros', 'border' or 'reflection'. align_corners=None warns
    (torch's default-change notice) and means False."""
    if mode not in _MODES:
        raise _axle.ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or "
                               "'bicubic', but got: '{}'".format(mode))
    if padding_mode not in _PADDING_MODES:
        raise _axle.ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                               "'reflection', but got: '{}'".format(padding_mode))
    if align_corners is None:
        _warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since "
                       "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
                       "documentation of grid_sample for details.", stacklevel=2)
        align_corners = False
    return _axle.grid_sampler(input, grid, _MODES[mode], _PADDING_MODES[padding_mode], align_corners)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid (N, H, W, 2) or (N, D, H, W, 3) of affine maps theta (N, 2, 3) or (N, 3, 4)
    for an output of `size` (N, C, H, W) or (N, C, D, H, W), for grid_sample."""
    if align_corners is None:
        _warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since "
                       "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
                       "documentation of grid_sample for details.", stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise _axle.ValueError("Expected theta to have floating point type, but got {}".format(
            "torch." + theta.dtype.name))
    size = list(size)
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise _axle.ValueError("Expected a batch of 2D affine matrices of shape Nx2x3 for size {}. Got {}.".format(
                size, list(theta.shape)))
        spatial = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise _axle.ValueError("Expected a batch of 3D affine matrices of shape Nx3x4 for size {}. Got {}.".format(
                size, list(theta.shape)))
        spatial = size[-3:]
    else:
        raise _axle.NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                        "respectively. Got size {}.".format(size))
    if align_corners and min(spatial) == 1:
        _warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                       "align_corners=True. This is not an intended use case of affine_grid. See the documentation "
                       "of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise _axle.ValueError("Expected non-zero, positive output size. Got {}".format(size))
    return _axle.affine_grid_generator(theta, size, align_corners)
