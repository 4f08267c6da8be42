"""torch.utils.dlpack: DLPack exchange. ``to_dlpack(t)`` is t's DLPack capsule (numpy,
torch and other DLPack readers take it); ``from_dlpack(obj)`` reads an object with
``__dlpack__`` or a capsule, sharing its memory (axle.from_dlpack)."""
from .. import _C

__all__ = ["from_dlpack", "to_dlpack"]

from_dlpack = _C.from_dlpack


def to_dlpack(tensor):
    """A DLPack capsule over the tensor's memory (torch.utils.dlpack.to_dlpack)."""
    return tensor.__dlpack__()
