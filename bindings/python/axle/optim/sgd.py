"""Stochastic gradient descent, optionally with (Nesterov) momentum (torch.optim.SGD)."""
from .optimizer import Optimizer, _check_supported, required

import axle as _axle

__all__ = ["SGD"]


class SGD(Optimizer):
    r"""Stochastic gradient descent.

    Each step, with gradient :math:`g` (negated when ``maximize``):

    .. math::
        g &\leftarrow g + \lambda\theta \quad(\text{weight decay } \lambda \neq 0) \\
        b &\leftarrow g \text{ at the first step, else } \mu b + (1 - \tau) g \quad(\mu \neq 0) \\
        g &\leftarrow g + \mu b \text{ (nesterov) or } b \\
        \theta &\leftarrow \theta - \gamma g

    Args:
        params: tensors or parameter groups to optimize.
        lr (float): the learning rate :math:`\gamma` (required).
        momentum (float): :math:`\mu` (default 0).
        dampening (float): :math:`\tau` (default 0).
        weight_decay (float): L2 penalty :math:`\lambda` (default 0).
        nesterov (bool): Nesterov momentum (needs momentum > 0 and dampening 0).
        maximize (bool): maximize the objective instead of minimizing it.
        foreach (bool, optional): accepted for torch compatibility; axle runs the
            per-tensor algorithm either way (the same math).
    """

    def __init__(self, params, lr=required, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False):
        if lr is not required and lr < 0.0:
            raise _axle.ValueError("Invalid learning rate: {}".format(lr))
        if momentum < 0.0:
            raise _axle.ValueError("Invalid momentum value: {}".format(momentum))
        if weight_decay < 0.0:
            raise _axle.ValueError("Invalid weight_decay value: {}".format(weight_decay))
        if nesterov and (momentum <= 0 or dampening != 0):
            raise _axle.ValueError("Nesterov momentum requires a momentum and zero dampening")
        _check_supported("SGD", differentiable=differentiable)
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    _group_defaults = (("nesterov", False), ("maximize", False), ("foreach", None), ("differentiable", False))

    def step(self, closure=None):
        """Performs one optimization step; ``closure`` re-evaluates the model and
        returns the loss (which step returns)."""
        loss = self._evaluate_closure(closure)
        with _axle.no_grad():
            for group in self.param_groups:
                lr, momentum, dampening = group["lr"], group["momentum"], group["dampening"]
                weight_decay, nesterov = group["weight_decay"], group["nesterov"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    d_p = p.grad.neg() if group["maximize"] else p.grad
                    if weight_decay != 0:
                        d_p = d_p.add(p, alpha=weight_decay)
                    state = self.state[p]
                    buf = state.get("momentum_buffer")
                    if momentum != 0:
                        if buf is None:
                            buf = d_p.clone().detach()
                        else:
                            buf.mul_(momentum).add_(d_p, alpha=1 - dampening)
                        d_p = d_p.add(buf, alpha=momentum) if nesterov else buf
                    p.add_(d_p, alpha=-lr)
                    # torch keeps the entry (None without momentum), so the state dicts match
                    state["momentum_buffer"] = buf
        return loss
