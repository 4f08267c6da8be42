"""pytest setup: tests import the build tree's axle (PYTHONPATH set by meson test)."""
import sys


def pytest_terminal_summary(terminalreporter):
    mod = sys.modules.get("test_torch_samples")
    if not mod or not mod.SUMMARY:
        return
    cases = sum(s[0] for s in mod.SUMMARY.values())
    combos = sum(s[1] for s in mod.SUMMARY.values())
    via = sum(s[2] for s in mod.SUMMARY.values())
    terminalreporter.write_line(
        "differential vs torch %s: %d ops, %d op x dtype combinations, %d cases compared (%d of them against "
        "torch computing in float32 where its CPU lacks the 16-bit kernel)" % (
            mod.torch.__version__, len(mod.SUMMARY), combos, cases, via))
