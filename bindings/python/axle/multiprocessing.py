"""axle.multiprocessing: torch.multiprocessing's process API, which is Python's
multiprocessing (everything it exports is here) plus spawn(): `nprocs`
processes running fn(i, *args) through the given start method, joined, with a
child's exception or non-zero exit raised in the parent (ProcessRaisedException,
ProcessExitedException), as torch's. axle tensors are not placed in shared
memory on the way (torch's shared-memory tensor reduction is not implemented):
an argument tensor is pickled by value, so a child's writes do not reach the
parent."""
import multiprocessing as _mp
import traceback as _traceback
from multiprocessing import *  # noqa: F401,F403 - torch.multiprocessing re-exports it

__all__ = ["spawn", "start_processes", "ProcessContext", "ProcessRaisedException", "ProcessExitedException"]
__all__ += list(getattr(_mp, "__all__", []))


class ProcessException(Exception):
    def __init__(self, msg, error_index, pid):
        super().__init__(msg)
        self.error_index, self.pid = error_index, pid


class ProcessRaisedException(ProcessException):
    """A child raised: its traceback is the message."""


class ProcessExitedException(ProcessException):
    """A child exited with a non-zero code (or a signal)."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name


def _wrap(fn, i, args, errors):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:  # noqa: BLE001 - handed to the parent
        errors.put(_traceback.format_exc())
        raise SystemExit(1)


class ProcessContext:
    def __init__(self, processes, error_queues):
        self.processes, self.error_queues = processes, error_queues

    def pids(self):
        return [p.pid for p in self.processes]

    def join(self, timeout=None):
        """Waits for every process; True when all finished. A failed child
        terminates the others and raises."""
        for p in self.processes:
            p.join(timeout)
        if any(p.is_alive() for p in self.processes):
            return False
        for i, (p, q) in enumerate(zip(self.processes, self.error_queues)):
            if p.exitcode == 0:
                continue
            for other in self.processes:
                if other.is_alive():
                    other.terminate()
            if not q.empty():
                raise ProcessRaisedException("\n\n-- Process %d terminated with the following error:\n%s"
                                             % (i, q.get()), i, p.pid)
            raise ProcessExitedException("process %d terminated with exit code %s" % (i, p.exitcode), i, p.pid,
                                         p.exitcode)
        return True


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    ctx = _mp.get_context(start_method)
    processes, queues = [], []
    for i in range(nprocs):
        q = ctx.SimpleQueue()
        p = ctx.Process(target=_wrap, args=(fn, i, args, q), daemon=daemon)
        p.start()
        processes.append(p)
        queues.append(q)
    context = ProcessContext(processes, queues)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Runs fn(i, *args) in `nprocs` new processes (i = 0 .. nprocs - 1)."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
