"""ASGD (torch.optim.ASGD): averaged stochastic gradient descent."""
import math as _math

from .optimizer import Optimizer, _step_tensor

import axle as _axle

__all__ = ["ASGD"]


def _scalar_tensor(state, key, default):
    """A scalar state entry as a tensor of the default dtype (float32), as torch
    1.13 keeps 'eta' and 'mu'; a plain number from an older state dict is converted."""
    value = state.get(key, default)
    if not isinstance(value, _axle.Tensor):
        value = state[key] = _axle.tensor(float(value))
    return value


class ASGD(Optimizer):
    r"""Averaged stochastic gradient descent.

    Each step t, with gradient :math:`g` (negated when ``maximize``), step size
    :math:`\eta` and averaging weight :math:`\mu` (both from the previous step):

    .. math::
        g &\leftarrow g + \lambda_{wd}\theta \quad(\lambda_{wd} \neq 0) \\
        \theta &\leftarrow \theta (1 - \lambda\eta) - \eta g \\
        a &\leftarrow a + \mu (\theta - a) \text{ if } \mu \neq 1, \text{ else } \theta \\
        \eta &\leftarrow \gamma / (1 + \lambda\gamma t)^\alpha, \quad \mu \leftarrow 1 / \max(1, t - t_0)

    The state holds ``'step'``, ``'eta'`` and ``'mu'`` (scalar tensors of the
    default dtype, float32: :math:`\eta` and :math:`\mu` are rounded to it, as in
    torch 1.13) and ``'ax'`` (the average :math:`a`).

    Args:
        params: tensors or parameter groups to optimize.
        lr (float): learning rate :math:`\gamma` (default 1e-2).
        lambd (float): decay term :math:`\lambda` (default 1e-4).
        alpha (float): power of the step-size decay (default 0.75).
        t0 (float): the step at which averaging starts (default 1e6).
        weight_decay (float): L2 penalty (default 0).
        foreach (bool, optional): accepted for torch compatibility (same math).
        maximize (bool): maximize the objective instead of minimizing it.
    """

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0, foreach=None,
                 maximize=False):
        if not 0.0 <= lr:
            raise _axle.ValueError("Invalid learning rate: {}".format(lr))
        if not 0.0 <= weight_decay:
            raise _axle.ValueError("Invalid weight_decay value: {}".format(weight_decay))
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize)
        super().__init__(params, defaults)

    _group_defaults = (("foreach", None), ("maximize", False))
    _tensor_step = True

    def __setstate__(self, state):
        super().__setstate__(state)
        for s in self.state.values():
            for key in ("eta", "mu"):
                if key in s:
                    _scalar_tensor(s, key, None)

    def step(self, closure=None):
        """Performs one optimization step; ``closure`` re-evaluates the model and
        returns the loss (which step returns)."""
        loss = self._evaluate_closure(closure)
        with _axle.no_grad():
            for group in self.param_groups:
                lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
                weight_decay = group["weight_decay"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = _axle.tensor(0.0, dtype=_axle.float32)
                        state["eta"] = _axle.tensor(lr)
                        state["mu"] = _axle.tensor(1.0)
                        state["ax"] = _axle.zeros_like(p)
                    step_t = _step_tensor(state)
                    step_t.add_(1)
                    step = step_t.item()
                    eta = _scalar_tensor(state, "eta", lr)
                    mu = _scalar_tensor(state, "mu", 1.0)

                    grad = p.grad.neg() if group["maximize"] else p.grad
                    if weight_decay != 0:
                        grad = grad.add(p, alpha=weight_decay)
                    eta_value = eta.item()
                    p.mul_(1 - lambd * eta_value)
                    p.add_(grad, alpha=-eta_value)
                    ax = state["ax"]
                    mu_value = mu.item()
                    if mu_value != 1:
                        ax.add_(p.sub(ax).mul(mu_value))
                    else:
                        ax.copy_(p)
                    # the new values are made as default-dtype tensors, then copied in
                    eta.copy_(_axle.tensor(lr / _math.pow(1 + lambd * lr * step, alpha)))
                    mu.copy_(_axle.tensor(1 / max(1, step - t0)))
        return loss
