"""Conv1d/2d/3d and ConvTranspose1d/2d/3d over the convolution op, with torch's
arguments (padding as ints, tuples, 'same' or 'valid'; padding_mode 'zeros',
'reflect', 'replicate', 'circular'), initialization and repr."""
import math

import axle as _axle

from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "LazyConv1d",
           "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d"]


def _ntuple(value, n):
    if isinstance(value, (tuple, list)):
        if len(value) != n:
            raise ValueError("expected %d values, got %r" % (n, value))
        return tuple(value)
    return (value,) * n


class _ConvNd(Module):
    _dims = 2
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None, output_padding=0):
        super().__init__()
        n = self._dims
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_modes:
            raise ValueError("padding_mode must be one of {}, but got padding_mode='{}'".format(valid_modes,
                                                                                              padding_mode))
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError("Invalid padding string {!r}, should be one of {}".format(padding,
                                                                                        {"same", "valid"}))
            if padding == "same" and any(s != 1 for s in _ntuple(stride, n)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        self.dilation = _ntuple(dilation, n)
        self.transposed = self._transposed
        self.output_padding = _ntuple(output_padding, n)
        self.groups = groups
        self.padding_mode = padding_mode
        if isinstance(self.padding, str):
            # Zero padding for 'same' (total = dilation * (kernel - 1), the extra one on the right), as torch.
            self._reversed_padding_repeated_twice = []
            for d, k in zip(reversed(self.dilation), reversed(self.kernel_size)):
                total = d * (k - 1) if self.padding == "same" else 0
                left = total // 2
                self._reversed_padding_repeated_twice += [left, total - left]
        else:
            self._reversed_padding_repeated_twice = [p for p in reversed(self.padding) for _ in range(2)]
        kw = {"device": device, "dtype": dtype or _axle.get_default_dtype()}
        shape = ((in_channels, out_channels // groups) if self._transposed else
                 (out_channels, in_channels // groups)) + self.kernel_size
        self.weight = Parameter(_axle.empty(shape, **kw))
        if bias:
            self.bias = Parameter(_axle.empty(out_channels, **kw))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def _conv(self, input, weight, bias):
        if input.dim() == self._dims + 1:  # unbatched, as torch: through a batch of one
            return self._conv(input.unsqueeze(0), weight, bias).squeeze(0)
        if self.padding_mode != "zeros":
            mode = "constant" if self.padding_mode == "zeros" else self.padding_mode
            input = F.pad(input, self._reversed_padding_repeated_twice, mode)
            padding = (0,) * self._dims
        elif isinstance(self.padding, str):
            pads = self._reversed_padding_repeated_twice
            if any(pads[i] != pads[i + 1] for i in range(0, len(pads), 2)):
                input = F.pad(input, pads)
                padding = (0,) * self._dims
            else:
                padding = tuple(reversed(pads[::2]))
        else:
            padding = self.padding
        return _axle.convolution(input, weight, bias, list(self.stride), list(padding), list(self.dilation), False,
                                 [0] * self._dims, self.groups)

    def forward(self, input):
        return self._conv(input, self.weight, self.bias)

    def extra_repr(self):
        s = "{}, {}, kernel_size={}, stride={}".format(self.in_channels, self.out_channels, self.kernel_size,
                                                       self.stride)
        if self.padding != (0,) * len(self.padding):
            s += ", padding={}".format(self.padding)
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={}".format(self.dilation)
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={}".format(self.output_padding)
        if self.groups != 1:
            s += ", groups={}".format(self.groups)
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={}".format(self.padding_mode)
        return s


class Conv1d(_ConvNd):
    _dims = 1


class Conv2d(_ConvNd):
    _dims = 2


class Conv3d(_ConvNd):
    _dims = 3


class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError('Only "zeros" padding mode is supported for {}'.format(type(self).__name__))
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype, output_padding)

    def forward(self, input, output_size=None):
        if input.dim() == self._dims + 1:  # unbatched, as torch: through a batch of one
            return self.forward(input.unsqueeze(0), output_size).squeeze(0)
        output_padding = list(self.output_padding)
        if output_size is not None:
            n = self._dims
            spatial = list(output_size)[-n:]
            output_padding = []
            for d in range(n):
                size = input.shape[input.dim() - n + d]
                minimum = ((size - 1) * self.stride[d] - 2 * self.padding[d] + self.dilation[d] *
                           (self.kernel_size[d] - 1) + 1)
                extra = spatial[d] - minimum
                if not 0 <= extra < max(self.stride[d], self.dilation[d]):
                    raise ValueError("requested an output size of {}, but valid sizes range from {} to {} (for an "
                                     "input of {})".format(spatial, minimum, minimum + self.stride[d] - 1,
                                                           list(input.shape)[2:]))
                output_padding.append(extra)
        return _axle.convolution(input, self.weight, self.bias, list(self.stride), list(self.padding),
                                 list(self.dilation), True, output_padding, self.groups)


class ConvTranspose1d(_ConvTransposeNd):
    _dims = 1


class ConvTranspose2d(_ConvTransposeNd):
    _dims = 2


class ConvTranspose3d(_ConvTransposeNd):
    _dims = 3


# ---------------------------------------------------------------- lazy forms: in_channels from the first input
class _LazyConvXdMixin(LazyModuleMixin):
    def _lazy_placeholders(self, out_channels, bias, device, dtype):
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            self.in_channels = self._get_in_channels(input)
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            if self.transposed:
                shape = (self.in_channels, self.out_channels // self.groups) + tuple(self.kernel_size)
            else:
                shape = (self.out_channels, self.in_channels // self.groups) + tuple(self.kernel_size)
            self.weight.materialize(shape)
            if self.bias is not None:
                self.bias.materialize((self.out_channels,))
            self.reset_parameters()

    def _get_in_channels(self, input):
        unbatched = self._dims + 1
        if input.dim() not in (unbatched, unbatched + 1):
            raise _axle.ShapeError("Expected {}D (unbatched) or {}D (batched) input to {}, but got input of size: "
                                   "{}".format(unbatched, unbatched + 1, type(self).__name__, list(input.shape)))
        return input.shape[1] if input.dim() == unbatched + 1 else input.shape[0]


class _LazyConv(_LazyConvXdMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode, device, dtype)
        self._lazy_placeholders(out_channels, bias, device, dtype)


class _LazyConvTranspose(_LazyConvXdMixin):
    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                         device, dtype)
        self._lazy_placeholders(out_channels, bias, device, dtype)


class LazyConv1d(_LazyConv, Conv1d):
    cls_to_become = Conv1d


class LazyConv2d(_LazyConv, Conv2d):
    cls_to_become = Conv2d


class LazyConv3d(_LazyConv, Conv3d):
    cls_to_become = Conv3d


class LazyConvTranspose1d(_LazyConvTranspose, ConvTranspose1d):
    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTranspose, ConvTranspose2d):
    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTranspose, ConvTranspose3d):
    cls_to_become = ConvTranspose3d
