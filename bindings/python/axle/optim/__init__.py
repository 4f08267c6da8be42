"""axle.optim: optimizers and learning-rate schedulers, as torch.optim (torch 1.13).

Optimizers update their parameters in place (under ``axle.no_grad()``) from the
gradients in ``.grad``; their ``state_dict()`` has torch's layout and state keys.
``axle.optim.lr_scheduler`` holds the learning-rate schedulers.
"""
from . import lr_scheduler  # noqa: F401
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam",
           "ASGD", "Rprop", "LBFGS", "lr_scheduler"]
