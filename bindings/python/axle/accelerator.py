"""axle.accelerator: torch 2.x's device-agnostic queries (torch.accelerator):
the accelerator is CUDA when the cuda plugin reports a device, else none."""
import axle as _axle


def is_available():
    return _axle.cuda.is_available()


def current_accelerator(check_available=False):
    if _axle.cuda.is_available():
        return _axle.device("cuda")
    if check_available:
        raise RuntimeError("no accelerator is available")
    return None


def device_count():
    return _axle.cuda.device_count()


def synchronize(device=None):
    if _axle.cuda.is_available():
        _axle.cuda.synchronize(device)
