"""Dropout (elementwise) and Dropout1d/2d/3d (whole channels), identity in eval mode."""
import axle as _axle

from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d"]


class _DropoutNd(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
        self.p, self.inplace = p, inplace

    def extra_repr(self):
        return "p={}, inplace={}".format(self.p, self.inplace)


class Dropout(_DropoutNd):
    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)


class _ChannelDropout(_DropoutNd):
    _batched_rank = 4

    def forward(self, input):
        if not self.training or self.p == 0:
            return input
        batched = input.dim() == self._batched_rank
        if input.dim() not in (self._batched_rank - 1, self._batched_rank):
            raise ValueError("{}: Expected {}D or {}D input, but received a {}D input".format(
                type(self).__name__.lower(), self._batched_rank - 1, self._batched_rank, input.dim()))
        lead = 2 if batched else 1
        shape = tuple(input.shape)[:lead] + (1,) * (input.dim() - lead)
        if self.p == 1:
            mask = _axle.zeros(shape, dtype=input.dtype, device=input.device)
        else:
            mask = (_axle.rand(shape, dtype=input.dtype, device=input.device) >= self.p).to(input.dtype) / (1 - self.p)
        return input.mul_(mask) if self.inplace else input * mask


class Dropout1d(_ChannelDropout):
    _batched_rank = 3


class Dropout2d(_ChannelDropout):
    _batched_rank = 4


class Dropout3d(_ChannelDropout):
    _batched_rank = 5
