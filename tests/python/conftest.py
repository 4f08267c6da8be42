"""pytest setup: tests import the build tree's axle (PYTHONPATH set by meson test)."""
