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
    """F.batch_norm with F's argument order. training=True normalizes with the batch's statistics
    (one _native_batch_norm_legit.no_stats call) and updates running_mean / running_var in place
    when given (the unbiased variance, with momentum); otherwise aten batch_norm over the running
    statistics. An empty input gives an empty result (times weight[0], plus bias[0], so the graph
    reaches them) and leaves the running statistics alone, as torch's."""
    if input.numel() == 0 and input.dim() >= 2:
        out = input.clone()
        if weight is not None:
            out = out * weight[0]
        if bias is not None:
            out = out + bias[0]
        return out
    if training:
        size = list(input.shape)
        prod = size[0]
        for s in size[2:]:
            prod *= s
        if prod == 1:
            raise _axle.ValueError("Expected more than 1 value per channel when training, got input size %s" % (size,))
        from ._native_norms import _batch_norm_training
        return _batch_norm_training(input, weight, bias, running_mean, running_var, momentum, eps)[0]
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
from ._ctc import ctc_loss  # noqa: E402,F401
from ._fractional import *  # noqa: E402,F401,F403
from ._aten import conv_tbc  # noqa: E402,F401


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


# ---------------------------------------------------------------- more of torch.nn.functional,
# composed of the ops above (1-d forms through the 2-d ops on a unit height, as torch's CPU does)
def _single(v):
    return v[0] if isinstance(v, (tuple, list)) else v


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    stride = kernel_size if stride is None or stride == [] else stride
    out = max_pool2d(input.unsqueeze(-2), (1, _single(kernel_size)), (1, _single(stride)), (0, _single(padding)),
                     (1, _single(dilation)), ceil_mode=ceil_mode, return_indices=return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    stride = kernel_size if stride is None or stride == [] else stride
    return avg_pool2d(input.unsqueeze(-2), (1, _single(kernel_size)), (1, _single(stride)), (0, _single(padding)),
                      ceil_mode, count_include_pad).squeeze(-2)


def adaptive_avg_pool1d(input, output_size):
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, _single(output_size))).squeeze(-2)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    out = adaptive_max_pool2d(input.unsqueeze(-2), (1, _single(output_size)), return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _axle.convolution(input, weight, bias, _tuple_n(stride, 3), _tuple_n(padding, 3), _tuple_n(dilation, 3),
                             False, [0, 0, 0], groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _axle.convolution(input, weight, bias, _tuple_n(stride, 1), _tuple_n(padding, 1), _tuple_n(dilation, 1),
                             True, _tuple_n(output_padding, 1), groups)


def sigmoid(input):
    return _axle.sigmoid(input)


def tanh(input):
    return _axle.tanh(input)


def logsigmoid(input):
    """log(sigmoid(x)) = -softplus(-x), stable for large |x|."""
    return -softplus(-input)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    return softmax(-input, dim, dtype=dtype) if dtype is not None else softmax(-input, dim)


def tanhshrink(input):
    return input - _axle.tanh(input)


def hardshrink(input, lambd=0.5):
    return _axle.where(_axle.abs(input) > lambd, input, _axle.zeros_like(input))


def softshrink(input, lambd=0.5):
    return _axle.where(input > lambd, input - lambd, _axle.where(input < -lambd, input + lambd,
                                                                _axle.zeros_like(input)))


def _channel_dropout(input, p, training, inplace, rank):
    if p < 0.0 or p > 1.0:
        raise _axle.ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    if not training or p == 0:
        return input
    if input.dim() not in (rank - 1, rank):
        raise _axle.ValueError("dropout{}d: Expected {}D or {}D input, but received a {}D input".format(
            rank - 2, rank - 1, rank, input.dim()))
    lead = 2 if input.dim() == rank else 1
    shape = tuple(input.shape)[:lead] + (1,) * (input.dim() - lead)
    keep = (_axle.rand(shape, dtype=input.dtype, device=input.device) >= p).to(input.dtype)
    mask = keep / (1 - p) if p < 1 else keep
    return input.mul_(mask) if inplace else input * mask


def dropout1d(input, p=0.5, training=True, inplace=False):
    return _channel_dropout(input, p, training, inplace, 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    return _channel_dropout(input, p, training, inplace, 4)


def dropout3d(input, p=0.5, training=True, inplace=False):
    return _channel_dropout(input, p, training, inplace, 5)


def pixel_shuffle(input, upscale_factor):
    """[*, C * r^2, H, W] -> [*, C, H * r, W * r]."""
    r = upscale_factor
    *lead, c, h, w = input.shape
    if c % (r * r) != 0:
        raise _axle.ValueError("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
                               "of upscale_factor, but input.size(-3)={} is not divisible by {}".format(c, r * r))
    x = input.reshape(tuple(lead) + (c // (r * r), r, r, h, w))
    n = len(lead)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(tuple(lead) + (c // (r * r), h * r, w * r))


def pixel_unshuffle(input, downscale_factor):
    """[*, C, H * r, W * r] -> [*, C * r^2, H, W]."""
    r = downscale_factor
    *lead, c, h, w = input.shape
    if h % r != 0 or w % r != 0:
        raise _axle.ValueError("pixel_unshuffle expects height and width to be divisible by downscale_factor, got "
                               "{}x{} and {}".format(h, w, r))
    x = input.reshape(tuple(lead) + (c, h // r, r, w // r, r))
    n = len(lead)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(tuple(lead) + (c * r * r, h // r, w // r))


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """Each (sample, channel) normalized over its spatial dims; running statistics as batch_norm's when given."""
    n, c = input.shape[0], input.shape[1]
    if use_input_stats:
        if running_mean is not None and running_var is not None:
            with _axle.no_grad():
                dims = list(range(2, input.dim()))
                mean = input.detach().mean(dims).mean(0)
                count = 1
                for s in input.shape[2:]:
                    count *= s
                var = input.detach().var(dims, unbiased=True).mean(0) if count > 1 else _axle.zeros_like(mean)
                running_mean.mul_(1 - momentum).add_(mean * momentum)
                running_var.mul_(1 - momentum).add_(var * momentum)
        return group_norm(input, c, weight, bias, eps)
    shape = [1, c] + [1] * (input.dim() - 2)
    y = (input - running_mean.reshape(shape)) / _axle.sqrt(running_var.reshape(shape) + eps)
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return y


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def pdist(input, p=2):
    return _axle.pdist(input, p)


# folding, unpooling, LP pooling, embedding bags and the other less common functions
from ._functional_extra import *  # noqa: E402,F401,F403
from ._functional_extra import _tuple_n  # noqa: E402  (conv3d, conv_transpose1d)
# 3-d pooling, max_unpool3d, grid_sample and affine_grid
from ._functional_pool3d import *  # noqa: E402,F401,F403
