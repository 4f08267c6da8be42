"""NN operators as in torch.nn.functional: the declared ops flagged for it
(OpFlags kNNFunctional / kNNOnly in their C++ declarations), no hand-kept list."""
import axle as _axle
from axle import _C

for _name, _only_nn in _C._nn_functional_ops():
    _fn = _axle._nn_functional.get(_name) or getattr(_axle, _name, None)
    if _fn is not None:
        globals()[_name] = _fn
del _name, _only_nn, _fn


# torch.nn.functional's `inplace=` keyword (not part of the op schemas): thin
# wrappers choosing the op or its in-place form, with F's argument order.
def _with_inplace(name, *params):
    op, op_ = _nn_fn(name), _nn_fn(name + "_")

    def fn(input, *args, inplace=False, **kwargs):
        if len(args) > len(params):  # F's positional order puts `inplace` after params
            args, inplace = args[: len(params)], args[len(params)]
        return (op_ if inplace else op)(input, *args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = op.__doc__
    globals()[name] = fn


def _nn_fn(name):
    return _axle._nn_functional.get(name) or getattr(_axle, name)


for _name, _params in [("relu", ()), ("relu6", ()), ("leaky_relu", ("negative_slope",)), ("elu", ("alpha",)),
                       ("selu", ()), ("celu", ("alpha",)), ("silu", ()), ("mish", ()),
                       ("hardtanh", ("min_val", "max_val")), ("hardsigmoid", ()), ("hardswish", ()),
                       ("threshold", ("threshold", "value"))]:
    _with_inplace(_name, *_params)
del _name, _params
