"""axle.nn.parallel: DataParallel (torch.nn.parallel's, see data_parallel.py)."""
from .data_parallel import DataParallel  # noqa: F401

__all__ = ["DataParallel"]
