"""axle.distributed: torch.distributed as a program without process groups sees
it. axle has no collective backend (gloo, nccl, mpi) yet: is_available() is
False, as torch built without distributed support reports, and everything that
needs a process group says so with a typed error (torch 2.x's ValueError and
message where it has one) instead of running something else. Single-process
programs that only check is_available() / is_initialized(), or pass world_size
1 and never initialize, run unchanged."""
import axle as _axle

__all__ = ["is_available", "is_initialized", "init_process_group", "destroy_process_group", "get_rank",
           "get_world_size", "barrier", "all_reduce", "all_gather", "broadcast", "reduce", "gather", "scatter",
           "ReduceOp", "group"]


def is_available():
    """False: axle has no process-group backend."""
    return False


def is_initialized():
    """False: no default process group exists."""
    return False


def _no_backend(what):
    raise _axle.NotImplementedError(
        "axle.distributed.%s: axle has no process-group backend (gloo, nccl or mpi); distributed training is "
        "not implemented, run with one process" % what)


def _no_group(*args, **kwargs):
    raise _axle.ValueError("Default process group has not been initialized, please make sure to call "
                             "init_process_group.")


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    _no_backend("init_process_group")


def destroy_process_group(group=None):
    _no_group()


get_rank = get_world_size = barrier = _no_group
all_reduce = all_gather = broadcast = reduce = gather = scatter = _no_group


class ReduceOp:
    """The reduction names collectives take (torch.distributed.ReduceOp)."""
    SUM, PRODUCT, MIN, MAX, BAND, BOR, BXOR, AVG = "sum", "product", "min", "max", "band", "bor", "bxor", "avg"


class group:
    WORLD = None
