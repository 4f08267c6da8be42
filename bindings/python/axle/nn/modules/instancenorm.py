"""InstanceNorm1d/2d/3d: each (sample, channel) normalized over its spatial dims
(affine and running statistics off by default, as torch)."""
from .. import functional as F
from .batchnorm import _LazyNormBase, _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
           "LazyInstanceNorm3d"]


class _InstanceNorm(_NormBase):
    _rank = 3

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)

    def forward(self, input):
        if input.dim() not in (self._rank - 1, self._rank):
            raise ValueError("expected {}D or {}D input (got {}D input)".format(self._rank - 1, self._rank,
                                                                                input.dim()))
        unbatched = input.dim() == self._rank - 1
        x = input.unsqueeze(0) if unbatched else input
        y = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                            self.training or not self.track_running_stats, self.momentum, self.eps)
        return y.squeeze(0) if unbatched else y


class InstanceNorm1d(_InstanceNorm):
    _rank = 3


class InstanceNorm2d(_InstanceNorm):
    _rank = 4


class InstanceNorm3d(_InstanceNorm):
    _rank = 5


# num_features is the first input's dim 1 even for an unbatched input, as torch's (which then fails).
class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    cls_to_become = InstanceNorm1d
    _rank = 3


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    cls_to_become = InstanceNorm2d
    _rank = 4


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    cls_to_become = InstanceNorm3d
    _rank = 5
