"""torch.linalg: the linear algebra functions of the ``linalg`` op family
(dispatcher/src/ops/linalg*.cpp), under torch.linalg's names:
``axle.linalg.lu_factor`` is ``axle.linalg_lu_factor``, with the same named
results (``axle.linalg.slogdet(A).logabsdet``). The norms (norm, vector_norm,
matrix_norm) and vecdot join this module from axle._composites_math. A
singular input where torch raises torch.linalg.LinAlgError raises
``LinAlgError`` here (axle.LinAlgError, a RuntimeError as torch's).

tensorinv, tensorsolve and householder_product are compositions written here.
Importing it also installs torch's older spellings that are Python functions in
torch or need them (``axle.lu``, ``axle.lu_solve``, ``axle.orgqr`` and their
Tensor methods) and removes the
Tensor methods the declarations would give the ``linalg_*`` ops and
nuclear_norm, which torch.Tensor does not have."""
import axle as _axle

LinAlgError = _axle.LinAlgError

# torch.linalg.<name> -> the declared op axle.<op>.
_OPS = {
    "lu_factor_ex": "linalg_lu_factor_ex", "lu_factor": "linalg_lu_factor", "lu": "linalg_lu",
    "lu_solve": "linalg_lu_solve", "solve_triangular": "linalg_solve_triangular", "det": "linalg_det",
    "slogdet": "linalg_slogdet", "inv_ex": "linalg_inv_ex", "inv": "linalg_inv", "solve_ex": "linalg_solve_ex",
    "solve": "linalg_solve", "matrix_power": "linalg_matrix_power", "cholesky_ex": "linalg_cholesky_ex",
    "cholesky": "linalg_cholesky", "qr": "linalg_qr", "eigh": "linalg_eigh", "eigvalsh": "linalg_eigvalsh",
    "svd": "linalg_svd", "svdvals": "linalg_svdvals", "pinv": "linalg_pinv", "matrix_rank": "linalg_matrix_rank",
    "cond": "linalg_cond", "lstsq": "linalg_lstsq", "matrix_exp": "linalg_matrix_exp", "multi_dot": "linalg_multi_dot",
}

__all__ = ["LinAlgError", "tensorinv", "tensorsolve", "householder_product"]
for _name, _op in _OPS.items():
    if hasattr(_axle, _op):
        globals()[_name] = getattr(_axle, _op)
        __all__.append(_name)
del _name, _op

for _name in [n for n in vars(_axle.Tensor) if n.startswith("linalg_") or n == "nuclear_norm"]:
    delattr(_axle.Tensor, _name)


# torch's scalar type names, for its messages.
_TORCH_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int8": "Char",
                "uint8": "Byte", "int16": "Short", "int32": "Int", "int64": "Long", "bool": "Bool"}


def _prod(sizes):
    n = 1
    for s in sizes:
        n *= s
    return n


def tensorinv(A, ind=2):
    """torch.linalg.tensorinv: the inverse of A read as a prod(A.shape[:ind]) x prod(A.shape[ind:])
    matrix, shaped A.shape[ind:] + A.shape[:ind]."""
    if ind <= 0:
        raise _axle.ValueError("Expected a strictly positive integer for 'ind', but got %d" % ind)
    rows, cols = list(A.shape[:ind]), list(A.shape[ind:])
    if _prod(rows) != _prod(cols):
        raise _axle.ShapeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                               "prod(self.shape[:ind]), but got %d != %d" % (_prod(cols), _prod(rows)))
    return _axle.linalg_inv(A.reshape(_prod(rows), _prod(cols))).reshape(cols + rows)


def tensorsolve(A, B, dims=None):
    """torch.linalg.tensorsolve: X with tensordot(A, X, X.ndim) = B (dims of A moved to the end first)."""
    if dims is not None:
        dims = [d % A.dim() for d in dims]
        A = A.permute([d for d in range(A.dim()) if d not in dims] + dims)
    result = list(A.shape[B.dim():])
    if _prod(result) != B.numel():
        raise _axle.ShapeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
                               "prod(self.shape[:other.ndim]), but got %d != %d" % (_prod(result), B.numel()))
    n = _prod(result)
    return _axle.linalg_solve(A.reshape(B.numel(), n), B.reshape(B.numel())).reshape(result)


def householder_product(A, tau):
    """torch.linalg.householder_product (orgqr): the first n columns of H_1 ... H_k with
    H_i = I - tau_i v_i v_i^T, v_i column i of A below the diagonal with a unit diagonal entry."""
    op = "torch.linalg.householder_product"
    if A.dim() < 2:
        raise _axle.ShapeError("%s: input must have at least 2 dimensions." % op)
    m, n, k = A.shape[-2], A.shape[-1], tau.shape[-1] if tau.dim() else 1
    if m < n:
        raise _axle.ShapeError("%s: input.shape[-2] must be greater than or equal to input.shape[-1]" % op)
    if n < k:
        raise _axle.ShapeError("%s: input.shape[-1] must be greater than or equal to tau.shape[-1]" % op)
    if tau.dim() != A.dim() - 1:
        raise _axle.ShapeError("%s: Expected tau to have one dimension less than input, but got tau.ndim equal to %d "
                               "and input.ndim is equal to %d" % (op, tau.dim(), A.dim()))
    if list(tau.shape[:-1]) != list(A.shape[:-2]):
        raise _axle.ShapeError("%s: Expected batch dimensions of tau to be equal to input.shape[:-2], but got %s"
                               % (op, list(tau.shape[:-1])))
    if tau.dtype != A.dtype:
        raise _axle.DTypeError("%s: tau dtype %s does not match input dtype %s" % (
            op, _TORCH_NAMES[tau.dtype.name], _TORCH_NAMES[A.dtype.name]))
    if A.dtype not in (_axle.float32, _axle.float64):
        raise _axle.DTypeError('"orgqr_cpu" not implemented for \'%s\'' % _TORCH_NAMES[A.dtype.name])
    v = _axle.tril(A, -1) + _axle.eye(m, n, dtype=A.dtype, device=A.device)
    q = _axle.eye(m, n, dtype=A.dtype, device=A.device).expand(list(A.shape)).clone()
    for i in reversed(range(k)):  # q <- H_i q
        vi = v[..., :, i:i + 1]
        q = q - (tau[..., i:i + 1].unsqueeze(-1) * vi) @ (vi.mT @ q)
    return q


def _lu(A, pivot=True, get_infos=False):
    """torch.lu: (LU, pivots) of linalg.lu_factor_ex, with its infos when get_infos (else
    a zero pivot raises)."""
    LU, pivots, infos = _axle.linalg_lu_factor_ex(A, pivot=pivot, check_errors=not get_infos)
    return (LU, pivots, infos) if get_infos else (LU, pivots)


def _lu_solve(b, LU_data, LU_pivots):
    """torch.lu_solve (deprecated): linalg.lu_solve(LU_data, LU_pivots, b)."""
    return _axle.linalg_lu_solve(LU_data, LU_pivots, b)


_lu.__name__ = _lu.__qualname__ = "lu"
_lu_solve.__name__ = _lu_solve.__qualname__ = "lu_solve"
for _name, _fn in (("lu", _lu), ("lu_solve", _lu_solve), ("orgqr", householder_product)):
    if not hasattr(_axle, _name):
        setattr(_axle, _name, _fn)
    if not hasattr(_axle.Tensor, _name):
        setattr(_axle.Tensor, _name, _fn)
del _name, _fn
