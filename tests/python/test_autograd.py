"""Autograd's behaviour as torch's: tensor state, the engine (accumulation,
reuse, retain_graph, hooks, autograd.grad, higher order), grad modes, views,
and every misuse torch refuses, as a typed error. Gradients of single ops are
checked op by op in test_autograd_samples.py."""
import threading

import numpy as np
import pytest

import axle

torch = pytest.importorskip("torch")


def leaf(values, dtype=axle.float64):
    return axle.tensor(values, dtype=dtype, requires_grad=True)


def np_(t):
    return np.array(t.detach())


# ---------------------------------------------------------------- tensor state
def test_leaf_state_as_torch():
    x = leaf([1.0, 2.0])
    assert x.requires_grad and x.is_leaf and x.grad_fn is None and x.grad is None
    y = x * 2
    assert y.requires_grad and not y.is_leaf and y.grad_fn.name() == "MulBackward0"
    assert y.grad_fn.next_functions[0][0].name() == "AccumulateGrad"
    plain = axle.ones(2)
    assert not plain.requires_grad and plain.is_leaf and (plain * 2).grad_fn is None


def test_requires_grad_needs_a_floating_tensor():
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        axle.ones(2, dtype=axle.int64).requires_grad_()
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        axle.tensor([1, 2], requires_grad=True)


def test_factories_take_requires_grad():
    for t in (axle.zeros(2, requires_grad=True), axle.ones(2, 3, requires_grad=True),
              axle.full((2,), 1.5, requires_grad=True), axle.rand(2, requires_grad=True),
              axle.randn(2, requires_grad=True), axle.arange(3.0, requires_grad=True),
              axle.zeros_like(axle.ones(2), requires_grad=True), axle.empty(2, requires_grad=True)):
        assert t.requires_grad and t.is_leaf


def test_non_leaf_cannot_stop_requiring_grad():
    y = leaf([1.0]) * 2
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf variables"):
        y.requires_grad_(False)


def test_detach_shares_memory_without_history():
    x = leaf([1.0, 2.0])
    d = (x * 3).detach()
    assert not d.requires_grad and d.grad_fn is None
    y = x * 3
    dy = y.detach()
    with axle.no_grad():
        dy.add_(1)
    assert np_(y).tolist() == [4.0, 7.0]  # same memory


# ---------------------------------------------------------------- the engine
def test_backward_matches_torch_on_a_small_graph():
    xv, wv = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], [[1.0, 2.0], [-1.0, 0.5], [0.3, 0.7]]
    x, w = leaf(xv), leaf(wv)
    loss = (axle.tanh(x @ w).sum(1) ** 2).mean() if hasattr(axle.Tensor, "__pow__") else \
        axle.tanh(x @ w).sum(1).square().mean()
    loss.backward()
    tx, tw = torch.tensor(xv, dtype=torch.float64, requires_grad=True), torch.tensor(wv, dtype=torch.float64,
                                                                                  requires_grad=True)
    torch.tanh(tx @ tw).sum(1).square().mean().backward()
    np.testing.assert_allclose(np_(x.grad), tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(np_(w.grad), tw.grad.numpy(), rtol=1e-12)


def test_gradients_accumulate_and_a_tensor_used_twice_sums():
    x = leaf([3.0])
    (x * x).sum().backward()
    assert np_(x.grad).tolist() == [6.0]
    (x * x).sum().backward()
    assert np_(x.grad).tolist() == [12.0]
    x.grad = None
    (x + x + x).sum().backward()
    assert np_(x.grad).tolist() == [3.0]


def test_non_scalar_backward_needs_a_gradient():
    x = leaf([1.0, 2.0])
    y = x * 2
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs") as e:
        y.backward()
    assert isinstance(e.value, axle.AutogradError)
    y.backward(axle.tensor([1.0, 10.0], dtype=axle.float64))
    assert np_(x.grad).tolist() == [2.0, 20.0]
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (x * 2).backward(axle.ones(3, dtype=axle.float64))


def test_backward_of_a_tensor_without_grad_fn_is_an_error():
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        axle.ones(1).backward()


def test_freed_graph_and_retain_graph():
    x = leaf([2.0])
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert np_(x.grad).tolist() == [8.0]
    with pytest.raises(RuntimeError, match="backward through the graph a second time") as e:
        y.backward()
    assert isinstance(e.value, axle.AutogradError)


def test_saved_output_modified_in_place_is_detected():
    x = leaf([1.0, -2.0])
    y = x * 2
    y.relu_()  # saves its result
    y.mul_(3)
    with pytest.raises(RuntimeError, match="output 0 of ReluBackward0, is at version 2; expected version 1"):
        y.sum().backward()


def test_saved_tensor_modified_in_place_is_detected():
    x = leaf([1.0, 2.0])
    y = x * 1  # a non-leaf
    z = (y * y).sum()  # saves y
    with axle.no_grad():
        pass
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as e:
        z.backward()
    assert "is at version 1; expected version 0" in str(e.value)


def test_in_place_on_a_leaf_that_requires_grad_is_refused():
    x = leaf([1.0])
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        x.add_(1)
    with axle.no_grad():
        x.add_(1)  # allowed: an optimizer's update
    assert np_(x).tolist() == [2.0]


def test_in_place_on_a_non_leaf_records_it():
    x = leaf([1.0, -2.0, 3.0])
    y = x * 2
    y.mul_(3)
    y.relu_()
    assert y.grad_fn.name() == "ReluBackward0"
    (y * y).sum().backward()
    tx = torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64, requires_grad=True)
    ty = tx * 2
    ty.mul_(3)
    ty.relu_()
    (ty * ty).sum().backward()
    np.testing.assert_allclose(np_(x.grad), tx.grad.numpy())


def test_out_with_grad_is_refused():
    x = leaf([1.0])
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        axle.add(x, x, out=axle.empty(1, dtype=axle.float64))


def test_autograd_grad_with_create_graph_gives_higher_orders():
    x = leaf([0.5, 2.0])
    y = (x * x * x).sum()
    (g,) = axle.autograd.grad(y, x, create_graph=True)
    np.testing.assert_allclose(np_(g), [0.75, 12.0])
    (h,) = axle.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(np_(h), [3.0, 12.0])  # 6x
    assert x.grad is None  # grad() accumulates nothing


def test_autograd_grad_unused_inputs():
    x, z = leaf([1.0]), leaf([2.0])
    y = (x * 3).sum()
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        axle.autograd.grad(y, [x, z], retain_graph=True)
    gx, gz = axle.autograd.grad(y, [x, z], allow_unused=True)
    assert np_(gx).tolist() == [3.0] and gz is None


def test_autograd_grad_of_a_non_leaf():
    x = leaf([1.0, 2.0])
    y = x * 2
    z = (y * y).sum()
    (gy,) = axle.autograd.grad(z, y)
    np.testing.assert_allclose(np_(gy), [4.0, 8.0])


def test_backward_inputs_accumulates_only_into_them():
    x, w = leaf([1.0]), leaf([2.0])
    (x * w).sum().backward(inputs=[w])
    assert x.grad is None and np_(w.grad).tolist() == [1.0]


def test_retain_grad_and_hooks():
    x = leaf([1.0, 2.0])
    y = x * 3
    y.retain_grad()
    seen = []
    y.register_hook(lambda g: seen.append(np_(g).tolist()))
    x.register_hook(lambda g: g * 10)  # replaces the leaf's gradient
    (y * y).sum().backward()
    assert seen == [[6.0, 12.0]]
    np.testing.assert_allclose(np_(y.grad), [6.0, 12.0])
    np.testing.assert_allclose(np_(x.grad), [180.0, 360.0])


# ---------------------------------------------------------------- grad modes
def test_no_grad_enable_grad_set_grad_enabled():
    x = leaf([1.0])
    with axle.no_grad():
        assert not axle.is_grad_enabled()
        assert not (x * 2).requires_grad
        with axle.enable_grad():
            assert (x * 2).requires_grad
    assert axle.is_grad_enabled()
    axle.set_grad_enabled(False)
    assert not (x * 2).requires_grad
    axle.set_grad_enabled(True)
    with axle.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad
    with axle.inference_mode():
        assert not (x * 2).requires_grad


def test_grad_modes_as_decorators():
    x = leaf([1.0])

    @axle.no_grad()
    def f():
        return x * 2

    assert not f().requires_grad and axle.is_grad_enabled()


def test_grad_mode_is_per_thread():
    x = leaf([1.0])
    seen = []
    with axle.no_grad():
        t = threading.Thread(target=lambda: seen.append((x * 2).requires_grad))
        t.start()
        t.join()
    assert seen == [True]


# ---------------------------------------------------------------- views
def test_views_of_tensors_that_require_grad():
    x = leaf([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    y = x.t()[1:, ::2] * 2 + x[0].unsqueeze(0).expand(2, 3)[:, :2] + x.view(3, 2).permute(1, 0)[:, 1:]
    y.sum().backward()
    tx = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=torch.float64, requires_grad=True)
    ty = tx.t()[1:, ::2] * 2 + tx[0].unsqueeze(0).expand(2, 3)[:, :2] + tx.view(3, 2).permute(1, 0)[:, 1:]
    ty.sum().backward()
    np.testing.assert_allclose(np_(x.grad), tx.grad.numpy())


def both(fn):
    """fn(L) with L = axle and L = torch; returns both results."""
    return fn(axle), fn(torch)


def test_assigning_into_slices_of_a_buffer_records_copy_slices():
    # out[i] = y: the buffer's history becomes CopySlices (torch's rebase).
    def f(L):
        y = L.tensor([1.0, 2.0, 3.0], dtype=L.float64, requires_grad=True)
        out = L.zeros(2, 3, dtype=L.float64)
        out[0] = y * 2
        out[1, 1:] = y[:2] * y[:2]
        out[1, 0] = 7.0  # a constant written over part of it
        (out * L.tensor([[1.0, 2, 3], [4, 5, 6]], dtype=L.float64)).sum().backward()
        name = out.grad_fn.name() if L is axle else type(out.grad_fn).__name__
        return y.grad.tolist(), name, out.requires_grad, out.is_leaf
    assert both(f)[0] == both(f)[1]


def test_in_place_ops_on_views_of_non_leaves():
    def f(L):
        x = L.tensor([[1.0, -2.0], [3.0, 4.0]], dtype=L.float64, requires_grad=True)
        a = x * 1
        a[0].mul_(3)
        v = a.t()[1]  # a view of a view: the root base's history is rebased
        v.add_(x[0])
        a[:, 1].relu_()  # saves its output: nothing may write it afterwards
        (a * L.tensor([[1.0, 2], [3, 4]], dtype=L.float64)).sum().backward()
        return x.grad.tolist()
    got, want = both(f)
    np.testing.assert_allclose(got, want)


def test_a_view_taken_before_its_base_changed_in_place_follows_the_base():
    def f(L):
        x = L.tensor([1.0, 2.0, 3.0, 4.0], dtype=L.float64, requires_grad=True)
        a = x * 2
        v = a[1:3]
        a.mul_(x)  # the view now reads 2 * x * x
        (v * L.tensor([1.0, 10.0], dtype=L.float64)).sum().backward()
        return x.grad.tolist(), v.is_leaf, v.requires_grad
    assert both(f)[0] == both(f)[1]


def test_gradients_of_many_views_of_one_base_add_up():
    # chunk into q, k, v then reshape and transpose each (views of views of one
    # base: their gradients go into one buffer); a base used directly too; a
    # view of a leaf; broadcast (expanded) views.
    def f(L):
        x = L.tensor(np.arange(24.0).reshape(2, 12) / 7, dtype=L.float64, requires_grad=True)
        y = x * 1.5
        q, k, v = (t.reshape(2, 2, 2).transpose(1, 2) for t in y.chunk(3, -1))
        out = (q * 2 + k * k - v).sum() + y.sum() * 0.5 + (x[0, 1:5] * 3).sum()
        out = out + (x[:, :1].expand(2, 5) * 2).sum()
        out.backward()
        return x.grad.tolist()
    got, want = both(f)
    np.testing.assert_allclose(got, want)


def test_a_saved_view_keeps_no_cycle_and_its_history():
    # A view keeps its base; saved as an input by an op that becomes the base's
    # history (y.mul_(y[0]), a[0].mul_(a[1])) it must not keep the graph alive.
    x = leaf([1.0, 2.0, 3.0, 4.0])
    before = axle.memory_allocated("cpu")
    for _ in range(3):
        y = x * 1
        y.mul_(y[0])
        a = (x * 2).view(2, 2)
        a[0].mul_(a[1])
        del y, a
    assert axle.memory_allocated("cpu") == before
    # ... and higher orders still see a saved view's history.
    def f(L):
        x = L.tensor([1.0, 2.0, 3.0], dtype=L.float64, requires_grad=True)
        v = (x * 1)[0:2]
        g, = L.autograd.grad((v * v).sum(), x, create_graph=True)
        (g * g).sum().backward()
        return g.tolist(), x.grad.tolist()
    assert both(f)[0] == both(f)[1]


def test_in_place_through_views_refused_as_torch_refuses():
    x = leaf([1.0, 2.0])
    with pytest.raises(axle.AutogradError, match="view of a leaf Variable"):
        x[0:1].mul_(2)
    y = x * 1
    r = y[1:].relu_()
    y[1:].mul_(2)  # relu_ saved its output, which this overwrote: refused at backward, as torch
    with pytest.raises(axle.AutogradError, match="modified by an inplace operation"):
        r.sum().backward()


def test_in_place_into_a_view_made_in_no_grad_mode_is_refused_as_torch():
    # torch's CreationMeta::NO_GRAD_MODE: with grad mode on, writing such a view (of a
    # leaf or a non-leaf that requires grad, or a view of it) is refused; inside
    # no_grad it is allowed, and views of tensors that need no grad are unaffected.
    for lib in (axle, torch):
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        y = x * 2
        with lib.no_grad():
            vx, vy = x[:2], y[:2]
            vv = vy[1:]
        for v, other in ((vx, 1), (vy, 1), (vy, lib.ones(2, dtype=lib.float64, requires_grad=True)), (vv, 1)):
            with pytest.raises(RuntimeError, match="view was created in no_grad mode"):
                v.add_(other)
        with lib.no_grad():
            vy.add_(1)  # both in no_grad: allowed, not tracked
        assert y.detach()[0].item() == 3.0
        z = lib.ones(3, dtype=lib.float64)
        with lib.no_grad():
            vz = z[:2]
        vz.add_(1)  # z requires no grad
        assert z[0].item() == 2.0


def test_a_fresh_tensor_filled_in_place_takes_history():
    x = leaf([1.0, 2.0])
    buf = axle.empty(2, dtype=axle.float64)
    buf.copy_(x * 3)
    buf.sum().backward()
    assert np_(x.grad).tolist() == [3.0, 3.0]


# ---------------------------------------------------------------- not differentiable
def test_ops_without_derivative_give_no_history():
    x = leaf([1.0, 2.0])
    assert not (x > 1).requires_grad
    assert not axle.argmax(x).requires_grad
    assert axle._C._derivative_of("eq.Tensor") == "none: comparison: bool output"


# ---------------------------------------------------------------- custom functions
class Cube(axle.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.save_for_backward(x)
        ctx.scale = scale
        return x * x * x * scale

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x * x * ctx.scale, None


class SortWithIndices(axle.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        values, indices = axle.sort(x)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad_values, grad_indices):
        (indices,) = ctx.saved_tensors
        return axle.zeros_like(grad_values).scatter(0, indices, grad_values)


def test_custom_function_forward_backward_and_ctx():
    x = leaf([1.0, 2.0])
    seen = []

    class Probe(axle.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, k):
            seen.append(ctx.needs_input_grad)
            return a * b * k

        @staticmethod
        def backward(ctx, g):
            return g, None, None

    Probe.apply(x, axle.ones(2, dtype=axle.float64), 3)
    assert seen == [(True, False, False)]
    y = Cube.apply(x, 2.0)
    assert y.grad_fn.name() == "CubeBackward"
    y.sum().backward()
    np.testing.assert_allclose(np_(x.grad), [6.0, 24.0])


def test_custom_function_non_differentiable_outputs():
    x = leaf([3.0, 1.0, 2.0])
    values, indices = SortWithIndices.apply(x)
    assert values.requires_grad and not indices.requires_grad
    (values * axle.tensor([1.0, 10.0, 100.0], dtype=axle.float64)).sum().backward()
    np.testing.assert_allclose(np_(x.grad), [100.0, 1.0, 10.0])


def test_custom_function_saved_tensor_checks_and_errors():
    x = leaf([1.0, 2.0])
    y = x * 1
    z = Cube.apply(y, 1.0)
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()

    class Wrong(axle.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError, match="returned an incorrect number of gradients"):
        Wrong.apply(x, x).sum().backward()


def test_custom_function_without_grad_records_nothing():
    with axle.no_grad():
        y = Cube.apply(leaf([1.0]), 1.0)
    assert y.grad_fn is None


def test_an_op_returning_its_argument_keeps_the_history():
    # contiguous() of a contiguous tensor is the tensor itself (as torch): no new
    # node, and no cycle from a node back to its own input.
    x = leaf([1.0, 2.0])
    assert x.contiguous().is_leaf and x.contiguous().grad_fn is None
    y = x * 2
    assert y.contiguous().grad_fn.name() == "MulBackward0"


def test_gradcheck_and_gradgradcheck():
    x = axle.tensor([[0.3, -1.2], [0.7, 2.0]], dtype=axle.float64, requires_grad=True)
    w = axle.tensor([0.5, -0.25], dtype=axle.float64, requires_grad=True)
    assert axle.autograd.gradcheck(lambda a, b: (axle.tanh(a) * b).sum(1), (x, w))
    assert axle.autograd.gradgradcheck(lambda a: axle.sigmoid(a) * a, (x,))

    class WrongSquare(axle.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return g * a  # should be 2 a

    with pytest.raises(axle.autograd.GradcheckError, match="Jacobian mismatch"):
        axle.autograd.gradcheck(WrongSquare.apply, (x,))
    assert not axle.autograd.gradcheck(WrongSquare.apply, (x,), raise_exception=False)
    with pytest.raises(NotImplementedError, match="check_forward_ad"):
        axle.autograd.gradcheck(lambda a: a * 2, (x,), check_forward_ad=True)


def test_grad_is_one_python_object_as_torch():
    for lib in (axle, torch):
        w = lib.ones(3, requires_grad=True)
        (w * 2).sum().backward()
        first = w.grad
        assert w.grad is first
        (w * 2).sum().backward()  # accumulated in place: the same tensor
        assert w.grad is first and first.tolist() == [4.0, 4.0, 4.0]
        g = lib.zeros(3)
        w.grad = g
        assert w.grad is g
        w.grad = None
        assert w.grad is None


def test_leaky_relu_gradient_keeps_the_slope_exact_in_float64():
    x = axle.tensor([-1.0, 2.0], dtype=axle.float64, requires_grad=True)
    axle.nn.functional.leaky_relu(x, 0.3).sum().backward()
    assert x.grad.tolist() == [0.3, 1.0]


def test_overlapping_views_sum_their_gradients_as_torch():
    # as_strided windows and unfold with step < size share storage positions.
    def f(L):
        x = L.tensor(np.arange(8.0), dtype=L.float64, requires_grad=True)
        w = L.tensor(np.arange(12.0).reshape(4, 3), dtype=L.float64)
        out = (x.as_strided((4, 3), (1, 1)) * w).sum() + (x.unfold(0, 3, 1) ** 2).sum()
        out.backward()
        return x.grad.tolist()
    got, want = both(f)
    np.testing.assert_allclose(got, want)


@pytest.mark.parametrize("order", [(0, 1, 2), (2, 1, 0), (1, 0, 2), (0, 2, 1)])
def test_roots_that_depend_on_each_other(order):
    # grad / backward from outputs of which one is computed from another (a and a.sum()):
    # every root's gradient arrives, whatever the order the roots are given in.
    results = {}
    for L in (axle, torch):
        x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        a = x * 2
        b = a.sum()
        c = (a * b).exp().sum() / 1e3
        outs = [a, b, c]
        vs = [L.tensor([1.0, 10.0, 100.0]), L.tensor(1000.0), L.tensor(0.5)]
        (g,) = L.autograd.grad([outs[i] for i in order], [x], [vs[i] for i in order], retain_graph=True)
        x.grad = None
        L.autograd.backward([outs[i] for i in order], [vs[i] for i in order])
        results[L.__name__] = (g.tolist(), x.grad.tolist())
    assert results["axle"][0] == pytest.approx(results["torch"][0], rel=1e-12)
    assert results["axle"][1] == pytest.approx(results["torch"][1], rel=1e-12)
