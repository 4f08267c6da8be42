"""axle.utils: torch.utils's data loading utilities (axle.utils.data) and DLPack exchange
(axle.utils.dlpack)."""
from . import data  # noqa: F401
from . import dlpack  # noqa: F401
