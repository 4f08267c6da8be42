"""Adam (torch.optim.Adam): adaptive moment estimation, with optional AMSGrad."""

from .optimizer import Optimizer, _check_supported, _step_tensor, _written_grad

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


def _adam_step(optimizer, group, op):
    """One step of a group through the declared op (_fused_adam_ or
    _fused_adamw_: torch's single-tensor math per element), one call per device.
    The step counters are incremented first, as torch's fused path does."""
    beta1, beta2 = group["betas"]
    calls = {}  # device -> [params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps]
    for p in group["params"]:
        if p.grad is None:
            continue
        grad = _written_grad(p.grad)
        state = optimizer.state[p]
        _init_adam_state(p, state, group["amsgrad"])
        step = _step_tensor(state)
        step.add_(1)
        lists = calls.setdefault(str(p.device), ([], [], [], [], [], []))
        for lst, t in zip(lists, (p, grad, state["exp_avg"], state["exp_avg_sq"])):
            lst.append(t)
        if group["amsgrad"]:
            lists[4].append(state["max_exp_avg_sq"])
        lists[5].append(step)
    for params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps in calls.values():
        try:
            op(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, lr=group["lr"], beta1=beta1,
               beta2=beta2, weight_decay=group["weight_decay"], eps=group["eps"], amsgrad=group["amsgrad"],
               maximize=group["maximize"])
        except Exception:
            # The op checks everything before writing: nothing was updated, so
            # neither are the step counts.
            for step in steps:
                step.sub_(1)
            raise


class Adam(Optimizer):
    r"""Adam.

    Each step t, with gradient :math:`g` (negated when ``maximize``):

    .. math::
        g &\leftarrow g + \lambda\theta \quad(\lambda \neq 0) \\
        m &\leftarrow \beta_1 m + (1 - \beta_1) g, \quad v \leftarrow \beta_2 v + (1 - \beta_2) g^2 \\
        \theta &\leftarrow \theta - \frac{\gamma}{1 - \beta_1^t} \cdot
            \frac{m}{\sqrt{\hat v} / \sqrt{1 - \beta_2^t} + \epsilon}

    where :math:`\hat v` is :math:`v`, or with ``amsgrad`` the running maximum of :math:`v`.
    The parameters of a group go to one ``_fused_adam_`` call per device (the
    same math; one pass per parameter where a kernel serves it).

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
                _adam_step(self, group, _axle._fused_adam_)
        return loss
