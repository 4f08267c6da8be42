"""NN operators as in torch.nn.functional: the declared ops flagged for it
(OpFlags kNNFunctional / kNNOnly in their C++ declarations), no hand-kept list."""
import axle as _axle
from axle import _C

for _name, _only_nn in _C._nn_functional_ops():
    _fn = _axle._nn_functional.get(_name) or getattr(_axle, _name, None)
    if _fn is not None:
        globals()[_name] = _fn
del _name, _only_nn, _fn
