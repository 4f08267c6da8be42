"""The modules torch programs import for multi-process training, as far as
axle has them: axle.distributed (no process-group backend: it says so),
axle.multiprocessing (Python's multiprocessing plus spawn), the
DistributedSampler (against torch 1.13's), the backends' submodule imports,
and Tensor.__format__ (what training scripts' meters print with)."""
import os

import numpy as np
import pytest
import torch

import axle


def test_distributed_reports_no_backend():
    import axle.distributed as dist
    assert dist.is_available() is False and dist.is_initialized() is False
    with pytest.raises(axle.NotImplementedError, match="no process-group backend"):
        dist.init_process_group("gloo", init_method="tcp://127.0.0.1:1", world_size=2, rank=0)
    for fn in (dist.get_rank, dist.get_world_size, dist.barrier):
        with pytest.raises(axle.ValueError, match="Default process group has not been initialized"):
            fn()
    with pytest.raises(axle.ValueError, match="Default process group"):
        dist.all_reduce(axle.ones(2), dist.ReduceOp.SUM)


def _write_rank(i, folder, fail_rank):
    if i == fail_rank:
        raise ValueError("rank %d failed on purpose" % i)
    with open(os.path.join(folder, "rank%d" % i), "w") as f:
        f.write(str(i * 10))


def test_spawn_runs_each_rank_and_reports_a_failure(tmp_path):
    import axle.multiprocessing as mp
    assert mp.cpu_count() >= 1 and mp.get_context("spawn") is not None  # Python's API re-exported
    mp.spawn(_write_rank, args=(str(tmp_path), -1), nprocs=3)
    assert sorted(os.listdir(tmp_path)) == ["rank0", "rank1", "rank2"]
    assert [open(tmp_path / ("rank%d" % i)).read() for i in range(3)] == ["0", "10", "20"]
    with pytest.raises(mp.ProcessRaisedException, match="rank 1 failed on purpose"):
        mp.spawn(_write_rank, args=(str(tmp_path), 1), nprocs=2)
    ctx = mp.spawn(_write_rank, args=(str(tmp_path / "x"), -1), nprocs=1, join=False)
    with pytest.raises(mp.ProcessRaisedException, match="FileNotFoundError"):
        while not ctx.join():
            pass


@pytest.mark.parametrize("n,replicas,drop_last", [(10, 3, False), (10, 3, True), (12, 4, False), (5, 8, False),
                                                  (7, 2, True)])
def test_distributed_sampler_matches_torch_without_shuffle(n, replicas, drop_last):
    from axle.utils.data import DistributedSampler
    for rank in range(replicas):
        a = DistributedSampler(range(n), num_replicas=replicas, rank=rank, shuffle=False, drop_last=drop_last)
        t = torch.utils.data.DistributedSampler(range(n), num_replicas=replicas, rank=rank, shuffle=False,
                                                drop_last=drop_last)
        assert list(a) == list(t) and len(a) == len(t)


def test_distributed_sampler_shuffles_by_epoch_into_a_partition():
    from axle.utils.data.distributed import DistributedSampler
    n, replicas = 23, 4
    samplers = [DistributedSampler(range(n), num_replicas=replicas, rank=r, seed=5) for r in range(replicas)]
    first = [list(s) for s in samplers]
    assert first == [list(s) for s in samplers]  # same epoch, same order
    covered = sorted(i for part in first for i in part)
    assert len(covered) == 24 and set(covered) == set(range(n))  # one index repeated as padding
    for s in samplers:
        s.set_epoch(1)
    assert [list(s) for s in samplers] != first
    with pytest.raises(ValueError, match="Invalid rank 4"):
        DistributedSampler(range(n), num_replicas=4, rank=4)
    with pytest.raises(axle.ValueError, match="Default process group"):
        DistributedSampler(range(n))


def test_backend_submodules_import_as_torch_programs_write_them():
    import importlib.util
    import axle.backends.cudnn as cudnn
    import axle.backends.mps  # noqa: F401
    assert importlib.util.find_spec("axle.backends.cudnn").name == "axle.backends.cudnn"
    cudnn.benchmark = True
    assert axle.backends.cudnn.benchmark is True
    cudnn.benchmark = False
    assert cudnn.is_available() == axle.cuda.is_available()


def test_tensor_format_as_torch():
    assert "{:6.2f}".format(axle.tensor(3.14159)) == "{:6.2f}".format(torch.tensor(3.14159)) == "  3.14"
    assert "{:d}".format(axle.tensor(7)) == "7"
    assert "{}".format(axle.tensor([1.0, 2.0])) == str(axle.tensor([1.0, 2.0]))
    for t in (axle.tensor([1.0]), axle.tensor([1.0, 2.0])):
        with pytest.raises(TypeError):
            "{:.2f}".format(t)
    assert np.isclose(float("{:.3e}".format(axle.tensor(12345.0))), 12345.0, rtol=1e-3)


def _slow_or_fail(i):
    import time
    if i == 0:
        time.sleep(20)
    raise RuntimeError("rank %d failed" % i)


def test_spawn_reports_a_failure_while_earlier_ranks_still_run():
    # Rank 1 fails at once while rank 0 sleeps: the parent hears of it without
    # waiting for rank 0 (which is terminated), as torch's.
    import time
    import axle.multiprocessing as mp
    t = time.monotonic()
    with pytest.raises(mp.ProcessRaisedException, match="rank 1 failed"):
        mp.spawn(_slow_or_fail, nprocs=2)
    assert time.monotonic() - t < 15
