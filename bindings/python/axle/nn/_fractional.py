"""Fractional max pooling (torch.nn.functional.fractional_max_pool2d / 3d, torch 1.13 semantics),
composed of gathers: per (sample, channel) plane and dimension, the window starts are torch's
pseudo-random sequence int((i + u) * alpha) - int(u * alpha), alpha = (in - k) / (out - 1) in the
input's dtype, the last window ending at the input's end; u comes from _random_samples (N, C, d),
so the same samples give torch's result. Each output is its window's first maximum (the last NaN
where there is one, as torch's kernel), its index the flat position within the input plane.
The gradient flows to that position (autograd of the gather), as torch's backward."""
import axle as _axle

__all__ = ["fractional_max_pool2d", "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
           "fractional_max_pool3d_with_indices"]

_DIM_NAMES = {2: ("height", "width"), 3: ("time", "height", "width")}


def _tuple(v, n, what, name):
    if isinstance(v, (tuple, list)):
        if len(v) == 1:
            v = tuple(v) * n
        if len(v) != n or not all(isinstance(i, int) for i in v):
            raise _axle.ValueError("{}: {} must either be a single Int or tuple of Ints".format(name, what))
        return [int(i) for i in v]
    if not isinstance(v, int):
        raise _axle.ValueError("{}: {} must either be a single Int or tuple of Ints".format(name, what))
    return [int(v)] * n


def _starts(u, size, out, pool, dtype):
    """(N, C, out) window starts from the samples u (N, C)."""
    n, c = u.shape
    last = _axle.full((n, c, 1), size - pool, dtype=_axle.int64, device=u.device)
    if out == 0:
        return last[:, :, :0]
    if out == 1:
        return last
    alpha = _axle.tensor(float(size - pool), dtype=dtype) / _axle.tensor(float(out - 1), dtype=dtype)
    i = _axle.arange(out - 1, dtype=dtype, device=u.device)
    seq = ((i + u.unsqueeze(-1)) * alpha).to(_axle.int64) - (u * alpha).to(_axle.int64).unsqueeze(-1)
    return _axle.cat([seq, last], 2)


def _fractional(input, kernel_size, output_size, output_ratio, samples, d):
    name = "fractional_max_pool%dd" % d
    if output_size is None and output_ratio is None:
        raise _axle.ValueError("{} requires specifying either an output_size or an output_ratio".format(name))
    if input.dim() not in (d + 1, d + 2):
        raise _axle.ShapeError("{}(): Expected {}D or {}D tensor, but got: {}".format(name, d + 1, d + 2,
                                                                                     list(input.shape)))
    if not input.dtype.is_floating_point:
        raise _axle.DTypeError("{}: expected a floating point input, got {}".format(name, input.dtype))
    if output_size is None:
        ratio = list(output_ratio) if isinstance(output_ratio, (tuple, list)) else [output_ratio] * d
        output_size = [int(input.shape[input.dim() - d + i] * ratio[i]) for i in range(d)]
    kernel = _tuple(kernel_size, d, "kernel_size", name)
    out = _tuple(output_size, d, "output_size", name)
    batched = input.dim() == d + 2
    x = input if batched else input.unsqueeze(0)
    n, c, sizes = x.shape[0], x.shape[1], list(x.shape[2:])
    for i in range(d):
        if kernel[i] <= 0 or out[i] < 0:
            raise _axle.ValueError("{}(): kernel_size and output_size must be positive, got {} and {}".format(
                name, kernel, out))
        # torch's 3-d kernel wants the last window to end before the input's last element
        if out[i] + kernel[i] - 1 > sizes[i] - (d == 3):
            raise _axle.ShapeError("{}(): pool {} {} too large relative to input {} {}".format(
                name if d == 2 else name + "_out", _DIM_NAMES[d][i], kernel[i], _DIM_NAMES[d][i], sizes[i]))
    if samples is None:
        samples = _axle.rand((n, c, d), dtype=input.dtype, device=input.device)
    else:
        if samples.dtype != input.dtype:
            raise _axle.DTypeError("expected scalar type {} but found {}".format(input.dtype, samples.dtype))
        if tuple(samples.shape) != (n, c, d):
            raise _axle.ShapeError("{}(): _random_samples must have shape {}, got {}".format(
                name, [n, c, d], list(samples.shape)))
        if samples.numel() and bool(((samples < 0) | (samples >= 1)).any().item()):
            raise _axle.ValueError("{}(): _random_samples must lie in [0, 1)".format(name))
    # torch's kernels take the 2-d samples as (width, height), the 3-d ones as (time, height, width)
    order = [1, 0] if d == 2 else [0, 1, 2]
    strides = [1] * d
    for i in range(d - 2, -1, -1):
        strides[i] = strides[i + 1] * sizes[i + 1]
    base = _axle.zeros([n, c] + out, dtype=_axle.int64, device=x.device)
    for i in range(d):
        start = _starts(samples[:, :, order[i]], sizes[i], out[i], kernel[i], input.dtype)
        base = base + (start * strides[i]).reshape([n, c] + [out[j] if j == i else 1 for j in range(d)])
    offsets = [0]
    for i in range(d):
        offsets = [o + k * strides[i] for o in offsets for k in range(kernel[i])]
    count = len(offsets)
    cand = base.unsqueeze(-1) + _axle.tensor(offsets, dtype=_axle.int64, device=x.device)
    flat = x.reshape(n, c, -1)
    vals = flat.detach().gather(2, cand.reshape(n, c, -1)).reshape(cand.shape)
    k = _axle.arange(count, dtype=_axle.int64, device=x.device)
    best = vals.amax(-1, keepdim=True) if count else vals.sum(-1, keepdim=True)
    first = _axle.where(vals == best, k, _axle.full_like(k, count)).amin(-1, keepdim=True).clamp(max=count - 1)
    nan = _axle.isnan(vals)
    last_nan = _axle.where(nan, k, _axle.full_like(k, -1)).amax(-1, keepdim=True)
    pick = _axle.where(last_nan >= 0, last_nan, first)
    indices = cand.gather(-1, pick).squeeze(-1)
    output = flat.gather(2, indices.reshape(n, c, -1)).reshape(indices.shape)
    if not batched:
        output, indices = output.squeeze(0), indices.squeeze(0)
    return output, indices


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):
    return _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 2)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """(N, C, H, W) or (C, H, W): max over pseudo-randomly placed kernel_size windows giving output_size
    (or int(input size * output_ratio)); (output, indices) when return_indices."""
    out = _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 2)
    return out if return_indices else out[0]


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                                       _random_samples=None):
    return _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 3)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                          _random_samples=None):
    """fractional_max_pool2d's 3-d form over (N, C, T, H, W) or (C, T, H, W)."""
    out = _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 3)
    return out if return_indices else out[0]
