"""LayerNorm, GroupNorm, RMSNorm (torch 2.x), CrossMapLRN2d, with torch's parameters and repr."""
import numbers

import axle as _axle

from .. import functional as F
from ..parameter import Parameter
from ._functions import CrossMapLRN2d as _cross_map_lrn2d
from .module import Module

__all__ = ["LayerNorm", "GroupNorm", "RMSNorm", "CrossMapLRN2d"]


def _shape(normalized_shape):
    if isinstance(normalized_shape, numbers.Integral):
        return (int(normalized_shape),)
    return tuple(normalized_shape)


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _shape(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        kw = {"device": device, "dtype": dtype or _axle.get_default_dtype()}
        if elementwise_affine:
            self.weight = Parameter(_axle.ones(self.normalized_shape, **kw))
            self.bias = Parameter(_axle.zeros(self.normalized_shape, **kw))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def reset_parameters(self):
        if self.elementwise_affine:
            with _axle.no_grad():
                self.weight.fill_(1)
                self.bias.fill_(0)

    def forward(self, input):
        return F.layer_norm(input, list(self.normalized_shape), self.weight, self.bias, self.eps)

    def extra_repr(self):
        return "{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}".format(**self.__dict__)


class GroupNorm(Module):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        kw = {"device": device, "dtype": dtype or _axle.get_default_dtype()}
        if affine:
            self.weight = Parameter(_axle.ones(num_channels, **kw))
            self.bias = Parameter(_axle.zeros(num_channels, **kw))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return "{num_groups}, {num_channels}, eps={eps}, affine={affine}".format(**self.__dict__)


class RMSNorm(Module):
    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        self.normalized_shape = _shape(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(_axle.ones(self.normalized_shape, device=device,
                                               dtype=dtype or _axle.get_default_dtype()))
        else:
            self.register_parameter("weight", None)

    def forward(self, x):
        return F.rms_norm(x, list(self.normalized_shape), self.weight, self.eps)

    def extra_repr(self):
        return "{normalized_shape}, eps={eps}, elementwise_affine={elementwise_affine}".format(**self.__dict__)


class CrossMapLRN2d(Module):
    """The legacy cross-channel LRN over 4-D inputs (torch's forward and gradient, see _functions)."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return _cross_map_lrn2d.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)
