"""The nn-flavoured torch.* functions (torch 1.13's aten call forms) composed in the nn package:
torch.ctc_loss, the flat-weight RNN functions and cells, binary_cross_entropy_with_logits and
poisson_nll_loss with aten's int reduction, embedding_bag's 4-tuple, instance_norm, the dropout
variants, constant_pad_nd, native_dropout / native_channel_shuffle, conv_tbc, embedding_renorm_,
norm_except_dim, and (from _native_norms) the native_* norms and the SyncBatchNorm kernels.
install(axle) attaches each one where the name is still free (a declared op wins).

aten's int reduction: 1 mean, 2 sum, anything else none. Where torch's Python binding leaves it
out, torch 1.13 applies none (its binding's default is 0, not the schema's Mean): so do these."""
import axle as _axle

from ._losses import _list_str

__all__ = ["binary_cross_entropy_with_logits", "poisson_nll_loss", "embedding_bag", "instance_norm", "alpha_dropout",
           "alpha_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_", "feature_dropout", "feature_dropout_",
           "dropout_", "constant_pad_nd", "native_dropout", "native_channel_shuffle", "conv_tbc", "embedding_renorm_",
           "norm_except_dim"]


def _F():
    from . import functional
    return functional


def _reduction_name(reduction):
    if not isinstance(reduction, int) or isinstance(reduction, bool):
        raise _axle.TypeError("reduction must be an int (0 none, 1 mean, 2 sum), got {!r}".format(reduction))
    return {1: "mean", 2: "sum"}.get(reduction, "none")


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """torch.binary_cross_entropy_with_logits: F's loss with aten's int reduction."""
    return _F().binary_cross_entropy_with_logits(input, target, weight, reduction=_reduction_name(reduction),
                                                 pos_weight=pos_weight)


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """torch.poisson_nll_loss: F's loss with aten's argument order and int reduction (all required)."""
    return _F().poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=_reduction_name(reduction))


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, cudnn_enabled):
    """torch.instance_norm: F.instance_norm with aten's argument order (cudnn_enabled has no effect)."""
    if not use_input_stats and (running_mean is None or running_var is None):
        raise _axle.ValueError("Expected running_mean and running_var to be defined when use_input_stats is false")
    return _F().instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


# ---------------------------------------------------------------- dropout variants
def _check_p(p):
    if p < 0 or p > 1:
        raise _axle.ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))


def _feature_dropout(input, p, train, inplace):
    _check_p(p)
    if p == 0 or not train or input.numel() == 0:
        return input
    if input.dim() < 2:
        raise _axle.ShapeError("Feature dropout requires at least 2 dimensions in the input")
    if p == 1:
        return input.mul_(0) if inplace else input * 0
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    mask = (_axle.rand(shape, dtype=input.dtype, device=input.device) < 1 - p).to(input.dtype) / (1 - p)
    return input.mul_(mask) if inplace else input * mask


def feature_dropout(input, p, train):
    """Dropout of whole channels input[n, c] (any rank >= 2), kept ones scaled by 1 / (1 - p)."""
    return _feature_dropout(input, p, train, False)


def feature_dropout_(input, p, train):
    return _feature_dropout(input, p, train, True)


def dropout_(input, p, train):
    """In-place torch.dropout."""
    _check_p(p)
    if p == 0 or not train or input.numel() == 0:
        return input
    return input.copy_(_axle.dropout(input, p, train))


# F's alpha dropouts check p themselves.
def alpha_dropout(input, p, train):
    return _F().alpha_dropout(input, p, train)


def alpha_dropout_(input, p, train):
    return _F().alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input, p, train):
    return _F().feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input, p, train):
    return _F().feature_alpha_dropout(input, p, train, inplace=True)


def native_dropout(input, p, train):
    """(output, mask): mask is True where kept (all True unless train, which None also means);
    output = input * mask / (1 - p), zeros for p = 1."""
    if not 0 <= 1 - p <= 1:
        raise _axle.ValueError("bernoulli_ expects p to be in [0, 1], but got p={}".format(1 - p))
    if train is False:
        return input.clone(), _axle.ones(input.shape, dtype=_axle.bool, device=input.device)
    mask = _axle.rand(input.shape, dtype=input.dtype, device=input.device) < 1 - p
    scale = 0.0 if p == 1 else 1.0 / (1 - p)
    return input * mask.to(input.dtype) * scale, mask


# ---------------------------------------------------------------- shapes and convolutions
def constant_pad_nd(input, pad, value=0):
    """Pads (negative pads crop) the last len(pad) // 2 dims: pad = (left of last, right of last, left of
    the one before, ...), with value."""
    pad = list(pad)
    if len(pad) % 2:
        raise _axle.ValueError("Length of pad must be even but instead it equals {}".format(len(pad)))
    if len(pad) // 2 > input.dim():
        raise _axle.ValueError("Length of pad should be no more than twice the number of dimensions of the input. "
                               "Pad length is {}while the input has {}dimensions.".format(len(pad), input.dim()))
    grows = any(p > 0 for p in pad)  # torch: only cropping may leave an empty dim, padding wants all > 0
    for i in range(len(pad) // 2):
        d = input.dim() - 1 - i
        size = input.shape[d] + pad[2 * i] + pad[2 * i + 1]
        if size < 0 or (grows and size == 0):
            raise _axle.ValueError("The input size {}, plus negative padding {} and {} resulted in a negative output "
                                   "size, which is invalid. Check dimension {} of your input.".format(
                                       input.shape[d], pad[2 * i], pad[2 * i + 1], d))
    x = input
    for i in range(len(pad) // 2):  # crop first, then pad what is left
        d = input.dim() - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        start, stop = max(-lo, 0), x.shape[d] - max(-hi, 0)
        x = x.narrow(d, start, max(stop - start, 0))
    grow = []
    for i in range(len(pad) // 2):
        grow += [max(pad[2 * i], 0), max(pad[2 * i + 1], 0)]
    if any(grow):
        x = _F().pad(x, grow, "constant", value)
    elif x is input:
        x = input.clone()
    return x


def native_channel_shuffle(input, groups):
    """channel_shuffle over (N, C, *) including 2-d (N, C) inputs."""
    if input.dim() < 2:
        raise _axle.IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    if groups <= 0:
        raise _axle.ValueError("Number of groups to divide channels in must be positive. Value of groups:{}"
                               .format(groups))
    c = input.shape[1]
    if c % groups:
        raise _axle.ValueError("Number of channels must be divisible by groups. Got {} channels and {} groups."
                               .format(c, groups))
    shape = tuple(input.shape)
    return input.reshape((shape[0], groups, c // groups) + shape[2:]).transpose(1, 2).reshape(shape)


def conv_tbc(input, weight, bias, pad=0):
    """Time-batch-channel convolution: input (T, B, C_in), weight (K, C_in, C_out), bias (C_out,), `pad`
    zeros each side in time; (T + 2 pad - K + 1, B, C_out)."""
    if input.dim() != 3:
        raise _axle.ShapeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise _axle.ShapeError("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if bias.dim() != 1:
        raise _axle.ShapeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise _axle.ShapeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise _axle.ShapeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    out_len = input.shape[0] + 2 * pad - weight.shape[0] + 1
    if out_len < 0:
        raise _axle.ShapeError("Trying to create tensor with negative dimension {}: {}".format(
            out_len, [out_len, input.shape[1], weight.shape[2]]))
    y = _axle.convolution(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, [1], [pad], [1], False, [0], 1)
    return y.permute(2, 0, 1)


def embedding_renorm_(weight, indices, max_norm, norm_type):
    """Rows of weight that indices name with a norm_type-norm above max_norm scaled, in place, to
    max_norm / (norm + 1e-7); returns weight."""
    if indices.dtype not in (_axle.int64, _axle.int32):
        raise _axle.DTypeError("Expected tensor for argument #2 'indices' to have one of the following scalar types: "
                               "Long, Int; but got {} instead (while checking arguments for embedding_renorm_)"
                               .format(indices.dtype))
    flat = indices.reshape(-1).to(_axle.int64)
    rows = weight.shape[0]
    if flat.numel() and bool(((flat < 0) | (flat >= rows)).any().item()):
        bad = flat[(flat < 0) | (flat >= rows)][0].item()
        raise _axle.IndexError("select(): index {} out of range for tensor of size {} at dimension 0".format(
            bad, _list_str(weight.shape)))
    from ._functional_extra import _renorm_rows
    if flat.numel():
        _renorm_rows(weight, flat, max_norm, norm_type)
    return weight


def norm_except_dim(v, pow=2, dim=0):
    """The pow-norm over every dim but `dim` (kept as size-1 dims); dim=-1: the norm of all of v (0-d)."""
    if not isinstance(pow, int) or isinstance(pow, bool) or not isinstance(dim, int):
        raise _axle.TypeError("norm_except_dim(): argument 'pow' and 'dim' must be int, got {} and {}".format(
            type(pow).__name__, type(dim).__name__))
    if dim == -1:
        return _axle.norm(v, pow)
    n = v.dim()
    if not -n <= dim < n:
        raise _axle.IndexError("Dimension out of range (expected to be in range of [{}, {}], but got {})".format(
            -n, n - 1, dim))
    dim %= n
    others = [d for d in range(n) if d != dim]
    if not others:
        return _axle.abs(v) if pow != 0 else (v != 0).to(v.dtype)
    return _axle.norm(v, pow, others, True)


# ---------------------------------------------------------------- embedding_bag's aten form
def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """torch.embedding_bag: (output, offset2bag, bag_size, max_indices) as torch 1.13's CPU kernel:
    offset2bag is each index's bag (empty in sum mode without padding_idx), bag_size each bag's count of
    non-padding indices (the last bag counted to the end of indices; zeros in sum mode), max_indices the
    row index of each (bag, column) maximum in max mode, bag_size in mean mode and zeros in sum mode;
    all of indices' dtype. offset2bag is empty, as torch's fast path leaves it, in sum mode without
    padding_idx over a float32 / float16 weight. mode: 0 sum, 1 mean, 2 max; indices 1-D."""
    if mode not in (0, 1, 2):
        raise _axle.ValueError("embedding_bag: mode must be 0 (sum), 1 (mean) or 2 (max), got {}".format(mode))
    if indices.dim() != 1:
        raise _axle.ShapeError("embedding_bag: indices must be 1-D (cut into bags at offsets), got {}-D".format(
            indices.dim()))
    flat = indices
    output = _F().embedding_bag(flat, weight, offsets, None, 2, scale_grad_by_freq, ("sum", "mean", "max")[mode],
                                sparse, per_sample_weights, include_last_offset, padding_idx)
    dev, itype = weight.device, indices.dtype
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    offs = offsets.to(_axle.int64).tolist()
    idx = flat.to(_axle.int64).tolist()
    n, bags = len(idx), output.shape[0]
    zeros = _axle.zeros(bags, dtype=itype, device=dev)
    if mode == 0 and padding_idx is None and weight.dtype in (_axle.float32, _axle.float16):
        offset2bag = _axle.zeros(0, dtype=itype, device=dev)  # torch's fast float path leaves it empty
    else:
        offset2bag = _axle.tensor([sum(1 for o in offs[1:] if o <= i) for i in range(n)], dtype=itype,
                                  device=dev).reshape(n)
    if mode == 0:  # one per offset, include_last_offset's extra one too
        zeros = _axle.zeros(len(offs), dtype=itype, device=dev)
        return output, offset2bag, zeros, zeros.clone()
    sizes = []
    for b in range(bags):
        stop = offs[b + 1] if b + 1 < bags else n
        sizes.append(sum(1 for i in range(offs[b], stop) if idx[i] != padding_idx))
    bag_size = _axle.tensor(sizes, dtype=itype, device=dev).reshape(bags)
    if mode == 1:
        return output, offset2bag, bag_size, bag_size.clone()
    dim = weight.shape[1]
    best = []
    for b in range(bags):
        stop = offs[b + 1] if b + 1 < len(offs) else n
        members = [idx[i] for i in range(offs[b], stop) if idx[i] != padding_idx]
        if not members:
            best.append(_axle.zeros(dim, dtype=itype, device=dev))
            continue
        rows = _axle.tensor(members, dtype=_axle.int64, device=dev)
        vals = weight.detach().index_select(0, rows)
        k = _axle.arange(len(members), dtype=_axle.int64, device=dev).unsqueeze(1)
        first = _axle.where(vals == vals.amax(0, keepdim=True), k, _axle.full_like(k, len(members))).amin(0)
        best.append(rows.index_select(0, first).to(itype))
    max_indices = _axle.stack(best) if best else _axle.zeros((0, dim), dtype=itype, device=dev)
    return output, offset2bag, bag_size, max_indices


def install(axle):
    from . import _ctc, _native_norms, _rnn_functional

    names = {"ctc_loss": _ctc.ctc_loss_aten}
    for module in (_rnn_functional, _native_norms):
        names.update({name: getattr(module, name) for name in module.__all__})
    names.update({name: globals()[name] for name in __all__})
    for name, fn in names.items():
        if not hasattr(axle, name):
            setattr(axle, name, fn)

