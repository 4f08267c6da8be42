"""torch's native_* normalization functions (the forms returning the saved statistics) and the
SyncBatchNorm kernels (batch_norm_stats / _elemt / _gather_stats(_with_counts) / _backward_reduce /
_backward_elemt / _update_stats), composed of axle ops with torch 1.13's semantics.

torch runs the SyncBatchNorm kernels on CUDA only; their results are defined here by what
SyncBatchNorm computes with them: stats -> gather_stats -> elemt is the training batch norm over
all workers' samples, backward_reduce -> backward_elemt its input gradient (the tests check both
against torch's batch_norm on the CPU). Statistics are reduced over every dim but dim 1 (channels);
invstd = 1 / sqrt(biased variance + eps); running variances are updated with the unbiased one.
"""
import axle as _axle

__all__ = ["native_layer_norm", "native_batch_norm", "native_group_norm", "batch_norm_stats", "batch_norm_elemt",
           "batch_norm_gather_stats", "batch_norm_gather_stats_with_counts", "batch_norm_backward_reduce",
           "batch_norm_backward_elemt", "batch_norm_update_stats"]


def _F():
    from . import functional
    return functional


def _channel_dims(input):
    if input.dim() < 2:
        raise _axle.ShapeError("batch norm: expected an input with at least 2 dims (N, C, ...), got {}-D".format(
            input.dim()))
    return [0] + list(range(2, input.dim()))


def _channel_view(t, input):
    return t.reshape([1, -1] + [1] * (input.dim() - 2))


def _invstd(var, eps):
    return 1.0 / _axle.sqrt(var + eps)


def _mean_var(input):
    """Per-channel mean and biased variance."""
    dims = _channel_dims(input)
    mean = input.mean(dims)
    var = ((input - _channel_view(mean, input)) ** 2).mean(dims)
    return mean, var


def _check_channels(input, **tensors):
    c = input.shape[1]
    for name, t in tensors.items():
        if t is not None and tuple(t.shape) != (c,):
            raise _axle.ShapeError("batch norm: {} must have shape [{}] (the input's channels), got {}".format(
                name, c, list(t.shape)))


def _update_running(running_mean, running_var, mean, var_unbiased, momentum):
    with _axle.no_grad():
        if running_mean is not None:
            running_mean.mul_(1 - momentum).add_(mean.detach().to(running_mean.dtype) * momentum)
        if running_var is not None:
            running_var.mul_(1 - momentum).add_(var_unbiased.detach().to(running_var.dtype) * momentum)


def _batch_norm_training(input, weight, bias, running_mean, running_var, momentum, eps):
    """(out, save_mean, save_invstd) over the batch's statistics, the running
    statistics given (either may be None) updated in place by the same
    _native_batch_norm_legit call (a scratch tensor stands in for a missing
    one; running statistics of another dtype than the input's are refused, as
    torch's mixed-dtype check does); without any, the .no_stats form. Their
    sizes are checked first."""
    if input.dim() >= 2:
        for name, t in (("running_mean", running_mean), ("running_var", running_var)):
            if t is not None and t.numel() != input.shape[1]:
                raise _axle.ShapeError("{} should contain {} elements not {}".format(name, input.shape[1], t.numel()))
    if running_mean is None and running_var is None:
        return _axle._native_batch_norm_legit(input, weight, bias, True, momentum, eps)
    if running_mean is None:
        running_mean = _axle.zeros_like(running_var)
    if running_var is None:
        running_var = _axle.ones_like(running_mean)
    return _axle._native_batch_norm_legit(input, weight, bias, running_mean, running_var, True, momentum, eps)


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """(out, mean, rstd): layer_norm and the statistics over the normalized dims, shaped
    input.shape[:-len(normalized_shape)] + (1,) * len(normalized_shape) (not differentiable)."""
    shape = list(normalized_shape)
    k = len(shape)
    if k == 0 or input.dim() < k or list(input.shape[input.dim() - k:]) != shape:
        raise _axle.ShapeError("Given normalized_shape={}, expected input with shape [*, {}], but got input of "
                               "size{}".format(shape, ", ".join(str(s) for s in shape), list(input.shape)))
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and list(t.shape) != shape:
            raise _axle.ShapeError("Expected {} to be of same shape as normalized_shape, but got {} of shape {} and "
                                   "normalized_shape = {}".format(name, name, list(t.shape), shape))
    out = _F().layer_norm(input, shape, weight, bias, eps)
    with _axle.no_grad():
        dims = list(range(input.dim() - k, input.dim()))
        mean = input.mean(dims, keepdim=True)
        var = ((input - mean) ** 2).mean(dims, keepdim=True)
        rstd = _invstd(var, eps)
    return out, mean, rstd


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """(out, save_mean, save_invstd). training: batch statistics (running ones updated in place with
    momentum), the saved ones per channel; otherwise the running statistics, and empty saved ones."""
    _channel_dims(input)
    _check_channels(input, weight=weight, bias=bias, running_mean=running_mean, running_var=running_var)
    if training:
        out, mean, invstd = _batch_norm_training(input, weight, bias, running_mean, running_var, momentum, eps)
        return out, mean.detach(), invstd.detach()
    if running_mean is None or running_var is None:
        raise _axle.ValueError("native_batch_norm: running_mean and running_var are required when not training")
    out = batch_norm_elemt(input, weight, bias, running_mean, _invstd(running_var, eps), eps)
    empty = _axle.zeros(0, dtype=input.dtype, device=input.device)
    return out, empty, empty.clone()


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """(out, mean, rstd): group_norm and each (sample, group)'s statistics, (N, group) each."""
    if N * C * HxW != input.numel() or input.dim() < 2 or input.shape[0] != N or input.shape[1] != C:
        raise _axle.ShapeError("native_group_norm: Expected X.numel() == N * C * HxW with input (N, C, *) = ({}, {}, "
                               "{}), got input of shape {}".format(N, C, HxW, list(input.shape)))
    if group <= 0 or C % group:
        raise _axle.ValueError("Expected number of channels in input to be divisible by num_groups, but got input of "
                               "shape {} and num_groups={}".format(list(input.shape), group))
    out = _F().group_norm(input, group, weight, bias, eps)
    x = input.reshape(N, group, -1)
    mean = x.mean(2)
    var = ((x - mean.unsqueeze(2)) ** 2).mean(2)
    return out, mean, _invstd(var, eps)


# ---------------------------------------------------------------- SyncBatchNorm's kernels
def batch_norm_stats(input, eps):
    """(mean, invstd) per channel of this worker's input."""
    mean, var = _mean_var(input)
    return mean, _invstd(var, eps)


def batch_norm_elemt(input, weight, bias, mean, invstd, eps):
    """(input - mean) * invstd * weight + bias, per channel (eps is not used)."""
    _channel_dims(input)
    y = (input - _channel_view(mean, input)) * _channel_view(invstd, input)
    if weight is not None:
        y = y * _channel_view(weight, input)
    if bias is not None:
        y = y + _channel_view(bias, input)
    return y


def batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var, momentum, eps, counts):
    """Combines the workers' (mean, invstd) rows (W, C), each over counts[w] samples, into the global
    (mean, invstd); running statistics updated in place (unbiased variance). input only gives the dtype."""
    if mean.dim() != 2 or tuple(invstd.shape) != tuple(mean.shape):
        raise _axle.ShapeError("batch_norm_gather_stats: mean and invstd must be (world_size, channels), got {} and "
                               "{}".format(list(mean.shape), list(invstd.shape)))
    counts = counts.to(mean.dtype).reshape(-1, 1)
    if counts.shape[0] != mean.shape[0]:
        raise _axle.ShapeError("batch_norm_gather_stats: {} counts for {} workers".format(counts.shape[0],
                                                                                          mean.shape[0]))
    total = counts.sum(0)
    global_mean = (counts * mean).sum(0) / total
    var = 1.0 / (invstd * invstd) - eps
    var_n = (counts * (var + (mean - global_mean) ** 2)).sum(0)
    _update_running(running_mean, running_var, global_mean, var_n / (total - 1), momentum)
    return global_mean, _invstd(var_n / total, eps)


def batch_norm_gather_stats(input, mean, invstd, running_mean, running_var, momentum, eps, count):
    """batch_norm_gather_stats_with_counts with every worker over `count` samples."""
    counts = _axle.full((mean.shape[0],), float(count), dtype=mean.dtype, device=mean.device)
    return batch_norm_gather_stats_with_counts(input, mean, invstd, running_mean, running_var, momentum, eps, counts)


def batch_norm_backward_reduce(grad_out, input, mean, invstd, weight, input_g, weight_g, bias_g):
    """(sum_dy, sum_dy_xmu, grad_weight, grad_bias) per channel: sum dy, sum dy (x - mean) when
    input_g, sum dy (x - mean) invstd when weight_g, sum dy when bias_g (None where not asked)."""
    dims = _channel_dims(input)
    sum_dy = grad_out.sum(dims)
    sum_dy_xmu = (grad_out * (input - _channel_view(mean, input))).sum(dims)
    if weight_g and weight is None:
        raise _axle.ValueError("batch_norm_backward_reduce: weight_g needs the weight")
    grad_weight = (sum_dy_xmu * invstd).to(weight.dtype) if weight_g else None
    grad_bias = sum_dy.to(weight.dtype if weight is not None else sum_dy.dtype) if bias_g else None
    return (sum_dy if input_g else None), (sum_dy_xmu if input_g else None), grad_weight, grad_bias


def batch_norm_backward_elemt(grad_out, input, mean, invstd, weight, mean_dy, mean_dy_xmu, count):
    """The input gradient of the synchronized batch norm: mean_dy and mean_dy_xmu are the all-reduced sums
    of batch_norm_backward_reduce, count the workers' sample counts (their sum normalizes them)."""
    norm = 1.0 / count.to(_axle.float64).sum().item()
    m = _channel_view(mean, input)
    s = _channel_view(invstd, input)
    factor = s if weight is None else s * _channel_view(weight, input)
    return (grad_out - _channel_view(mean_dy, input) * norm
            - (input - m) * s * s * _channel_view(mean_dy_xmu, input) * norm) * factor


def batch_norm_update_stats(input, running_mean, running_var, momentum):
    """(mean, biased variance) per channel; running statistics updated in place (unbiased variance)."""
    _check_channels(input, running_mean=running_mean, running_var=running_var)
    mean, var = _mean_var(input)
    count = input.numel() // input.shape[1]
    _update_running(running_mean, running_var, mean, var * (count / (count - 1)) if count > 1 else var, momentum)
    return mean, var
