"""The Optimizer base class (torch.optim.Optimizer, torch 1.13 semantics).

An optimizer holds ``param_groups`` (a list of dicts: ``'params'``, a list of
leaf tensors, and the group's options) and ``state`` (a dict keyed by the
parameter tensor itself: axle tensors hash by identity). Subclasses implement
``step``; the base class gives them parameter-group handling, ``zero_grad`` and
``state_dict`` / ``load_state_dict`` in torch's format, so a state dict looks the
same as torch's: ``{'state': {index: {...}}, 'param_groups': [{..., 'params': [indices]}]}``.
"""
import copy as _copy
import itertools as _itertools
import warnings as _warnings
from collections import abc as _abc
from collections import defaultdict as _defaultdict

import axle as _axle

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """The default of an option the caller must give (SGD's lr)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _step_tensor(state):
    """The per-parameter step counter: a float32 scalar tensor, as torch 1.13 keeps it
    (state dicts from older torch, with a plain number, are converted on load)."""
    step = state.get("step")
    if not isinstance(step, _axle.Tensor):
        step = state["step"] = _axle.tensor(float(step or 0), dtype=_axle.float32)
    return step

def _written_grad(grad):
    """A gradient for a fused op whose gradient list is written to (aten's
    _fused_sgd_ / _fused_adam_ schemas): an expanded one (stride 0), which no
    op may write, made dense; any other as it is."""
    if any(s == 0 and n > 1 for s, n in zip(grad.stride(), grad.shape)):
        return grad.contiguous()
    return grad


_TENSOR_TYPE_NAMES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
                      "bfloat16": "BFloat16Tensor", "int8": "CharTensor", "uint8": "ByteTensor",
                      "int16": "ShortTensor", "int32": "IntTensor", "int64": "LongTensor", "bool": "BoolTensor"}


def _typename(obj):
    """torch.typename: 'axle.DoubleTensor' for a tensor, the qualified class name otherwise."""
    if isinstance(obj, _axle.Tensor):
        name = _TENSOR_TYPE_NAMES.get(obj.dtype.name, "Tensor")
        device_type = obj.device.type
        return "axle.%s%s" % ("" if device_type == "cpu" else device_type + ".", name)
    cls = type(obj)
    module = getattr(cls, "__module__", None)
    if module in (None, "builtins", "__builtin__"):
        return cls.__qualname__
    return module + "." + cls.__qualname__


def _check_supported(name, **flags):
    """Options torch takes that axle's optimizers do not implement (CUDA graphs,
    fused kernels, differentiating through step) fail up front rather than being ignored."""
    for flag, value in flags.items():
        if value:
            raise _axle.NotImplementedError("axle.optim.%s: %s=True is not supported" % (name, flag))


class Optimizer:
    """Base class of all optimizers.

    Args:
        params: an iterable of tensors, or of dicts (parameter groups) each with a
            ``'params'`` entry and per-group options.
        defaults (dict): the options' default values, used when a group does not
            set them.
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        if isinstance(params, _axle.Tensor):
            raise _axle.TypeError("params argument given to the optimizer should be an iterable of Tensors or "
                                  "dicts, but got " + _typename(params))
        self.state = _defaultdict(dict)
        self.param_groups = []
        groups = list(params)
        if not groups:
            raise _axle.ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    # ------------------------------------------------------------ pickling and printing
    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    # The (key, value) pairs a parameter group lacks when it comes from an older
    # torch's pickle or state dict; each optimizer names its own.
    _group_defaults = ()
    # Whether the per-parameter "step" is a float32 scalar tensor (torch 1.13's
    # Adam family); a plain number from an older state dict is converted.
    _tensor_step = False

    def __setstate__(self, state):
        """Restores a pickled optimizer; load_state_dict goes through here too."""
        self.__dict__.update(state)
        self.defaults.setdefault("differentiable", False)
        for group in self.param_groups:
            for key, value in self._group_defaults:
                group.setdefault(key, value)
        if self._tensor_step:
            for s in self.state.values():
                if "step" in s:
                    _step_tensor(s)

    def __repr__(self):
        text = type(self).__name__ + " ("
        for index, group in enumerate(self.param_groups):
            text += "\nParameter Group %d\n" % index
            text += "".join("    {}: {}\n".format(key, group[key]) for key in sorted(group) if key != "params")
        return text + ")"

    # ------------------------------------------------------------ parameter groups
    def add_param_group(self, param_group):
        """Adds a parameter group (a dict with ``'params'`` and optional options);
        options it does not set take the optimizer's defaults."""
        assert isinstance(param_group, dict), "param group must be a dict"
        params = param_group["params"]
        if isinstance(params, _axle.Tensor):
            params = [params]
        elif isinstance(params, (set, frozenset)):
            raise _axle.TypeError("optimizer parameters need to be organized in ordered collections, but the "
                                  "ordering of tensors in sets will change between runs. Please use a list instead.")
        else:
            params = list(params)
        param_group["params"] = params
        for p in params:
            if not isinstance(p, _axle.Tensor):
                raise _axle.TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(p))
            if not self.defaults.get("differentiable", None) and not (p.is_leaf or p.retains_grad):
                raise _axle.ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise _axle.ValueError("parameter group didn't specify a value of required optimization parameter "
                                       + name)
            param_group.setdefault(name, default)

        if len({id(p) for p in params}) != len(params):
            _warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                           "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                           stacklevel=3)
        seen = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in seen for p in params):
            raise _axle.ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ------------------------------------------------------------ gradients
    def zero_grad(self, set_to_none=True):
        """Clears the parameters' gradients: sets ``.grad`` to None (torch 2.x's
        default; the next backward stores its gradient without adding into
        zeros), or with ``set_to_none=False`` zeroes them in place (detached
        from any graph first), torch 1.x's default."""
        for group in self.param_groups:
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                    continue
                if grad.grad_fn is not None:
                    grad.detach_()
                else:
                    grad.requires_grad_(False)
                grad.zero_()

    def step(self, closure=None):
        """Performs one optimization step; the subclasses implement it."""
        raise NotImplementedError

    @staticmethod
    def _evaluate_closure(closure):
        """The closure's loss (computed with grad mode on), or None without a closure."""
        if closure is None:
            return None
        with _axle.enable_grad():
            return closure()

    # ------------------------------------------------------------ state dicts
    def state_dict(self):
        """The optimizer's state as a dict: ``'state'`` maps each parameter's index
        (its position across the groups, in order) to its per-parameter state, and
        ``'param_groups'`` lists the groups' options with ``'params'`` as indices.
        Like torch, the per-parameter state's tensors are not copied."""
        index_of = {}
        packed_groups = []
        for group in self.param_groups:
            packed = {key: value for key, value in group.items() if key != "params"}
            indices = []
            for p in group["params"]:
                index_of.setdefault(id(p), len(index_of))
                indices.append(index_of[id(p)])
            packed["params"] = indices
            packed_groups.append(packed)
        packed_state = {}
        for key, value in self.state.items():
            packed_state[index_of[id(key)] if isinstance(key, _axle.Tensor) else key] = value
        return {"state": packed_state, "param_groups": packed_groups}

    def load_state_dict(self, state_dict):
        """Loads a state dict made by ``state_dict()`` (of this optimizer type, for
        parameters with the same group layout). The state's tensors are copied and
        cast to their parameter's dtype (floating-point parameters) and device,
        except ``'step'``, which keeps its own."""
        state_dict = _copy.deepcopy(state_dict)
        groups = self.param_groups
        saved_groups = state_dict["param_groups"]
        if len(groups) != len(saved_groups):
            raise _axle.ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise _axle.ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                                   "optimizer's group")

        param_of = dict(zip(_itertools.chain.from_iterable(s["params"] for s in saved_groups),
                            _itertools.chain.from_iterable(g["params"] for g in groups)))

        def to_param(param, value, key=None):
            if isinstance(value, _axle.Tensor):
                if key == "step":  # step counters keep their dtype and device, as torch (float32 counts)
                    return value
                if param.is_floating_point():
                    value = value.to(param.dtype)
                return value.to(param.device)
            if isinstance(value, dict):
                return {k: to_param(param, v, key=k) for k, v in value.items()}
            if isinstance(value, _abc.Iterable) and not isinstance(value, (str, bytes)):
                return type(value)(to_param(param, v) for v in value)
            return value

        state = _defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in param_of:
                param = param_of[key]
                state[param] = to_param(param, value)
            else:  # state not tied to a parameter is kept as it is
                state[key] = value

        param_groups = []
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            param_groups.append(saved)
        self.__setstate__({"state": state, "param_groups": param_groups})
