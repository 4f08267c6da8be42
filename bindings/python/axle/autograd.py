"""Automatic differentiation (torch.autograd): grad modes, backward, grad.

The engine lives in libaxle (autograd/); tensors record a backward graph as
ops run while grad mode is on and one of their inputs requires grad.
"""
import functools as _functools

from . import _C

__all__ = ["Function", "FunctionCtx", "GradcheckError", "backward", "grad", "gradcheck", "gradgradcheck", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled"]

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
            with self._scoped():  # a fresh manager per call: calls may nest or run on several threads
                return fn(*args, **kwargs)

        return wrapper

    def _scoped(self):
        return type(self)()


class no_grad(_GradMode):
    """No graph is recorded in this scope (torch.no_grad)."""

    _mode = False


class enable_grad(_GradMode):
    """Graphs are recorded in this scope, also inside no_grad (torch.enable_grad)."""

    _mode = True


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


class GradcheckError(RuntimeError):
    """gradcheck's failure: the analytic and the numerical Jacobians differ."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _differentiable_outputs(out):
    return [o for o in _as_tuple(out) if isinstance(o, _C.Tensor) and o.requires_grad]


def _jacobians(func, inputs, eps):
    """Numerical (central differences) and analytic Jacobians, one matrix per
    (input requiring grad, output): rows are input elements, columns output elements."""
    import numpy as np

    diff_inputs = [t for t in inputs if isinstance(t, _C.Tensor) and t.requires_grad]
    first = _as_tuple(func(*inputs))
    positions = [i for i, o in enumerate(first) if isinstance(o, _C.Tensor) and o.requires_grad]
    outputs = [first[i] for i in positions]

    def values():  # the differentiable outputs' values, by position
        out = _as_tuple(func(*inputs))
        return [np.array(out[i].detach().cpu()).reshape(-1).astype(np.float64) for i in positions]

    # Analytic first: the numerical pass changes the inputs in place (their versions).
    analytic = [[np.zeros((t.numel(), o.numel())) for o in outputs] for t in diff_inputs]
    for j, o in enumerate(outputs):
        for m in range(o.numel()):
            from . import zeros

            v = zeros(*o.shape, dtype=o.dtype, device=o.device)
            v.view(-1)[m] = 1.0
            gs = _C._grad(outputs[j], diff_inputs, v, True, False, True)
            for k, g in enumerate(gs):
                if g is not None:
                    analytic[k][j][:, m] = np.array(g.detach().cpu()).reshape(-1)
    numerical = [[np.zeros((t.numel(), o.numel())) for o in outputs] for t in diff_inputs]
    for k, t in enumerate(diff_inputs):
        flat = t.detach().view(-1) if t.is_contiguous() else None
        if flat is None:
            raise ValueError("gradcheck: inputs must be contiguous")
        for i in range(t.numel()):
            old = float(flat[i])
            with no_grad():  # the inputs are leaves that require grad: written in place only here
                flat[i] = old + eps
            hi = values()  # grad mode as the caller's (gradgradcheck's function differentiates)
            with no_grad():
                flat[i] = old - eps
            lo = values()
            with no_grad():
                flat[i] = old
            for j in range(len(outputs)):
                numerical[k][j][i] = (hi[j] - lo[j]) / (2 * eps)
    return numerical, analytic, diff_inputs, outputs


_UNSUPPORTED_CHECKS = ("check_forward_ad", "check_batched_grad", "check_batched_forward_grad", "fast_mode")


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, **options):
    """Checks the gradients of ``func`` at ``inputs`` against central finite differences
    (torch.autograd.gradcheck, backward mode); use float64 inputs that require grad.
    torch's forward-AD, batched-gradient and fast-mode checks raise NotImplementedError."""
    import numpy as np

    for name in _UNSUPPORTED_CHECKS:
        if options.get(name):
            raise NotImplementedError("gradcheck: %s=True is not supported yet" % name)
    inputs = _as_tuple(inputs)
    numerical, analytic, diff_inputs, outputs = _jacobians(func, inputs, eps)
    if not diff_inputs:
        raise ValueError("gradcheck expects at least one input tensor to require gradient")
    for k in range(len(diff_inputs)):
        for j in range(len(outputs)):
            if not np.allclose(analytic[k][j], numerical[k][j], rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    "Jacobian mismatch for output %d with respect to input %d,\nnumerical:%s\nanalytical:%s" %
                    (j, k, numerical[k][j], analytic[k][j]))
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
                  **options):
    """Checks second derivatives: gradcheck of the function mapping inputs to the
    gradients of ``func`` (computed with create_graph=True) (torch.autograd.gradgradcheck)."""
    import numpy as np

    inputs = _as_tuple(inputs)
    diff = [t for t in inputs if isinstance(t, _C.Tensor) and t.requires_grad]
    outs = _differentiable_outputs(func(*inputs))
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        from . import tensor
        grad_outputs = [tensor(rng.standard_normal(tuple(o.shape)), dtype=o.dtype) for o in outs]
    grad_outputs = list(_as_tuple(grad_outputs))

    def first_order(*args):
        o = _differentiable_outputs(func(*args))
        d = [t for t in args if isinstance(t, _C.Tensor) and t.requires_grad]
        gs = _C._grad(o, d, grad_outputs, True, True, True)
        return tuple(g for g in gs if g is not None)

    return gradcheck(first_order, inputs, eps=eps, atol=atol, rtol=rtol, raise_exception=raise_exception, **options)


def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Computes the gradient of this tensor with respect to the graph's leaves (torch.Tensor.backward)."""
    _C._backward(self, gradient, retain_graph, create_graph, inputs)


_C.Tensor.backward = _tensor_backward


# t.grad returns one Python object per gradient tensor, as torch (`w.grad is w.grad`,
# and after `w.grad = g`, `w.grad is g`): the C++ handle is wrapped once and the
# wrapper remembered while it lives (keyed by the C++ tensor's identity).
def _install_grad_identity():
    import weakref

    prop = _C.Tensor.grad
    wrappers = weakref.WeakValueDictionary()

    def get(self):
        g = prop.fget(self)
        if g is None:
            return None
        return wrappers.setdefault(g._impl_id(), g)

    def set_(self, value):
        prop.fset(self, value)
        if value is not None:
            wrappers[value._impl_id()] = value

    _C.Tensor.grad = property(get, set_, doc=prop.__doc__)


_install_grad_identity()
