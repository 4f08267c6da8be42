"""axle.multiprocessing: torch.multiprocessing's process API, which is Python's
multiprocessing (everything it exports is here) plus spawn(): `nprocs`
processes running fn(i, *args) through the given start method, joined, with a
child's exception or non-zero exit raised in the parent (ProcessRaisedException,
ProcessExitedException), as torch's. axle tensors are not placed in shared
memory on the way (torch's shared-memory tensor reduction is not implemented):
an argument tensor is pickled by value, so a child's writes do not reach the
parent."""
import multiprocessing as _mp
import multiprocessing.connection as _connection
import signal as _signal
import time as _time
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
        """Waits up to `timeout` seconds (None: until done) for the processes;
        True when all finished. The first child to fail, in whatever order they
        end, terminates the others and raises."""
        deadline = None if timeout is None else _time.monotonic() + timeout
        while True:
            # Who is alive first, then who failed: a child ending in between is
            # seen failed, never missed.
            alive = [p for p in self.processes if p.exitcode is None]
            for i, (p, q) in enumerate(zip(self.processes, self.error_queues)):
                if p.exitcode is not None and p.exitcode != 0:
                    self._fail(i, p, q)
            if not alive:
                return True
            left = None if deadline is None else deadline - _time.monotonic()
            if left is not None and left <= 0:
                return False
            _connection.wait([p.sentinel for p in alive], timeout=left)

    def _fail(self, i, p, q):
        for other in self.processes:
            if other.is_alive():
                other.terminate()
        for other in self.processes:
            other.join()
        if not q.empty():
            raise ProcessRaisedException("\n\n-- Process %d terminated with the following error:\n%s"
                                         % (i, q.get()), i, p.pid)
        if p.exitcode < 0:
            name = _signal.Signals(-p.exitcode).name
            raise ProcessExitedException("process %d terminated with signal %s" % (i, name), i, p.pid, p.exitcode,
                                         signal_name=name)
        raise ProcessExitedException("process %d terminated with exit code %s" % (i, p.exitcode), i, p.pid,
                                     p.exitcode)


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
