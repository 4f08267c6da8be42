"""axle.optim: optimizers and learning-rate schedulers, as torch.optim (torch 1.13).

Optimizers update their parameters in place (under ``axle.no_grad()``) from the
gradients in ``.grad``; their ``state_dict()`` has torch's layout and state keys.
``axle.optim.lr_scheduler`` holds the learning-rate schedulers.
"""
from . import lr_scheduler  # noqa: F401
from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler"]
