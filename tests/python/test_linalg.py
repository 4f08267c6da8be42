"""The linalg family against PyTorch 1.13: LU (lu_factor, lu, lu_unpack, lu_solve),
det / slogdet / logdet, inv, solve, matrix_power, triangular solves, Cholesky,
QR, eigh, SVD and their compositions: values (1e-10 relative in float64, 1e-4 in
float32 on well-conditioned inputs), shapes, dtypes, named results, the
axle.linalg namespace, Tensor methods, errors (singular and not
positive-definite inputs with torch's messages) and gradients (float64, against
torch's autograd). The conformance samples (conformance/src/samples/linalg.cpp)
add layouts and run through test_torch_samples.py and test_autograd_samples.py."""
import numpy as np
import pytest

import axle

torch = pytest.importorskip("torch")

TOL = {"float32": dict(rtol=1e-4, atol=1e-5), "float64": dict(rtol=1e-10, atol=1e-12)}


def well(shape, dtype="float64", seed=0):
    """A well-conditioned batch of square matrices: uniform [-1, 1] plus 2n times a permutation."""
    rng = np.random.default_rng(seed)
    n = shape[-1]
    a = rng.uniform(-1, 1, shape) + 2 * n * np.eye(n)[::-1]
    return a.astype(dtype)


def rect(shape, dtype="float64", seed=0):
    """A [..., m, n] batch whose LU pivots and has no small pivots."""
    rng = np.random.default_rng(seed)
    m, n = shape[-2:]
    return (rng.uniform(-1, 1, shape) + 2 * max(m, n) * np.eye(m, n)[::-1]).astype(dtype)


def spd(shape, dtype="float64", seed=0):
    rng = np.random.default_rng(seed)
    r = rng.uniform(-1, 1, shape)
    return (r @ np.swapaxes(r, -1, -2) + shape[-1] * np.eye(shape[-1])).astype(dtype)


def both(a):
    """(axle, torch) tensors of one numpy array."""
    return axle.from_numpy(np.ascontiguousarray(a)), torch.from_numpy(np.ascontiguousarray(a))


def close(got, want, dtype=None):
    dtype = dtype or str(want.dtype).replace("torch.", "")
    assert tuple(got.shape) == tuple(want.shape), (tuple(got.shape), tuple(want.shape))
    assert got.dtype.name == str(want.dtype).replace("torch.", "")
    np.testing.assert_allclose(np.asarray(got.to(axle.float64)), want.double().numpy(), **TOL.get(dtype, {}))


def close_all(got, want, dtype=None):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        close(g, w, dtype)


def raises_like(fa, ft, match=None):
    """torch raises; axle raises an AxleError with torch's message (match: a part of it both contain)."""
    with pytest.raises(Exception) as te:
        ft()
    with pytest.raises(axle.AxleError) as ae:
        fa()
    if match:
        assert match in str(te.value), str(te.value)
        assert match in str(ae.value), str(ae.value)
    return ae.value


def grads(fa, ft, *arrays, outputs=None, masks=None):
    """Gradients of sum(out * v) for every output (or those in `outputs`) w.r.t. every input, axle vs torch
    (masks: per input, a function of the gradient selecting the entries compared)."""
    xa = [axle.from_numpy(a.copy()).requires_grad_() for a in arrays]
    xt = [torch.from_numpy(a.copy()).requires_grad_() for a in arrays]
    oa, ot = fa(*xa), ft(*xt)
    oa = list(oa) if isinstance(oa, tuple) else [oa]
    ot = list(ot) if isinstance(ot, tuple) else [ot]
    keep = outputs if outputs is not None else [i for i, o in enumerate(ot) if o.dtype.is_floating_point]
    rng = np.random.default_rng(5)
    vs = [rng.standard_normal(tuple(ot[i].shape)) for i in keep]
    ga = axle.autograd.grad([oa[i] for i in keep], xa, [axle.from_numpy(v) for v in vs])
    gt = torch.autograd.grad([ot[i] for i in keep], xt, [torch.from_numpy(v) for v in vs])
    for i, (g, w) in enumerate(zip(ga, gt)):
        mask = (masks[i] if masks else None) or (lambda x: x)
        np.testing.assert_allclose(mask(np.asarray(g)), mask(w.numpy()), rtol=1e-8, atol=1e-10)


DTYPES = ["float32", "float64"]
SHAPES = [(3, 3), (1, 1), (2, 4, 4), (2, 1, 5, 5), (0, 3, 3)]


# ---------------------------------------------------------------- LU
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES + [(4, 2), (2, 3, 5), (6, 6)])
def test_lu_factor_lu_unpack_and_lu(dtype, shape):
    xa, xt = both(rect(shape, dtype))
    close_all(axle.linalg.lu_factor_ex(xa), torch.linalg.lu_factor_ex(xt))
    close_all(axle.linalg.lu_factor(xa), torch.linalg.lu_factor(xt))
    close_all(axle.linalg.lu(xa), torch.linalg.lu(xt))
    lu, piv = torch.linalg.lu_factor(xt)
    la, pa = axle.from_numpy(lu.numpy()), axle.from_numpy(piv.numpy())
    close_all(axle.lu_unpack(la, pa), torch.lu_unpack(lu, piv))
    close_all(axle.lu_unpack(la, pa, False), torch.lu_unpack(lu, piv, False))
    close_all(axle.lu_unpack(la, pa, True, False), torch.lu_unpack(lu, piv, True, False))
    r = axle.linalg.lu(xa)
    assert r.P is r[0] and r.L is r[1] and r.U is r[2]
    assert axle.linalg.lu_factor_ex(xa).info.dtype == axle.int32


def test_lu_factor_singular_and_errors():
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    xa, xt = both(a)
    close_all(axle.linalg.lu_factor_ex(xa), torch.linalg.lu_factor_ex(xt))  # info = 2, no error
    raises_like(lambda: axle.linalg.lu_factor(xa), lambda: torch.linalg.lu_factor(xt),
                "U[2,2] is zero and using it on lu_solve would result in a division by zero")
    raises_like(lambda: axle.linalg.lu_factor_ex(xa, check_errors=True),
                lambda: torch.linalg.lu_factor_ex(xt, check_errors=True), "U[2,2] is zero")
    b = np.stack([np.eye(2), a])
    raises_like(lambda: axle.linalg.lu_factor(axle.from_numpy(b)), lambda: torch.linalg.lu_factor(torch.from_numpy(b)),
                "(Batch element 1): U[2,2] is zero")
    raises_like(lambda: axle.linalg.lu_factor(xa, pivot=False), lambda: torch.linalg.lu_factor(xt, pivot=False),
                "LU without pivoting is not implemented on the CPU")
    raises_like(lambda: axle.linalg.lu_factor(axle.ones(3)), lambda: torch.linalg.lu_factor(torch.ones(3)),
                "Expected tensor with 2 or more dimensions. Got size: [3] instead")
    with pytest.raises(axle.DTypeError, match="not implemented for 'Int'"):
        axle.linalg.lu_factor(axle.ones(2, 2, dtype=axle.int32))
    with pytest.raises(axle.DTypeError, match="torch.int32"):
        axle.lu_unpack(xa, axle.ones(2, dtype=axle.int64))


def test_lu_gradients():
    for shape in [(3, 3), (2, 4, 4), (5, 3), (3, 5)]:
        a = rect(shape)
        grads(lambda x: axle.linalg.lu_factor(x)[0], lambda x: torch.linalg.lu_factor(x)[0], a)
        grads(lambda x: axle.linalg.lu(x)[1:], lambda x: torch.linalg.lu(x)[1:], a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [False, True])
def test_lu_solve(dtype, left, adjoint):
    a, b = well((2, 4, 4), dtype), np.random.default_rng(3).uniform(-1, 1, (3, 1, 4, 4) if left else (2, 4)).astype(
        dtype)
    xa, xt = both(a)
    ba, bt = both(b)
    lu, piv = torch.linalg.lu_factor(xt)
    la, pa = axle.linalg.lu_factor(xa)
    close(axle.linalg.lu_solve(la, pa, ba, left=left, adjoint=adjoint),
          torch.linalg.lu_solve(lu, piv, bt, left=left, adjoint=adjoint))
    if dtype == "float64":
        grads(lambda x, y: axle.linalg.lu_solve(*axle.linalg.lu_factor(x), y, left=left, adjoint=adjoint),
              lambda x, y: torch.linalg.lu_solve(*torch.linalg.lu_factor(x), y, left=left, adjoint=adjoint), a, b)


def test_lu_solve_errors():
    xa, xt = both(well((3, 3)))
    la, pa = axle.linalg.lu_factor(xa)
    lt, pt = torch.linalg.lu_factor(xt)
    raises_like(lambda: axle.linalg.lu_solve(la, pa, axle.ones(2, 3, dtype=axle.float64)),
                lambda: torch.linalg.lu_solve(lt, pt, torch.ones(2, 3, dtype=torch.float64)),
                "Incompatible shapes of A and B for the equation AX = B (3x3 and 2x3)")
    raises_like(lambda: axle.linalg.lu_solve(la, pa, axle.ones(3, 2)), lambda: torch.linalg.lu_solve(lt, pt, torch.ones(3, 2)),
                "Expected LU and B to have the same dtype, but found LU of type Double and B of type Float instead")
    raises_like(lambda: axle.linalg.lu_solve(la, pa, axle.ones(3, dtype=axle.float64)),
                lambda: torch.linalg.lu_solve(lt, pt, torch.ones(3, dtype=torch.float64)),
                "The input tensor B must have at least 2 dimensions.")


# ---------------------------------------------------------------- det, slogdet, logdet
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_det_slogdet_logdet(dtype, shape):
    xa, xt = both(well(shape, dtype))
    for fa, ft in [(axle.linalg.det, torch.linalg.det), (axle.det, torch.det), (axle.logdet, torch.logdet),
                   (axle.Tensor.det, torch.Tensor.det), (axle.Tensor.logdet, torch.Tensor.logdet)]:
        close(fa(xa), ft(xt))
    for fa, ft in [(axle.linalg.slogdet, torch.linalg.slogdet), (axle.slogdet, torch.slogdet),
                   (axle.Tensor.slogdet, torch.Tensor.slogdet)]:
        close_all(fa(xa), ft(xt))
    r = axle.linalg.slogdet(xa)
    assert r.sign is r[0] and r.logabsdet is r[1]


def test_det_singular_and_errors():
    for a in [np.array([[1.0, 2.0], [2.0, 4.0]]), np.zeros((3, 3)), -np.eye(3)]:
        xa, xt = both(a)
        close(axle.linalg.det(xa), torch.linalg.det(xt))
        close_all(axle.linalg.slogdet(xa), torch.linalg.slogdet(xt))
        close(axle.logdet(xa), torch.logdet(xt))
    raises_like(lambda: axle.linalg.det(axle.ones(2, 3)), lambda: torch.linalg.det(torch.ones(2, 3)),
                "A must be batches of square matrices, but they are 2 by 3 matrices")
    raises_like(lambda: axle.linalg.det(axle.ones(3)), lambda: torch.linalg.det(torch.ones(3)),
                "The input tensor A must have at least 2 dimensions.")
    with pytest.raises(axle.DTypeError, match="Expected a floating point or complex tensor as input. Got Int"):
        axle.linalg.slogdet(axle.ones(2, 2, dtype=axle.int32))


def test_det_slogdet_logdet_gradients():
    a = well((2, 3, 3))
    grads(axle.linalg.det, torch.linalg.det, a)
    grads(axle.linalg.slogdet, torch.linalg.slogdet, a, outputs=[1])
    grads(axle.logdet, torch.logdet, spd((2, 3, 3)))


# ---------------------------------------------------------------- inv, solve, matrix_power
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_inv(dtype, shape):
    xa, xt = both(well(shape, dtype))
    close(axle.linalg.inv(xa), torch.linalg.inv(xt))
    close(axle.inverse(xa), torch.inverse(xt))
    close(xa.inverse(), xt.inverse())
    r = axle.linalg.inv_ex(xa)
    close_all(r, torch.linalg.inv_ex(xt))
    assert r.inverse is r[0] and r.info is r[1]


def test_inv_singular():
    a = np.array([[1.0, 2.0, 0.0], [2.0, 4.0, 0.0], [0.0, 0.0, 1.0]])
    xa, xt = both(a)
    raises_like(lambda: axle.linalg.inv(xa), lambda: torch.linalg.inv(xt),
                "The diagonal element 2 is zero, the inversion could not be completed because the input matrix is "
                "singular.")
    b = np.stack([a, np.eye(3)])
    raises_like(lambda: axle.inverse(axle.from_numpy(b)), lambda: torch.inverse(torch.from_numpy(b)),
                "(Batch element 0): The diagonal element 2 is zero")
    assert int(axle.linalg.inv_ex(xa).info) == int(torch.linalg.inv_ex(xt).info) == 2
    with pytest.raises(axle.LinAlgError):
        axle.linalg.inv_ex(xa, check_errors=True)
    assert issubclass(axle.linalg.LinAlgError, axle.AxleError) and issubclass(axle.linalg.LinAlgError, RuntimeError)
    with pytest.raises(RuntimeError):  # what torch programs catch
        axle.linalg.inv(xa)
    with pytest.raises(axle.linalg.LinAlgError):
        axle.linalg.inv(xa)
    with pytest.raises(axle.DTypeError, match="Got Long"):
        axle.linalg.inv(axle.ones(2, 2, dtype=axle.int64))


def test_inv_gradients():
    grads(axle.linalg.inv, torch.linalg.inv, well((2, 4, 4)))
    grads(axle.inverse, torch.inverse, well((3, 3)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("a_shape,b_shape,left", [
    ((3, 3), (3, 2), True), ((3, 3), (3,), True), ((2, 3, 3), (2, 3), True), ((3, 3, 3), (3, 3), True),
    ((2, 1, 4, 4), (3, 4, 2), True), ((3, 3), (2, 3), False), ((2, 3, 3), (4, 1, 5, 3), False),
    ((4, 4), (4, 0), True)])
def test_solve(dtype, a_shape, b_shape, left):
    a, b = well(a_shape, dtype), np.random.default_rng(4).uniform(-1, 1, b_shape).astype(dtype)
    (xa, xt), (ba, bt) = both(a), both(b)
    close(axle.linalg.solve(xa, ba, left=left), torch.linalg.solve(xt, bt, left=left))
    close_all(axle.linalg.solve_ex(xa, ba, left=left), torch.linalg.solve_ex(xt, bt, left=left))
    if dtype == "float64" and 0 not in b_shape:
        grads(lambda x, y: axle.linalg.solve(x, y, left=left), lambda x, y: torch.linalg.solve(x, y, left=left), a, b)


def test_solve_errors():
    (xa, xt), (ba, bt) = both(well((3, 3))), both(np.ones((3, 2)))
    raises_like(lambda: axle.linalg.solve(xa, axle.ones(3, 2)), lambda: torch.linalg.solve(xt, torch.ones(3, 2)),
                "Expected A and B to have the same dtype, but found A of type Double and B of type Float instead")
    raises_like(lambda: axle.linalg.solve(xa, axle.ones(3, dtype=axle.float64), left=False),
                lambda: torch.linalg.solve(xt, torch.ones(3, dtype=torch.float64), left=False),
                "Incompatible shapes of A and B for the equation XA = B (3x3 and 3x1)")
    raises_like(lambda: axle.linalg.solve(xa[:2], ba[:2]), lambda: torch.linalg.solve(xt[:2], bt[:2]),
                "A must be batches of square matrices, but they are 2 by 3 matrices")
    (sa, st) = both(np.zeros((3, 3)))
    raises_like(lambda: axle.linalg.solve(sa, ba), lambda: torch.linalg.solve(st, bt),
                "The solver failed because the input matrix is singular.")
    assert int(axle.linalg.solve_ex(sa, ba).info) == int(torch.linalg.solve_ex(st, bt).info)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 6, -1, -2, -5])
@pytest.mark.parametrize("dtype", DTYPES + ["int64"])
def test_matrix_power(n, dtype):
    if dtype == "int64":
        a = np.random.default_rng(6).integers(-3, 4, (2, 3, 3))
    else:
        a = well((2, 3, 3), dtype) / 6
    xa, xt = both(a)
    if dtype == "int64" and n < 0:
        raises_like(lambda: axle.matrix_power(xa, n), lambda: torch.matrix_power(xt, n),
                    "Expected a floating point or complex tensor as input. Got Long")
        return
    close(axle.matrix_power(xa, n), torch.matrix_power(xt, n))
    close(axle.linalg.matrix_power(xa, n), torch.linalg.matrix_power(xt, n))
    close(xa.matrix_power(n), xt.matrix_power(n))
    if dtype == "float64" and n != 0:
        grads(lambda x: axle.linalg.matrix_power(x, n), lambda x: torch.linalg.matrix_power(x, n), a)
    out = axle.matrix_power(xa, 1)
    assert out.data_ptr() != xa.data_ptr()


def test_matrix_power_errors():
    raises_like(lambda: axle.matrix_power(axle.ones(2, 3), 2), lambda: torch.matrix_power(torch.ones(2, 3), 2),
                "A must be batches of square matrices, but they are 2 by 3 matrices")
    raises_like(lambda: axle.matrix_power(axle.ones(3), 2), lambda: torch.matrix_power(torch.ones(3), 2),
                "The input tensor A must have at least 2 dimensions.")


# ---------------------------------------------------------------- triangular solves
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("unit", [False, True])
def test_solve_triangular(dtype, upper, left, unit):
    a = well((2, 1, 4, 4), dtype)
    a = a + 8 * np.eye(4, dtype=dtype)  # the triangle alone is well-conditioned
    b = np.random.default_rng(7).uniform(-1, 1, (3, 4, 2) if left else (3, 2, 4)).astype(dtype)
    (xa, xt), (ba, bt) = both(a), both(b)
    kw = dict(upper=upper, left=left, unitriangular=unit)
    close(axle.linalg.solve_triangular(xa, ba, **kw), torch.linalg.solve_triangular(xt, bt, **kw))
    if dtype == "float64":
        grads(lambda x, y: axle.linalg.solve_triangular(x, y, **kw),
              lambda x, y: torch.linalg.solve_triangular(x, y, **kw), a, b)


def test_solve_triangular_errors():
    (xa, xt) = both(well((3, 3)))
    raises_like(lambda: axle.linalg.solve_triangular(xa, axle.ones(2, 3, dtype=axle.float64), upper=True),
                lambda: torch.linalg.solve_triangular(xt, torch.ones(2, 3, dtype=torch.float64), upper=True),
                "Incompatible shapes of A and B for the equation AX = B (3x3 and 2x3)")
    raises_like(lambda: axle.linalg.solve_triangular(xa, axle.ones(3, dtype=axle.float64), upper=True),
                lambda: torch.linalg.solve_triangular(xt, torch.ones(3, dtype=torch.float64), upper=True),
                "The input tensor B must have at least 2 dimensions.")
    raises_like(lambda: axle.linalg.solve_triangular(axle.ones(2, 3), axle.ones(2, 3), upper=True),
                lambda: torch.linalg.solve_triangular(torch.ones(2, 3), torch.ones(2, 3), upper=True),
                "A must be batches of square matrices, but they are 2 by 3 matrices")
    # torch's result has A's dtype
    close(axle.linalg.solve_triangular(xa, axle.ones(3, 3), upper=True),
          torch.linalg.solve_triangular(xt, torch.ones(3, 3), upper=True))


# ---------------------------------------------------------------- Cholesky
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(dtype, shape, upper):
    xa, xt = both(spd(shape, dtype))
    close(axle.linalg.cholesky(xa, upper=upper), torch.linalg.cholesky(xt, upper=upper))
    close_all(axle.linalg.cholesky_ex(xa, upper=upper), torch.linalg.cholesky_ex(xt, upper=upper))
    close(axle.cholesky(xa, upper), torch.cholesky(xt, upper))
    close(xa.cholesky(upper), xt.cholesky(upper))
    L = torch.linalg.cholesky(xt, upper=upper)
    La = axle.from_numpy(L.numpy())
    close(axle.cholesky_inverse(La, upper), torch.cholesky_inverse(L, upper))
    b = np.random.default_rng(8).uniform(-1, 1, (1,) + shape[-1:] + (2,)).astype(dtype)
    (ba, bt) = both(b)
    close(axle.cholesky_solve(ba, La, upper), torch.cholesky_solve(bt, L, upper))
    r = axle.linalg.cholesky_ex(xa)
    assert r.L is r[0] and r.info is r[1]


def test_cholesky_not_positive_definite():
    a = spd((3, 3))
    a[2, 2] = -1
    xa, xt = both(a)
    raises_like(lambda: axle.linalg.cholesky(xa), lambda: torch.linalg.cholesky(xt),
                "The factorization could not be completed because the input is not positive-definite (the leading "
                "minor of order 3 is not positive-definite).")
    b = np.stack([spd((3, 3)), a])
    raises_like(lambda: axle.linalg.cholesky(axle.from_numpy(b)), lambda: torch.linalg.cholesky(torch.from_numpy(b)),
                "(Batch element 1): The factorization could not be completed")
    raises_like(lambda: axle.cholesky(xa), lambda: torch.cholesky(xt), "cholesky: The factorization")
    raises_like(lambda: axle.linalg.cholesky_ex(xa, check_errors=True),
                lambda: torch.linalg.cholesky_ex(xt, check_errors=True), "linalg.cholesky_ex: The factorization")
    assert int(axle.linalg.cholesky_ex(xa).info) == int(torch.linalg.cholesky_ex(xt).info) == 3
    raises_like(lambda: axle.linalg.cholesky(axle.ones(2, 3)), lambda: torch.linalg.cholesky(torch.ones(2, 3)),
                "A must be batches of square matrices, but they are 2 by 3 matrices")
    raises_like(lambda: axle.cholesky_solve(axle.ones(2, 3, dtype=axle.float64), xa),
                lambda: torch.cholesky_solve(torch.ones(2, 3, dtype=torch.float64), xt),
                "Incompatible matrix sizes for cholesky_solve: each A matrix is 3 by 3 but each b matrix is 2 by 3")


def test_cholesky_gradients():
    for upper in (False, True):
        grads(lambda x: axle.linalg.cholesky(x, upper=upper), lambda x: torch.linalg.cholesky(x, upper=upper),
              spd((2, 4, 4)))
    L = np.linalg.cholesky(spd((3, 3)))
    b = np.random.default_rng(9).uniform(-1, 1, (3, 2))
    # torch's formulas treat the factor as a full matrix; the solves read only its triangle, whose
    # gradient is compared (axle's is zero above it: the derivative of what is computed).
    grads(axle.cholesky_solve, torch.cholesky_solve, b, L, masks=[None, np.tril])
    grads(axle.cholesky_inverse, torch.cholesky_inverse, L, masks=[np.tril])


@pytest.mark.parametrize("upper,transpose,unit", [(True, False, False), (False, True, False), (True, True, True)])
def test_triangular_solve(upper, transpose, unit):
    a = well((2, 3, 3)) + 8 * np.eye(3)
    b = np.random.default_rng(10).uniform(-1, 1, (4, 1, 3, 2))
    (xa, xt), (ba, bt) = both(a), both(b)
    got = axle.triangular_solve(ba, xa, upper, transpose, unit)
    close_all(got, torch.triangular_solve(bt, xt, upper, transpose, unit))
    assert got.solution is got[0] and got.cloned_coefficient is got[1]
    close_all(ba.triangular_solve(xa, upper), bt.triangular_solve(xt, upper))
    grads(lambda x, y: axle.triangular_solve(y, x, upper, transpose, unit)[0],
          lambda x, y: torch.triangular_solve(y, x, upper, transpose, unit)[0], a, b)


# ---------------------------------------------------------------- QR
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (5, 3), (3, 5), (2, 4, 2), (0, 3, 3)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(dtype, shape, mode):
    xa, xt = both(rect(shape, dtype))
    close_all(axle.linalg.qr(xa, mode), torch.linalg.qr(xt, mode))
    if mode != "r":
        close_all(axle.qr(xa, mode == "reduced"), torch.qr(xt, mode == "reduced"))
        close_all(xa.qr(mode == "reduced"), xt.qr(mode == "reduced"))
    r = axle.linalg.qr(xa)
    assert r.Q is r[0] and r.R is r[1]
    if dtype == "float64" and 0 not in shape and not (mode == "complete" and shape[-2] > shape[-1]) and mode != "r":
        grads(lambda x: axle.linalg.qr(x, mode), lambda x: torch.linalg.qr(x, mode), rect(shape))


def test_qr_errors():
    xa, xt = both(rect((3, 3)))
    raises_like(lambda: axle.linalg.qr(xa, "full"), lambda: torch.linalg.qr(xt, "full"),
                "qr received unrecognized mode 'full' but expected one of 'reduced' (default), 'r', or 'complete'")
    with pytest.raises(axle.DTypeError, match="Got Long"):
        axle.linalg.qr(axle.ones(2, 2, dtype=axle.int64))
    q, r = axle.linalg.qr(xa.clone().requires_grad_(), "r")
    with pytest.raises(axle.AxleError, match="mode='r'"):
        r.sum().backward()


# ---------------------------------------------------------------- eigh
def sym(shape, dtype="float64", seed=0):
    r = np.random.default_rng(seed).uniform(-1, 1, shape)
    return (r + np.swapaxes(r, -1, -2)).astype(dtype)


def check_eigh(w, v, a, want_w, dtype):
    close(w, want_w, dtype)
    v, a = np.asarray(v.to(axle.float64)), a.astype(np.float64)
    tol = TOL[dtype]
    n = a.shape[-1]
    np.testing.assert_allclose(a @ v, v * np.asarray(w.to(axle.float64))[..., None, :], rtol=0, atol=tol["rtol"] * 10 * n)
    np.testing.assert_allclose(np.swapaxes(v, -1, -2) @ v, np.broadcast_to(np.eye(n), v.shape), atol=tol["rtol"] * 10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (1, 1), (2, 5, 5), (8, 8), (0, 2, 2)])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(dtype, shape, uplo):
    a = sym(shape, dtype)
    xa, xt = both(a)
    want = torch.linalg.eigvalsh(xt, uplo)
    w, v = axle.linalg.eigh(xa, uplo)
    check_eigh(w, v, a, want, dtype)
    r = axle.linalg.eigh(xa, UPLO=uplo)
    assert r.eigenvalues is r[0] and r.eigenvectors is r[1]
    close(axle.linalg.eigvalsh(xa, uplo), want)
    # only one triangle is read
    noisy = a + np.tril(np.ones(shape[-2:]), -1).astype(dtype) * (3 if uplo == "U" else 0) + \
        np.triu(np.ones(shape[-2:]), 1).astype(dtype) * (3 if uplo == "L" else 0)
    close(axle.linalg.eigvalsh(axle.from_numpy(noisy), uplo), torch.linalg.eigvalsh(torch.from_numpy(noisy), uplo))


def test_eigh_gradients_and_errors():
    a = sym((2, 4, 4))
    # eigenvalues: as torch; eigenvectors: sign-invariant functions of them (v v^T), as torch
    grads(lambda x: axle.linalg.eigvalsh(x), lambda x: torch.linalg.eigvalsh(x), a)
    grads(lambda x: (lambda v: v[..., :, :2] @ v[..., :, :2].mT)(axle.linalg.eigh(x)[1]),
          lambda x: (lambda v: v[..., :, :2] @ v[..., :, :2].mT)(torch.linalg.eigh(x)[1]), a)
    raises_like(lambda: axle.linalg.eigh(axle.ones(2, 3)), lambda: torch.linalg.eigh(torch.ones(2, 3)),
                "A must be batches of square matrices, but they are 2 by 3 matrices")
    raises_like(lambda: axle.linalg.eigh(axle.ones(3, 3), "X"), lambda: torch.linalg.eigh(torch.ones(3, 3), "X"),
                "Expected UPLO argument to be 'L' or 'U', but got X")
    with pytest.raises(axle.DTypeError, match="not implemented for 'Long'"):
        axle.linalg.eigvalsh(axle.ones(2, 2, dtype=axle.int64))


# ---------------------------------------------------------------- SVD
def check_svd(u, s, vh, a, want_s, dtype, full):
    close(s, want_s, dtype)
    u, s, vh = (np.asarray(t.to(axle.float64)) for t in (u, s, vh))
    m, n = a.shape[-2:]
    k = min(m, n)
    assert u.shape[-1] == (m if full else k) and vh.shape[-2] == (n if full else k)
    tol = TOL[dtype]["rtol"] * 10
    np.testing.assert_allclose((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], a, atol=tol * 10)
    np.testing.assert_allclose(np.swapaxes(u, -1, -2) @ u, np.broadcast_to(np.eye(u.shape[-1]), u.shape[:-2] + (u.shape[-1],) * 2), atol=tol)
    np.testing.assert_allclose(vh @ np.swapaxes(vh, -1, -2), np.broadcast_to(np.eye(vh.shape[-2]), vh.shape[:-2] + (vh.shape[-2],) * 2), atol=tol)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (5, 3), (3, 5), (2, 4, 6), (2, 6, 4), (1, 1), (0, 2, 3), (7, 7)])
@pytest.mark.parametrize("full", [False, True])
def test_svd(dtype, shape, full):
    a = np.random.default_rng(11).uniform(-1, 1, shape).astype(dtype)
    xa, xt = both(a)
    want = torch.linalg.svdvals(xt)
    r = axle.linalg.svd(xa, full_matrices=full)
    assert r.U is r[0] and r.S is r[1] and r.Vh is r[2]
    check_svd(*r, a.astype(np.float64), want, dtype, full)
    close(axle.linalg.svdvals(xa), want)
    u, s, v = axle.svd(xa, some=not full)
    check_svd(u, s, v.mT, a.astype(np.float64), want, dtype, full)
    u, s, v = xa.svd(compute_uv=False)
    close_all((u, s, v), torch.svd(xt, compute_uv=False))


def test_svd_rank_deficient():
    a = np.outer(np.arange(1.0, 5.0), np.arange(1.0, 4.0))  # rank 1
    xa, xt = both(a)
    check_svd(*axle.linalg.svd(xa), a, torch.linalg.svdvals(xt), "float64", True)
    np.testing.assert_allclose(np.asarray(axle.linalg.svdvals(xa)), torch.linalg.svdvals(xt).numpy(), atol=1e-12)


def test_svd_gradients_and_errors():
    for shape in [(4, 4), (5, 3), (3, 5), (2, 4, 3)]:
        a = np.random.default_rng(12).uniform(-1, 1, shape)
        grads(axle.linalg.svdvals, torch.linalg.svdvals, a)
        # sign-invariant: U diag(S) Vh pieces and u_i v_i^T products
        grads(lambda x: (lambda r: (r[0][..., :, :2] * r[1][..., None, :2]) @ r[2][..., :2, :])(axle.linalg.svd(x, False)),
              lambda x: (lambda r: (r[0][..., :, :2] * r[1][..., None, :2]) @ r[2][..., :2, :])(torch.linalg.svd(x, False)),
              a)
    raises_like(lambda: axle.linalg.svd(axle.ones(3)), lambda: torch.linalg.svd(torch.ones(3)),
                "The input tensor A must have at least 2 dimensions.")
    raises_like(lambda: axle.linalg.svd(axle.ones(3, 3), driver="gesvd"),
                lambda: torch.linalg.svd(torch.ones(3, 3), driver="gesvd"), "keyword argument `driver=`")


# ---------------------------------------------------------------- compositions
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 2, 5)])
def test_pinv_pinverse(dtype, shape):
    xa, xt = both(rect(shape, dtype))
    close(axle.linalg.pinv(xa), torch.linalg.pinv(xt))
    close(axle.linalg.pinv(xa, rtol=0.3), torch.linalg.pinv(xt, rtol=0.3))
    close(axle.linalg.pinv(xa, atol=0.5),
          torch.linalg.pinv(xt, atol=0.5))
    close(axle.linalg.pinv(xa, 1e-3), torch.linalg.pinv(xt, 1e-3))
    close(axle.pinverse(xa), torch.pinverse(xt))
    close(xa.pinverse(1e-3), xt.pinverse(1e-3))
    sa, st = both(spd(shape[:-1] + shape[-2:-1], dtype))
    close(axle.linalg.pinv(sa, hermitian=True), torch.linalg.pinv(st, hermitian=True))
    if dtype == "float64":
        grads(axle.linalg.pinv, torch.linalg.pinv, rect(shape))


def test_pinv_rank_deficient_and_errors():
    a = np.outer(np.arange(1.0, 5.0), np.arange(1.0, 4.0))
    xa, xt = both(a)
    close(axle.linalg.pinv(xa), torch.linalg.pinv(xt))
    close(axle.linalg.matrix_rank(xa), torch.linalg.matrix_rank(xt))
    raises_like(lambda: axle.linalg.pinv(axle.ones(3)), lambda: torch.linalg.pinv(torch.ones(3)),
                "expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble types")


@pytest.mark.parametrize("dtype", DTYPES)
def test_matrix_rank(dtype):
    a = np.zeros((2, 4, 3), dtype)
    a[0, :2, :2] = [[2, 0], [1, 3]]
    a[1, 0, 0] = 5
    xa, xt = both(a)
    for kw in [{}, dict(atol=2.5), dict(rtol=0.9), dict(atol=0.1, rtol=0.1)]:
        close(axle.linalg.matrix_rank(xa, **kw), torch.linalg.matrix_rank(xt, **kw))
    close(axle.linalg.matrix_rank(xa, 2.5), torch.linalg.matrix_rank(xt, 2.5))
    sa, st = both(spd((3, 3), dtype))
    close(axle.linalg.matrix_rank(sa, hermitian=True), torch.linalg.matrix_rank(st, hermitian=True))
    assert axle.linalg.matrix_rank(xa).dtype == axle.int64


@pytest.mark.parametrize("dtype", DTYPES)
def test_nuclear_norm_and_matrix_norms(dtype):
    a = np.random.default_rng(13).uniform(-1, 1, (2, 3, 4)).astype(dtype)
    xa, xt = both(a)
    close(axle.nuclear_norm(xa[0]), torch.nuclear_norm(xt[0]))
    close(axle.nuclear_norm(xa[0], keepdim=True), torch.nuclear_norm(xt[0], keepdim=True))
    close(axle.nuclear_norm(xa, dim=(0, 2)), torch.nuclear_norm(xt, dim=(0, 2)))
    close(axle.nuclear_norm(xa, (2, 1), True), torch.nuclear_norm(xt, (2, 1), True))
    for ord in ("nuc", 2, -2):
        close(axle.linalg.matrix_norm(xa, ord), torch.linalg.matrix_norm(xt, ord))
        close(axle.linalg.norm(xa[1], ord), torch.linalg.norm(xt[1], ord))
    raises_like(lambda: axle.nuclear_norm(axle.ones(3)), lambda: torch.nuclear_norm(torch.ones(3)),
                "Expected a tensor with 2 dimensions, but got a tensor with 1 dimension instead.")
    grads(lambda x: axle.nuclear_norm(x, (1, 2)), lambda x: torch.nuclear_norm(x, (1, 2)), a.astype(np.float64))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", [None, 2, -2, 1, -1, float("inf"), float("-inf"), "fro", "nuc"])
def test_cond(dtype, p):
    xa, xt = both(well((2, 4, 4), dtype))
    close(axle.linalg.cond(xa, p), torch.linalg.cond(xt, p))
    if p in (None, 2, -2):
        ra, rt = both(np.random.default_rng(14).uniform(-1, 1, (3, 5)).astype(dtype))
        close(axle.linalg.cond(ra, p), torch.linalg.cond(rt, p))
    if dtype == "float64" and p in (None, 2, -2, "nuc"):  # torch 1.13's backward fails for the others
        grads(lambda x: axle.linalg.cond(x, p), lambda x: torch.linalg.cond(x, p), well((2, 4, 4)))


def test_cond_errors():
    xa, xt = both(well((3, 3)))
    raises_like(lambda: axle.linalg.cond(xa, 3), lambda: torch.linalg.cond(xt, 3), "invalid norm type")
    raises_like(lambda: axle.linalg.cond(axle.ones(2, 3), "fro"), lambda: torch.linalg.cond(torch.ones(2, 3), "fro"),
                "A must be batches of square matrices, but they are 2 by 3 matrices")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("driver", [None, "gels", "gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("a_shape,b_shape", [((5, 3), (5, 2)), ((2, 3, 5), (2, 3, 2)), ((5, 3), (5,)),
                                             ((4, 4), (4, 1)), ((2, 6, 3), (1, 6, 2))])
def test_lstsq(dtype, driver, a_shape, b_shape):
    a = rect(a_shape, dtype)
    b = np.random.default_rng(15).uniform(-1, 1, b_shape).astype(dtype)
    (xa, xt), (ba, bt) = both(a), both(b)
    got, want = axle.linalg.lstsq(xa, ba, driver=driver), torch.linalg.lstsq(xt, bt, driver=driver)
    close_all(got, want)
    assert got.solution is got[0] and got.singular_values is got[3]
    if dtype == "float64" and driver is None and len(b_shape) > 1:  # torch 1.13 fails for a vector b
        grads(lambda x, y: axle.linalg.lstsq(x, y).solution, lambda x, y: torch.linalg.lstsq(x, y).solution, a, b)


def test_lstsq_errors():
    (xa, xt) = both(rect((5, 3)))
    raises_like(lambda: axle.linalg.lstsq(xa, axle.ones(4, 2, dtype=axle.float64)),
                lambda: torch.linalg.lstsq(xt, torch.ones(4, 2, dtype=torch.float64)),
                "input.size(-2) should match other.size(-2)")
    raises_like(lambda: axle.linalg.lstsq(xa, axle.ones(5, 2)), lambda: torch.linalg.lstsq(xt, torch.ones(5, 2)),
                "Expected input and other to have the same dtype")
    raises_like(lambda: axle.linalg.lstsq(xa, xa, driver="lu"), lambda: torch.linalg.lstsq(xt, xt, driver="lu"),
                "parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("scale", [0.0, 1e-3, 0.5, 3.0, 20.0])
def test_matrix_exp(dtype, scale):
    a = (np.random.default_rng(16).uniform(-1, 1, (2, 4, 4)) * scale).astype(dtype)
    xa, xt = both(a)
    tol = dict(rtol=1e-10, atol=1e-12 * max(1.0, np.exp(4 * scale))) if dtype == "float64" else None
    got, want = axle.linalg.matrix_exp(xa), torch.linalg.matrix_exp(xt)
    if tol:
        np.testing.assert_allclose(np.asarray(got), want.numpy(), **tol)
    else:
        np.testing.assert_allclose(np.asarray(got), want.numpy(), rtol=1e-4, atol=1e-5 * max(1.0, np.exp(4 * scale)))
    close(axle.matrix_exp(xa[:, :1, :1]), torch.matrix_exp(xt[:, :1, :1]))
    np.testing.assert_allclose(np.asarray(xa.matrix_exp()), xt.matrix_exp().numpy(), rtol=1e-4, atol=1e-4 * np.exp(4 * scale))
    if dtype == "float64" and scale in (0.5, 3.0):
        grads(axle.linalg.matrix_exp, torch.linalg.matrix_exp, a)


def test_matrix_exp_errors():
    raises_like(lambda: axle.linalg.matrix_exp(axle.ones(2, 3)), lambda: torch.linalg.matrix_exp(torch.ones(2, 3)),
                "A must be batches of square matrices, but they are 2 by 3 matrices")
    raises_like(lambda: axle.matrix_exp(axle.ones(2, 2, dtype=axle.int64)),
                lambda: torch.matrix_exp(torch.ones(2, 2, dtype=torch.int64)),
                "Expected a floating point or complex tensor as input. Got Long")


@pytest.mark.parametrize("shapes", [[(2, 3), (3, 4)], [(3,), (3, 4), (4, 2)], [(2, 3), (3, 4), (4,)],
                                    [(3,), (3, 2), (2,)], [(2, 5), (5, 1), (1, 4), (4, 3)]])
def test_multi_dot(shapes):
    arrays = [np.random.default_rng(17 + i).uniform(-1, 1, s) for i, s in enumerate(shapes)]
    got = axle.linalg.multi_dot([axle.from_numpy(a) for a in arrays])
    close(got, torch.linalg.multi_dot([torch.from_numpy(a) for a in arrays]))
    grads(lambda *xs: axle.linalg.multi_dot(list(xs)), lambda *xs: torch.linalg.multi_dot(list(xs)), *arrays)


def test_multi_dot_errors():
    a = axle.ones(2, 3)
    raises_like(lambda: axle.linalg.multi_dot([a]), lambda: torch.linalg.multi_dot([torch.ones(2, 3)]),
                "multi_dot(): expected at least 2 tensors but got 1")
    raises_like(lambda: axle.linalg.multi_dot([a, axle.ones(4, 2)]),
                lambda: torch.linalg.multi_dot([torch.ones(2, 3), torch.ones(4, 2)]),
                "multi_dot(): tensors 0 and 1 with shapes [2, 3] and [4, 2] cannot be multiplied")
    raises_like(lambda: axle.linalg.multi_dot([a, axle.ones(3, 2, dtype=axle.float64)]),
                lambda: torch.linalg.multi_dot([torch.ones(2, 3), torch.ones(3, 2, dtype=torch.float64)]),
                "multi_dot(): all tensors must have be the same dtype but tensor 0 is")


# ---------------------------------------------------------------- namespaces and older spellings
def test_namespace_and_methods():
    for name in ["lu_factor_ex", "lu_factor", "lu", "lu_solve", "solve_triangular", "det", "slogdet", "inv_ex",
                 "inv", "solve_ex", "solve", "matrix_power", "cholesky_ex", "cholesky", "qr", "eigh", "eigvalsh",
                 "svd", "svdvals", "pinv", "matrix_rank", "cond", "lstsq", "matrix_exp", "multi_dot", "norm",
                 "vector_norm", "matrix_norm", "vecdot"]:
        assert hasattr(torch.linalg, name) and hasattr(axle.linalg, name), name
    for name in ["det", "logdet", "slogdet", "inverse", "cholesky", "cholesky_solve", "cholesky_inverse", "qr", "svd",
                 "lu", "lu_solve", "triangular_solve", "matrix_power", "pinverse", "matrix_exp"]:
        assert hasattr(torch.Tensor, name) and hasattr(axle.Tensor, name), name
        assert hasattr(axle, name), name
    assert not [n for n in vars(axle.Tensor) if n.startswith("linalg_")]
    assert not hasattr(axle.Tensor, "nuclear_norm") and not hasattr(torch.Tensor, "nuclear_norm")
    raises_like(lambda: axle.linalg.inv(axle.eye(2, dtype=axle.float16)),
                lambda: torch.linalg.inv(torch.eye(2, dtype=torch.float16)), "Low precision dtypes not supported. Got Half")


def test_lu_and_lu_solve_older_spellings():
    a = well((2, 3, 3))
    b = np.random.default_rng(18).uniform(-1, 1, (2, 3, 2))
    (xa, xt), (ba, bt) = both(a), both(b)
    close_all(axle.lu(xa), torch.lu(xt))
    close_all(xa.lu(get_infos=True), xt.lu(get_infos=True))
    LU, piv = xa.lu()
    close(axle.lu_solve(ba, LU, piv), torch.lu_solve(bt, *torch.lu(xt)))
    close(ba.lu_solve(LU, piv), bt.lu_solve(*torch.lu(xt)))


def test_gradient_through_one_output_and_a_view_of_another():
    # The engine once ordered a multi-output node seeded through one output (R) before the view of
    # another (Q.mT) that reaches it, dropping the view's gradient.
    a = rect((3, 3))
    w, w2 = np.random.default_rng(19).standard_normal((2, 3, 3))
    for order in (0, 1):
        xa = axle.from_numpy(a.copy()).requires_grad_()
        q, r = axle.linalg.qr(xa)
        outs, vs = [r, q.mT], [w, w2]
        if order:
            outs, vs = outs[::-1], vs[::-1]
        g = axle.autograd.grad(outs, [xa], [axle.from_numpy(v) for v in vs])[0]
        xt = torch.from_numpy(a.copy()).requires_grad_()
        qt, rt = torch.linalg.qr(xt)
        want = torch.autograd.grad([rt, qt.mT], [xt], [torch.from_numpy(w), torch.from_numpy(w2)])[0]
        np.testing.assert_allclose(np.asarray(g), want.numpy(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("dtype", DTYPES)
def test_forms_without_vectors(dtype):
    a = sym((2, 3, 3), dtype)
    xa, xt = both(a)
    w, v = axle._linalg_eigh(xa, "L", False)
    close(w, torch.ops.aten._linalg_eigh(xt, "L", False)[0])
    assert tuple(v.shape) == tuple(torch.ops.aten._linalg_eigh(xt, "L", False)[1].shape)
    u, s, vh = axle._linalg_svd(xa, False, False)
    want = torch.ops.aten._linalg_svd(xt, False, False)
    close(s, want[1])
    assert tuple(u.shape) == tuple(want[0].shape) and tuple(vh.shape) == tuple(want[2].shape)
    with pytest.raises(axle.AxleError, match="compute_v=False"):
        axle._linalg_eigh(xa.clone().requires_grad_(), "L", False)[0].sum().backward()
    with pytest.raises(axle.AxleError, match="compute_uv=False"):
        axle.svd(xa.clone().requires_grad_(), compute_uv=False)[1].sum().backward()
    with pytest.raises(axle.AxleError, match="mode='complete' and nrows > ncols"):
        axle.linalg.qr(axle.from_numpy(rect((4, 3))).requires_grad_(), "complete")[0].sum().backward()


@pytest.mark.parametrize("dtype", DTYPES)
def test_tensorinv_tensorsolve(dtype):
    a = well((24, 24), dtype).reshape(4, 6, 8, 3)
    xa, xt = both(a)
    close(axle.linalg.tensorinv(xa, 2), torch.linalg.tensorinv(xt, 2))
    b = np.random.default_rng(20).uniform(-1, 1, (4, 6)).astype(dtype)
    ba, bt = both(b)
    close(axle.linalg.tensorsolve(xa, ba), torch.linalg.tensorsolve(xt, bt))
    close(axle.linalg.tensorsolve(xa, axle.from_numpy(b.reshape(8, 3)), dims=(0, 1)),
          torch.linalg.tensorsolve(xt, torch.from_numpy(b.reshape(8, 3)), dims=(0, 1)))
    raises_like(lambda: axle.linalg.tensorinv(xa, 0), lambda: torch.linalg.tensorinv(xt, 0),
                "Expected a strictly positive integer for 'ind', but got 0")
    raises_like(lambda: axle.linalg.tensorinv(xa, 1), lambda: torch.linalg.tensorinv(xt, 1),
                "prod(self.shape[ind:]) == prod(self.shape[:ind]), but got 144 != 4")
    raises_like(lambda: axle.linalg.tensorsolve(xa, ba[0]), lambda: torch.linalg.tensorsolve(xt, bt[0]),
                "prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), but got 144 != 6")
    if dtype == "float64":
        grads(lambda x, y: axle.linalg.tensorsolve(x, y), lambda x, y: torch.linalg.tensorsolve(x, y), a, b)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,k", [((4, 3), 2), ((3, 3), 3), ((2, 5, 2), 2), ((4, 4), 0)])
def test_householder_product(dtype, shape, k):
    a = np.random.default_rng(21).uniform(-1, 1, shape).astype(dtype)
    tau = np.random.default_rng(22).uniform(0, 2, shape[:-2] + (k,)).astype(dtype)
    (xa, xt), (ta, tt) = both(a), both(tau)
    close(axle.linalg.householder_product(xa, ta), torch.linalg.householder_product(xt, tt))
    close(axle.orgqr(xa, ta), torch.orgqr(xt, tt))
    close(xa.orgqr(ta), xt.orgqr(tt))
    # with geqrf-like input: the Q of a QR
    if dtype == "float64" and k:
        grads(axle.linalg.householder_product, torch.linalg.householder_product, a, tau)


def test_householder_product_errors():
    a, t = axle.ones(4, 3), axle.ones(2)
    ta, tt = torch.ones(4, 3), torch.ones(2)
    raises_like(lambda: axle.linalg.householder_product(a.mT, t), lambda: torch.linalg.householder_product(ta.mT, tt),
                "input.shape[-2] must be greater than or equal to input.shape[-1]")
    raises_like(lambda: axle.linalg.householder_product(a, axle.ones(4)),
                lambda: torch.linalg.householder_product(ta, torch.ones(4)),
                "input.shape[-1] must be greater than or equal to tau.shape[-1]")
    raises_like(lambda: axle.linalg.householder_product(a, t.double()),
                lambda: torch.linalg.householder_product(ta, tt.double()),
                "tau dtype Double does not match input dtype Float")
    raises_like(lambda: axle.linalg.householder_product(a, axle.ones(2, 2)),
                lambda: torch.linalg.householder_product(ta, torch.ones(2, 2)),
                "Expected tau to have one dimension less than input")


def test_det_gradient_of_singular_matrices():
    # The cofactor matrix (from the SVD), as the derivative is; torch 1.13 returns zeros for an
    # exactly singular matrix of rank n - 1, where the cofactors are not all zero.
    for a in [np.array([[1.0, 2.0], [2.0, 4.0]]), np.array([[1.0, 2, 3], [2, 4, 6], [1, 0, 1]]), np.zeros((3, 3))]:
        xa = axle.from_numpy(a.copy()).requires_grad_()
        got = np.asarray(axle.autograd.grad([axle.linalg.det(xa)], [xa])[0])
        n = a.shape[0]
        cof = np.array([[(-1) ** (i + j) * np.linalg.det(np.delete(np.delete(a, i, 0), j, 1)) for j in range(n)]
                        for i in range(n)])
        np.testing.assert_allclose(got, cof, atol=1e-12)


@pytest.mark.parametrize("name", ["inv", "det", "cholesky", "eigvalsh", "svdvals", "solve", "qr", "lu_factor"])
def test_second_order_gradients(name):
    fns = {"inv": (axle.linalg.inv, torch.linalg.inv, well), "det": (axle.linalg.det, torch.linalg.det, well),
           "cholesky": (axle.linalg.cholesky, torch.linalg.cholesky, spd),
           "eigvalsh": (axle.linalg.eigvalsh, torch.linalg.eigvalsh, spd),
           "svdvals": (axle.linalg.svdvals, torch.linalg.svdvals, well),
           "solve": (lambda x: axle.linalg.solve(x, x * x), lambda x: torch.linalg.solve(x, x * x), well),
           "qr": (lambda x: axle.linalg.qr(x)[1], lambda x: torch.linalg.qr(x)[1], well),
           "lu_factor": (lambda x: axle.linalg.lu_factor(x)[0], lambda x: torch.linalg.lu_factor(x)[0], well)}
    fa, ft, make = fns[name]
    a = make((2, 3, 3))
    xa, xt = axle.from_numpy(a.copy()).requires_grad_(), torch.from_numpy(a.copy()).requires_grad_()
    oa, ot = fa(xa), ft(xt)
    v, w = np.random.default_rng(23).standard_normal((2,) + tuple(ot.shape))[0], \
        np.random.default_rng(24).standard_normal(a.shape)
    ga = axle.autograd.grad([oa], [xa], [axle.from_numpy(v)], create_graph=True)[0]
    gt = torch.autograd.grad([ot], [xt], [torch.from_numpy(v)], create_graph=True)[0]
    gga = axle.autograd.grad([ga], [xa], [axle.from_numpy(w)])[0]
    ggt = torch.autograd.grad([gt], [xt], [torch.from_numpy(w)])[0]
    np.testing.assert_allclose(np.asarray(gga), ggt.numpy(), rtol=1e-7, atol=1e-10)


def test_ex_forms_raise_linalg_error_with_check_errors():
    # check_errors is the op's check (after any backend's kernel), a
    # LinAlgError (a RuntimeError) as torch's; without it, info reports.
    for fa, ft in ((lambda L: L.linalg.cholesky_ex(-L.eye(3), check_errors=True), None),
                   (lambda L: L.linalg.lu_factor_ex(L.zeros(2, 3, 3), check_errors=True), None)):
        with pytest.raises(axle.LinAlgError) as err:
            fa(axle)
        assert isinstance(err.value, RuntimeError)
        with pytest.raises(RuntimeError):
            fa(torch)
    assert int(axle.linalg.cholesky_ex(-axle.eye(3)).info) == int(torch.linalg.cholesky_ex(-torch.eye(3)).info) == 1
    with pytest.raises(axle.LinAlgError, match=r"\(Batch element 0\): U\[1,1\] is zero"):
        axle.linalg.lu_factor_ex(axle.zeros(2, 3, 3), check_errors=True)
