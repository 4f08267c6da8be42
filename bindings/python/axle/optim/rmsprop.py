"""RMSprop (torch.optim.RMSprop), optionally centered and with momentum."""
from .optimizer import Optimizer, _check_supported

import axle as _axle

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    r"""RMSprop.

    Each step, with gradient :math:`g` (negated when ``maximize``):

    .. math::
        g &\leftarrow g + \lambda\theta \quad(\lambda \neq 0) \\
        v &\leftarrow \alpha v + (1 - \alpha) g^2 \\
        a &\leftarrow \sqrt{v - \bar g^2} + \epsilon \text{ with } \bar g \leftarrow \alpha \bar g + (1 - \alpha) g
            \text{ (centered), else } \sqrt{v} + \epsilon \\
        \theta &\leftarrow \theta - \gamma b \text{ with } b \leftarrow \mu b + g / a \text{ (momentum > 0),
            else } \theta - \gamma g / a

    Args:
        params: tensors or parameter groups to optimize.
        lr (float): learning rate (default 1e-2).
        alpha (float): smoothing constant (default 0.99).
        eps (float): added to the denominator (default 1e-8).
        weight_decay (float): L2 penalty (default 0).
        momentum (float): momentum factor (default 0).
        centered (bool): normalize by an estimate of the gradient's variance.
        maximize (bool): maximize the objective instead of minimizing it.
        foreach (bool, optional): accepted for torch compatibility (same math).
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 foreach=None, maximize=False, differentiable=False):
        if not 0.0 <= lr:
            raise _axle.ValueError("Invalid learning rate: {}".format(lr))
        if not 0.0 <= eps:
            raise _axle.ValueError("Invalid epsilon value: {}".format(eps))
        if not 0.0 <= momentum:
            raise _axle.ValueError("Invalid momentum value: {}".format(momentum))
        if not 0.0 <= weight_decay:
            raise _axle.ValueError("Invalid weight_decay value: {}".format(weight_decay))
        if not 0.0 <= alpha:
            raise _axle.ValueError("Invalid alpha value: {}".format(alpha))
        _check_supported("RMSprop", differentiable=differentiable)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    _group_defaults = (("momentum", 0), ("centered", False), ("foreach", None), ("maximize", False),
                       ("differentiable", False))

    def step(self, closure=None):
        """Performs one optimization step; ``closure`` re-evaluates the model and
        returns the loss (which step returns)."""
        loss = self._evaluate_closure(closure)
        with _axle.no_grad():
            for group in self.param_groups:
                lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
                momentum, centered, weight_decay = group["momentum"], group["centered"], group["weight_decay"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = 0  # a plain int in torch 1.13's RMSprop
                        state["square_avg"] = _axle.zeros_like(p)
                        if momentum > 0:
                            state["momentum_buffer"] = _axle.zeros_like(p)
                        if centered:
                            state["grad_avg"] = _axle.zeros_like(p)
                    else:  # options switched on after the first step start from zero
                        if momentum > 0 and "momentum_buffer" not in state:
                            state["momentum_buffer"] = _axle.zeros_like(p)
                        if centered and "grad_avg" not in state:
                            state["grad_avg"] = _axle.zeros_like(p)
                    state["step"] += 1

                    grad = p.grad.neg() if group["maximize"] else p.grad
                    if weight_decay != 0:
                        grad = grad.add(p, alpha=weight_decay)
                    square_avg = state["square_avg"]
                    square_avg.mul_(alpha).add_(grad * (1 - alpha) * grad)
                    if centered:
                        grad_avg = state["grad_avg"]
                        grad_avg.mul_(alpha).add_(grad, alpha=1 - alpha)
                        avg = square_avg.sub(grad_avg * grad_avg).sqrt()
                    else:
                        avg = square_avg.sqrt()
                    avg.add_(eps)
                    if momentum > 0:
                        buf = state["momentum_buffer"]
                        buf.mul_(momentum).add_(grad / avg)
                        p.add_(buf, alpha=-lr)
                    else:
                        p.add_(grad * -lr / avg)
        return loss
