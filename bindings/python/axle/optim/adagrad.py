"""Adagrad (torch.optim.Adagrad)."""
from .optimizer import Optimizer

import axle as _axle

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    r"""Adagrad.

    Each step t, with gradient :math:`g` (negated when ``maximize``):

    .. math::
        g &\leftarrow g + \lambda\theta \quad(\lambda \neq 0) \\
        \tilde\gamma &\leftarrow \gamma / (1 + (t - 1)\eta) \\
        s &\leftarrow s + g^2 \\
        \theta &\leftarrow \theta - \tilde\gamma g / (\sqrt{s} + \epsilon)

    The accumulator :math:`s` ('sum') starts at ``initial_accumulator_value``; the
    state is made when the optimizer is constructed, as torch does.

    Args:
        params: tensors or parameter groups to optimize.
        lr (float): learning rate (default 1e-2).
        lr_decay (float): learning-rate decay :math:`\eta` (default 0).
        weight_decay (float): L2 penalty (default 0).
        initial_accumulator_value (float): the accumulator's start (default 0).
        eps (float): added to the denominator (default 1e-10).
        maximize (bool): maximize the objective instead of minimizing it.
        foreach (bool, optional): accepted for torch compatibility (same math).
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False):
        if not 0.0 <= lr:
            raise _axle.ValueError("Invalid learning rate: {}".format(lr))
        if not 0.0 <= lr_decay:
            raise _axle.ValueError("Invalid lr_decay value: {}".format(lr_decay))
        if not 0.0 <= weight_decay:
            raise _axle.ValueError("Invalid weight_decay value: {}".format(weight_decay))
        if not 0.0 <= initial_accumulator_value:
            raise _axle.ValueError("Invalid initial_accumulator_value value: {}".format(initial_accumulator_value))
        if not 0.0 <= eps:
            raise _axle.ValueError("Invalid epsilon value: {}".format(eps))
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, initial_accumulator_value)

    def _init_state(self, p, initial_accumulator_value):
        state = self.state[p]
        state["step"] = _axle.tensor(0.0, dtype=_axle.float32)
        state["sum"] = _axle.full_like(p, initial_accumulator_value)

    _group_defaults = (("foreach", None), ("maximize", False))
    _tensor_step = True

    def step(self, closure=None):
        """Performs one optimization step; ``closure`` re-evaluates the model and
        returns the loss (which step returns)."""
        loss = self._evaluate_closure(closure)
        with _axle.no_grad():
            for group in self.param_groups:
                lr, lr_decay, eps, weight_decay = group["lr"], group["lr_decay"], group["eps"], group["weight_decay"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if "sum" not in state:  # a group added after construction
                        self._init_state(p, group["initial_accumulator_value"])
                    step_t = state["step"]
                    step_t.add_(1)
                    step = step_t.item()
                    grad = p.grad.neg() if group["maximize"] else p.grad
                    if weight_decay != 0:
                        grad = grad.add(p, alpha=weight_decay)
                    clr = lr / (1 + (step - 1) * lr_decay)
                    state_sum = state["sum"]
                    state_sum.add_(grad * grad)
                    std = state_sum.sqrt().add_(eps)
                    p.add_(grad * -clr / std)
        return loss
