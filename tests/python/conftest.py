"""pytest setup: tests import the build tree's axle (PYTHONPATH set by meson test)."""
import sys


def pytest_terminal_summary(terminalreporter):
    grads = sys.modules.get("test_autograd_samples")
    if grads and grads.SUMMARY:
        terminalreporter.write_line(
            "gradients (float64 samples): %d ops, %d cases equal to torch %s's autograd, %d decided by finite "
            "differences (torch lacks the form or differs), %d skipped (no differentiable input or output)" % (
                len(grads.SUMMARY), sum(s[0] for s in grads.SUMMARY.values()), grads.torch.__version__,
                sum(s[1] for s in grads.SUMMARY.values()), sum(s[2] for s in grads.SUMMARY.values())))
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
