"""The connectionist temporal classification loss (torch.nn.functional.ctc_loss, torch.ctc_loss,
nn.CTCLoss's functional part), torch 1.13 semantics, composed of axle ops.

The log-space forward (alpha) recursion runs over time on the blank-extended targets of the whole
batch at once; autograd of the composed ops gives the gradient. Two details follow torch's kernel:
its gradient w.r.t. log_probs is the one through a log_softmax (it adds exp(log_probs) on every
frame inside the input length), reproduced by a term of value zero whose gradient is that, and
zero_infinity zeroes both the infinite losses and their gradients.

Where torch reads out of bounds or returns garbage (negative lengths, target values outside
[0, C), an empty input with a non-empty target) axle raises a ValueError / IndexError, or, for the
empty input, returns the mathematically right infinite loss.
"""
import axle as _axle

from ._losses import _check_reduction

__all__ = ["ctc_loss"]

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _lengths(value, name):
    if isinstance(value, _axle.Tensor):
        if value.dtype.is_floating_point or value.dtype == _axle.bool:
            raise _axle.DTypeError("{} must be integral".format(name))
        values = value.reshape(-1).tolist()
    elif isinstance(value, (tuple, list)) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        values = list(value)
    else:
        raise _axle.TypeError("ctc_loss(): argument '{}' must be a tuple of ints or a Tensor, not {}".format(
            name, type(value).__name__))
    if any(v < 0 for v in values):
        raise _axle.ValueError("ctc_loss(): {} must be non-negative, got {}".format(name, values))
    return values


def _logsumexp(parts):
    """log(sum(exp(parts))) elementwise over a list of equal-shape tensors; all -inf gives -inf with a
    zero gradient (logsumexp's own gradient is NaN there)."""
    x = _axle.stack(parts, 0)
    m = _axle.amax(x, 0).detach()
    m = _axle.where(_axle.isfinite(m), m, _axle.zeros_like(m))
    s = _axle.exp(x - m).sum(0)
    alive = s > 0
    return _axle.where(alive, _axle.log(_axle.where(alive, s, _axle.ones_like(s))) + m,
                       _axle.full_like(s, float("-inf")))


def _ctc(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity):
    """reduction as aten's int: 0 none, 1 mean, 2 sum."""
    if not isinstance(log_probs, _axle.Tensor) or not isinstance(targets, _axle.Tensor):
        raise _axle.TypeError("ctc_loss(): log_probs and targets must be Tensors")
    if log_probs.dtype not in (_axle.float32, _axle.float64):
        raise _axle.DTypeError('"ctc_loss_cpu" not implemented for \'{}\''.format(
            {"float16": "Half", "bfloat16": "BFloat16", "int64": "Long", "int32": "Int", "int16": "Short",
             "int8": "Char", "uint8": "Byte", "bool": "Bool"}.get(log_probs.dtype.name, log_probs.dtype.name)))
    if log_probs.dim() not in (2, 3):
        raise _axle.ShapeError("ctc_loss(): log_probs must be 3-D (T, N, C) or 2-D (T, C), got {}-D".format(
            log_probs.dim()))
    if isinstance(input_lengths, _axle.Tensor) != isinstance(target_lengths, _axle.Tensor):
        raise _axle.TypeError("ctc_loss(): input_lengths and target_lengths must both be Tensors or both tuples of "
                              "ints, got {} and {}".format(type(input_lengths).__name__, type(target_lengths).__name__))
    batched = log_probs.dim() == 3
    in_lens = _lengths(input_lengths, "input_lengths")
    tg_lens = _lengths(target_lengths, "target_lengths")
    if not batched:  # a 1-D target is then the batch of one's concatenated form, as torch's
        log_probs = log_probs.unsqueeze(1)
    T, N, C = log_probs.shape
    if not 0 <= blank < C:
        raise _axle.ValueError("blank must be in label range")
    if len(in_lens) != N:
        raise _axle.ShapeError("input_lengths must be of size batch_size")
    if len(tg_lens) != N:
        raise _axle.ShapeError("target_lengths must be of size batch_size")
    for v in in_lens:
        if v > T:
            raise _axle.ValueError("Expected input_lengths to have value at most {}, but got value {} (while "
                                   "checking arguments for ctc_loss_cpu)".format(T, v))
    S = max(tg_lens) if tg_lens else 0
    dev = log_probs.device
    if targets.dim() == 1:
        if targets.shape[0] != sum(tg_lens):
            raise _axle.ShapeError("Expected tensor to have size {} at dimension 0, but got size {} for argument #2 "
                                   "'targets' (while checking arguments for ctc_loss_cpu)".format(
                                       sum(tg_lens), targets.shape[0]))
        offsets = [sum(tg_lens[:n]) for n in range(N)]
        index = [[offsets[n] + j if j < tg_lens[n] else 0 for j in range(S)] for n in range(N)]
        picked = (targets.index_select(0, _axle.tensor(index, dtype=_axle.int64, device=dev).reshape(-1))
                  .reshape(N, S) if S and targets.shape[0] else _axle.zeros((N, S), dtype=_axle.int64, device=dev))
    else:
        if targets.dim() != 2 or targets.shape[0] != N:
            raise _axle.ShapeError("ctc_loss(): targets must be (N, S) padded or 1-D concatenated, got shape {} for "
                                   "a batch of {}".format(list(targets.shape), N))
        if targets.shape[1] < S:
            raise _axle.ShapeError("Expected tensor to have size at least {} at dimension 1, but got size {} for "
                                   "argument #2 'targets' (while checking arguments for ctc_loss_cpu)".format(
                                       S, targets.shape[1]))
        picked = targets[:, :S]
    valid = _axle.tensor([[j < tg_lens[n] for j in range(S)] for n in range(N)], dtype=_axle.bool,
                         device=dev).reshape(N, S)
    labels = _axle.where(valid, picked.to(_axle.int64), _axle.full((N, S), blank, dtype=_axle.int64, device=dev))
    bad = (labels < 0) | (labels >= C)
    if S and bool(bad.any().item()):
        raise _axle.IndexError("ctc_loss(): target values must be in [0, {}), got {}".format(
            C, labels[bad].tolist()))
    # blank-extended targets: (N, 2S + 1) with the labels at the odd positions
    blanks = _axle.full((N, S), blank, dtype=_axle.int64, device=dev)
    ext = _axle.cat([_axle.stack([blanks, labels], 2).reshape(N, 2 * S),
                     _axle.full((N, 1), blank, dtype=_axle.int64, device=dev)], 1)
    L = 2 * S + 1
    false2 = _axle.zeros((N, 2), dtype=_axle.bool, device=dev)
    odd = _axle.tensor([s % 2 == 1 for s in range(L)], dtype=_axle.bool, device=dev)
    skip = _axle.cat([false2, ext[:, 2:] != ext[:, :-2]], 1) & odd if L > 2 else _axle.zeros((N, L), dtype=_axle.bool,
                                                                                             device=dev)
    lp = log_probs.gather(2, ext.unsqueeze(0).expand(T, N, L))  # (T, N, L)
    neg = _axle.full((N, L), float("-inf"), dtype=log_probs.dtype, device=dev)
    alpha = _axle.cat([lp[0, :, :2], neg[:, 2:]], 1) if L > 1 else lp[0]
    steps = max(in_lens) if in_lens else 0
    for t in range(1, steps):
        one = _axle.cat([neg[:, :1], alpha[:, :-1]], 1)
        two = _axle.where(skip, _axle.cat([neg[:, :2], alpha[:, :-2]], 1), neg) if L > 2 else neg
        nxt = _logsumexp([alpha, one, two]) + lp[t]
        active = _axle.tensor([t < v for v in in_lens], dtype=_axle.bool, device=dev).reshape(N, 1)
        alpha = _axle.where(active, nxt, alpha)
    tl = _axle.tensor(tg_lens, dtype=_axle.int64, device=dev).reshape(N, 1)
    last = alpha.gather(1, 2 * tl)
    prev = _axle.where(tl > 0, alpha.gather(1, (2 * tl - 1).clamp(min=0)), neg[:, :1])
    nll = -_logsumexp([last, prev]).reshape(N)
    empty_input = _axle.tensor([v == 0 for v in in_lens], dtype=_axle.bool, device=dev)
    empty_loss = _axle.tensor([0.0 if tg_lens[n] == 0 else float("inf") for n in range(N)], dtype=log_probs.dtype,
                              device=dev)
    nll = _axle.where(empty_input, empty_loss, nll)
    # torch's gradient is the one through a log_softmax: + exp(log_probs) on the frames inside the input
    frames = _axle.tensor([[float(t < v) for v in in_lens] for t in range(T)], dtype=log_probs.dtype,
                          device=dev).reshape(T, N, 1)
    e = _axle.exp(log_probs)
    loss = nll + ((e - e.detach()) * frames).sum([0, 2])
    if zero_infinity:
        loss = _axle.where(_axle.isinf(nll), _axle.zeros_like(loss), loss)
    if reduction == 1:
        loss = (loss / tl.reshape(N).to(loss.dtype).clamp(min=1)).mean()
    elif reduction == 2:
        loss = loss.sum()
    elif not batched:
        loss = loss.reshape(())
    return loss


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    """F.ctc_loss: log_probs (T, N, C) or unbatched (T, C) log-probabilities, targets padded (N, S) or
    concatenated 1-D, lengths as Tensors or tuples of ints; reduction 'none' | 'mean' (each loss
    divided by its target length, then the batch mean) | 'sum'."""
    _check_reduction(reduction)
    return _ctc(log_probs, targets, input_lengths, target_lengths, blank, _REDUCTIONS[reduction], zero_infinity)


def ctc_loss_aten(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0, zero_infinity=False):
    """torch.ctc_loss: reduction as aten's int (0 none, 1 mean, 2 sum). Its default is 0 as torch 1.13's
    Python binding gives (the schema says 1, the binding returns per-sample losses)."""
    if not isinstance(reduction, int) or isinstance(reduction, bool) or reduction not in (0, 1, 2):
        raise _axle.TypeError("ctc_loss(): argument 'reduction' must be int (0, 1 or 2), not {!r}".format(reduction))
    return _ctc(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity)


ctc_loss_aten.__name__ = ctc_loss_aten.__qualname__ = "ctc_loss"
