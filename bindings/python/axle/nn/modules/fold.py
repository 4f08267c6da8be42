"""Unfold (im2col) and Fold (col2im) over their functional forms, with torch's reprs."""
from .._functional_extra import fold, unfold
from .module import Module

__all__ = ["Unfold", "Fold"]


class Unfold(Module):
    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input):
        return unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return "kernel_size={}, dilation={}, padding={}, stride={}".format(
            self.kernel_size, self.dilation, self.padding, self.stride)


class Fold(Module):
    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return "output_size={}, kernel_size={}, dilation={}, padding={}, stride={}".format(
            self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)
