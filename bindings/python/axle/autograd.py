"""Automatic differentiation (torch.autograd): grad modes, backward, grad.

The engine lives in libaxle (autograd/); tensors record a backward graph as
ops run while grad mode is on and one of their inputs requires grad.
"""
import functools as _functools

from . import _C

__all__ = ["Function", "FunctionCtx", "backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled"]

is_grad_enabled = _C.is_grad_enabled


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates the gradients of `tensors` into the leaves' .grad (torch.autograd.backward)."""
    _C._backward(tensors, grad_tensors, retain_graph, create_graph, inputs)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=False, is_grads_batched=False):
    """The gradients of `outputs` with respect to `inputs`, as a tuple (torch.autograd.grad)."""
    if is_grads_batched:
        raise NotImplementedError("axle.autograd.grad: is_grads_batched=True is not supported yet")
    return _C._grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused)


class _GradMode:
    """A context manager and decorator that sets grad mode for its scope (per thread)."""

    _mode = True

    def __enter__(self):
        self._previous = _C.is_grad_enabled()
        _C._set_grad_enabled(self._mode)
        return self

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._previous)
        return False

    def __call__(self, fn):
        @_functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__._scoped(self):
                return fn(*args, **kwargs)

        return wrapper

    def _scoped(self):
        return self


class no_grad(_GradMode):
    """No graph is recorded in this scope (torch.no_grad)."""

    _mode = False

    def _scoped(self):
        return no_grad()


class enable_grad(_GradMode):
    """Graphs are recorded in this scope, also inside no_grad (torch.enable_grad)."""

    _mode = True

    def _scoped(self):
        return enable_grad()


class set_grad_enabled(_GradMode):
    """Sets grad mode to `mode`: at once when called, and back on leaving a `with` block."""

    def __init__(self, mode):
        self._mode = bool(mode)
        self._previous = _C.is_grad_enabled()
        _C._set_grad_enabled(self._mode)

    def __enter__(self):
        return self

    def _scoped(self):
        return set_grad_enabled(self._mode)


class inference_mode(_GradMode):
    """Like no_grad (torch.inference_mode); axle keeps no separate inference tensors."""

    def __init__(self, mode=True):
        self._mode = not mode

    def _scoped(self):
        return inference_mode(not self._mode)


FunctionCtx = _C.FunctionCtx


class Function:
    """A differentiable function with a hand-written backward (torch.autograd.Function).

    Subclass it with static ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)``
    (one gradient per forward argument, None where there is none) and call ``apply``.
    ``ctx`` offers save_for_backward / saved_tensors, needs_input_grad,
    mark_non_differentiable and set_materialize_grads; other attributes may be set freely.
    """

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    @classmethod
    def apply(cls, *args):
        return _C._function_apply(cls.__name__ + "Backward", cls.forward, cls.backward, args)


def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Computes the gradient of this tensor with respect to the graph's leaves (torch.Tensor.backward)."""
    _C._backward(self, gradient, retain_graph, create_graph, inputs)


_C.Tensor.backward = _tensor_backward
