"""torch.nn.functional's loss functions and distance helpers (torch 1.13 semantics),
written as compositions of axle ops.

Every loss takes reduction='none' | 'mean' | 'sum' and, where torch's signature has
them, the legacy size_average / reduce flags (mapped to a reduction, with torch's
deprecation warning). Gradients come from axle's autograd of the composed ops, except
binary_cross_entropy, whose backward is written out (torch's clamped formula) so that
inputs of exactly 0 or 1 give finite gradients as torch's do.

Errors: the builtin class torch raises is kept where torch raises ValueError or
IndexError; where torch raises RuntimeError, the axle class that says what went wrong
(ShapeError, DTypeError; ValueError for a bad argument value) is raised. Messages are
torch's.
"""
import math as _math
import warnings as _warnings

import axle as _axle

__all__ = [
    "l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss", "nll_loss", "cross_entropy",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss",
    "gaussian_nll_loss", "hinge_embedding_loss", "margin_ranking_loss", "soft_margin_loss",
    "multilabel_soft_margin_loss", "cosine_embedding_loss", "triplet_margin_loss",
    "triplet_margin_with_distance_loss", "multi_margin_loss", "normalize", "cosine_similarity",
    "pairwise_distance",
]

# ----------------------------------------------------------------------------- helpers

_TORCH_SCALAR_NAMES = {
    "float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
    "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool",
}


def _scalar_name(dtype):
    """A dtype as torch's C++ messages name it (Float, Long, ...)."""
    name = getattr(dtype, "name", str(dtype).replace("axle.", ""))
    return _TORCH_SCALAR_NAMES.get(name, name)


def _list_str(shape):
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def _size_str(shape):
    """A shape as torch's Python messages print it: torch.Size([2, 3])."""
    return "torch.Size(" + _list_str(shape) + ")"


def _broadcast_shape(a, b):
    """The broadcast of two shapes; torch's message when they do not broadcast."""
    a, b = tuple(a), tuple(b)
    n = max(len(a), len(b))
    a_full, b_full = (1,) * (n - len(a)) + a, (1,) * (n - len(b)) + b
    out = []
    for i, (x, y) in enumerate(zip(a_full, b_full)):
        if x != y and x != 1 and y != 1:
            raise _axle.ShapeError("The size of tensor a (%d) must match the size of tensor b (%d) at "
                                   "non-singleton dimension %d" % (x, y, i))
        out.append(y if x == 1 else x)
    return tuple(out)


def _legacy_reduction(size_average, reduce, reduction):
    """torch's mapping of the deprecated size_average / reduce flags onto a reduction string."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if (size_average and reduce) else ("sum" if reduce else "none")
    _warnings.warn("size_average and reduce args will be deprecated, please use reduction='{}' instead.".format(ret),
                   stacklevel=3)
    return ret


def _check_reduction(reduction, message="{} is not a valid value for reduction"):
    if reduction not in ("none", "mean", "sum"):
        raise _axle.ValueError(message.format(reduction))


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _warn_target_size(input, target, stacklevel=3):
    if tuple(target.shape) != tuple(input.shape):
        _warnings.warn("Using a target size ({}) that is different to the input size ({}). This will likely lead "
                       "to incorrect results due to broadcasting. Please ensure they have the same size."
                       .format(_size_str(target.shape), _size_str(input.shape)), stacklevel=stacklevel)


def _check_floating_result(name, input, target):
    """torch's pointwise loss kernels have no integer versions."""
    dtype = _axle.promote_types(input.dtype, target.dtype)
    if not dtype.is_floating_point:
        raise _axle.DTypeError('"{}" not implemented for \'{}\''.format(name, _scalar_name(dtype)))


def _softplus(z):
    """log(1 + exp(z)) without overflow: max(z, 0) + log1p(exp(-|z|)). Both `where`s keep the
    gradient exact everywhere, z = 0 included (sigmoid(0) = 1/2), and their unused branches
    finite, so no NaN leaks into gradients."""
    pos = z > 0
    return _axle.where(pos, z, 0.0) + _axle.log1p(_axle.exp(_axle.where(pos, -z, z)))


def _xlogx(t):
    """xlogy(t, t): 0 where t == 0, t * log(t) elsewhere (NaN for t < 0 or NaN); zero gradient at t == 0."""
    zero = t == 0
    safe = _axle.where(zero, 1.0, t)
    return _axle.where(zero, 0.0, t * _axle.log(safe))


# ----------------------------------------------------------------------------- regression losses

def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Mean / sum / elementwise absolute error |input - target| (broadcast, with torch's warning)."""
    _warn_target_size(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    return _reduce(_axle.abs(input - target), reduction)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Mean / sum / elementwise squared error (input - target)^2 (broadcast, with torch's warning)."""
    _warn_target_size(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    _check_floating_result("mse", input, target)
    diff = input - target
    return _reduce(diff * diff, reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 z^2 / beta where z = |input - target| < beta, else z - 0.5 beta; beta = 0 is l1_loss."""
    _warn_target_size(input, target)
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if beta == 0.0:
        return _reduce(_axle.abs(input - target), reduction)
    if beta < 0:
        raise _axle.ValueError("smooth_l1_loss does not support negative values for beta.")
    _check_floating_result("smooth_l1", input, target)
    z = _axle.abs(input - target)
    return _reduce(_axle.where(z < beta, 0.5 * z * z / beta, z - 0.5 * beta), reduction)


def huber_loss(input, target, reduction="mean", delta=1.0):
    """0.5 z^2 where z = |input - target| < delta, else delta (z - 0.5 delta)."""
    _warn_target_size(input, target)
    _check_reduction(reduction)
    if not delta > 0:
        raise _axle.ValueError("huber_loss does not support non-positive values for delta.")
    _check_floating_result("huber", input, target)
    z = _axle.abs(input - target)
    return _reduce(_axle.where(z < delta, 0.5 * z * z, delta * (z - 0.5 * delta)), reduction)


# ----------------------------------------------------------------------------- classification losses

def _class_weights(weight, target, valid):
    """weight[target] where valid, 0 elsewhere (target's shape)."""
    safe = _axle.where(valid, target, 0)
    picked = _axle.index_select(weight.reshape(-1), 0, safe.reshape(-1)).reshape(tuple(target.shape))
    return _axle.where(valid, picked, 0.0)


def _nll(input, target, weight, ignore_index, reduction):
    """nll_loss after the reduction argument was checked: torch's shape checks, then
    -weight[t] * input[..., t, ...] over the non-ignored targets; 'mean' divides by the
    total weight of the non-ignored targets."""
    ndim = input.dim()
    if ndim < 1:
        raise _axle.ValueError("Expected 1 or more dimensions (got {})".format(ndim))
    if ndim != 1:
        target_batch = target.shape[0] if target.dim() > 0 else 0
        if input.shape[0] != target_batch:
            raise _axle.ValueError("Expected input batch_size ({}) to match target batch_size ({})."
                                   .format(input.shape[0], target_batch))
    class_dim = 0 if ndim == 1 else 1
    n_classes = input.shape[class_dim]
    if ndim <= 2:
        if target.dim() > 1:
            raise _axle.ShapeError("0D or 1D target tensor expected, multi-target not supported")
        if not (ndim == 1 and target.dim() == 0) and input.shape[0] != target.shape[0]:
            raise _axle.ShapeError("size mismatch (got input: {}, target: {})"
                                   .format(_list_str(input.shape), _list_str(target.shape)))
        if weight is not None and (weight.dim() != 1 or weight.numel() != n_classes):
            raise _axle.ShapeError("weight tensor should be defined either for all {} classes or no classes but got "
                                   "weight tensor of shape: {}".format(n_classes, _list_str(weight.shape)))
    else:
        if ndim == 4:
            if target.dim() != 3:
                raise _axle.ShapeError("only batches of spatial targets supported (3D tensors) but got targets of "
                                       "dimension: {}".format(target.dim()))
            if tuple(target.shape) != (input.shape[0],) + tuple(input.shape[2:]):
                raise _axle.ShapeError("size mismatch (got input: {} , target: {}"
                                       .format(_list_str(input.shape), _list_str(target.shape)))
        elif tuple(target.shape) != (input.shape[0],) + tuple(input.shape[2:]):
            raise _axle.ShapeError("Expected target size {}, got {}".format(
                _list_str((input.shape[0],) + tuple(input.shape[2:])), _list_str(target.shape)))
        if weight is not None and weight.numel() != n_classes:
            raise _axle.ShapeError("weight tensor should be defined either for all or no classes")
    if target.dtype != _axle.int64:
        raise _axle.DTypeError("expected scalar type Long but found {}".format(_scalar_name(target.dtype)))
    if ndim == 1 and target.dim() == 1:
        # torch 1.13 accepts a class-vector input with a target of as many entries and
        # scores only the first one (one sample, no batch dim)
        target = target.select(0, 0)

    valid = target != ignore_index
    bad = valid & ((target < 0) | (target >= n_classes))
    if bool(bad.any()):
        first = _axle.argmax(bad.reshape(-1).long())
        raise _axle.IndexError("Target {} is out of bounds.".format(int(target.reshape(-1)[first].item())))
    safe = _axle.where(valid, target, 0)
    picked = input.gather(class_dim, safe.unsqueeze(class_dim)).squeeze(class_dim)
    if weight is None:
        loss = _axle.where(valid, -picked, 0.0)
        total = valid.sum().to(input.dtype) if reduction == "mean" else None
    else:
        w = _class_weights(weight, target, valid)
        loss = _axle.where(valid, -(w * picked), 0.0)
        total = w.sum() if reduction == "mean" else None
    if reduction == "mean":
        return loss.sum() / total
    if reduction == "sum":
        return loss.sum()
    return loss


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """Negative log-likelihood of class-index targets: input (C,), (N, C) or (N, C, d1, ...) of
    log-probabilities, target () / (N,) / (N, d1, ...) int64. Targets equal to ignore_index add
    nothing (and no weight to 'mean''s divisor); weight (C,) rescales each class."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    return _nll(input, target, weight, ignore_index, reduction)


def _weight_view(weight, ndim, class_dim):
    """weight (C,) shaped to broadcast along class_dim of an ndim-dimensional tensor."""
    return weight.reshape([-1] + [1] * (ndim - class_dim - 1))


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    """Cross entropy of logits input (C,) / (N, C) / (N, C, d1, ...) with class-index targets
    (int64, as nll_loss) or class-probability targets (floating, input's shape).

    label_smoothing eps mixes the target with the uniform distribution: probability targets
    become t (1 - eps) + eps / C; index targets give (1 - eps) nll + eps / C * the sum of
    -weight[c] log_softmax[c] over the classes (ignored targets excluded; 'mean' divides the
    latter by the total weight of the non-ignored targets, or their count without weight).
    Probability targets' 'mean' divides by the number of samples (N * d1 * ...)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    ndim = input.dim()
    class_dim = 0 if ndim == 1 else 1
    if tuple(input.shape) == tuple(target.shape):  # class probabilities
        if not target.is_floating_point():
            raise _axle.DTypeError("Expected floating point type for target with class probabilities, got {}"
                                   .format(_scalar_name(target.dtype)))
        if ignore_index >= 0:
            raise _axle.ValueError("ignore_index is not supported for floating point target")
        if ndim == 0:
            raise _axle.IndexError("Dimension specified as 1 but tensor has no dimensions")
        n_classes = input.shape[class_dim]
        if weight is not None and (weight.dim() != 1 or weight.numel() != n_classes):
            raise _axle.ShapeError("cross_entropy: weight tensor should be defined either for all {} classes or no "
                                   "classes but got weight tensor of shape: {}"
                                   .format(n_classes, _list_str(weight.shape)))
        if label_smoothing > 0.0:
            if label_smoothing > 1.0:
                raise _axle.ValueError("label_smoothing must be between 0.0 and 1.0. Got: {:g}".format(label_smoothing))
            target = target * (1 - label_smoothing) + label_smoothing / n_classes
        terms = _axle.log_softmax(input, class_dim) * target
        if weight is not None:
            terms = terms * _weight_view(weight, ndim, class_dim)
        if reduction == "none":
            return -terms.sum(class_dim)
        if reduction == "sum":
            return -terms.sum()
        return -terms.sum() / (input.numel() // n_classes if n_classes else 0)

    if label_smoothing > 0.0:  # class indices, smoothed
        if label_smoothing > 1.0:
            raise _axle.ValueError("label_smoothing must be between 0.0 and 1.0. Got: {:g}".format(label_smoothing))
        logp = _axle.log_softmax(input, class_dim)
        nll = _nll(logp, target, weight, ignore_index, reduction)
        n_classes = input.shape[class_dim]
        ignored = target == ignore_index
        if weight is not None:
            smooth = -(logp * _weight_view(weight, ndim, class_dim)).sum(class_dim)
        else:
            smooth = -logp.sum(class_dim)
        smooth = _axle.where(ignored, 0.0, smooth)
        if reduction == "mean":
            valid = ~ignored
            divisor = _class_weights(weight, target, valid).sum() if weight is not None else valid.sum()
            smooth = smooth.sum() / divisor
        elif reduction == "sum":
            smooth = smooth.sum()
        return (1 - label_smoothing) * nll + smooth * (label_smoothing / n_classes)

    return _nll(_axle.log_softmax(input, class_dim), target, weight, ignore_index, reduction)


_BCE_EPSILON = 9.999999960041972e-13  # torch's 1e-12f bound on x (1 - x) in the gradient


def _bce_terms(input, target):
    log_x = _axle.clamp(_axle.log(input), min=-100.0)
    log_1mx = _axle.clamp(_axle.log(1 - input), min=-100.0)
    return (target - 1) * log_1mx - target * log_x


class _BinaryCrossEntropy(_axle.autograd.Function):
    """Elementwise -(t log x + (1 - t) log(1 - x)) with the logs clamped to >= -100, and torch's
    gradients: d/dx = (x - t) / max(x (1 - x), 1e-12), d/dt = log(1 - x) - log(x) (unclamped),
    which stay finite for x = 0 or 1 exactly (saturated sigmoids) where the composed
    derivative would be NaN."""

    @staticmethod
    def forward(ctx, input, target):
        ctx.save_for_backward(input, target)
        return _bce_terms(input, target)

    @staticmethod
    def backward(ctx, grad):
        input, target = ctx.saved_tensors
        grad_input = grad_target = None
        if ctx.needs_input_grad[0]:
            grad_input = grad * (input - target) / _axle.clamp((1 - input) * input, min=_BCE_EPSILON)
        if ctx.needs_input_grad[1]:
            grad_target = grad * (_axle.log(1 - input) - _axle.log(input))
        return grad_input, grad_target


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-w (t log x + (1 - t) log(1 - x)) for probabilities x in [0, 1] (each log clamped to >= -100).
    target must have input's shape; weight broadcasts to it."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise _axle.ValueError("Using a target size ({}) that is different to the input size ({}) is deprecated. "
                               "Please ensure they have the same size."
                               .format(_size_str(target.shape), _size_str(input.shape)))
    if weight is not None:
        shape = _broadcast_shape(target.shape, weight.shape)
        if shape != tuple(input.shape):
            raise _axle.ShapeError("output with shape {} doesn't match the broadcast shape {}"
                                   .format(_list_str(input.shape), _list_str(shape)))
    if bool((~((input >= 0) & (input <= 1))).any()):  # NaN fails too, as in torch
        raise _axle.ValueError("all elements of input should be between 0 and 1")
    if (input.requires_grad or target.requires_grad) and _axle.is_grad_enabled():
        dtype = _axle.promote_types(input.dtype, target.dtype)
        loss = _BinaryCrossEntropy.apply(input.to(dtype), target.to(dtype))
    else:
        loss = _bce_terms(input, target)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    """binary_cross_entropy of sigmoid(input), computed stably from the logits:
    (1 - t) x + (1 + (pos_weight - 1) t) log(1 + exp(-x)), times weight."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise _axle.ValueError("Target size ({}) must be the same as input size ({})"
                               .format(_size_str(target.shape), _size_str(input.shape)))
    shape = tuple(input.shape)
    for extra in (pos_weight, weight):
        if extra is not None:
            full = _broadcast_shape(shape, extra.shape)
            if full != shape:
                raise _axle.ShapeError("output with shape {} doesn't match the broadcast shape {}"
                                       .format(_list_str(shape), _list_str(full)))
    softplus_neg = _softplus(-input)  # -log(sigmoid(x))
    if pos_weight is not None:
        loss = (1 - target) * input + (1 + (pos_weight - 1) * target) * softplus_neg
    else:
        loss = (1 - target) * input + softplus_neg
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """Pointwise KL divergence of target from input (log-probabilities): t (log t - x), or
    exp(t) (t - x) when log_target. 'batchmean' sums and divides by the batch size input.size(0);
    'mean' (the average over all elements) warns as torch does."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction == "mean":
        _warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                       "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                       "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                       stacklevel=2)
    if reduction != "batchmean":
        _check_reduction(reduction)
    if log_target:
        loss = _axle.exp(target) * (target - input)
    else:
        loss = _xlogx(target) - target * input
    if reduction == "batchmean":
        total = loss.sum()
        return total / input.shape[0] if input.dim() != 0 else total
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """Poisson negative log-likelihood: exp(x) - t x for log-rate input (log_input), else
    x - t log(x + eps); full adds Stirling's t log t - t + log(2 pi t) / 2 where t > 1."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction, "{} is not valid")
    if log_input:
        loss = _axle.exp(input) - target * input
    else:
        loss = input - target * _axle.log(input + eps)
    if full:
        big = target > 1
        t = _axle.where(big, target, 1.0)  # keeps the unused branch (and its gradient) finite
        stirling = t * _axle.log(t) - t + 0.5 * _axle.log(2 * _math.pi * t)
        loss = loss + _axle.where(big, stirling, 0.0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Gaussian negative log-likelihood (log(var) + (input - target)^2 / var) / 2 (+ log(2 pi) / 2
    when full). var has input's shape, or lacks / has 1 as the last dim (one variance per row);
    it is clamped to >= eps for the value, its gradient passing unclamped as in torch."""
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.dim() > 0 and var.shape[-1] == 1:
            pass
        else:
            raise _axle.ValueError("var is of incorrect size")
    _check_reduction(reduction, "{} is not valid")
    if bool((var < 0).any()):
        raise _axle.ValueError("var has negative entry/entries")
    var = var.clone()
    with _axle.no_grad():
        var.clamp_(min=eps)
    diff = input - target
    loss = 0.5 * (_axle.log(var) + diff * diff / var)
    if full:
        loss = loss + 0.5 * _math.log(2 * _math.pi)
    return _reduce(loss, reduction)


# ----------------------------------------------------------------------------- margin / embedding losses

def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """x where target is 1, max(0, margin - x) where target is -1 (both terms for other values)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    margin_term = _axle.clamp(margin - input, min=0)
    loss = _axle.where(target != 1, margin_term, 0.0) + _axle.where(target != -1, input, 0.0)
    return _reduce(loss, reduction)


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """max(0, -target (input1 - input2) + margin); the three tensors must have as many dims."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise _axle.ShapeError("margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                               "input1: {}, input2: {}, target: {} ".format(
                                   _size_str(input1.shape), _size_str(input2.shape), _size_str(target.shape)))
    return _reduce(_axle.clamp(-target * (input1 - input2) + margin, min=0), reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-target input)), computed without overflow."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    return _reduce(_softplus(-input * target), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """-(t log sigmoid(x) + (1 - t) log sigmoid(-x)), times weight, averaged over the last (class)
    dim: one value per sample."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction, "{} is not valid")
    # -log sigmoid(x) = softplus(-x)
    loss = target * _softplus(-input) + (1 - target) * _softplus(input)
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(class_dim) / input.shape[class_dim]
    return _reduce(loss, reduction)


_COSINE_EMBEDDING_EPSILON = 1e-12


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where target is -1, 0 elsewhere;
    inputs (N, D) with target (N,), or (D,) with a 0-dim target."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    tdim = target.dim()
    if tdim not in (0, 1):
        raise _axle.ShapeError("0D or 1D target tensor expected, multi-target not supported")
    if tdim == 1 and not (input1.dim() == 2 and input2.dim() == 2):
        raise _axle.ShapeError("1D target tensor expects 2D input tensors, but found inputs with sizes {} and {}."
                               .format(_list_str(input1.shape), _list_str(input2.shape)))
    if tdim == 0 and not (input1.dim() == 1 and input2.dim() == 1):
        raise _axle.ShapeError("0D target tensor expects 1D input tensors, but found inputs with sizes {} and {}."
                               .format(_list_str(input1.shape), _list_str(input2.shape)))
    dot = (input1 * input2).sum(tdim)
    sq1 = (input1 * input1).sum(tdim) + _COSINE_EMBEDDING_EPSILON
    sq2 = (input2 * input2).sum(tdim) + _COSINE_EMBEDDING_EPSILON
    cos = dot / _axle.sqrt(sq1 * sq2)
    loss = _axle.where(target == 1, 1 - cos, 0.0) + _axle.where(target == -1, _axle.clamp(cos - margin, min=0), 0.0)
    return _reduce(loss, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)) with d = pairwise_distance(p, eps);
    swap uses min(d(a, n), d(p, n)) as the negative distance."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if not dims[0] == dims[1] == dims[2]:
        raise _axle.ShapeError("All inputs should have same dimension but got {}D, {}D and {}D inputs.".format(*dims))
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = _axle.minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce(_axle.clamp(margin + d_pos - d_neg, min=0), reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean"):
    """triplet_margin_loss with any distance function (default: pairwise_distance); like torch's
    functional form it checks neither the margin's sign nor the inputs' dims (they broadcast)."""
    _check_reduction(reduction)
    dist = distance_function if distance_function is not None else pairwise_distance
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = _axle.minimum(d_neg, dist(positive, negative))
    return _reduce(_axle.clamp(margin + d_pos - d_neg, min=0), reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Multi-class hinge loss: for each sample, the sum over classes j != y of
    weight[y] max(0, margin - x[y] + x[j])^p, divided by the number of classes (p is 1 or 2).
    input (N, C), (C,) or (); target (N,) int64 (or one index)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise _axle.ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise _axle.ValueError("weight must be one-dimensional")
    _check_reduction(reduction)
    ndim = input.dim()
    if not ((ndim == 2 and input.shape[1] != 0) or (ndim == 1 and input.shape[0] != 0) or ndim == 0):
        raise _axle.ShapeError("Expected non-empty vector or matrix with optional 0-dim batch size, but got: {}"
                               .format(_list_str(input.shape)))
    nframe = input.shape[0] if ndim == 2 else 1
    if target.dim() > 1 or target.numel() != nframe:
        raise _axle.ShapeError("inconsistent target size, got: {}".format(_list_str(target.shape)))
    if target.dtype != _axle.int64:
        raise _axle.DTypeError("expected scalar type Long but found {}".format(_scalar_name(target.dtype)))
    n_classes = input.shape[-1] if ndim > 0 else 1
    x = input.reshape(nframe, n_classes)
    y = target.reshape(nframe, 1)
    if bool(((y < 0) | (y >= n_classes)).any()):
        raise _axle.IndexError("target out of range")
    x_y = x.gather(1, y)
    z = _axle.relu(margin - x_y + x)  # torch's gradient is 0 where the margin is met exactly
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * _axle.index_select(weight, 0, y.reshape(-1)).unsqueeze(1)
    z = _axle.where(_axle.arange(n_classes, device=input.device) == y, 0.0, z)
    loss = (z.sum(1) / n_classes).reshape(tuple(target.shape))
    return _reduce(loss, reduction)


# ----------------------------------------------------------------------------- distances

def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p along dim, eps)."""
    denom = _axle.clamp(_axle.norm(input, p, [dim], True), min=eps).expand_as(input)
    if out is None:
        return input / denom
    return _axle.div(input, denom, out=out)


def _norm_clamped(x, dim, eps):
    """max(||x||_2 along dim, eps) (keepdim), whose gradient is x / that value even where the clamp
    applies: torch 1.13's cosine_similarity clamps the norms in place without recording it."""
    squares = (x * x).sum(dim, keepdim=True)
    value = _axle.clamp(_axle.sqrt(squares.detach()), min=eps)
    if not squares.requires_grad:
        return value
    return value + (squares - squares.detach()) / (2 * value)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps)) along dim, x1 and x2 broadcast together."""
    dtype = _axle.promote_types(x1.dtype, x2.dtype)
    if not dtype.is_floating_point:
        raise _axle.DTypeError("expected common dtype to be floating point, yet common dtype is {}"
                               .format(_scalar_name(dtype)))
    shape = _broadcast_shape(x1.shape, x2.shape)
    x1 = x1.to(dtype).expand(shape)
    x2 = x2.to(dtype).expand(shape)
    return ((x1 / _norm_clamped(x1, dim, eps)) * (x2 / _norm_clamped(x2, dim, eps))).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p along the last dim (of the broadcast shape)."""
    last = max(x1.dim(), x2.dim()) - 1
    return _axle.norm(x1 - x2 + eps, p, [last], keepdim)
