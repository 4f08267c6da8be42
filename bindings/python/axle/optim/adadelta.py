"""Adadelta (torch.optim.Adadelta): per-coordinate step sizes from running averages
of squared gradients and of squared updates."""
from .optimizer import Optimizer

import axle as _axle

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    r"""Adadelta.

    Each step, with gradient :math:`g` (negated when ``maximize``):

    .. math::
        g &\leftarrow g + \lambda\theta \quad(\lambda \neq 0) \\
        v &\leftarrow \rho v + (1 - \rho) g^2 \\
        \Delta &\leftarrow \frac{\sqrt{u + \epsilon}}{\sqrt{v + \epsilon}} g \\
        u &\leftarrow \rho u + (1 - \rho) \Delta^2 \\
        \theta &\leftarrow \theta - \gamma \Delta

    The state holds ``'step'`` (a plain int, as torch 1.13 keeps it for Adadelta),
    ``'square_avg'`` (:math:`v`) and ``'acc_delta'`` (:math:`u`). The parameters
    of a group go to one ``_fused_adadelta_`` call per device: the same math,
    one pass per parameter where a kernel serves it.

    Args:
        params: tensors or parameter groups to optimize.
        lr (float): scales the update before it is applied (default 1.0).
        rho (float): the running averages' decay (default 0.9).
        eps (float): added inside both square roots (default 1e-6).
        weight_decay (float): L2 penalty (default 0).
        foreach (bool, optional): accepted for torch compatibility (same math).
        maximize (bool): maximize the objective instead of minimizing it.
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, maximize=False):
        if not 0.0 <= lr:
            raise _axle.ValueError("Invalid learning rate: {}".format(lr))
        if not 0.0 <= rho <= 1.0:
            raise _axle.ValueError("Invalid rho value: {}".format(rho))
        if not 0.0 <= eps:
            raise _axle.ValueError("Invalid epsilon value: {}".format(eps))
        if not 0.0 <= weight_decay:
            raise _axle.ValueError("Invalid weight_decay value: {}".format(weight_decay))
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize, foreach=foreach)
        super().__init__(params, defaults)

    _group_defaults = (("foreach", None), ("maximize", False))

    def step(self, closure=None):
        """Performs one optimization step; ``closure`` re-evaluates the model and
        returns the loss (which step returns)."""
        loss = self._evaluate_closure(closure)
        with _axle.no_grad():
            for group in self.param_groups:
                # device -> [params, grads, square_avgs, acc_deltas]: one
                # _fused_adadelta_ call each (torch's single-tensor math per element).
                calls = {}
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = 0
                        state["square_avg"] = _axle.zeros_like(p)
                        state["acc_delta"] = _axle.zeros_like(p)
                    state["step"] += 1
                    lists = calls.setdefault(str(p.device), ([], [], [], []))
                    for lst, t in zip(lists, (p, p.grad, state["square_avg"], state["acc_delta"])):
                        lst.append(t)
                for params, grads, square_avgs, acc_deltas in calls.values():
                    try:
                        _axle._fused_adadelta_(params, grads, square_avgs, acc_deltas, lr=group["lr"],
                                               rho=group["rho"], eps=group["eps"],
                                               weight_decay=group["weight_decay"], maximize=group["maximize"])
                    except Exception:
                        # The op checks everything before writing: nothing was
                        # updated, so neither are the step counts.
                        for p in params:
                            self.state[p]["step"] -= 1
                        raise
        return loss
