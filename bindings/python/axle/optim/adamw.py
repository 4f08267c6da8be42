"""AdamW (torch.optim.AdamW): Adam with decoupled weight decay."""
from .adam import _adam_step, _check_adam_args
from .optimizer import Optimizer, _check_supported

import axle as _axle

__all__ = ["AdamW"]


class AdamW(Optimizer):
    r"""AdamW: Adam whose weight decay shrinks the parameters directly,
    :math:`\theta \leftarrow \theta (1 - \gamma\lambda)`, before the Adam update
    (instead of adding :math:`\lambda\theta` to the gradient).

    Args:
        params: tensors or parameter groups to optimize.
        lr (float): learning rate (default 1e-3).
        betas (tuple of 2 floats): the moments' decay rates (default (0.9, 0.999)).
        eps (float): added to the denominator (default 1e-8).
        weight_decay (float): decoupled weight decay (default 1e-2).
        amsgrad (bool): the AMSGrad variant (default False).
        maximize (bool): maximize the objective instead of minimizing it.
        foreach (bool, optional): accepted for torch compatibility (same math).
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        _check_supported("AdamW", capturable=capturable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        foreach=foreach, maximize=maximize, capturable=capturable)
        super().__init__(params, defaults)

    _group_defaults = (("amsgrad", False), ("maximize", False), ("foreach", None), ("capturable", False))
    _tensor_step = True

    def step(self, closure=None):
        """Performs one optimization step; ``closure`` re-evaluates the model and
        returns the loss (which step returns)."""
        loss = self._evaluate_closure(closure)
        with _axle.no_grad():
            for group in self.param_groups:
                _adam_step(self, group, _axle._fused_adamw_)
        return loss
