"""Containers of modules and parameters, as torch's: Sequential, ModuleList,
ModuleDict, ParameterList, ParameterDict (string keys "0", "1"... for the
list-like ones, so state_dict keys match torch's)."""
import collections
import operator
import warnings

from ..parameter import Parameter
from .module import Module, _addindent
import axle as _axle
from axle import _C

__all__ = ["Container", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _index(idx, n, kind):
    idx = operator.index(idx)
    if not -n <= idx < n:
        raise IndexError("index %d is out of range" % idx if kind else "index {} is out of range".format(idx))
    return idx + n if idx < 0 else idx


class Container(Module):
    """torch's deprecated container: a Module with the keyword arguments as submodules (warns)."""

    def __init__(self, **kwargs):
        super().__init__()
        warnings.warn("nn.Container is deprecated. All of it's functionality is now implemented in nn.Module. "
                      "Subclass that instead.")
        for key, value in kwargs.items():
            self.add_module(key, value)


class Sequential(Module):
    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], collections.OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(collections.OrderedDict(list(self._modules.items())[idx]))
        keys = list(self._modules.keys())
        return self._modules[keys[_index(idx, len(keys), "")]]

    def __setitem__(self, idx, module):
        keys = list(self._modules.keys())
        setattr(self, keys[_index(idx, len(keys), "")], module)

    def __delitem__(self, idx):
        keys = list(self._modules.keys())
        targets = keys[idx] if isinstance(idx, slice) else [keys[_index(idx, len(keys), "")]]
        for key in targets:  # the other keys stay as they were, as torch 1.13's
            delattr(self, key)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but %s is given." %
                             type(other))
        result = Sequential()
        for i, m in enumerate(list(self) + list(other)):
            result.add_module(str(i), m)
        return result

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def forward(self, input):
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[str(_index(idx, len(self), ""))]

    def __setitem__(self, idx, module):
        setattr(self, str(_index(idx, len(self), "")), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, str(_index(idx, len(self), "")))
        # keep the keys "0".."n-1", as torch
        values = list(self._modules.values())
        self._modules.clear()
        for i, m in enumerate(values):
            self._modules[str(i)] = m

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def __add__(self, other):
        result = ModuleList()
        for m in list(self) + list(other):
            result.append(m)
        return result

    def insert(self, index, module):
        values = list(self._modules.values())
        values.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(values):
            self.add_module(str(i), m)

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        if not hasattr(modules, "__iter__"):
            raise TypeError("ModuleList.extend should be called with an iterable, but got " + type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleList has no forward(): iterate over it")

    def __repr__(self):
        if not self._modules:
            return "ModuleList()"
        lines = ["(" + k + "): " + _addindent(repr(m), 2) for k, m in self._modules.items()]
        return "ModuleList(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        self._modules.clear()

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        items = modules.items() if isinstance(modules, (collections.abc.Mapping, ModuleDict)) else modules
        for j, item in enumerate(items):
            if isinstance(modules, (collections.abc.Mapping, ModuleDict)):
                key, module = item
            else:
                if len(item) != 2:
                    raise ValueError("ModuleDict update sequence element #%d has length %d; 2 is required" %
                                     (j, len(item)))
                key, module = item
            self[key] = module

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleDict has no forward(): index it")


def _as_parameter(value):
    if isinstance(value, _C.Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


class ParameterList(Module):
    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ParameterList([getattr(self, str(i)) for i in range(len(self))[idx]])
        return getattr(self, str(_index(idx, len(self), "")))

    def __setitem__(self, idx, param):
        setattr(self, str(_index(idx, len(self), "")), _as_parameter(param))

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def append(self, value):
        new_idx = len(self)
        self._size += 1
        setattr(self, str(new_idx), _as_parameter(value))
        return self

    def extend(self, values):
        for value in values:
            self.append(value)
        return self

    def extra_repr(self):
        lines = []
        for k in range(len(self)):
            p = self[k]
            if isinstance(p, _C.Tensor):  # torch 1.13 names the dtype here ("torch.float32")
                lines.append("  (%d): %s containing: [axle.%s of size %s]" % (
                    k, "Parameter" if isinstance(p, Parameter) else "Tensor", p.dtype.name,
                    "x".join(str(s) for s in p.shape)))
            else:
                lines.append("  (%d): Object of type: %s" % (k, type(p).__name__))
        return "\n".join(lines)


class ParameterDict(Module):
    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return getattr(self, key)

    def __setitem__(self, key, value):
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __contains__(self, key):
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def update(self, parameters):
        items = parameters.items() if isinstance(parameters, (collections.abc.Mapping, ParameterDict)) else parameters
        for key, value in items:
            self[key] = value

    def extra_repr(self):
        lines = []
        for k, p in self.items():
            lines.append("  (%s): %s containing: [%s of size %s]" % (
                k, "Parameter" if isinstance(p, Parameter) else "Tensor", _axle.typename(p),
                "x".join(str(s) for s in p.shape)))
        return "\n".join(lines)  # torch 1.13 names the tensor type here ("torch.FloatTensor")
