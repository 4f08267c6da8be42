"""axle.nn: for now only the functional namespace."""
from . import functional  # noqa: F401
