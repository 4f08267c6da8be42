"""NAdam (torch.optim.NAdam): Adam with Nesterov momentum and a momentum schedule."""
from .adam import _check_adam_args
from .optimizer import Optimizer, _step_tensor

import axle as _axle

__all__ = ["NAdam"]


def _mu_product_tensor(state):
    """The running product of the momentum coefficients: a scalar tensor of the
    default dtype (float32), as torch 1.13 keeps it; a plain number from an older
    state dict is converted."""
    mu_product = state.get("mu_product")
    if not isinstance(mu_product, _axle.Tensor):
        mu_product = state["mu_product"] = _axle.tensor(float(1.0 if mu_product is None else mu_product))
    return mu_product


class NAdam(Optimizer):
    r"""NAdam.

    Each step t, with gradient :math:`g` and momentum coefficients
    :math:`\mu_t = \beta_1 (1 - \tfrac12 \cdot 0.96^{t\psi})` (:math:`\psi` the
    momentum decay):

    .. math::
        g &\leftarrow g + \lambda\theta \quad(\lambda \neq 0) \\
        m &\leftarrow \beta_1 m + (1 - \beta_1) g, \quad v \leftarrow \beta_2 v + (1 - \beta_2) g^2 \\
        d &\leftarrow \sqrt{v / (1 - \beta_2^t)} + \epsilon \\
        \theta &\leftarrow \theta - \gamma \frac{1 - \mu_t}{1 - \prod_{i \le t} \mu_i} \frac{g}{d}
            - \gamma \frac{\mu_{t+1}}{1 - \prod_{i \le t+1} \mu_i} \frac{m}{d}

    The state holds ``'step'`` and ``'mu_product'`` (scalar tensors of the default
    dtype, float32: the product is accumulated in that precision, as torch 1.13
    does), ``'exp_avg'`` and ``'exp_avg_sq'``. torch 1.13's NAdam has no
    ``maximize`` option.

    Args:
        params: tensors or parameter groups to optimize.
        lr (float): learning rate (default 2e-3).
        betas (tuple of 2 floats): the moments' decay rates (default (0.9, 0.999)).
        eps (float): added to the denominator (default 1e-8).
        weight_decay (float): L2 penalty (default 0).
        momentum_decay (float): :math:`\psi` (default 4e-3).
        foreach (bool, optional): accepted for torch compatibility (same math).
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 foreach=None):
        _check_adam_args(lr, betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise _axle.ValueError("Invalid momentum_decay value: {}".format(momentum_decay))
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        foreach=foreach)
        super().__init__(params, defaults)

    _group_defaults = (("foreach", None),)
    _tensor_step = True

    def __setstate__(self, state):
        super().__setstate__(state)
        for s in self.state.values():
            if "mu_product" in s:
                _mu_product_tensor(s)

    def step(self, closure=None):
        """Performs one optimization step; ``closure`` re-evaluates the model and
        returns the loss (which step returns)."""
        loss = self._evaluate_closure(closure)
        with _axle.no_grad():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                lr, eps, weight_decay = group["lr"], group["eps"], group["weight_decay"]
                momentum_decay = group["momentum_decay"]
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = _axle.tensor(0.0, dtype=_axle.float32)
                        state["mu_product"] = _axle.tensor(1.0)
                        state["exp_avg"] = _axle.zeros_like(p)
                        state["exp_avg_sq"] = _axle.zeros_like(p)
                    step_t = _step_tensor(state)
                    step_t.add_(1)
                    step = step_t.item()

                    grad = p.grad
                    if weight_decay != 0:
                        grad = grad.add(p, alpha=weight_decay)
                    bias_correction2 = 1 - beta2 ** step
                    mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
                    mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
                    # the product stays in the state tensor's own precision (float32)
                    mu_product = _mu_product_tensor(state)
                    mu_product.mul_(mu)
                    mu_product_next = mu_product * mu * mu_next

                    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                    exp_avg.mul_(beta1).add_(grad, alpha=1 - beta1)
                    exp_avg_sq.mul_(beta2).add_(grad * (1 - beta2) * grad)
                    denom = exp_avg_sq.div(bias_correction2).sqrt().add_(eps)
                    grad_weight = -lr * (1.0 - mu) / (1.0 - mu_product.item())
                    avg_weight = -lr * mu_next / (1.0 - mu_product_next.item())
                    p.add_(grad * grad_weight / denom)
                    p.add_(exp_avg * avg_weight / denom)
        return loss
