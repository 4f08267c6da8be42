"""The differential suite against PyTorch 1.13: every operator's conformance
samples (the C++ generators in conformance/src/samples/, the same ones `axle
check` runs) called through axle's Python API and through torch, comparing
output values, shapes and dtypes; a bad input must raise in both, with
equivalent exception classes (torch's IndexError/ValueError/TypeError/
NotImplementedError -> the axle class deriving from it; torch's RuntimeError ->
any axle.AxleError).

torch is called through torch.ops.aten.<name>.<overload> (axle's schemas are
aten's), or through an entry of TORCH_EQUIVALENT where the op is not in aten 1.13
(composition of torch ops in float64, said so there). Each deliberate deviation
from PyTorch is listed in DEVIATIONS with its reason.
"""
import numpy as np
import pytest

import axle

torch = pytest.importorskip("torch")

SEED = 4321
SAMPLE_OPS = axle._C._sample_ops()
DTYPES = {i: name for i, name in enumerate(["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int16",
                                             "int32", "int64", "bool"])}

def _rms_norm(input, normalized_shape, weight=None, eps=None):
    # torch 2.x's F.rms_norm, composed of torch 1.13 ops in float64.
    dims = tuple(range(-len(normalized_shape), 0))
    if not input.is_floating_point():
        raise RuntimeError("rms_norm: expected a floating point input")
    if eps is None:
        eps = torch.finfo(input.dtype).eps
    if tuple(input.shape[input.dim() - len(normalized_shape):]) != tuple(normalized_shape):
        raise RuntimeError("rms_norm: normalized_shape does not match the input's trailing dims")
    x = input.double()
    y = x * torch.rsqrt(x.pow(2).mean(dims, keepdim=True) + eps)
    if weight is not None:
        y = y * weight.double()
    return y.to(input.dtype)


def _sdpa(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    # torch 2.x's F.scaled_dot_product_attention (no dropout), composed in float64.
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if dropout_p > 0:
        raise NotImplementedError("dropout in attention is not compared")
    if not query.dtype == key.dtype == value.dtype:
        raise RuntimeError("Expected query, key, and value to have the same dtype")
    scale = 1.0 / query.size(-1) ** 0.5 if scale is None else scale
    scores = query.double() @ key.double().transpose(-2, -1) * scale
    if is_causal:
        l, s = scores.shape[-2], scores.shape[-1]
        attn_mask = torch.ones(l, s, dtype=torch.bool).tril()
    if attn_mask is not None:
        scores = scores.masked_fill(~attn_mask, float("-inf")) if attn_mask.dtype == torch.bool else \
            scores + attn_mask.double()
    return (torch.softmax(scores, -1) @ value.double()).to(query.dtype)


def _bn_no_stats(input, weight, bias, training, momentum, eps):
    # torch 2.x's op; aten 1.13's native_batch_norm without running statistics is
    # the same where defined (1.13 crashes without statistics in evaluation mode,
    # and on an empty batch: torch 2.x raises there).
    if not training:
        raise ValueError("training=False needs running statistics")
    if input.dim() >= 2 and input.numel() == 0:
        raise ValueError("expected at least one value per channel")
    return torch.native_batch_norm(input, weight, bias, None, None, training, momentum, eps)


def _fused_sgd(self, grads, momentum_buffer_list, *, weight_decay, momentum, lr, dampening, nesterov, maximize,
               is_first_step, grad_scale=None, found_inf=None):
    # torch 2.x's op: torch.optim.SGD's single-tensor algorithm (torch 1.13's), per parameter.
    if grad_scale is not None or found_inf is not None:
        raise NotImplementedError("grad_scale / found_inf")
    if len(grads) != len(self) or (len(momentum_buffer_list) != len(self) and (momentum != 0 or momentum_buffer_list)):
        raise RuntimeError("list lengths differ")
    for i, p in enumerate(self):
        g = grads[i]
        if g.shape != p.shape or g.dtype != p.dtype or (momentum_buffer_list and (
                momentum_buffer_list[i].shape != p.shape)):
            raise RuntimeError("sizes or dtypes differ")
        d = -g if maximize else g
        if weight_decay != 0:
            d = d.add(p, alpha=weight_decay)
        if momentum != 0:
            buf = momentum_buffer_list[i]
            if is_first_step:
                buf.copy_(d)
            else:
                buf.mul_(momentum).add_(d, alpha=1 - dampening)
            d = d.add(buf, alpha=momentum) if nesterov else buf
        p.add_(d, alpha=-lr)


def _fused_adadelta(self, grads, square_avgs, acc_deltas, *, lr, rho, eps, weight_decay, maximize):
    # axle's own op (torch has no fused Adadelta): torch.optim.Adadelta's single-tensor function.
    if not (len(grads) == len(square_avgs) == len(acc_deltas) == len(self)):
        raise RuntimeError("list lengths differ")
    for i, p in enumerate(self):
        if any(t.shape != p.shape or t.dtype != p.dtype for t in (grads[i], square_avgs[i], acc_deltas[i])):
            raise RuntimeError("sizes or dtypes differ")
        if not p.is_floating_point():
            raise RuntimeError("floating parameters expected")
    from torch.optim.adadelta import adadelta
    adadelta(list(self), list(grads), list(square_avgs), list(acc_deltas), foreach=False, lr=lr, rho=rho, eps=eps,
             weight_decay=weight_decay, maximize=maximize)


def _fused_adam(decoupled):
    # torch 2.x's ops: torch.optim.Adam(W)'s single-tensor functions, which increment the step
    # counts themselves (the ops take them incremented): given copies one step back.
    def call(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, lr, beta1, beta2, weight_decay,
             eps, amsgrad, maximize, grad_scale=None, found_inf=None):
        if grad_scale is not None or found_inf is not None:
            raise NotImplementedError("grad_scale / found_inf")
        n = len(self)
        if not (len(grads) == len(exp_avgs) == len(exp_avg_sqs) == len(state_steps) == n) or (
                amsgrad and len(max_exp_avg_sqs) != n):
            raise RuntimeError("list lengths differ")
        for i, p in enumerate(self):
            if any(t.shape != p.shape or t.dtype != p.dtype for t in (grads[i], exp_avgs[i], exp_avg_sqs[i])):
                raise RuntimeError("sizes or dtypes differ")
        from torch.optim.adam import adam
        from torch.optim.adamw import adamw
        steps = [t.detach().clone().float().reshape(()) - 1 for t in state_steps]
        (adamw if decoupled else adam)(list(self), list(grads), list(exp_avgs), list(exp_avg_sqs),
                                       list(max_exp_avg_sqs), steps, foreach=False, amsgrad=amsgrad, beta1=beta1,
                                       beta2=beta2, lr=lr, weight_decay=weight_decay, eps=eps, maximize=maximize)
    return call


# Ops returning nothing (`-> ()`): the arguments (Tensor[] indexes) compared as their results.
RESULT_ARGS = {"_fused_sgd_": (0, 2), "_fused_adadelta_": (0, 2, 3), "_fused_adam_": (0, 2, 3, 4),
               "_fused_adamw_": (0, 2, 3, 4)}


def _convolution_out(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, out=None):
    # aten 1.13 has no convolution.out: the functional op, written into out.
    return out.copy_(torch.ops.aten.convolution(input, weight, bias, stride, padding, dilation, transposed,
                                                 output_padding, groups))


def _bool_mask(op):
    # axle's schemas have no bool[]: output_mask is int[3] (0/1 each), aten's bool[3].
    def call(*args):
        args = list(args)
        args[-1] = [bool(m) for m in args[-1]]
        # torch 1.13's CPU convolution_backward can return an output the mask leaves
        # out (the weight gradient with [False, False, True]): keep only those asked for.
        return tuple(r if m else None for r, m in zip(op(*args), args[-1]))
    return call


def _bn_backward(grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train, eps, mask):
    # torch 1.13's CPU kernel reads undefined save_mean / save_invstd in training (a
    # segmentation fault): raise instead, so callers fall back to their own checks.
    if train and (save_mean is None or save_invstd is None):
        raise NotImplementedError("torch 1.13 needs save_mean and save_invstd in training")
    return _bool_mask(torch.ops.aten.native_batch_norm_backward.default)(
        grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train, eps, mask)


def _layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, mask, eps=1e-5):
    # aten's schema has no eps and needs mean / rstd: axle recomputes them when None.
    if mean is None or rstd is None:
        dims = tuple(range(input.dim() - len(normalized_shape), input.dim()))
        mean = input.mean(dims, keepdim=True) if mean is None else mean
        rstd = torch.rsqrt(input.var(dims, unbiased=False, keepdim=True) + eps) if rstd is None else rstd
    return _bool_mask(torch.ops.aten.native_layer_norm_backward.default)(
        grad_out, input, normalized_shape, mean, rstd, weight, bias, mask)


def _lstm_gates(ws):
    if ws.dim() != 2 or ws.size(1) % 4:
        raise RuntimeError("gates must be [batch, 4 * hidden], got %s" % (list(ws.shape),))
    return ws.chunk(4, 1)


def _fused_lstm_cell(ig, hg, cx, bi=None, bh=None):
    # aten 1.13 declares the op but has only a CUDA kernel: torch's cell composed.
    gates = ig + hg + (0 if bi is None else bi) + (0 if bh is None else bh)
    i, f, g, o = _lstm_gates(gates)
    i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
    cy = f * cx + i * g
    return o * torch.tanh(cy), cy, torch.cat([i, f, g, o], 1)


def _fused_lstm_cell_backward(grad_hy, grad_cy, cx, cy, ws, has_bias):
    # The same: the cell's gradients written out (as torch's CUDA kernel computes them).
    i, f, g, o = _lstm_gates(ws)
    t = torch.tanh(cy)
    gh = torch.zeros_like(cy) if grad_hy is None else grad_hy
    gc = (torch.zeros_like(cy) if grad_cy is None else grad_cy) + gh * o * (1 - t * t)
    gates = torch.cat([gc * g * i * (1 - i), gc * cx * f * (1 - f), gc * i * (1 - g * g), gh * t * o * (1 - o)], 1)
    return gates, gc * f, gates.sum(0) if has_bias else None


def _chunks(t, parts, what):
    # The size checks of aten's CUDA kernels for the fused cells, as RuntimeErrors.
    if t.dim() != 2 or t.size(1) % parts:
        raise RuntimeError("%s must be [batch, %d * hidden], got %s" % (what, parts, list(t.shape)))
    return t.chunk(parts, 1)


def _fused_gru_cell(ig, hg, hx, bi=None, bh=None):
    # torch 1.13's CPU build has no kernel for the op: aten's GRUCell composition.
    if ig.shape != hg.shape:
        raise RuntimeError("input_gates %s and hidden_gates %s differ" % (list(ig.shape), list(hg.shape)))
    ig = ig if bi is None else ig + bi
    hg = hg if bh is None else hg + bh
    i_r, i_z, i_n = _chunks(ig, 3, "input_gates")
    h_r, h_z, h_n = _chunks(hg, 3, "hidden_gates")
    r, z = torch.sigmoid(i_r + h_r), torch.sigmoid(i_z + h_z)
    n = torch.tanh(i_n + r * h_n)
    return n + z * (hx - n), torch.cat([r, z, n, h_n, hx], 1)


def _fused_gru_cell_backward(grad_hy, ws, has_bias):
    # The cell's gradients written out from the workspace (r, z, n, h_n, hx).
    r, z, n, hn, hx = _chunks(ws, 5, "workspace")
    dan = grad_hy * (1 - z) * (1 - n * n)
    dar = dan * hn * r * (1 - r)
    daz = grad_hy * (hx - n) * z * (1 - z)
    gi, gh = torch.cat([dar, daz, dan], 1), torch.cat([dar, daz, dan * r], 1)
    return gi, gh, grad_hy * z, gi.sum(0) if has_bias else None, gh.sum(0) if has_bias else None


def _linear_backward(x, g, w, mask):
    # aten 1.13 declares the op with only mkldnn's kernel: its formulas, with the checks as RuntimeErrors
    # (a mask of another length as the ValueError axle's int[3] gives).
    if len(mask) != 3:
        raise ValueError("output_mask must have 3 elements, got %s" % list(mask))
    if w.dim() != 2 or x.shape[-1] != w.shape[1] or g.shape != x.shape[:-1] + (w.shape[0],):
        raise RuntimeError("linear_backward: sizes %s, %s, %s" % (list(x.shape), list(g.shape), list(w.shape)))
    if not x.dtype == g.dtype == w.dtype:
        raise RuntimeError("linear_backward: dtypes %s, %s, %s" % (x.dtype, g.dtype, w.dtype))
    rows = int(np.prod(x.shape[:-1]))
    g2 = g.reshape(rows, w.shape[0])
    return (g @ w if mask[0] else None, g2.t() @ x.reshape(rows, w.shape[1]) if mask[1] else None,
            g2.sum(0) if mask[2] else None)


def _bn_legit(input, weight, bias, running_mean, running_var, training, momentum, eps):
    # torch 2.x's op with running statistics: torch 1.13's native_batch_norm, which updates them too
    # (its CPU kernel divides by zero without values per channel: the ValueError torch 2.x raises).
    # Nor does it check the running statistics' sizes (F.batch_norm does, with this message).
    if training and input.dim() >= 2 and input.numel() == 0:
        raise ValueError("expected at least one value per channel")
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if input.dim() >= 2 and t.numel() != input.shape[1]:
            raise RuntimeError("%s should contain %d elements not %d" % (name, input.shape[1], t.numel()))
    return torch.native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)


def _positive_max(v, dim):
    """Signs (+1 / -1) making each vector of v along dim have its largest-magnitude entry (the first of
    equal ones) positive: axle's choice for eigenvectors and singular vectors, which are unique up to sign."""
    if v.numel() == 0 or v.size(dim) == 0:
        return torch.ones(v.shape[:dim % v.dim()] + v.shape[dim % v.dim() + 1:], dtype=v.dtype)
    idx = v.abs().argmax(dim, keepdim=True)
    return torch.where(v.gather(dim, idx) < 0, -1.0, 1.0).to(v.dtype).squeeze(dim)


def _eigh(op):
    def call(A, UPLO="L", *args):
        w, v = op(A, UPLO, *args)
        return w, (v * _positive_max(v, -2).unsqueeze(-2) if v.numel() else v)
    return call


def _svd(op, vh_is_v=False):
    # U's columns get axle's signs, Vh's rows (torch.svd: V's columns) follow; the columns of a full U
    # or rows of a full Vh beyond min(m, n) get their own.
    def call(*args, **kwargs):
        u, s, vh = op(*args, **kwargs)
        if u.numel() == 0 or u.abs().sum() == 0:
            return u, s, vh
        if vh_is_v:
            vh = vh.mT
        k = s.size(-1)
        sign = _positive_max(u, -2)
        u = u * sign.unsqueeze(-2)
        rows = vh[..., :k, :] * sign[..., :k].unsqueeze(-1)
        if vh.size(-2) > k:
            extra = vh[..., k:, :]
            rows = torch.cat([rows, extra * _positive_max(extra, -1).unsqueeze(-1)], -2)
        return u, s, (rows.mT if vh_is_v else rows)
    return call


# op -> function(*args, **kwargs) computing torch's answer where aten 1.13 lacks the op
# or declares it differently.
TORCH_EQUIVALENT = {
    "rms_norm": _rms_norm,
    "scaled_dot_product_attention": _sdpa,
    "convolution.out": _convolution_out,
    "convolution_backward": _bool_mask(torch.ops.aten.convolution_backward.default),
    "native_batch_norm_backward": _bn_backward,
    "_fused_sgd_": _fused_sgd,
    "_fused_adadelta_": _fused_adadelta,
    "_fused_adam_": _fused_adam(False),
    "_fused_adamw_": _fused_adam(True),
    "_native_batch_norm_legit.no_stats": _bn_no_stats,
    "_native_batch_norm_legit": _bn_legit,
    "native_group_norm_backward": _bool_mask(torch.ops.aten.native_group_norm_backward.default),
    "native_layer_norm_backward": _layer_norm_backward,
    "_thnn_fused_lstm_cell": _fused_lstm_cell,
    "_thnn_fused_lstm_cell_backward_impl": _fused_lstm_cell_backward,
    "_thnn_fused_gru_cell": _fused_gru_cell,
    "_thnn_fused_gru_cell_backward": _fused_gru_cell_backward,
    "linear_backward": _linear_backward,
    "grid_sampler_2d_backward": _bool_mask(torch.ops.aten.grid_sampler_2d_backward.default),
    "grid_sampler_3d_backward": _bool_mask(torch.ops.aten.grid_sampler_3d_backward.default),
    # aten 1.13's to.device has a required dtype; axle's (like Tensor.to) an optional one.
    "to.device": lambda self, device, dtype=None, non_blocking=False, copy=False: self.to(
        device=device, dtype=dtype, non_blocking=non_blocking, copy=copy),
    # Not an aten op in 1.13: torch.nn.functional's composition.
    "softsign": lambda self: torch.nn.functional.softsign(self),
    # torch.norm's string p ('fro'); aten 1.13 has no such overload.
    "norm.str": lambda self, p="fro", dim=None, keepdim=False: torch.norm(self, p, dim, keepdim),
    # aten's rand/randn/randint take the generator in separate overloads; torch.* in one.
    "rand": lambda size, generator=None, dtype=None, device=None: torch.rand(size, dtype=dtype, device=device),
    "randn": lambda size, generator=None, dtype=None, device=None: torch.randn(size, dtype=dtype, device=device),
    "randint.low": lambda low, high, size, generator=None, dtype=None, device=None: torch.randint(
        low, high, size, dtype=dtype or torch.int64, device=device),
    "randint": lambda high, size, generator=None, dtype=None, device=None: torch.randint(
        high, size, dtype=dtype or torch.int64, device=device),
    # Eigenvectors and singular vectors are unique up to sign: torch's with axle's signs.
    "_linalg_eigh": _eigh(torch.ops.aten._linalg_eigh.default),
    "linalg_eigh": _eigh(torch.ops.aten.linalg_eigh.default),
    "_linalg_svd": _svd(torch.ops.aten._linalg_svd.default),
    "linalg_svd": _svd(torch.ops.aten.linalg_svd.default),
    "svd": _svd(torch.ops.aten.svd.default, vh_is_v=True),
}

# (op, substring of the sample note or "" for all) -> reason. Cases matching are not compared.
DEVIATIONS = {
    # torch 1.13's native_batch_norm does not check the weight's size (reads past it).
    ("_native_batch_norm_legit.no_stats", "weight of 4 for 3 channels"): "torch 1.13 does not check weight's size",
    # torch 1.13's CPU gelu_backward reads a non-contiguous grad_output as if it were
    # contiguous (values of other elements, or of memory beyond them): axle computes it.
    ("gelu_backward", "transposed grad"): "torch 1.13 ignores grad_output's strides",
    # axle recomputes the batch statistics from input; torch 1.13's CPU kernel reads the
    # undefined tensors (a segmentation fault).
    ("native_batch_norm_backward", "save stats None"): "axle recomputes missing save_mean / save_invstd",
    # torch 1.13's CPU kernel fails without gamma ("tensor does not have a device");
    # axle treats a missing weight as ones, as the forward does.
    ("native_group_norm_backward", "no weight"): "axle accepts weight None (ones)",
    # torch 1.13's CPU kernel gives other values for a channels_last input or a
    # non-contiguous grad_out than for the same values contiguous (layout-dependent: a
    # torch bug); axle's results equal torch's on contiguous copies.
    ("native_group_norm_backward", "channels_last"): "torch 1.13 is wrong for channels_last",
    ("native_group_norm_backward", "transposed-layout grad_out"): "torch 1.13 is wrong for strided grad_out",
    # torch 1.13's CPU convolution_backward does not check that grad_output's batch is the
    # input's (it computes with the mismatch): axle raises, naming the sizes.
    ("convolution_backward", "grad_output of another batch"): "torch 1.13 does not check the batch",
    # torch 1.13's CPU _softmax_backward_data reads a non-contiguous output as if it were
    # contiguous along dim (its result equals axle's for output.contiguous()).
    ("_softmax_backward_data", "stepped output"): "torch 1.13 ignores output's strides",
    # torch 1.13's CPU _log_softmax_backward_data does not check that grad_output and
    # output have one size (it reads past output's rows): axle raises.
    ("_log_softmax_backward_data", "grad_output of another size"): "torch 1.13 does not check the sizes",
    # torch 1.13's CPU grid_sampler_{2,3}d_backward does not check grad_output's size (it reads
    # it as the output's): axle raises, naming the sizes.
    ("grid_sampler_2d_backward", "grad_output of the input's size"): "torch 1.13 does not check the size",
    ("grid_sampler_3d_backward", "grad_output of the input's size"): "torch 1.13 does not check the size",
}

# Per op: number of cases compared and of dtypes covered (printed by conftest.py).
SUMMARY = {}


def tolerance(dtype_name):
    return {"float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7), "float16": (1e-3, 1e-5),
            "bfloat16": (1.6e-2, 1e-5)}.get(dtype_name, (0.0, 0.0))


def to_torch(v):
    if isinstance(v, axle.Tensor):
        # Through DLPack: torch sees the same memory with the same strides (views,
        # expanded and transposed inputs behave as in axle).
        try:
            return torch.from_dlpack(v.cpu())
        except Exception:  # noqa: BLE001 - dtypes torch 1.13's DLPack lacks (bool): numpy keeps the strides
            host = v.cpu()
            if v.dtype.name == "bfloat16":
                return torch.from_numpy(np.array(host.to(axle.float32))).to(torch.bfloat16)
            return torch.from_numpy(np.asarray(host))
    if isinstance(v, axle.dtype):
        return getattr(torch, v.name)
    if isinstance(v, axle.device):
        return torch.device("cpu")
    if isinstance(v, (list, tuple)):
        return type(v)(to_torch(x) for x in v)
    return v


# torch 1.13's CPU lacks many float16 kernels ("... not implemented for 'Half'"), which
# axle has: those cases are compared with torch computing in float32 on the same
# (float16-representable) inputs, the result rounded to float16.
LOW_PRECISION = {torch.float16, torch.bfloat16}


def upcast(v):
    if isinstance(v, torch.Tensor) and v.dtype in LOW_PRECISION:
        return v.float()
    if isinstance(v, torch.dtype) and v in LOW_PRECISION:
        return torch.float32
    if isinstance(v, (list, tuple)):
        return type(v)(upcast(x) for x in v)
    return v


def downcast(result, dtype):
    if isinstance(result, torch.Tensor):
        return result.to(dtype) if result.dtype == torch.float32 else result
    if isinstance(result, (list, tuple)):
        return type(result)(downcast(r, dtype) for r in result)
    return result


def flatten(result):
    if isinstance(result, (list, tuple)):
        out = []
        for r in result:
            out.extend(flatten(r))
        return out
    return [result]


def as_float64(t, is_axle):
    if is_axle:
        return np.array(t.cpu().to(axle.float64))
    return t.detach().to(torch.float64).numpy()


def torch_callable(op, args=()):
    if op in TORCH_EQUIVALENT:
        return TORCH_EQUIVALENT[op]
    name, _, overload = op.partition(".")
    # torch.ops.aten turns Python bools passed as Scalar into ints (torch.clamp(b, True)
    # raises for bool tensors, aten.clamp(b, True) returns int64): use the Python API.
    if any(isinstance(v, bool) for _, _, v in args) and hasattr(torch, name):
        return getattr(torch, name)
    packet = getattr(torch.ops.aten, name)
    return getattr(packet, overload or "default")


def axle_callable(op):
    name = op.partition(".")[0]
    fn = axle._nn_functional.get(name) or getattr(axle, name, None)
    assert fn is not None, "axle has no Python function for " + op
    return fn


def call(fn, args, convert, op=None):
    pos, kw, converted = [], {}, []
    for name, kwarg_only, value in args:
        value = convert(value)
        converted.append(value)
        if kwarg_only:
            kw[name] = value
        else:
            pos.append(value)
    result = fn(*pos, **kw)
    if op in RESULT_ARGS:  # an op returning nothing: its written arguments are its results
        assert result is None, op
        return tuple(t for i in RESULT_ARGS[op] for t in converted[i])
    return result


def equivalent(axle_exc, torch_exc):
    if not isinstance(axle_exc, axle.AxleError):
        return False
    for builtin in (IndexError, ValueError, TypeError, NotImplementedError):
        if isinstance(torch_exc, builtin):
            return isinstance(axle_exc, builtin)
    return True


def deviation(op, note):
    for (dop, sub), reason in DEVIATIONS.items():
        if dop == op and sub in note:
            return reason
    return None


@pytest.mark.parametrize("op,dtypes,scale,values", SAMPLE_OPS, ids=[s[0] for s in SAMPLE_OPS])
def test_op_matches_torch(op, dtypes, scale, values):
    fn = axle_callable(op)
    compared, problems, via_float32 = 0, [], [0]
    for d in dtypes:
        dname = DTYPES[d]
        # The same seed gives the same values: one set for axle, one (converted) for torch,
        # so in-place ops do not see each other's writes.
        for (args, note, error, rtol, atol), (targs, _, _, _, _) in zip(
                axle._C._sample_inputs(op, d, "cpu", SEED), axle._C._sample_inputs(op, d, "cpu", SEED)):
            where = "%s [%s] %s" % (op, dname, note)
            if deviation(op, note):
                continue
            tfn = torch_callable(op, targs)
            try:
                want = call(tfn, targs, to_torch, op)
                want_exc = None
            except Exception as e:  # noqa: BLE001 - torch raises RuntimeError and builtins
                want, want_exc = None, e
                if dname in ("float16", "bfloat16") and "not implemented for" in str(e) and not error:
                    try:
                        want = downcast(call(tfn, targs, lambda v: upcast(to_torch(v))), getattr(torch, dname))
                        want_exc = None
                        via_float32[0] += 1
                    except Exception:  # noqa: BLE001 - keep torch's original error
                        pass
            try:
                got = call(fn, args, lambda v: v, op)
                got_exc = None
            except Exception as e:  # noqa: BLE001
                got, got_exc = None, e
            if error and want_exc is None:
                problems.append("%s: the sample expects %s but torch succeeded" % (where, error))
                continue
            if want_exc is not None:
                if got_exc is None:
                    problems.append("%s: torch raised %s (%s), axle succeeded" % (
                        where, type(want_exc).__name__, str(want_exc).splitlines()[0][:120]))
                elif not equivalent(got_exc, want_exc):
                    problems.append("%s: torch raised %s, axle raised %s: %s" % (
                        where, type(want_exc).__name__, type(got_exc).__name__, got_exc))
                compared += 1
                continue
            if got_exc is not None:
                problems.append("%s: axle raised %s: %s" % (where, type(got_exc).__name__, got_exc))
                continue
            gl, wl = flatten(got), flatten(want)
            if len(gl) != len(wl):
                problems.append("%s: %d outputs, torch gives %d" % (where, len(gl), len(wl)))
                continue
            for i, (g, w) in enumerate(zip(gl, wl)):
                if not isinstance(w, torch.Tensor):
                    if g != w:
                        problems.append("%s: output %d is %r, torch gives %r" % (where, i, g, w))
                    continue
                if tuple(g.shape) != tuple(w.shape):
                    problems.append("%s: output %d shape %s, torch %s" % (where, i, tuple(g.shape), tuple(w.shape)))
                    continue
                wdt = str(w.dtype).replace("torch.", "")
                if g.dtype.name != wdt:
                    problems.append("%s: output %d dtype %s, torch %s" % (where, i, g.dtype.name, wdt))
                    continue
                if not values:
                    continue
                r, a = tolerance(wdt)
                r, a = max(rtol, r * scale), max(atol, a * scale)
                gv, wv = as_float64(g, True), as_float64(w, False)
                if not np.allclose(gv, wv, rtol=r, atol=a, equal_nan=True) and wdt in ("bfloat16", "float16"):
                    # torch 1.13 rounds 16-bit intermediates in several kernels (gelu, log_softmax,
                    # layer/group norm, bilinear upsampling); axle rounds once. Accept torch in
                    # float32 on the same inputs, rounded to the 16-bit dtype once.
                    try:
                        ref = flatten(downcast(call(tfn, targs, lambda v: upcast(to_torch(v))), w.dtype))[i]
                        if np.allclose(gv, as_float64(ref, False), rtol=r, atol=a, equal_nan=True):
                            via_float32[0] += 1
                            continue
                    except Exception:  # noqa: BLE001 - report the original difference
                        pass
                if not np.allclose(gv, wv, rtol=r, atol=a, equal_nan=True):
                    bad = ~np.isclose(gv, wv, rtol=r, atol=a, equal_nan=True)
                    problems.append("%s: output %d: %d of %d values differ, e.g. %r vs torch %r" % (
                        where, i, int(bad.sum()), bad.size, gv[bad].ravel()[:3].tolist(), wv[bad].ravel()[:3].tolist()))
            compared += 1
    SUMMARY[op] = (compared, len(dtypes), via_float32[0])
    assert not problems, "\n".join(problems[:25]) + ("\n... %d more" % (len(problems) - 25) if len(problems) > 25 else "")
