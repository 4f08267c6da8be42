"""torch.linalg: the linear algebra functions of the ``linalg`` op family
(dispatcher/src/ops/linalg*.cpp), under torch.linalg's names:
``axle.linalg.lu_factor`` is ``axle.linalg_lu_factor``, with the same named
results (``axle.linalg.slogdet(A).logabsdet``). The norms (norm, vector_norm,
matrix_norm) and vecdot join this module from axle._composites_math. A
singular input where torch raises torch.linalg.LinAlgError raises
``LinAlgError`` here (axle.ValueError).

Importing it also installs torch's older spellings that are Python functions in
torch (``axle.lu``, ``axle.lu_solve`` and their Tensor methods) and removes the
Tensor methods the declarations would give the ``linalg_*`` ops and
nuclear_norm, which torch.Tensor does not have."""
import axle as _axle

LinAlgError = _axle.ValueError

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

__all__ = ["LinAlgError"]
for _name, _op in _OPS.items():
    if hasattr(_axle, _op):
        globals()[_name] = getattr(_axle, _op)
        __all__.append(_name)
del _name, _op

for _name in [n for n in vars(_axle.Tensor) if n.startswith("linalg_") or n == "nuclear_norm"]:
    delattr(_axle.Tensor, _name)


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
for _name, _fn in (("lu", _lu), ("lu_solve", _lu_solve)):
    if not hasattr(_axle, _name):
        setattr(_axle, _name, _fn)
    if not hasattr(_axle.Tensor, _name):
        setattr(_axle.Tensor, _name, _fn)
del _name, _fn
