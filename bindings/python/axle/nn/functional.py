"""NN operators as in torch.nn.functional (the declared ops that belong here)."""
import axle as _axle

_NN_OPS = ("relu",)
for _name in _NN_OPS:
    if hasattr(_axle, _name):
        globals()[_name] = getattr(_axle, _name)
del _name
