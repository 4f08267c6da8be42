"""axle.utils: torch.utils's data loading utilities (axle.utils.data)."""
from . import data  # noqa: F401
