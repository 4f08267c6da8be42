"""clip_grad_norm_ and clip_grad_value_, as torch 1.13's: the total norm over
every gradient (inf: the largest magnitude), gradients scaled in place by
max_norm / (total + 1e-6) when that is below 1."""
import math

import axle as _axle

__all__ = ["clip_grad_norm_", "clip_grad_value_"]


def _grads(parameters):
    if isinstance(parameters, _axle.Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    grads = _grads(parameters)
    max_norm, norm_type = float(max_norm), float(norm_type)
    if not grads:
        return _axle.tensor(0.0)
    with _axle.no_grad():
        if norm_type == math.inf:
            norms = [g.detach().abs().max() for g in grads]
            total = norms[0] if len(norms) == 1 else _axle.stack(norms).max()
        else:
            total = _axle.stack([_axle.norm(g.detach(), norm_type) for g in grads]).norm(norm_type)
        if error_if_nonfinite and bool(_axle.isnan(total) | _axle.isinf(total)):
            raise RuntimeError("The total norm of order %s for gradients from `parameters` is non-finite, so it "
                               "cannot be clipped. To disable this error and scale the gradients by the non-finite "
                               "norm anyway, set `error_if_nonfinite=False`" % norm_type)
        coef = _axle.clamp(max_norm / (total + 1e-6), max=1.0)
        for g in grads:
            g.mul_(coef.to(g.dtype))
    return total


def clip_grad_value_(parameters, clip_value):
    clip_value = float(clip_value)
    with _axle.no_grad():
        for g in _grads(parameters):
            g.clamp_(min=-clip_value, max=clip_value)
