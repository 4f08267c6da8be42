"""RAdam (torch.optim.RAdam): Adam with a rectified adaptive learning rate."""
import math as _math

from .adam import _check_adam_args
from .optimizer import Optimizer, _step_tensor

import axle as _axle

__all__ = ["RAdam"]


class RAdam(Optimizer):
    r"""RAdam.

    Each step t, with gradient :math:`g`:

    .. math::
        g &\leftarrow g + \lambda\theta \quad(\lambda \neq 0) \\
        m &\leftarrow \beta_1 m + (1 - \beta_1) g, \quad v \leftarrow \beta_2 v + (1 - \beta_2) g^2 \\
        \rho_\infty &= 2 / (1 - \beta_2) - 1, \quad
            \rho_t = \rho_\infty - 2 t \beta_2^t / (1 - \beta_2^t) \\
        \theta &\leftarrow \theta - \gamma \frac{m}{1 - \beta_1^t} \cdot r_t
            \frac{\sqrt{1 - \beta_2^t}}{\sqrt{v} + \epsilon} \text{ if } \rho_t > 5, \text{ else }
            \theta - \gamma \frac{m}{1 - \beta_1^t}

    with the rectification
    :math:`r_t = \sqrt{\frac{(\rho_t - 4)(\rho_t - 2)\rho_\infty}{(\rho_\infty - 4)(\rho_\infty - 2)\rho_t}}`.
    The state holds ``'step'`` (a float32 scalar tensor, as torch 1.13),
    ``'exp_avg'`` and ``'exp_avg_sq'``. torch 1.13's RAdam has no ``maximize`` option.

    Args:
        params: tensors or parameter groups to optimize.
        lr (float): learning rate (default 1e-3).
        betas (tuple of 2 floats): the moments' decay rates (default (0.9, 0.999)).
        eps (float): added to the denominator (default 1e-8).
        weight_decay (float): L2 penalty (default 0).
        foreach (bool, optional): accepted for torch compatibility (same math).
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None):
        _check_adam_args(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach)
        super().__init__(params, defaults)

    _group_defaults = (("foreach", None),)
    _tensor_step = True

    def step(self, closure=None):
        """Performs one optimization step; ``closure`` re-evaluates the model and
        returns the loss (which step returns)."""
        loss = self._evaluate_closure(closure)
        with _axle.no_grad():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
                rho_inf = 2 / (1 - beta2) - 1  # the SMA's maximum length
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = _axle.tensor(0.0, dtype=_axle.float32)
                        state["exp_avg"] = _axle.zeros_like(p)
                        state["exp_avg_sq"] = _axle.zeros_like(p)
                    step_t = _step_tensor(state)
                    step_t.add_(1)
                    step = step_t.item()

                    grad = p.grad
                    if weight_decay != 0:
                        grad = grad.add(p, alpha=weight_decay)
                    bias_correction1 = 1 - beta1 ** step
                    bias_correction2 = 1 - beta2 ** step
                    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                    exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                    exp_avg_sq.mul_(beta2).add_(grad * (1 - beta2) * grad)

                    corrected_avg = exp_avg / bias_correction1
                    rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2  # the SMA's length now
                    if rho_t > 5.0:
                        rect = _math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                                          / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
                        # sqrt(1 - beta2^t) / (sqrt(v) + eps), as the reciprocal times the number (torch's order)
                        adaptive_lr = exp_avg_sq.sqrt().add_(eps).reciprocal() * _math.sqrt(bias_correction2)
                        p.sub_(corrected_avg * lr * adaptive_lr * rect)
                    else:
                        p.sub_(corrected_avg * lr)
        return loss
