"""L-BFGS (torch.optim.LBFGS): limited-memory BFGS over all parameters as one
flat vector, with an optional strong-Wolfe line search."""
from .optimizer import Optimizer

import axle as _axle

__all__ = ["LBFGS"]


def _cubic_minimizer(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1 and
    g2, clamped to ``bounds`` (default: the interval between x1 and x2); the
    bounds' midpoint when the cubic has no minimizer. The slopes are scalar
    tensors (directional derivatives), so the result may be one too."""
    if bounds is None:
        bounds = (x1, x2) if x1 <= x2 else (x2, x1)
    low, high = bounds
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    discriminant = d1 ** 2 - g1 * g2
    if not discriminant >= 0:
        return (low + high) / 2.0
    d2 = discriminant.sqrt()
    if x1 <= x2:
        minimizer = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        minimizer = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(minimizer, low), high)


def _strong_wolfe_search(evaluate, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """A line search along ``d`` from the parameters ``x`` (loss ``f``, flat
    gradient ``g``, directional derivative ``gtd``) starting at step ``t``, for a
    step meeting the strong Wolfe conditions: sufficient decrease (``c1``) and
    curvature (``c2``). It first brackets such a step, extrapolating by cubic
    interpolation, then narrows the bracket (the zoom phase). ``evaluate(x, t, d)``
    gives the loss and flat gradient at ``x + t d`` and restores ``x``.
    Returns (loss, flat gradient, step, number of evaluations)."""
    d_norm = d.abs().max()
    g = g.clone()
    f_new, g_new = evaluate(x, t, d)
    evals = 1
    gtd_new = g_new.dot(d)

    # ---- bracketing: points (step, loss, gradient, directional derivative)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    found = False
    iters = 0
    bracket = None
    while iters < max_ls:
        if f_new > (f + c1 * t * gtd) or (iters > 1 and f_new >= f_prev):
            bracket = [[t_prev, f_prev, g_prev, gtd_prev], [t, f_new, g_new.clone(), gtd_new]]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket = [[t, f_new, g_new, None]]
            found = True
            break
        if gtd_new >= 0:
            bracket = [[t_prev, f_prev, g_prev, gtd_prev], [t, f_new, g_new.clone(), gtd_new]]
            break
        # extrapolate: a cubic step between 1.01 t and 10 t (relative to the previous point)
        lower, upper = t + 0.01 * (t - t_prev), t * 10
        t_last = t
        t = _cubic_minimizer(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(lower, upper))
        t_prev, f_prev, g_prev, gtd_prev = t_last, f_new, g_new.clone(), gtd_new
        f_new, g_new = evaluate(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        iters += 1
    if iters == max_ls:  # gave up bracketing: between the start and the last step
        bracket = [[0, f, g, None], [t, f_new, g_new, None]]

    # ---- zoom: shrink the bracket until a point meets the conditions
    steps = [b[0] for b in bracket]
    losses = [b[1] for b in bracket]
    grads = [b[2] for b in bracket]
    slopes = [b[3] for b in bracket]
    low, high = (0, 1) if losses[0] <= losses[-1] else (1, 0)
    insufficient = False
    while not found and iters < max_ls:
        if abs(steps[1] - steps[0]) * d_norm < tolerance_change:
            break  # the bracket is too small to matter
        t = _cubic_minimizer(steps[0], losses[0], slopes[0], steps[1], losses[1], slopes[1])
        # keep trial points off the bracket's ends: when the interpolation lands
        # within 10% of an end twice running (or on/past one), move it to 10% inside
        top, bottom = max(steps), min(steps)
        margin = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < margin:
            if insufficient or t >= top or t <= bottom:
                t = top - margin if abs(t - top) < abs(t - bottom) else bottom + margin
                insufficient = False
            else:
                insufficient = True
        else:
            insufficient = False

        f_new, g_new = evaluate(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        iters += 1
        if f_new > (f + c1 * t * gtd) or f_new >= losses[low]:
            # not enough decrease, or no better than the low end: it becomes the high end
            steps[high], losses[high], grads[high], slopes[high] = t, f_new, g_new.clone(), gtd_new
            low, high = (0, 1) if losses[0] <= losses[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                found = True
            elif gtd_new * (steps[high] - steps[low]) >= 0:
                # the minimum lies on the other side: the old low end becomes the high end
                steps[high], losses[high], grads[high], slopes[high] = (steps[low], losses[low], grads[low],
                                                                        slopes[low])
            steps[low], losses[low], grads[low], slopes[low] = t, f_new, g_new.clone(), gtd_new
    return losses[low], grads[low], steps[low], evals


class LBFGS(Optimizer):
    r"""L-BFGS.

    ``step(closure)`` runs up to ``max_iter`` iterations (and ``max_eval`` closure
    evaluations) on all the parameters seen as one flat vector :math:`x`: the
    search direction is the two-loop recursion's approximation of
    :math:`-H^{-1}\nabla f` from the last ``history_size`` curvature pairs
    :math:`(s, y)` (a pair is kept when :math:`y^\top s > 10^{-10}`), scaled
    initially by :math:`y^\top s / y^\top y`; the first iteration takes
    :math:`t = \min(1, 1/\|g\|_1)\,\gamma`, later ones :math:`t = \gamma`, either
    as a fixed step or as the start of a strong-Wolfe line search. It stops
    early when the gradient's largest entry is at most ``tolerance_grad``, or the
    step or the loss change is below ``tolerance_change``.

    LBFGS keeps one global state, registered on the first parameter as torch
    does: ``'func_evals'``, ``'n_iter'``, the direction ``'d'``, step ``'t'``,
    ``'old_dirs'``, ``'old_stps'``, ``'ro'``, ``'H_diag'``, ``'prev_flat_grad'``,
    ``'prev_loss'`` and ``'al'``. It supports a single parameter group only.

    Args:
        params: tensors to optimize.
        lr (float): learning rate (default 1).
        max_iter (int): iterations per step (default 20).
        max_eval (int, optional): closure evaluations per step (default
            ``max_iter * 5 // 4``).
        tolerance_grad (float): first-order optimality tolerance (default 1e-7).
        tolerance_change (float): tolerance on the step and loss changes (default 1e-9).
        history_size (int): curvature pairs kept (default 100).
        line_search_fn (str, optional): None or ``'strong_wolfe'``.
    """

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7, tolerance_change=1e-9,
                 history_size=100, line_search_fn=None):
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
                        tolerance_change=tolerance_change, history_size=history_size,
                        line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise _axle.ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    def _numel(self):
        if self._numel_cache is None:
            self._numel_cache = sum(p.numel() for p in self._params)
        return self._numel_cache

    def _flat_grad(self):
        """All the gradients as one vector (zeros for a parameter without one)."""
        parts = [p.new_zeros(p.numel()) if p.grad is None else p.grad.reshape(-1) for p in self._params]
        return _axle.cat(parts, 0)

    def _add_to_params(self, step_size, direction):
        """x += step_size * direction, the flat direction cut into the parameters."""
        if isinstance(step_size, _axle.Tensor):
            step_size = step_size.item()
        offset = 0
        for p in self._params:
            numel = p.numel()
            p.add_(direction[offset:offset + numel].view_as(p), alpha=step_size)
            offset += numel
        assert offset == self._numel()

    def _clone_params(self):
        return [p.clone() for p in self._params]

    def _set_params(self, values):
        for p, value in zip(self._params, values):
            p.copy_(value)

    def _evaluate_at(self, closure, x, t, d):
        """The loss and flat gradient at x + t d; the parameters are put back to x."""
        self._add_to_params(t, d)
        loss = float(closure())
        flat_grad = self._flat_grad()
        self._set_params(x)
        return loss, flat_grad

    def step(self, closure):
        """Runs the iterations; ``closure`` (required) clears the gradients,
        re-evaluates the model, back-propagates and returns the loss. Returns the
        loss of the first evaluation."""
        assert len(self.param_groups) == 1

        def evaluate():  # the closure always runs with grad mode on
            with _axle.enable_grad():
                return closure()

        with _axle.no_grad():
            return self._run(evaluate)

    def _run(self, closure):
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]

        # the state is global, kept on the first parameter (so load_state_dict casts it)
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if flat_grad.abs().max() <= tolerance_grad:  # already optimal
            return orig_loss

        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag = state.get("H_diag")
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1

            # ---- the search direction
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                y = flat_grad.sub(prev_flat_grad)  # gradient change
                s = d.mul(t)  # parameter change
                ys = y.dot(s)
                if ys > 1e-10:  # keep the pair only with positive curvature
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)  # the initial inverse Hessian's scale
                count = len(old_dirs)
                if "al" not in state:
                    state["al"] = [None] * history_size
                al = state["al"]
                # two-loop recursion, in one buffer: newest pair to oldest, then back
                q = flat_grad.neg()
                for i in range(count - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q.add_(old_dirs[i], alpha=-al[i].item())
                d = r = _axle.mul(q, H_diag)
                for i in range(count):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r.add_(old_stps[i], alpha=(al[i] - be_i).item())

            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss

            # ---- the step length
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)  # directional derivative
            if gtd > -tolerance_change:
                break

            evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise _axle.NotImplementedError("only 'strong_wolfe' is supported")
                x_init = self._clone_params()

                def evaluate_along(x, step, direction):
                    return self._evaluate_at(closure, x, step, direction)

                loss, flat_grad, t, evals = _strong_wolfe_search(evaluate_along, x_init, t, d, loss, flat_grad, gtd)
                self._add_to_params(t, d)
                opt_cond = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_to_params(t, d)  # a fixed step
                if n_iter != max_iter:  # the last iteration does not re-evaluate
                    loss = float(closure())
                    flat_grad = self._flat_grad()
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                    evals = 1
            current_evals += evals
            state["func_evals"] += evals

            # ---- stopping
            if n_iter == max_iter or current_evals >= max_eval:
                break
            if opt_cond:
                break
            if d.mul(t).abs().max() <= tolerance_change:  # no progress in the parameters
                break
            if abs(loss - prev_loss) < tolerance_change:  # nor in the loss
                break

        state["d"] = d
        state["t"] = t
        state["old_dirs"] = old_dirs
        state["old_stps"] = old_stps
        state["ro"] = ro
        state["H_diag"] = H_diag
        state["prev_flat_grad"] = prev_flat_grad
        state["prev_loss"] = prev_loss
        return orig_loss
