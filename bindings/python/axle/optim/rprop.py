"""Rprop (torch.optim.Rprop): resilient backpropagation, steps by the gradient's sign."""
from .optimizer import Optimizer

import axle as _axle

__all__ = ["Rprop"]


class Rprop(Optimizer):
    r"""Rprop.

    Each step, with gradient :math:`g` (negated when ``maximize``) and the previous
    step's (masked) gradient :math:`g'`, per coordinate:

    .. math::
        s &\leftarrow \operatorname{clamp}(\eta_+ s, s_{min}, s_{max}) \text{ if } g g' > 0, \quad
            \operatorname{clamp}(\eta_- s, s_{min}, s_{max}) \text{ if } g g' < 0,
            \quad \operatorname{clamp}(s, s_{min}, s_{max}) \text{ otherwise} \\
        g &\leftarrow 0 \text{ where } g g' < 0 \\
        \theta &\leftarrow \theta - \operatorname{sign}(g) s, \quad g' \leftarrow g

    The state holds ``'step'`` (a plain int, as torch 1.13 keeps it for Rprop),
    ``'prev'`` (:math:`g'`) and ``'step_size'`` (:math:`s`, starting at ``lr``).

    Args:
        params: tensors or parameter groups to optimize.
        lr (float): the initial step size (default 1e-2).
        etas (tuple of 2 floats): the multiplicative decrease and increase
            :math:`(\eta_-, \eta_+)` (default (0.5, 1.2)).
        step_sizes (tuple of 2 floats): the step size's bounds (default (1e-6, 50)).
        foreach (bool, optional): accepted for torch compatibility (same math).
        maximize (bool): maximize the objective instead of minimizing it.
    """

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), foreach=None, maximize=False):
        if not 0.0 <= lr:
            raise _axle.ValueError("Invalid learning rate: {}".format(lr))
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise _axle.ValueError("Invalid eta values: {}, {}".format(etas[0], etas[1]))
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    _group_defaults = (("foreach", None), ("maximize", False))

    def step(self, closure=None):
        """Performs one optimization step; ``closure`` re-evaluates the model and
        returns the loss (which step returns)."""
        loss = self._evaluate_closure(closure)
        with _axle.no_grad():
            for group in self.param_groups:
                etaminus, etaplus = group["etas"]
                step_size_min, step_size_max = group["step_sizes"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = 0
                        state["prev"] = _axle.zeros_like(p)
                        state["step_size"] = _axle.full_like(p.grad, group["lr"])
                    state["step"] += 1

                    grad = p.grad.neg() if group["maximize"] else p.grad
                    prev, step_size = state["prev"], state["step_size"]
                    agreement = grad.mul(prev).sign()
                    flipped = agreement.lt(0)
                    # the step-size factor: eta+ where the sign held, eta- where it flipped,
                    # 1 where either is zero (NaN stays NaN)
                    factor = agreement.masked_fill(agreement.gt(0), etaplus)
                    factor = factor.masked_fill(flipped, etaminus).masked_fill(agreement.eq(0), 1)
                    step_size.mul_(factor).clamp_(step_size_min, step_size_max)
                    # after a sign flip the coordinate does not move and is not remembered
                    grad = grad.masked_fill(flipped, 0)
                    p.sub_(grad.sign() * step_size)
                    prev.copy_(grad)
        return loss
