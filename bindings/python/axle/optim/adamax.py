"""Adamax (torch.optim.Adamax): Adam with the infinity norm in place of the second moment."""
from .adam import _check_adam_args
from .optimizer import Optimizer, _step_tensor

import axle as _axle

__all__ = ["Adamax"]


class Adamax(Optimizer):
    r"""Adamax.

    Each step t, with gradient :math:`g` (negated when ``maximize``):

    .. math::
        g &\leftarrow g + \lambda\theta \quad(\lambda \neq 0) \\
        m &\leftarrow \beta_1 m + (1 - \beta_1) g \\
        u &\leftarrow \max(\beta_2 u, |g| + \epsilon) \\
        \theta &\leftarrow \theta - \frac{\gamma}{1 - \beta_1^t} \frac{m}{u}

    The state holds ``'step'`` (a float32 scalar tensor, as torch 1.13),
    ``'exp_avg'`` (:math:`m`) and ``'exp_inf'`` (:math:`u`).

    Args:
        params: tensors or parameter groups to optimize.
        lr (float): learning rate (default 2e-3).
        betas (tuple of 2 floats): decay rates of the first moment and of the
            infinity norm (default (0.9, 0.999)).
        eps (float): added to :math:`|g|` (default 1e-8).
        weight_decay (float): L2 penalty (default 0).
        foreach (bool, optional): accepted for torch compatibility (same math).
        maximize (bool): maximize the objective instead of minimizing it.
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize)
        super().__init__(params, defaults)

    _group_defaults = (("foreach", None), ("maximize", False))
    _tensor_step = True

    def step(self, closure=None):
        """Performs one optimization step; ``closure`` re-evaluates the model and
        returns the loss (which step returns)."""
        loss = self._evaluate_closure(closure)
        with _axle.no_grad():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = _axle.tensor(0.0, dtype=_axle.float32)
                        state["exp_avg"] = _axle.zeros_like(p)
                        state["exp_inf"] = _axle.zeros_like(p)
                    step_t = _step_tensor(state)
                    step_t.add_(1)
                    step = step_t.item()

                    grad = p.grad.neg() if group["maximize"] else p.grad
                    if weight_decay != 0:
                        grad = grad.add(p, alpha=weight_decay)
                    exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
                    exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                    exp_inf.copy_(_axle.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps)))
                    step_size = lr / (1 - beta1 ** step)
                    p.add_(exp_avg * -step_size / exp_inf)
        return loss
