"""Adam (torch.optim.Adam): adaptive moment estimation, with optional AMSGrad."""
import math as _math

from .optimizer import Optimizer, _check_supported, _step_tensor

import axle as _axle

__all__ = ["Adam"]


def _check_adam_args(lr, betas, eps, weight_decay):
    if not 0.0 <= lr:
        raise _axle.ValueError("Invalid learning rate: {}".format(lr))
    if not 0.0 <= eps:
        raise _axle.ValueError("Invalid epsilon value: {}".format(eps))
    if not 0.0 <= betas[0] < 1.0:
        raise _axle.ValueError("Invalid beta parameter at index 0: {}".format(betas[0]))
    if not 0.0 <= betas[1] < 1.0:
        raise _axle.ValueError("Invalid beta parameter at index 1: {}".format(betas[1]))
    if not 0.0 <= weight_decay:
        raise _axle.ValueError("Invalid weight_decay value: {}".format(weight_decay))


def _init_adam_state(p, state, amsgrad):
    if len(state) == 0:
        state["step"] = _axle.tensor(0.0, dtype=_axle.float32)
        state["exp_avg"] = _axle.zeros_like(p)  # first moment
        state["exp_avg_sq"] = _axle.zeros_like(p)  # second moment
        if amsgrad:
            state["max_exp_avg_sq"] = _axle.zeros_like(p)  # running max of the second moment
    elif amsgrad and "max_exp_avg_sq" not in state:  # amsgrad switched on after the first step
        state["max_exp_avg_sq"] = _axle.zeros_like(p)


def _adam_moments_update(p, grad, state, beta1, beta2, lr, eps, amsgrad):
    """The part Adam and AdamW share: moments, bias corrections and the parameter
    update p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps).
    The step counter was already incremented."""
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
    exp_avg_sq.mul_(beta2).add_(grad * (1 - beta2) * grad)

    step = state["step"].item()
    bias_correction1 = 1 - beta1 ** step
    bias_correction2_sqrt = _math.sqrt(1 - beta2 ** step)
    step_size = lr / bias_correction1

    if amsgrad:
        max_exp_avg_sq = state["max_exp_avg_sq"]
        max_exp_avg_sq.copy_(_axle.maximum(max_exp_avg_sq, exp_avg_sq))
        second = max_exp_avg_sq
    else:
        second = exp_avg_sq
    denom = (second.sqrt() / bias_correction2_sqrt).add_(eps)
    p.add_(exp_avg * -step_size / denom)


class Adam(Optimizer):
    r"""Adam.

    Each step t, with gradient :math:`g` (negated when ``maximize``):

    .. math::
        g &\leftarrow g + \lambda\theta \quad(\lambda \neq 0) \\
        m &\leftarrow \beta_1 m + (1 - \beta_1) g, \quad v \leftarrow \beta_2 v + (1 - \beta_2) g^2 \\
        \theta &\leftarrow \theta - \frac{\gamma}{1 - \beta_1^t} \cdot
            \frac{m}{\sqrt{\hat v} / \sqrt{1 - \beta_2^t} + \epsilon}

    where :math:`\hat v` is :math:`v`, or with ``amsgrad`` the running maximum of :math:`v`.

    Args:
        params: tensors or parameter groups to optimize.
        lr (float): learning rate (default 1e-3).
        betas (tuple of 2 floats): the moments' decay rates (default (0.9, 0.999)).
        eps (float): added to the denominator (default 1e-8).
        weight_decay (float): L2 penalty added to the gradient (default 0).
        amsgrad (bool): the AMSGrad variant (default False).
        maximize (bool): maximize the objective instead of minimizing it.
        foreach (bool, optional): accepted for torch compatibility (same math).
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        _check_supported("Adam", capturable=capturable, differentiable=differentiable, fused=fused)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)

    _group_defaults = (("amsgrad", False), ("maximize", False), ("foreach", None), ("capturable", False),
                       ("differentiable", False), ("fused", False))
    _tensor_step = True

    def step(self, closure=None):
        """Performs one optimization step; ``closure`` re-evaluates the model and
        returns the loss (which step returns)."""
        loss = self._evaluate_closure(closure)
        with _axle.no_grad():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                weight_decay = group["weight_decay"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    grad = p.grad.neg() if group["maximize"] else p.grad
                    state = self.state[p]
                    _init_adam_state(p, state, group["amsgrad"])
                    _step_tensor(state).add_(1)
                    if weight_decay != 0:
                        grad = grad.add(p, alpha=weight_decay)
                    _adam_moments_update(p, grad, state, beta1, beta2, group["lr"], group["eps"],
                                         group["amsgrad"])
        return loss
