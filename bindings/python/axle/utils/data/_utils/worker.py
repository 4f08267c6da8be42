"""get_worker_info and WorkerInfo.

axle loads in the main process only. A DataLoader built with num_workers > 0
runs as one worker in the main process: while it calls worker_init_fn, the
dataset's __iter__ / __getitem__ and collate_fn, get_worker_info() describes
that worker (id 0 of num_workers 1), so datasets that shard themselves by
worker still see every sample once. Elsewhere it returns None."""
import contextlib

__all__ = ["WorkerInfo", "get_worker_info"]

_current = None


class WorkerInfo(object):
    """Read-only record of id, num_workers, seed and dataset."""

    def __init__(self, **kwargs):
        for key, value in kwargs.items():
            object.__setattr__(self, key, value)
        object.__setattr__(self, "_WorkerInfo__keys", tuple(kwargs))

    def __setattr__(self, key, value):
        raise RuntimeError("Cannot assign attributes to {} objects".format(type(self).__name__))

    def __repr__(self):
        fields = ", ".join("{}={}".format(k, getattr(self, k)) for k in self.__keys)
        return "{}({})".format(type(self).__name__, fields)


def get_worker_info():
    """The WorkerInfo of the loading worker running now, or None in the main process."""
    return _current


@contextlib.contextmanager
def _as_worker(info):
    """Makes get_worker_info() return info inside the block (None: unchanged)."""
    global _current
    if info is None:
        yield
        return
    previous, _current = _current, info
    try:
        yield
    finally:
        _current = previous
