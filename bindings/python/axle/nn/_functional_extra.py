"""More of torch.nn.functional (torch 1.13 semantics), composed of axle ops.

unfold / fold are grouped (transposed) convolutions with one-hot kernels;
max_unpool scatters into a zero plane; embedding_bag gathers rows and reduces them per
bag with index_add / scatter_reduce. Gradients come from axle's autograd of the
composed ops.

Errors: where torch raises ValueError / IndexError / NotImplementedError the axle
subclass of that builtin is raised; where torch raises RuntimeError, the axle class that
says what went wrong (ShapeError, DTypeError, IndexError, ValueError for a bad argument
value). Messages are torch's.
"""
import math as _math
import warnings as _warnings

import axle as _axle

from ._losses import _check_reduction, _legacy_reduction, _list_str, _reduce, _scalar_name, _size_str

__all__ = [
    "unfold", "fold", "channel_shuffle", "local_response_norm", "lp_pool1d", "lp_pool2d", "max_unpool1d",
    "max_unpool2d", "rrelu", "rrelu_", "alpha_dropout", "feature_alpha_dropout", "gumbel_softmax",
    "multilabel_margin_loss", "embedding_bag",
]


def _F():
    """axle.nn.functional, looked up when called (it may be importing this file)."""
    from . import functional
    return functional


def _pair(v, name):
    """An int or a 2-sequence as a list of two ints (torch's message for other lengths)."""
    if isinstance(v, (tuple, list)):
        if len(v) == 1:
            v = (v[0], v[0])
        if len(v) != 2:
            raise _axle.ShapeError("It is expected {} equals to 2, but got size {}".format(name, len(v)))
        return [int(v[0]), int(v[1])]
    return [int(v), int(v)]


def _floordiv(a, b):
    return a // b  # torch's div_rtn: rounds toward negative infinity, as Python's //


def _window_checks(kernel, dilation, padding, stride, order):
    msgs = {
        "kernel": (kernel[0] > 0 and kernel[1] > 0,
                   "kernel size should be greater than zero, but got kernel_height: {} kernel_width: {}", kernel),
        "dilation": (dilation[0] > 0 and dilation[1] > 0,
                     "dilation should be greater than zero, but got dilation_height: {} dilation_width: {}", dilation),
        "padding": (padding[0] >= 0 and padding[1] >= 0,
                    "padding should be non-negative, but got pad_height: {} pad_width: {}", padding),
        "stride": (stride[0] > 0 and stride[1] > 0,
                   "stride should be greater than zero, but got stride_height: {} stride_width: {}", stride),
    }
    for key in order:
        ok, msg, vals = msgs[key]
        if not ok:
            raise _axle.ValueError(msg.format(*vals))


def _one_hot_kernels(channels, kernel, like):
    """[C * kh * kw, 1, kh, kw]: output channel c * kh * kw + i * kw + j picks (i, j) of channel c."""
    kh, kw = kernel
    k = _axle.eye(kh * kw, dtype=like.dtype, device=like.device).reshape(kh * kw, 1, kh, kw)
    return k.repeat(channels, 1, 1, 1) if channels != 1 else k


def _pair_str(v):
    return "({}, {})".format(v[0], v[1])


# ----------------------------------------------------------------------------- unfold / fold

def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """im2col: (N, C, H, W) or (C, H, W) -> (N, C * kh * kw, L), each column one sliding block,
    rows channel-major (c, i, j) as torch. A grouped convolution with one-hot kernels."""
    kernel, dilation = _pair(kernel_size, "kernel_size"), _pair(dilation, "dilation")
    padding, stride = _pair(padding, "padding"), _pair(stride, "stride")
    _window_checks(kernel, dilation, padding, stride, ("kernel", "dilation", "padding", "stride"))
    ndim = input.dim()
    if ndim < 3:
        raise _axle.IndexError("Dimension out of range (expected to be in range of [{}, {}], but got {})".format(
            -max(ndim, 1), max(ndim, 1) - 1, 2 if ndim == 2 else 1))
    shape = tuple(input.shape)
    if not ((ndim == 3 and all(s != 0 for s in shape)) or (ndim == 4 and all(s != 0 for s in shape[1:]))):
        raise _axle.ShapeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                               "dimensions for input, but got: " + _list_str(shape))
    height, width = shape[-2], shape[-1]
    out_h = _floordiv(height + 2 * padding[0] - (dilation[0] * (kernel[0] - 1) + 1), stride[0]) + 1
    out_w = _floordiv(width + 2 * padding[1] - (dilation[1] * (kernel[1] - 1) + 1), stride[1]) + 1
    if out_h < 1 or out_w < 1:
        # torch's message prints the input height twice
        raise _axle.ShapeError(
            "Given input with spatial size ({}, {}), kernel_size={}, dilation={}, padding={}, calculated shape of "
            "the array of sliding blocks as ({}, {}), but its components must be at least one.".format(
                height, height, _pair_str(kernel), _pair_str(dilation), _pair_str(padding), out_h, out_w))
    batched = ndim == 4
    x = input if batched else input.unsqueeze(0)
    channels = shape[-3]
    weight = _one_hot_kernels(channels, kernel, x)
    cols = _axle.convolution(x, weight, None, stride, padding, dilation, False, [0, 0], channels)
    cols = cols.reshape(x.shape[0], channels * kernel[0] * kernel[1], out_h * out_w)
    return cols if batched else cols.squeeze(0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """col2im, unfold's adjoint: (N, C * kh * kw, L) or (C * kh * kw, L) -> (N, C, H, W) or (C, H, W),
    overlapping blocks summed. A grouped transposed convolution with one-hot kernels."""
    output_size, kernel = _pair(output_size, "output_size"), _pair(kernel_size, "kernel_size")
    dilation, padding, stride = _pair(dilation, "dilation"), _pair(padding, "padding"), _pair(stride, "stride")
    _window_checks(kernel, dilation, padding, stride, ("kernel", "stride", "dilation", "padding"))
    ndim = input.dim()
    shape = tuple(input.shape)
    if not ((ndim == 2 and all(s != 0 for s in shape)) or (ndim == 3 and all(s != 0 for s in shape[1:]))):
        raise _axle.ShapeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
                               "non-zero dimensions for input, but got: " + _list_str(shape))
    planes, length = shape[-2], shape[-1]
    kk = kernel[0] * kernel[1]
    if planes % kk != 0:
        raise _axle.ShapeError("Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
                               "but got input.size(1)={} and kernel_size={}.".format(planes, _pair_str(kernel)))
    blocks_h = _floordiv(output_size[0] + 2 * padding[0] - dilation[0] * (kernel[0] - 1) - 1, stride[0]) + 1
    blocks_w = _floordiv(output_size[1] + 2 * padding[1] - dilation[1] * (kernel[1] - 1) - 1, stride[1]) + 1
    given = "Given output_size={}, kernel_size={}, dilation={}, padding={}, stride={}, ".format(
        _pair_str(output_size), _pair_str(kernel), _pair_str(dilation), _pair_str(padding), _pair_str(stride))
    if length != blocks_h * blocks_w:
        raise _axle.ShapeError(
            given + "expected size of input's dimension 2 to match the calculated number of sliding blocks {} * {} = "
            "{}, but got input.size(2)={}.".format(blocks_h, blocks_w, blocks_h * blocks_w, length))
    if blocks_h < 1 or blocks_w < 1:
        raise _axle.ShapeError(given + "calculated shape of the array of sliding blocks as ({}, {}), which is too "
                                       "small (non-positive)".format(blocks_h, blocks_w))
    batched = ndim == 3
    x = input if batched else input.unsqueeze(0)
    channels = planes // kk
    x = x.reshape(x.shape[0], planes, blocks_h, blocks_w)
    weight = _one_hot_kernels(channels, kernel, x)
    # the transposed convolution's natural size, then output_padding (< stride) up to output_size
    extra = [output_size[d] - ((blocks_h, blocks_w)[d] - 1) * stride[d] + 2 * padding[d]
             - dilation[d] * (kernel[d] - 1) - 1 for d in range(2)]
    out = _axle.convolution(x, weight, None, stride, padding, dilation, True, extra, channels)
    return out if batched else out.squeeze(0)


# ----------------------------------------------------------------------------- shuffles and norms

def channel_shuffle(input, groups):
    """(N, C, *) with C = g * k: channel i * k + j goes to j * g + i."""
    if input.dim() <= 2:
        raise _axle.ShapeError("channel_shuffle expects input with > 2 dims, but got input with sizes "
                               + _list_str(input.shape))
    if groups <= 0:
        raise _axle.ValueError("Number of groups to divide channels in must be positive. Value of groups:{}"
                               .format(groups))
    shape = tuple(input.shape)
    c = shape[1]
    if c % groups != 0:
        raise _axle.ValueError("Number of channels must be divisible by groups. Got {} channels and {} groups."
                               .format(c, groups))
    x = input.reshape((shape[0], groups, c // groups) + shape[2:])
    return x.transpose(1, 2).reshape(shape)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """input / (k + alpha * mean of x^2 over `size` neighbouring channels (zero-padded)) ^ beta."""
    dim = input.dim()
    if dim < 3:
        # torch's message keeps the whitespace of its source line continuation
        raise _axle.ValueError("Expected 3D or higher dimensionality                          input (got {} "
                               "dimensions)".format(dim))
    if input.numel() == 0:
        return input
    shape = tuple(input.shape)
    channels = shape[1]
    sq = input * input
    before, after = size // 2, (size - 1) // 2
    parts = []
    if before:
        parts.append(_axle.zeros((shape[0], before) + shape[2:], dtype=input.dtype, device=input.device))
    parts.append(sq)
    if after:
        parts.append(_axle.zeros((shape[0], after) + shape[2:], dtype=input.dtype, device=input.device))
    padded = _axle.cat(parts, 1) if len(parts) > 1 else sq
    total = padded.narrow(1, 0, channels)
    for i in range(1, size):
        total = total + padded.narrow(1, i, channels)
    div = (total / size * alpha + k) ** beta
    return input / div


# ----------------------------------------------------------------------------- power-average pooling

def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """(sum over each window of x^p) ^ (1/p): avg_pool1d of x^p times the window size, its sign
    kept through relu as torch's formula."""
    F = _F()
    out = F.avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (_axle.sign(out) * _axle.relu(_axle.abs(out))).mul(kernel_size).pow(1.0 / norm_type)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The 2-d form of lp_pool1d."""
    F = _F()
    kw, kh = kernel_size if isinstance(kernel_size, (tuple, list)) else (kernel_size, kernel_size)
    out = F.avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (_axle.sign(out) * _axle.relu(_axle.abs(out))).mul(kw * kh).pow(1.0 / norm_type)


# ----------------------------------------------------------------------------- max unpooling

def _tuple_n(v, n):
    if isinstance(v, (tuple, list)):
        return list(v)
    return [v] * n


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    n = len(kernel_size)
    input_size = tuple(input.shape)
    default = [(input_size[-n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        return default
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise _axle.ValueError("output_size should be a sequence containing {} or {} elements, but it has a length of "
                               "'{}'".format(n, n + 2, len(output_size)))
    for d in range(n):
        lo, hi = default[d] - stride[d], default[d] + stride[d]
        if not lo < output_size[d] < hi:
            raise _axle.ValueError('invalid output_size "{}" (dim {} must be between {} and {})'.format(
                output_size, d, lo, hi))
    return output_size


def _max_unpool2d(input, indices, output_size):
    if indices.dtype != _axle.int64:
        raise _axle.DTypeError("elements in indices should be type int64 but got: " + _scalar_name(indices.dtype))
    if len(output_size) != 2:
        raise _axle.ShapeError("There should be exactly two elements (height, width) in output_size, but got {} "
                               "elements.".format(len(output_size)))
    ndim = input.dim()
    if ndim not in (3, 4):
        raise _axle.ShapeError("Input to max_unpooling2d should be a 3d or 4d Tensor, but got a tensor with {} "
                               "dimensions.".format(ndim))
    if tuple(input.shape) != tuple(indices.shape):
        raise _axle.ShapeError("Expected shape of indices to be same as that of the input tensor ({}) but got "
                               "indices tensor with shape: {}".format(_list_str(input.shape),
                                                                      _list_str(indices.shape)))
    for i in range(1, ndim):
        if input.shape[i] <= 0:
            raise _axle.ShapeError("max_unpooling2d_forward_out_cpu(): Expected input to have non-zero size for "
                                   "non-batch dimensions, but got {} with dimension {} being empty.".format(
                                       _list_str(input.shape), i))
    if not input.dtype.is_floating_point:
        raise _axle.DTypeError('"max_unpool2d" not implemented for \'{}\''.format(_scalar_name(input.dtype)))
    return _unpool_scatter(input, indices, output_size)


def _unpool_scatter(input, indices, output_size):
    """max_unpool2d/3d after their checks: each value of the last len(output_size) dims
    written at its flat index into a zero output of that size."""
    nd = len(output_size)
    size = tuple(int(s) for s in output_size)
    lead = tuple(input.shape[:-nd])
    planes, volume, out_volume = _math.prod(lead), _math.prod(input.shape[-nd:]), _math.prod(size)
    flat_idx = indices.reshape(planes, volume)
    if flat_idx.numel():
        bad = (flat_idx < 0) | (flat_idx >= out_volume)
        if bool(bad.any()):  # torch reports the last invalid index
            last = int(_axle.nonzero(bad.reshape(-1))[-1, 0])
            raise _axle.IndexError("Found an invalid max index: {} (output volumes are of size {}".format(
                int(flat_idx.reshape(-1)[last]), "x".join(str(s) for s in size)))
    out = _axle.zeros((planes, out_volume), dtype=input.dtype, device=input.device)
    out = out.scatter(1, flat_idx, input.reshape(planes, volume))
    return out.reshape(lead + size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """MaxPool1d's partial inverse: each value written at its index in a zero output (torch's 2-d op
    on a unit width, its checks and messages included)."""
    kernel_size = _tuple_n(kernel_size, 1)
    stride = _tuple_n(stride, 1) if stride is not None else kernel_size
    padding = _tuple_n(padding, 1)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), list(size) + [1]).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """MaxPool2d's partial inverse: each value written at its (flat per-plane) index in a zero output."""
    kernel_size = _tuple_n(kernel_size, 2)
    stride = _tuple_n(stride, 2) if stride is not None else kernel_size
    padding = _tuple_n(padding, 2)
    size = _unpool_output_size(input, kernel_size, stride, padding, output_size)
    return _max_unpool2d(input, indices, size)


# ----------------------------------------------------------------------------- randomized activations

def _rrelu(input, lower, upper, training, inplace):
    if lower > upper:
        raise _axle.ValueError("Lower bound should be less than or equal to the upper bound")
    if not training:
        # leaky_relu with slope (lower + upper) / 2, composed here: axle's leaky_relu backward
        # rounds its slope to float32
        out = _axle.where(input > 0, input, input * ((lower + upper) / 2))
    else:
        if not input.dtype.is_floating_point:
            raise _axle.DTypeError('"rrelu_with_noise_out_cpu" not implemented for \'{}\''.format(
                _scalar_name(input.dtype)))
        slopes = _axle.rand(tuple(input.shape), dtype=input.dtype, device=input.device) * (upper - lower) + lower
        out = _axle.where(input > 0, input, input * slopes)
    if inplace:
        input.copy_(out)
        return input
    return out


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU: in training each negative element gets its own slope drawn from
    U(lower, upper); otherwise leaky_relu with slope (lower + upper) / 2."""
    return _rrelu(input, lower, upper, training, inplace)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return _rrelu(input, lower, upper, training, True)


_SELU_ALPHA_PRIME = 1.7580993408473766  # -scale * alpha of SELU: the value a dropped unit takes


def _alpha_dropout(input, p, training, inplace, feature):
    if p < 0.0 or p > 1.0:
        raise _axle.ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    if p == 0 or not training or input.numel() == 0:
        return input
    if p == 1:
        return input.mul_(0) if inplace else input * 0
    if feature:
        if input.dim() < 2:
            raise _axle.ShapeError("Feature dropout requires at least 2 dimensions in the input")
        shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    else:
        shape = tuple(input.shape)
    keep = (_axle.rand(shape, dtype=input.dtype, device=input.device) < 1 - p).to(input.dtype)
    a = 1.0 / _math.sqrt((_SELU_ALPHA_PRIME ** 2 * p + 1) * (1 - p))
    b = (keep - 1) * (_SELU_ALPHA_PRIME * a) + _SELU_ALPHA_PRIME * a * p
    if inplace:
        return input.mul_(keep * a).add_(b)
    return input * (keep * a) + b


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout keeping SELU's self-normalization: dropped elements take -alpha' (SELU's negative
    saturation), then an affine map restores zero mean and unit variance. Identity unless training."""
    return _alpha_dropout(input, p, training, inplace, False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """alpha_dropout dropping whole channels (input[n, c])."""
    return _alpha_dropout(input, p, training, inplace, True)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """softmax((logits + Gumbel(0, 1) noise) / tau) along dim; hard=True returns the one-hot of its
    argmax, differentiated as the soft sample (straight-through)."""
    if eps != 1e-10:
        _warnings.warn("`eps` parameter is deprecated and has no effect.")
    u = _axle.rand(tuple(logits.shape), dtype=logits.dtype, device=logits.device)
    gumbels = -_axle.log(-_axle.log1p(-u))  # -log(Exp(1)), Exp(1) = -log(1 - U)
    y_soft = _axle.softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y_soft
    index = _axle.argmax(y_soft, dim, keepdim=True)
    y_hard = _axle.zeros_like(logits).scatter(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


# ----------------------------------------------------------------------------- multilabel margin loss

def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """For each sample: sum over its target classes j (target's entries before the first -1) and
    non-target classes i of max(0, 1 - (x[j] - x[i])), divided by the number of classes.
    input (N, C), (C,) or (); target int64 of the same shape."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    ndim = input.dim()
    if not ((ndim == 2 and input.shape[1] != 0) or (ndim == 1 and input.shape[0] != 0) or ndim == 0):
        raise _axle.ShapeError("Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                               + _list_str(input.shape))
    if ndim <= 1:
        nframe, dim = 1, (1 if ndim == 0 else input.shape[0])
        ok = target.dim() <= 1 and target.numel() == dim
    else:
        nframe, dim = input.shape
        ok = target.dim() == 2 and tuple(target.shape) == (nframe, dim)
    if not ok:
        raise _axle.ShapeError("inconsistent size {} for argument #2 'target'".format(_list_str(target.shape)))
    if target.dtype != _axle.int64:
        raise _axle.DTypeError("expected scalar type Long but found " + _scalar_name(target.dtype))
    if target.numel() and bool(((target < -1) | (target >= dim)).any()):
        raise _axle.IndexError("argument #2 'target' is out of range")
    if not input.dtype.is_floating_point:
        raise _axle.DTypeError('"multilabel_margin_loss_forward_out_frame" not implemented for \'{}\''.format(
            _scalar_name(input.dtype)))
    x = input.reshape(nframe, dim)
    y = target.reshape(nframe, dim)
    # the targets of a sample are its entries before the first -1
    listed = _axle.cumsum((y < 0).to(_axle.int64), 1) == 0                         # [N, K]
    classes = _axle.arange(dim, device=input.device)
    is_target = ((y.unsqueeze(-1) == classes) & listed.unsqueeze(-1)).any(1)        # [N, C]
    x_target = x.gather(1, _axle.clamp(y, min=0))                                  # [N, K]
    pairs = listed.unsqueeze(-1) & (~is_target).unsqueeze(1)                       # [N, K, C]
    hinge = _axle.relu(1 - x_target.unsqueeze(-1) + x.unsqueeze(1))  # torch's gradient is 0 at exactly 0
    loss = _axle.where(pairs, hinge, 0.0).sum((1, 2)) / dim
    if ndim <= 1:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


# ----------------------------------------------------------------------------- embedding_bag

_TORCH_TENSOR_TYPES = {"float32": "torch.FloatTensor", "float64": "torch.DoubleTensor", "float16": "torch.HalfTensor",
                       "bfloat16": "torch.BFloat16Tensor", "int64": "torch.LongTensor", "int32": "torch.IntTensor",
                       "int16": "torch.ShortTensor", "int8": "torch.CharTensor", "uint8": "torch.ByteTensor",
                       "bool": "torch.BoolTensor"}


def _tensor_type(dtype):
    name = str(dtype).replace("axle.", "")
    return _TORCH_TENSOR_TYPES.get(name, name)


def _renorm_rows(weight, indices, max_norm, norm_type):
    """torch's embedding_renorm_: rows that indices name with a norm_type-norm above max_norm are
    scaled (in place, without grad) to max_norm / (norm + 1e-7)."""
    with _axle.no_grad():
        rows = _axle.unique(indices.reshape(-1).to(_axle.int64))
        picked = weight.index_select(0, rows)
        norms = _axle.norm(picked, norm_type, [1], True)
        scale = _axle.where(norms > max_norm, max_norm / (norms + 1e-7), _axle.ones_like(norms))
        weight.index_put_((rows,), picked * scale)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Sums, means or maxes of bags of embedding rows: a 2-d input is one bag per row; a 1-d input is
    cut into bags at offsets (include_last_offset: offsets also holds the end of the last bag).
    Entries equal to padding_idx are left out of their bag; empty bags give zeros. per_sample_weights
    (mode 'sum' only) scales each row. sparse=True is accepted; the weight's gradient is dense."""
    if weight.dtype == _axle.int64 and input.dtype.is_floating_point:
        _warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                       "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.")
        weight, input = input, weight
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise _axle.ValueError("embedding_bag: If per_sample_weights ({}) is not None, then it must have the same "
                               "shape as the input ({})".format(_size_str(per_sample_weights.shape),
                                                                _size_str(input.shape)))
    if input.dim() == 2:
        if offsets is not None:
            raise _axle.ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch "
                                   "of fixed length sequences. However, found offsets of type {}".format(
                                       str(type(offsets))))
        offsets = _axle.arange(0, input.numel(), input.shape[1], dtype=input.dtype, device=input.device)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise _axle.ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise _axle.ValueError("offsets has to be a 1D Tensor")
    else:
        raise _axle.ValueError("input has to be 1D or 2D Tensor, but got Tensor of dimension {}".format(input.dim()))
    if mode == "max":
        if scale_grad_by_freq:
            raise _axle.ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise _axle.ValueError("max mode does not support sparse weights")
    elif mode not in ("sum", "mean"):
        raise _axle.ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        _renorm_rows(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise _axle.NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' "
            "(got mode='{}'). Please open a feature request on GitHub.".format(mode))

    num_embeddings = weight.shape[0]
    if padding_idx is not None:
        if not -num_embeddings <= padding_idx < num_embeddings:
            raise _axle.ValueError("padding_idx must be within the number of embeddings, -{} through {}, but got {}"
                                   .format(num_embeddings, num_embeddings - 1, padding_idx))
        padding_idx = padding_idx + num_embeddings if padding_idx < 0 else padding_idx
    for arg, t in (("indices", input), ("offsets", offsets)):
        if t.dtype not in (_axle.int64, _axle.int32):
            raise _axle.DTypeError("Expected tensor for argument #1 '{}' to have one of the following scalar types: "
                                   "Long, Int; but got {} instead (while checking arguments for embedding_bag)"
                                   .format(arg, _tensor_type(t.dtype)))
    if per_sample_weights is not None and per_sample_weights.dtype != weight.dtype:
        raise _axle.DTypeError("Expected tensor for argument #1 'weight' to have the same type as tensor for argument "
                               "#1 'per_sample_weights'; but type {} does not equal {} (while checking arguments for "
                               "embedding_bag)".format(_tensor_type(weight.dtype),
                                                       _tensor_type(per_sample_weights.dtype)))
    n = input.shape[0]
    offsets = offsets.to(_axle.int64)
    idx = input.to(_axle.int64)
    n_offsets = offsets.shape[0]
    if n_offsets:
        first, last = int(offsets[0]), int(offsets[-1])
        if first != 0:
            raise _axle.ValueError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
                                   "from position 0. However, got {}".format(first))
        if last > n:
            raise _axle.ValueError("offsets[-1] can not be greater than input's length {} but got offsets[-1] of {}"
                                   .format(n, last))
        if n_offsets > 1 and bool((offsets[1:] < offsets[:-1]).any()):
            raise _axle.ValueError("embedding_bag: offsets must be non-decreasing")
    if n and bool(((idx < 0) | (idx >= num_embeddings)).any()):
        bad = int(idx[_axle.nonzero((idx < 0) | (idx >= num_embeddings))[0, 0]])
        raise _axle.IndexError("embedding_bag: index {} is out of bounds for dimension 0 with size {}".format(
            bad, num_embeddings))

    bags = max(n_offsets - 1, 0) if include_last_offset else n_offsets
    dim = weight.shape[1]
    out_zero = _axle.zeros((bags, dim), dtype=weight.dtype, device=weight.device)
    if bags == 0 or n == 0:
        return out_zero + weight.narrow(0, 0, 0).sum()  # zeros, on weight's graph
    starts = offsets[:bags]
    end = int(offsets[bags]) if include_last_offset else n
    positions = _axle.arange(n, device=weight.device)
    bag_of = _axle.clamp(_axle.searchsorted(starts, positions, right=True) - 1, min=0)    # [n]
    keep = positions < end
    if padding_idx is not None:
        keep = keep & (idx != padding_idx)
    rows = weight.index_select(0, idx)                                                    # [n, D]
    if scale_grad_by_freq:
        # the gradient of each row divided by its index's count in input; values unchanged
        counts = _axle.bincount(idx, minlength=num_embeddings).index_select(0, idx).to(weight.dtype)
        rows = rows.detach() + (rows - rows.detach()) / counts.unsqueeze(1)
    keep_col = keep.unsqueeze(1)
    count = _axle.zeros((bags,), dtype=weight.dtype, device=weight.device).index_add(0, bag_of, keep.to(weight.dtype))
    if mode == "max":
        neg_inf = _axle.full((1, 1), float("-inf"), dtype=weight.dtype, device=weight.device)
        masked = _axle.where(keep_col, rows.detach(), neg_inf)
        index2 = bag_of.unsqueeze(1).expand(n, dim)
        best = out_zero.scatter_reduce(0, index2, masked, "amax", include_self=False)   # [B, D]
        # the first position of each bag reaching its max (torch's kernel keeps the first)
        hit = keep_col & (masked == best.index_select(0, bag_of))
        past_end = _axle.full((1, 1), n, dtype=_axle.int64, device=weight.device)
        cand = _axle.where(hit, positions.unsqueeze(1).expand(n, dim), past_end)
        first = _axle.full((bags, dim), n, dtype=_axle.int64, device=weight.device).scatter_reduce(
            0, index2, cand, "amin", include_self=True)
        out = rows.gather(0, _axle.clamp(first, max=n - 1))
        return _axle.where((count > 0).unsqueeze(1), out, 0.0)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(1)
    rows = _axle.where(keep_col, rows, 0.0)
    out = out_zero.index_add(0, bag_of, rows)
    if mode == "mean":
        out = out / _axle.clamp(count, min=1).unsqueeze(1)
    return out
