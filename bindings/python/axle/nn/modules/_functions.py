"""Autograd Functions behind some modules (as torch.nn.modules._functions): CrossMapLRN2d, the
legacy Lua-Torch cross-channel LRN, with torch 1.13's forward and its backward formula (which is
not the exact derivative of that forward: torch's running window never drops channel 0 once
past it, its backward uses a plain window; both are reproduced so values and gradients equal
torch's)."""
import axle as _axle


def _window_sums(x, lo, hi):
    """sum of x[:, lo[c]:hi[c] + 1] along dim 1 for every channel c (empty windows give 0)."""
    n = x.shape[0]
    zero = _axle.zeros((n, 1) + tuple(x.shape[2:]), dtype=x.dtype, device=x.device)
    cs = _axle.cat([zero, _axle.cumsum(x, 1)], 1)
    hi_ = _axle.tensor([max(h + 1, l) for l, h in zip(lo, hi)], dtype=_axle.int64, device=x.device)
    lo_ = _axle.tensor(lo, dtype=_axle.int64, device=x.device)
    return cs.index_select(1, hi_) - cs.index_select(1, lo_)


class CrossMapLRN2d(_axle.autograd.Function):
    @staticmethod
    def forward(ctx, input, size, alpha=1e-4, beta=0.75, k=1):
        if input.dim() != 4:
            raise _axle.ShapeError("CrossMapLRN2d: expected a 4-D input (N, C, H, W), got {}-D".format(input.dim()))
        channels = input.shape[1]
        pre = int((size - 1) / 2 + 1)
        lo = [max(0, c - pre + 1) for c in range(channels)]
        hi = [min(c + pre - 1, channels - 1) for c in range(channels)]
        sq = input * input
        total = _window_sums(sq, lo, hi)
        if channels > pre:  # torch's running window keeps channel 0 from channel `pre` on
            keep = _axle.tensor([float(c >= pre) for c in range(channels)], dtype=input.dtype,
                                device=input.device).reshape(1, channels, 1, 1)
            total = total + sq.narrow(1, 0, 1) * keep
        scale = total * (alpha / size) + k
        output = input * scale ** (-beta)
        ctx.size, ctx.alpha, ctx.beta = size, alpha, beta
        ctx.save_for_backward(input, output, scale)
        return output

    @staticmethod
    def backward(ctx, grad_output):
        input, output, scale = ctx.saved_tensors
        size, channels = ctx.size, input.shape[1]
        shift = int(size - (size - 1) / 2)
        ratio = grad_output * output / scale
        lo = [max(0, c - shift) for c in range(channels)]
        hi = [min(c - shift + size - 1, channels - 1) for c in range(channels)]
        accum = _window_sums(ratio, lo, hi)
        grad = scale ** (-ctx.beta) * grad_output - input * accum * (2 * ctx.alpha * ctx.beta / size)
        return grad, None, None, None, None
