"""DataParallel as torch 1.13's. Without a CUDA device it wraps the module and calls it as it is
(device_ids == [], no dim / output_device attributes: torch returns from __init__ early). With
CUDA devices, device_ids (ints, 'cuda:i' or devices; all devices when None) and output_device are
normalized as torch does, a single device gets the module moved onto it and its inputs scattered
(moved) there, and a module whose parameters or buffers sit elsewhere is refused with torch's
error. Replicating over several devices is not implemented: asking for more than one device
raises NotImplementedError (name device_ids=[i] to use one)."""
import axle as _axle

from .. import Module

__all__ = ["DataParallel"]


def _device_index(d):
    if isinstance(d, int) and not isinstance(d, bool):
        return d
    dev = _axle.device(d)
    if dev.type != "cuda":
        raise _axle.ValueError("Expected a cuda device, but got: {}".format(dev))
    return dev.index if dev.index is not None else _axle.cuda.current_device()


def _move(obj, device):
    if isinstance(obj, _axle.Tensor):
        return obj.to(device)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(_move(o, device) for o in obj))
    if isinstance(obj, (tuple, list)):
        return type(obj)(_move(o, device) for o in obj)
    if isinstance(obj, dict):
        return type(obj)((k, _move(v, device)) for k, v in obj.items())
    return obj


class DataParallel(Module):
    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if not _axle.cuda.is_available():
            self.module = module
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = list(range(_axle.cuda.device_count()))
        if output_device is None:
            output_device = device_ids[0]
        self.dim = dim
        self.module = module
        self.device_ids = [_device_index(d) for d in device_ids]
        self.output_device = _device_index(output_device)
        self.src_device_obj = _axle.device("cuda", self.device_ids[0])
        if len(self.device_ids) > 1:
            raise _axle.NotImplementedError(
                "DataParallel over several devices ({}) is not implemented in axle: pass device_ids=[i] to run on "
                "one".format(self.device_ids))
        self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in list(self.module.parameters()) + list(self.module.buffers()):
            if t.device != self.src_device_obj:
                raise _axle.DeviceError("module must have its parameters and buffers on device {} (device_ids[0]) but "
                                        "found one of them on device: {}".format(self.src_device_obj, t.device))
        return self.module(*_move(inputs, self.src_device_obj), **_move(kwargs, self.src_device_obj))
