"""axle.cuda: torch.cuda's everyday queries over axle's device registry (the
cuda plugin, when loaded, reports the devices): is_available, device_count,
current_device, set_device, get_device_name, synchronize, manual_seed(_all),
memory_allocated / memory_reserved / max_memory_allocated / empty_cache."""
import axle as _axle

_current = 0


def _entry():
    for d in _axle.devices():
        if d["type"] == "cuda":
            return d
    return None


def is_available():
    d = _entry()
    return bool(d and d["count"] > 0)


def device_count():
    d = _entry()
    return d["count"] if d else 0


def _check(device=None):
    index = _current if device is None else _axle.device(device if not isinstance(device, int) else
                                                          "cuda:%d" % device).index
    if not is_available():
        raise _axle.DeviceError("Torch not compiled with CUDA enabled" if _entry() is None else
                                "axle.cuda: no CUDA device: " + _entry()["note"])
    if index is None:
        index = _current
    if not 0 <= index < device_count():
        raise _axle.DeviceError("Invalid device id %d (%d CUDA devices)" % (index, device_count()))
    return index


def current_device():
    return _check()


def set_device(device):
    global _current
    _current = _check(device)


def get_device_name(device=None):
    return _entry()["names"][_check(device)]


def synchronize(device=None):
    _axle.synchronize("cuda:%d" % _check(device))


def manual_seed(seed):
    """Seeds the generators of every device (axle has one seeding entry point)."""
    _axle.manual_seed(seed)


manual_seed_all = manual_seed


def memory_allocated(device=None):
    return _axle.memory_allocated("cuda:%d" % _check(device))


def max_memory_allocated(device=None):
    return _axle.max_memory_allocated("cuda:%d" % _check(device))


def memory_reserved(device=None):
    return _axle.memory_reserved("cuda:%d" % _check(device))


def empty_cache():
    if is_available():
        _axle.empty_cache("cuda:%d" % _current)
