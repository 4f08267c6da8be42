"""NN operators as in torch.nn.functional: the declared ops flagged for it
(OpFlags kNNFunctional / kNNOnly in their C++ declarations), no hand-kept list."""
import math

import axle as _axle
from axle import _C

for _name, _only_nn in _C._nn_functional_ops():
    _fn = _axle._nn_functional.get(_name) or getattr(_axle, _name, None)
    if _fn is not None:
        globals()[_name] = _fn
del _name, _only_nn, _fn


# torch.nn.functional's `inplace=` keyword (not part of the op schemas): thin
# wrappers choosing the op or its in-place form, with F's argument order.
def _with_inplace(name, *params):
    op, op_ = _nn_fn(name), _nn_fn(name + "_")

    def fn(input, *args, inplace=False, **kwargs):
        if len(args) > len(params):  # F's positional order puts `inplace` after params
            args, inplace = args[: len(params)], args[len(params)]
        return (op_ if inplace else op)(input, *args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = op.__doc__
    globals()[name] = fn


def _nn_fn(name):
    return _axle._nn_functional.get(name) or getattr(_axle, name)


for _name, _params in [("relu", ()), ("relu6", ()), ("leaky_relu", ("negative_slope",)), ("elu", ("alpha",)),
                       ("selu", ()), ("celu", ("alpha",)), ("silu", ()), ("mish", ()),
                       ("hardtanh", ("min_val", "max_val")), ("hardsigmoid", ()), ("hardswish", ()),
                       ("threshold", ("threshold", "value"))]:
    _with_inplace(_name, *_params)
del _name, _params
# ---------------------------------------------------------------- torch.nn.functional call forms
# Thin wrappers where F's signature differs from the declared aten op.
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """F.batch_norm: aten batch_norm with F's argument order. training=True normalizes with batch
    statistics; updating running_mean/running_var is not implemented (NotImplementedError)."""
    if training:
        size = list(input.shape)
        prod = size[0]
        for s in size[2:]:
            prod *= s
        if prod == 1:
            raise _axle.ValueError("Expected more than 1 value per channel when training, got input size %s" % (size,))
    return _axle.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, False)


def dropout(input, p=0.5, training=True, inplace=False):
    """F.dropout: identity unless training; when training each element is kept with
    probability 1 - p (the default generator; axle.manual_seed) and scaled by 1 / (1 - p)."""
    if p < 0.0 or p > 1.0:
        raise _axle.ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    out = _axle.dropout(input, p, training)
    if inplace and out is not input:
        input.copy_(out)
        return input
    return out


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """F.interpolate for mode 'nearest' and 'bilinear' on 4-D inputs (upsample_nearest2d /
    upsample_bilinear2d); other modes and ranks raise NotImplementedError."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise _axle.ValueError("align_corners option can only be set with the interpolating modes: "
                                   "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise _axle.ValueError("only one of size or scale_factor should be defined")
    elif size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise _axle.ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with spatial "
                    "dimensions of %s and output size of %s. Please provide input tensor in (N, C, d1, d2, ...,dK) "
                    "format and output size in (o1, o2, ...,oK) format." % (list(input.shape[2:]), size))
            output_size = list(size)
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise _axle.ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                    "spatial dimensions of %s and scale_factor of shape %s. Please provide input tensor in (N, C, "
                    "d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."
                    % (list(input.shape[2:]), scale_factor))
            scale_factors = list(scale_factor)
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise _axle.ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise _axle.ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [int(math.floor(float(input.shape[i + 2]) * scale_factors[i])) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic") and input.dim() == 4):
        raise _axle.ValueError("Anti-alias option is only supported for bilinear and bicubic modes")
    wrong_rank = {("bilinear", 3): "Got 3D input, but bilinear mode needs 4D input",
                  ("bilinear", 5): "Got 5D input, but bilinear mode needs 4D input",
                  ("linear", 4): "Got 4D input, but linear mode needs 3D input",
                  ("linear", 5): "Got 5D input, but linear mode needs 3D input",
                  ("trilinear", 3): "Got 3D input, but trilinear mode needs 5D input",
                  ("trilinear", 4): "Got 4D input, but trilinear mode needs 5D input"}
    if (mode, input.dim()) in wrong_rank:
        raise _axle.NotImplementedError(wrong_rank[(mode, input.dim())])
    known = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact")
    if input.dim() not in (3, 4, 5) or mode not in known:
        raise _axle.NotImplementedError(
            "Input Error: Only 3D, 4D and 5D input Tensors supported (got {}D) for the modes: nearest | linear | "
            "bilinear | bicubic | trilinear | area | nearest-exact (got {})".format(input.dim(), mode))
    if input.dim() != 4 or mode not in ("nearest", "bilinear") or antialias:
        raise _axle.NotImplementedError(
            "interpolate: mode '%s'%s on a %dD input is not implemented in axle (only 'nearest' and 'bilinear' "
            "on 4D inputs)" % (mode, " with antialias" if antialias else "", input.dim()))
    if output_size is None:
        output_size = [int(float(input.shape[i + 2]) * scale_factors[i]) for i in range(dim)]
    sh, sw = (None, None) if scale_factors is None else scale_factors
    if mode == "nearest":
        return upsample_nearest2d(input, output_size, sh, sw)
    return upsample_bilinear2d(input, output_size, align_corners, sh, sw)


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


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """torch.nn.functional.embedding's call form (indices first) over axle.embedding(weight, indices, ...).
    padding_idx's row gets no gradient; max_norm renormalizes, in place and without grad, the rows of
    weight that input names whose norm_type-norm exceeds it (to max_norm / (norm + 1e-7)), as torch."""
    if padding_idx is not None:
        rows = weight.size(0) if weight.dim() > 0 else 0
        if not -rows <= padding_idx < rows:
            raise _axle.ValueError("embedding(): Padding_idx must be within num_embeddings")
        padding_idx = padding_idx + rows if padding_idx < 0 else padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        with _axle.no_grad():  # a row named twice is written twice with the same value
            rows = input.reshape(-1).to(_axle.int64)
            picked = weight.index_select(0, rows)
            norms = _axle.norm(picked, norm_type, [1], True)
            scale = _axle.where(norms > max_norm, max_norm / (norms + 1e-7), _axle.ones_like(norms))
            weight.index_put_((rows,), picked * scale)
    return _axle.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


# losses and distances (torch 1.13 semantics), composed of axle ops
from ._losses import *  # noqa: E402,F401,F403


def bilinear(input1, input2, weight, bias=None):
    """y[..., k] = input1 @ weight[k] @ input2 + bias[k] (torch.nn.functional.bilinear):
    input1 [..., in1], input2 [..., in2], weight [out, in1, in2]."""
    if weight.dim() != 3:
        raise _axle.ShapeError("bilinear(): weight must be 3-D [out, in1, in2], got %d-D" % weight.dim())
    out, in1, in2 = weight.shape
    if input1.shape[-1] != in1 or input2.shape[-1] != in2 or tuple(input1.shape[:-1]) != tuple(input2.shape[:-1]):
        raise _axle.ShapeError("bilinear(): input1 [..., %d] and input2 [..., %d] of one batch shape expected, got "
                               "%s and %s" % (in1, in2, list(input1.shape), list(input2.shape)))
    # (x1 @ W viewed [in1, out * in2]) then the dot with x2 per output.
    t = _axle.matmul(input1, weight.permute(1, 0, 2).reshape(in1, out * in2))
    y = (t.reshape(tuple(input1.shape[:-1]) + (out, in2)) * input2.unsqueeze(-2)).sum(-1)
    return y + bias if bias is not None else y
