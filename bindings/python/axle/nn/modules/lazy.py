"""LazyModuleMixin: modules whose parameter shapes come from their first input (torch's lazy
modules). Until the first forward their parameters and buffers are UninitializedParameter /
UninitializedBuffer placeholders; a forward pre-hook calls initialize_parameters(*input), which
materializes them, then the hooks are removed and the module becomes its cls_to_become
(LazyLinear -> Linear). A state dict holding materialized tensors loaded into a lazy module
materializes its placeholders with those shapes first."""
import itertools
import warnings

import axle as _axle

from ..parameter import _MaterializedBuffer, is_lazy

__all__ = ["LazyModuleMixin"]


class LazyModuleMixin:
    """Put first among a module's bases; the module's reset_parameters and initialize_parameters
    decide the shapes (see LazyLinear)."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters)
        warnings.warn("Lazy modules are a new feature under heavy development so changes to the API or "
                      "functionality can happen at any moment.")

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # A placeholder goes into the state dict as it is (it cannot be detached).
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if is_lazy(param) or keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if is_lazy(buf) or keep_vars else buf.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                        error_msgs):
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and is_lazy(param) and not is_lazy(state_dict[key]):
                with _axle.no_grad():
                    param.materialize(state_dict[key].shape)
        self._plain_buffers()

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError("initialize_parameters is not implemented for {}".format(type(self).__name__))

    def has_uninitialized_params(self):
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(), self._buffers.values()))

    def _plain_buffers(self):
        # A materialized buffer is an axle.Tensor subclass instance; keep a plain Tensor on its memory.
        for name, buf in list(self._buffers.items()):
            if isinstance(buf, _MaterializedBuffer):
                self._buffers[name] = buf.data

    def _infer_parameters(self, module, input):
        module.initialize_parameters(*input)
        if module.has_uninitialized_params():
            raise RuntimeError("module {} has not been fully initialized".format(self._get_name()))
        module._plain_buffers()
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. Run a dummy "
                           "forward pass to correctly initialize the modules")
