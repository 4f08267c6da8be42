"""Helpers of axle.utils.data: collation, random draws and worker information."""
from . import collate, rng, worker  # noqa: F401
