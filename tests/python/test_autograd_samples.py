"""Gradients of every differentiable operator, driven by its conformance samples
(the generators in conformance/src/samples/): for each float64 sample, the
gradient of sum(output * v) for a random v is computed by axle's autograd and
compared with torch 1.13's autograd on the same inputs, and with central finite
differences of axle's own forward (torch's gradcheck tolerances). A sample passes
when it matches torch; where torch has no such op, when it matches finite
differences. Ops declared without a derivative are listed by reason; the ops
still lacking any declaration are the PENDING list, which must stay exact.
"""
import numpy as np
import pytest

import axle

torch = pytest.importorskip("torch")

from test_torch_samples import SAMPLE_OPS, axle_callable, call, to_torch, torch_callable  # noqa: E402

SEED = 9876
FLOAT64 = 1
# Ops still without a derivative declaration (autograd raises NotImplementedError for them).
PENDING = set()
# Random draws: finite differences and torch's own draws cannot be compared.
RANDOM = {"dropout"}
# scatter's src gradient is torch's gather formula, which is not the derivative
# where duplicate indices overwrite each other (torch's too): torch decides alone.
TORCH_ONLY = {"scatter.src", "scatter_.src"}
# Arguments without a derivative in torch 1.13 (its backward raises "not implemented", and
# axle's does too): never made leaves. The incomplete gamma functions' shape parameter, zeta's x.
# Batch norm's running statistics: state the op updates in place (torch refuses them requiring grad).
NOT_DIFFERENTIABLE = {"igamma": {"self"}, "igammac": {"self"}, "igamma_": {"self"}, "igammac_": {"self"},
                      "special_zeta": {"self"}, "_native_batch_norm_legit": {"running_mean", "running_var"}}
# Per op: samples compared with torch, with finite differences only, and skipped.
SUMMARY = {}


def test_every_op_is_accounted_for():
    missing = set(axle._C._ops_without_derivative())
    assert missing == PENDING, ("ops without a derivative declaration: %s; declared meanwhile: %s" % (
        sorted(missing - PENDING), sorted(PENDING - missing)))


def _leaves(args, skip=()):
    """The float64 tensors among the sample's arguments (but those named in skip), as fresh leaves."""
    leaves = []

    def leaf(t):
        if t.dtype != axle.float64:
            return t
        leaves.append(t.requires_grad_())  # the sample's own tensor: its layout is part of the case
        return t

    return [(name, kw, value if name in skip else _map(value, leaf)) for name, kw, value in args], leaves


def _call(fn, args, wrap=lambda t: t):
    return call(fn, args, lambda v: _map(v, wrap))


def _map(v, f):
    if isinstance(v, axle.Tensor):
        return f(v)
    if isinstance(v, (list, tuple)):
        return type(v)(_map(x, f) for x in v)
    return v


def _float_outputs(result):
    out = result if isinstance(result, (list, tuple)) else [result]
    return [r for r in out if isinstance(r, axle.Tensor) and r.dtype == axle.float64]


def _np(t):
    return np.array(t.detach().cpu())


def _objective(fn, args, vs):
    with axle.no_grad():
        outs = _float_outputs(_call(fn, args, lambda t: t.clone() if t is args[0][2] else t))
    return sum(float(np.where(v != 0, _np(o) * v, 0.0).sum()) for o, v in zip(outs, vs))


def _finite_difference(fn, args, leaves, vs, eps=1e-6, limit=24):
    """Central differences of sum(out * v) for up to `limit` elements of each leaf."""
    rng = np.random.default_rng(SEED)
    estimates = []
    for leaf in leaves:
        n = leaf.numel()
        picks = range(n) if n <= limit else rng.choice(n, limit, replace=False)
        flat = leaf.detach().view(-1) if leaf.is_contiguous() else None
        est = {}
        for i in picks:
            if flat is None:
                break
            i = int(i)
            with axle.no_grad():
                old = float(flat[i])
                flat[i] = old + eps
                hi = _objective(fn, args, vs)
                flat[i] = old - eps
                lo = _objective(fn, args, vs)
                flat[i] = old
            est[i] = (hi - lo) / (2 * eps)
        estimates.append(est)
    return estimates


def _close(a, b, rtol=1e-3, atol=1e-5):
    return np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)


GRAD_OPS = [s for s in SAMPLE_OPS if FLOAT64 in s[1]
            and axle._C._derivative_of(s[0]) in ("formula", "decomposes") and s[0] not in RANDOM]


@pytest.mark.parametrize("op", [s[0] for s in GRAD_OPS])
def test_gradient_matches_torch_and_finite_differences(op):
    fn = axle_callable(op)
    counts = SUMMARY.setdefault(op, [0, 0, 0])
    problems = []
    for (args, note, error, _, _), (targs, _, _, _, _) in zip(axle._C._sample_inputs(op, FLOAT64, "cpu", SEED),
                                                            axle._C._sample_inputs(op, FLOAT64, "cpu", SEED)):
        if error:
            continue
        skip = NOT_DIFFERENTIABLE.get(op.split(".")[0], ())
        args, leaves = _leaves(args, skip)
        targs = [(name, kw, to_torch(value) if name in skip else value) for name, kw, value in targs]
        if not leaves:
            counts[2] += 1
            continue
        # In-place ops write their first argument: they get a non-leaf copy.
        inplace = op.split(".")[0].endswith("_")
        try:
            result = _call(fn, args, lambda t: t.clone() if inplace and t is args[0][2] else t)
        except NotImplementedError as e:
            problems.append("%s: %s" % (note, e))
            continue
        outs = _float_outputs(result)
        outs = [o for o in outs if o.requires_grad]
        if not outs:
            counts[2] += 1
            continue
        rng = np.random.default_rng(SEED)
        # Cotangents: random, zero where an output is not finite (NaN inputs): the
        # derivative of the other outputs is still defined, and finite differences see it.
        vs = [rng.standard_normal(tuple(o.shape)) * np.isfinite(_np(o)) for o in outs]
        if all(not v.any() for v in vs) and any(o.numel() for o in outs):
            counts[2] += 1  # every output is NaN or infinite: nothing to compare
            continue
        grads = axle.autograd.grad(outs, leaves, [axle.tensor(v) for v in vs], allow_unused=True)
        got = [np.zeros(tuple(l.shape)) if g is None else _np(g) for g, l in zip(grads, leaves)]
        # torch's autograd on the same values.
        want = None
        try:
            tfn = torch_callable(op, targs)
            tleaves = [torch.tensor(_np(l), requires_grad=True) for l in leaves]
            it = iter(tleaves)

            def to_torch_leaf(v):  # the float64 tensors become (copies of) torch's leaves, in order
                if isinstance(v, axle.Tensor) and v.dtype == axle.float64:
                    return next(it).clone()
                if isinstance(v, (list, tuple)):
                    return type(v)(to_torch_leaf(x) for x in v)
                return to_torch(v)

            tres = call(tfn, targs, to_torch_leaf)
            touts = [r for r in (tres if isinstance(tres, (list, tuple)) else [tres])
                     if isinstance(r, torch.Tensor) and r.dtype == torch.float64 and r.requires_grad]
            if len(touts) == len(outs):
                tg = torch.autograd.grad(touts, tleaves, [torch.from_numpy(v) for v in vs], allow_unused=True)
                want = [np.zeros(tuple(l.shape)) if g is None else g.numpy() for g, l in zip(tg, tleaves)]
        except Exception:  # noqa: BLE001 - torch lacks the op or this form of it: finite differences decide
            want = None
        torch_says = None
        if want is not None:
            torch_says = all(_close(a, b, rtol=1e-6, atol=1e-8) for a, b in zip(got, want))
            if torch_says:
                counts[0] += 1
                continue
        if op in TORCH_ONLY:
            if torch_says is False:
                problems.append("%s: differs from torch" % note)
            else:
                counts[2] += 1
            continue
        # No torch answer, or a different one: finite differences of axle's forward decide.
        counts[1] += 1
        estimates = _finite_difference(fn, args, leaves, vs)
        for k, (g, est) in enumerate(zip(got, estimates)):
            flat = g.reshape(-1)
            values = _np(leaves[k]).reshape(-1)
            for i, e in est.items():
                if not np.isfinite(values[i]):
                    continue  # perturbing a NaN or an infinity tells nothing
                if not _close(flat[i], e):
                    problems.append("%s: input %d element %d: analytic %.6g, finite difference %.6g%s" % (
                        note, k, i, flat[i], e, "" if torch_says is None else " (torch differs too)"))
                    break
    assert not problems, "\n".join(problems)
