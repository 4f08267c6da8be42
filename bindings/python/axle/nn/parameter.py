"""nn.Parameter: a Tensor subclass that a Module registers as its parameter when
assigned as an attribute. Like torch's, it shares the memory of the tensor it is
made from (detached from that tensor's history) and requires grad by default."""
import axle as _axle
from axle import _C


class Parameter(_C.Tensor):
    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _axle.empty(0)
        if not isinstance(data, _C.Tensor):
            raise _axle.TypeError("Parameter(): data must be an axle.Tensor, not %s" % type(data).__name__)
        return _C._make_subclass(cls, data, requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + _axle.tensor_repr(self)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.detach().clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self.detach(), self.requires_grad))


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)
