"""InstanceNorm1d/2d/3d: each (sample, channel) normalized over its spatial dims
(affine and running statistics off by default, as torch)."""
import axle as _axle

from .. import functional as F
from ..parameter import Parameter
from .module import Module

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class _InstanceNorm(Module):
    _rank = 3

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        kw = {"device": device, "dtype": dtype or _axle.get_default_dtype()}
        if affine:
            self.weight = Parameter(_axle.ones(num_features, **kw))
            self.bias = Parameter(_axle.zeros(num_features, **kw))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _axle.zeros(num_features, **kw))
            self.register_buffer("running_var", _axle.ones(num_features, **kw))
            self.register_buffer("num_batches_tracked", _axle.tensor(0, dtype=_axle.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def forward(self, input):
        if input.dim() not in (self._rank - 1, self._rank):
            raise ValueError("expected {}D or {}D input (got {}D input)".format(self._rank - 1, self._rank,
                                                                                input.dim()))
        unbatched = input.dim() == self._rank - 1
        x = input.unsqueeze(0) if unbatched else input
        y = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                            self.training or not self.track_running_stats, self.momentum, self.eps)
        return y.squeeze(0) if unbatched else y

    def extra_repr(self):
        return ("{num_features}, eps={eps}, momentum={momentum}, affine={affine}, "
                "track_running_stats={track_running_stats}".format(**self.__dict__))


class InstanceNorm1d(_InstanceNorm):
    _rank = 3


class InstanceNorm2d(_InstanceNorm):
    _rank = 4


class InstanceNorm3d(_InstanceNorm):
    _rank = 5
