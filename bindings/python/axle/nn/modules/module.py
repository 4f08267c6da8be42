"""nn.Module: the base of every layer, with torch 1.13's behaviour: attributes
that are Parameters, Modules or registered buffers are kept in ordered dicts
(``_parameters``, ``_buffers``, ``_modules``) and found by the ``named_*``
iterators, ``state_dict`` / ``load_state_dict`` (torch's keys, strict-mode
messages), ``train`` / ``eval``, ``to`` / ``float`` / ``double`` ...,
``zero_grad``, ``apply``, forward pre-hooks and hooks, full backward hooks, and
torch's ``repr``."""
import collections
import functools
import itertools
import weakref

import axle as _axle
from axle import _C

from ..parameter import Parameter, is_lazy

__all__ = ["Module", "RemovableHandle"]


class RemovableHandle:
    """What register_*_hook returns: ``remove()`` takes the hook out again."""

    _next_id = itertools.count()

    def __init__(self, hooks_dict):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle._next_id)

    # A weak reference does not pickle: the handle pickles (and copies) the dict it points into, or
    # None once that is gone.
    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id)

    def __setstate__(self, state):
        hooks_dict, self.id = state
        self.hooks_dict_ref = weakref.ref(hooks_dict) if hooks_dict is not None else _dead_ref

    def remove(self):
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.remove()


def _dead_ref():
    return None


class _IncompatibleKeys(collections.namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(text, spaces):
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


def _torch_type_name(value):
    """How torch names a value's type in its assignment errors ('torch.FloatTensor')."""
    return _axle.typename(value) if isinstance(value, _C.Tensor) else type(value).__name__


class _BackwardHookFunction:
    """Identity autograd functions around a module call, as torch's BackwardHook:
    the grad_outputs are caught where the outputs enter the graph, the
    grad_inputs where the inputs leave it, and the hooks see both."""

    @staticmethod
    def wrap(module, args, run):
        tensors = [a for a in args if isinstance(a, _C.Tensor)]
        if not _axle.is_grad_enabled() or not any(t.requires_grad for t in tensors):
            return run(args)
        state = {"grad_outputs": None}
        hooks = list(module._backward_hooks.values())

        class Inputs(_axle.autograd.Function):
            @staticmethod
            def forward(ctx, *xs):
                return tuple(x.clone() for x in xs)

            @staticmethod
            def backward(ctx, *grads):
                grad_inputs = tuple(grads)
                for hook in hooks:
                    result = hook(module, grad_inputs, state["grad_outputs"])
                    if result is not None:
                        if len(result) != len(grad_inputs):
                            raise RuntimeError("Backward hook returned an invalid number of grad_input, got %d, "
                                               "but expected %d" % (len(result), len(grad_inputs)))
                        grad_inputs = tuple(result)
                return grad_inputs

        class Outputs(_axle.autograd.Function):
            @staticmethod
            def forward(ctx, *ys):
                return tuple(y.clone() for y in ys)

            @staticmethod
            def backward(ctx, *grads):
                state["grad_outputs"] = tuple(grads)
                return grads

        positions = [i for i, a in enumerate(args) if isinstance(a, _C.Tensor)]
        wrapped = Inputs.apply(*[args[i] for i in positions])
        wrapped = wrapped if isinstance(wrapped, tuple) else (wrapped,)
        call_args = list(args)
        for i, w in zip(positions, wrapped):
            call_args[i] = w
        result = run(tuple(call_args))
        outs = result if isinstance(result, tuple) else (result,)
        new = Outputs.apply(*outs)
        new = new if isinstance(new, tuple) else (new,)
        return new if isinstance(result, tuple) else new[0]


_MODULE_DICTS = ("_parameters", "_buffers", "_modules", "_forward_pre_hooks", "_forward_hooks", "_backward_hooks",
                 "_state_dict_hooks", "_load_state_dict_pre_hooks")


class Module:
    dump_patches = False
    _version = 1
    training: bool

    def __init__(self):
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", collections.OrderedDict())
        object.__setattr__(self, "_buffers", collections.OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", collections.OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks", collections.OrderedDict())
        object.__setattr__(self, "_forward_hooks", collections.OrderedDict())
        object.__setattr__(self, "_backward_hooks", collections.OrderedDict())
        object.__setattr__(self, "_state_dict_hooks", collections.OrderedDict())
        object.__setattr__(self, "_load_state_dict_pre_hooks", collections.OrderedDict())

    def forward(self, *input):
        raise NotImplementedError('Module [%s] is missing the required "forward" function' % type(self).__name__)

    # ---------------------------------------------------------------- registration
    def register_buffer(self, name, tensor, persistent=True):
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name(name, "buffer")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError("attribute '%s' already exists" % name)
        if tensor is not None and not isinstance(tensor, _C.Tensor):
            raise TypeError("cannot assign '%s' object to buffer '%s' (torch Tensor or None required)" %
                            (_torch_type_name(tensor), name))
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name(name, "parameter")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError("attribute '%s' already exists" % name)
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError("cannot assign '%s' object to parameter '%s' (torch.nn.Parameter or None required)" %
                            (_torch_type_name(param), name))
        if param.grad_fn is not None:
            raise ValueError("Cannot assign non-leaf Tensor to parameter '%s'. Model parameters must be created "
                             "explicitly. To express '%s' as a function of another Tensor, compute the value in the "
                             "forward() method." % (name, name))
        self._parameters[name] = param

    def add_module(self, name, module):
        if not isinstance(module, Module) and module is not None:
            raise TypeError("%s is not a Module subclass" % type(module).__name__)
        self._check_name(name, "module")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError("attribute '%s' already exists" % name)
        self._modules[name] = module

    register_module = add_module

    @staticmethod
    def _check_name(name, kind):
        if not isinstance(name, str):
            raise TypeError("%s name should be a string. Got %s" % (kind, type(name).__name__))
        if "." in name:
            raise KeyError('%s name can\'t contain "."' % kind)
        if name == "":
            raise KeyError('%s name can\'t be empty string ""' % kind)

    def get_submodule(self, target):
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_parameter(self, target):
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return getattr(mod, name)

    # ---------------------------------------------------------------- attributes
    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))

    def __setattr__(self, name, value):
        def remove_from(*dicts):
            for d in dicts:
                if name in d:
                    if d is self.__dict__:
                        del d[name]
                    else:
                        del d[name]

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules)
            self._non_persistent_buffers_set.discard(name)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError("cannot assign '%s' as parameter '%s' (torch.nn.Parameter or None expected)" %
                                (_torch_type_name(value), name))
            self.register_parameter(name, value)
            return
        modules = self.__dict__.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            remove_from(self.__dict__, self._parameters, self._buffers)
            self._non_persistent_buffers_set.discard(name)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError("cannot assign '%s' as child module '%s' (torch.nn.Module or None expected)" %
                                (_torch_type_name(value), name))
            modules[name] = value
            return
        buffers = self.__dict__.get("_buffers")
        if buffers is not None and name in buffers:
            if value is not None and not isinstance(value, _C.Tensor):
                raise TypeError("cannot assign '%s' as buffer '%s' (torch.Tensor or None expected)" %
                                (_torch_type_name(value), name))
            buffers[name] = value
            return
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        for store in ("_parameters", "_buffers", "_modules"):
            d = self.__dict__.get(store)
            if d is not None and name in d:
                del d[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = set(dir(type(self))) | set(self.__dict__) | set(self._parameters) | set(self._modules) | set(
            self._buffers)
        return sorted(k for k in keys if not k[0].isdigit())

    def __setstate__(self, state):
        # What pickle and copy give back (Python's default); a Module pickled by another version may
        # lack some of what __init__ makes, which gets its empty default here (as torch does).
        d = self.__dict__
        d.update(state)
        d.setdefault("training", True)
        for name in _MODULE_DICTS:
            if name not in d:
                d[name] = collections.OrderedDict()
        if "_non_persistent_buffers_set" not in d:
            d["_non_persistent_buffers_set"] = set()

    # ---------------------------------------------------------------- iteration
    def _named_members(self, get_members, prefix="", recurse=True, remove_duplicate=True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [
            (prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or (remove_duplicate and id(v) in memo):
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield (module_prefix + ("." if module_prefix else "") + k, v)

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def children(self):
        for _, module in self.named_children():
            yield module

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in memo:
                memo.add(id(module))
                yield name, module

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    # ---------------------------------------------------------------- modes
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """torch 2.x's default: ``.grad`` set to None; ``set_to_none=False``
        zeroes it in place (detached from any graph first)."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p.grad
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    def share_memory(self):
        return self

    # ---------------------------------------------------------------- conversions
    def _apply(self, fn):
        for module in self.children():
            module._apply(fn)
        for key, param in self._parameters.items():
            if param is None:
                continue
            with _axle.no_grad():
                new = fn(param)
            if new is not param:
                param.data = new  # the Parameter keeps its identity, as torch's default
            if param.grad is not None:
                with _axle.no_grad():
                    g = fn(param.grad)
                if g is not param.grad:
                    param.grad.data = g
        for key, buf in self._buffers.items():
            if is_lazy(buf):  # an uninitialized buffer stays one: only its dtype / device change
                buf.data = fn(buf)
            elif buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def apply(self, fn):
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def to(self, *args, **kwargs):
        device, dtype = None, None
        for a in list(args) + list(kwargs.values()):
            if isinstance(a, _axle.dtype):
                dtype = a
            elif isinstance(a, _C.Tensor):
                device, dtype = a.device, a.dtype
            elif isinstance(a, (str, _axle.device)):
                device = _axle.device(a)
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=%s" %
                            dtype)

        def convert(t):
            if dtype is not None and t.is_floating_point():
                return t.to(device=device, dtype=dtype) if device is not None else t.to(dtype)
            return t.to(device) if device is not None else t

        return self._apply(convert)

    def cpu(self):
        return self._apply(lambda t: t.to("cpu"))

    def cuda(self, device=None):
        return self._apply(lambda t: t.to("cuda" if device is None else
                                          device if isinstance(device, str) else "cuda:%d" % device))

    def type(self, dst_type):
        return self._apply(lambda t: t.to(dst_type))

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    # ---------------------------------------------------------------- state dicts
    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        if args:  # torch's deprecated positional form (destination, prefix, keep_vars)
            destination = args[0] if len(args) > 0 else destination
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = collections.OrderedDict()
            destination._metadata = collections.OrderedDict()
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = {"version": self._version}
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, {"version": self._version})
            if result is not None:
                destination = result
        return destination

    def _register_state_dict_hook(self, hook):
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = functools.partial(hook, self) if with_module else hook
        return handle

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        persistent = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local = {k: v for k, v in itertools.chain(self._parameters.items(), persistent.items()) if v is not None}
        for name, param in local.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, _C.Tensor):
                error_msgs.append('While copying the parameter named "%s", expected torch.Tensor or Tensor-like '
                                  "object from checkpoint but received %s" % (key, type(value)))
                continue
            if not is_lazy(param) and tuple(value.shape) != tuple(param.shape):
                error_msgs.append("size mismatch for %s: copying a param with shape %s from checkpoint, the shape "
                                  "in current model is %s." % (key, _size_str(value.shape), _size_str(param.shape)))
                continue
            try:
                with _axle.no_grad():
                    param.copy_(value)
            except Exception as ex:  # noqa: BLE001 - reported with the key, as torch
                error_msgs.append('While copying the parameter named "%s", whose dimensions in the model are %s and '
                                  "whose dimensions in the checkpoint are %s, an exception occurred : %s." %
                                  (key, _size_str(param.shape), _size_str(value.shape), ex.args))
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix):
                    input_name = key[len(prefix):].split(".", 1)[0]
                    if input_name not in self._modules and input_name not in local:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True):
        if not isinstance(state_dict, collections.abc.Mapping):
            raise TypeError("Expected state_dict to be dict-like, got %s." % type(state_dict))
        missing_keys, unexpected_keys, error_msgs = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = collections.OrderedDict(state_dict)

        def load(module, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            module._load_from_state_dict(state_dict, prefix, local_metadata, True, missing_keys, unexpected_keys,
                                         error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    load(child, prefix + name + ".")

        load(self)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: %s. " %
                                  ", ".join('"%s"' % k for k in unexpected_keys))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: %s. " % ", ".join('"%s"' % k for k in missing_keys))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for %s:\n\t%s" %
                               (type(self).__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ---------------------------------------------------------------- hooks and calls
    def register_forward_pre_hook(self, hook):
        handle = RemovableHandle(self._forward_pre_hooks)
        self._forward_pre_hooks[handle.id] = hook
        return handle

    def register_forward_hook(self, hook):
        handle = RemovableHandle(self._forward_hooks)
        self._forward_hooks[handle.id] = hook
        return handle

    def register_full_backward_hook(self, hook):
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def register_backward_hook(self, hook):
        raise _axle.NotImplementedError("register_backward_hook (deprecated in torch) is not supported: use "
                                        "register_full_backward_hook")

    def __call__(self, *args, **kwargs):
        for hook in self._forward_pre_hooks.values():
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
        if self._backward_hooks:
            out = _BackwardHookFunction.wrap(self, args, lambda a: self.forward(*a, **kwargs))
        else:
            out = self.forward(*args, **kwargs)
        for hook in self._forward_hooks.values():
            result = hook(self, args, out)
            if result is not None:
                out = result
        return out

    # ---------------------------------------------------------------- repr
    def extra_repr(self):
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for key, module in self._modules.items():
            lines.append("(" + key + "): " + _addindent(repr(module), 2))
        main = self._get_name() + "("
        if lines:
            if len(lines) == 1 and not self._modules:
                main += lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"


def _size_str(shape):
    return "torch.Size([%s])" % ", ".join(str(s) for s in shape)
