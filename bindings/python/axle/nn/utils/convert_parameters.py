"""parameters_to_vector / vector_to_parameters (torch.nn.utils)."""
import axle as _axle

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters):
    return _axle.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    if not isinstance(vec, _axle.Tensor):
        raise TypeError("expected torch.Tensor, but got: {}".format(type(vec).__name__))
    offset = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[offset:offset + n].view_as(p).data
        offset += n
