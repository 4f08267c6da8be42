"""Stochastic gradient descent, optionally with (Nesterov) momentum (torch.optim.SGD)."""
from .optimizer import Optimizer, _check_supported, _written_grad, required

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
        foreach, fused (bool, optional): accepted for torch compatibility; axle
            runs one ``_fused_sgd_`` call per group either way (the same math).
    """

    def __init__(self, params, lr=required, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
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
        returns the loss (which step returns).

        The parameters of a group go to one ``_fused_sgd_`` call per device and
        first / later step (a declared op: one pass over each parameter where a
        device has a kernel, else the same math op by op). New momentum buffers
        enter the state only once their call succeeded."""
        loss = self._evaluate_closure(closure)
        with _axle.no_grad():
            for group in self.param_groups:
                momentum = group["momentum"]
                # (device, first step) -> [params, grads, buffers]
                calls = {}
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    grad = _written_grad(p.grad)
                    buf = self.state[p].get("momentum_buffer")
                    first = momentum != 0 and buf is None
                    if first:
                        buf = _axle.empty_like(p)
                    lists = calls.setdefault((str(p.device), first), ([], [], []))
                    lists[0].append(p)
                    lists[1].append(grad)
                    if momentum != 0:
                        lists[2].append(buf)
                for (_, first), (params, grads, bufs) in calls.items():
                    _axle._fused_sgd_(params, grads, bufs, weight_decay=group["weight_decay"], momentum=momentum,
                                      lr=group["lr"], dampening=group["dampening"], nesterov=group["nesterov"],
                                      maximize=group["maximize"], is_first_step=first)
                    for i, p in enumerate(params):
                        # torch keeps the entry (None without momentum), so the state dicts match
                        self.state[p]["momentum_buffer"] = bufs[i] if momentum != 0 else None
        return loss
