"""Activation modules: each calls its torch.nn.functional counterpart with the
module's options, and shows them in its repr as torch does."""
import axle as _axle

from .. import functional as F
from ..parameter import Parameter
from .module import Module

__all__ = ["Hardshrink", "Softshrink", "Softmax2d", "ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "CELU", "GELU", "SiLU", "Mish", "Sigmoid", "Tanh",
           "Softplus", "Softsign", "Hardtanh", "Hardsigmoid", "Hardswish", "Threshold", "GLU", "PReLU", "Softmax",
           "LogSoftmax", "Softmin", "LogSigmoid", "Tanhshrink"]


def _inplace_repr(inplace):
    return "inplace=True" if inplace else ""


class ReLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class ReLU6(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu6(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class LeakyReLU(Module):
    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__()
        self.negative_slope, self.inplace = negative_slope, inplace

    def forward(self, input):
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return "negative_slope={}{}".format(self.negative_slope, ", inplace=True" if self.inplace else "")


class ELU(Module):
    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return "alpha={}{}".format(self.alpha, ", inplace=True" if self.inplace else "")


class CELU(Module):
    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return "alpha={}{}".format(self.alpha, ", inplace=True" if self.inplace else "")


class SELU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.selu(input, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class GELU(Module):
    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return "approximate={}".format(repr(self.approximate))


class SiLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class Mish(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.mish(input, inplace=self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class Sigmoid(Module):
    def forward(self, input):
        return _axle.sigmoid(input)


class Tanh(Module):
    def forward(self, input):
        return _axle.tanh(input)


class LogSigmoid(Module):
    def forward(self, input):
        return F.logsigmoid(input)


class Tanhshrink(Module):
    def forward(self, input):
        return F.tanhshrink(input)


class Softplus(Module):
    def __init__(self, beta=1, threshold=20):
        super().__init__()
        self.beta, self.threshold = beta, threshold

    def forward(self, input):
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return "beta={}, threshold={}".format(self.beta, self.threshold)


class Softsign(Module):
    def forward(self, input):
        return F.softsign(input)


class Hardtanh(Module):
    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return "min_val={}, max_val={}{}".format(self.min_val, self.max_val, ", inplace=True" if self.inplace else "")


class Hardsigmoid(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardsigmoid(input, self.inplace)

    # (no extra_repr: torch's Hardsigmoid prints as Hardsigmoid() whatever inplace is)


class Hardswish(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.hardswish(input, self.inplace)

    def extra_repr(self):
        return _inplace_repr(self.inplace)


class Threshold(Module):
    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return "threshold={}, value={}{}".format(self.threshold, self.value, ", inplace=True" if self.inplace else "")


class GLU(Module):
    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.glu(input, self.dim)

    def extra_repr(self):
        return "dim={}".format(self.dim)


class PReLU(Module):
    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(_axle.full((num_parameters,), init, dtype=dtype or _axle.get_default_dtype(),
                                           device=device))

    def reset_parameters(self):
        with _axle.no_grad():
            self.weight.fill_(self.init)

    def forward(self, input):
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return "num_parameters={}".format(self.num_parameters)


class _SoftmaxBase(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def _dim(self, input):
        if self.dim is not None:
            return self.dim
        return 0 if input.dim() in (0, 1, 3) else 1  # torch's legacy implicit dim

    def extra_repr(self):
        return "dim={dim}".format(dim=self.dim)


class Softmax(_SoftmaxBase):
    def forward(self, input):
        return F.softmax(input, self._dim(input))


class Softmin(_SoftmaxBase):
    def forward(self, input):
        return F.softmin(input, self._dim(input))


class LogSoftmax(_SoftmaxBase):
    def forward(self, input):
        return F.log_softmax(input, self._dim(input))


class Hardshrink(Module):
    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def forward(self, input):
        return F.hardshrink(input, self.lambd)

    def extra_repr(self):
        return "{}".format(self.lambd)


class Softshrink(Hardshrink):
    def forward(self, input):
        return F.softshrink(input, self.lambd)


class Softmax2d(Module):
    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError("Softmax2d: expected input to be 3D or 4D, got {}D instead".format(input.dim()))
        return F.softmax(input, -3)


# torch defines MultiheadAttention in this module (pickled models name it here);
# axle writes it beside the Transformer layers.
from .transformer import MultiheadAttention  # noqa: E402,F401
