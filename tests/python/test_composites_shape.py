"""The shape, indexing and contraction compositions of bindings/python/axle/_composites_shape.py
against PyTorch 1.13: atleast_* / *stack / *split, broadcast_tensors / broadcast_shapes, tile,
ravel, flips, rot90, diag / diagonal / diag_embed / diagflat, kron, tensordot, inner, vdot, mv,
addmv, addr, einsum, meshgrid, cartesian_prod, repeat_interleave, take, take_along_dim,
index_add / index_copy / index_fill, masked_select / masked_scatter, scatter_reduce, unique /
unique_consecutive, where(condition), cross, cummax / cummin and diff: values, shapes, dtypes,
the errors (axle's typed error, torch's text) and gradients.

Each case is an expression written once with ``L`` standing for the module (axle or torch) and
named inputs made from the same numpy arrays."""
import warnings

import numpy as np
import pytest

import axle
from axle import _composites_shape

if not getattr(axle.where, "_axle_one_arg_where", False):  # not yet installed by axle/__init__.py
    _composites_shape.install(axle)  # (install is idempotent anyway: it never replaces a name axle has)

torch = pytest.importorskip("torch")

_rng = np.random.RandomState(0)
ARRAYS = dict(
    f=np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5,
    i=np.array([[7, -3, 4], [2, 9, -8]], dtype=np.int64),
    d=_rng.randn(3, 4),
    v=np.array([1.5, -2.0, 3.0], dtype=np.float32),
    w=np.array([0.5, 1.0, -1.0, 2.0], dtype=np.float32),
    e=np.zeros((0,), dtype=np.float32),
    s=np.array(2.5, dtype=np.float32),
    b=np.array([[True, False, True], [False, False, True]]),
    c=_rng.randn(2, 3, 4).astype(np.float32),
    q=_rng.randn(3, 3).astype(np.float32),
    u=np.array([[3, 1, 3], [2, 1, 1]], dtype=np.int64),
    i32=np.array([1, 2, 0], dtype=np.int32),
    h=np.array([2.0, float("nan"), 1.0, 3.0, float("nan"), 0.5], dtype=np.float32),
)


def evaluate(L, expr, arrays=ARRAYS, requires_grad=False):
    env = {"L": L}
    env.update({k: L.tensor(v, requires_grad=requires_grad) for k, v in arrays.items()})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return eval(expr, env), env


def same(a, t, path="result"):
    """a (axle) equals t (torch): tensors by dtype, shape and values (NaN == NaN), sequences
    item by item (named tuples by their fields too), anything else by ==."""
    if isinstance(t, torch.Tensor):
        assert isinstance(a, axle.Tensor), (path, type(a))
        assert a.dtype.name == str(t.dtype).split(".")[-1], (path, a.dtype, t.dtype)
        assert tuple(a.shape) == tuple(t.shape), (path, tuple(a.shape), tuple(t.shape))
        values = a.float() if a.dtype == axle.bfloat16 else a
        np.testing.assert_allclose(np.asarray(values.detach(), dtype=np.float64), t.detach().double().numpy(),
                                   rtol=1e-5, atol=1e-6, equal_nan=True, err_msg=path)
    elif isinstance(t, (tuple, list)):
        assert isinstance(a, (tuple, list)), (path, type(a))
        assert len(a) == len(t), (path, len(a), len(t))
        if hasattr(t, "_fields"):
            assert getattr(a, "_fields", None) == t._fields, (path, a, t._fields)
        for k, (x, y) in enumerate(zip(a, t)):
            same(x, y, "%s[%d]" % (path, k))
    else:
        assert a == t, (path, a, t)


VALUE_CASES = [
    'L.atleast_1d(s)',
    'L.atleast_1d(f)',
    'L.atleast_2d(s)',
    'L.atleast_2d(v)',
    'L.atleast_3d(s)',
    'L.atleast_3d(v)',
    'L.atleast_3d(f)',
    'L.atleast_3d(c)',
    'L.atleast_1d(s, v)',
    'L.atleast_2d([s, v, f])',
    'L.atleast_3d((s, v))',
    'L.atleast_1d()',
    'L.broadcast_shapes((2, 1), (3,))',
    'L.broadcast_shapes((0,), (1,))',
    'L.broadcast_shapes(2, (1,))',
    'L.broadcast_shapes([2, 1], (1, 0))',
    'L.broadcast_shapes()',
    'L.broadcast_tensors(f, v)',
    'L.broadcast_tensors(s, e)',
    'L.broadcast_tensors()',
    'L.broadcast_tensors(f)',
    'L.hstack([f, i])',
    'L.hstack([v, w])',
    'L.hstack([s, s])',
    'L.vstack([v, f])',
    'L.vstack([s])',
    'L.row_stack([v, v])',
    'L.dstack([f, f])',
    'L.dstack([s, s])',
    'L.dstack([v, v])',
    'L.column_stack([v, v])',
    'L.column_stack([f.t(), v, v])',
    'L.column_stack([s, f[:1]])',
    'L.tensor_split(w, 3)',
    'L.tensor_split(w, 5)',
    'L.tensor_split(c, 3, dim=-1)',
    'L.tensor_split(c, [1, 3], dim=2)',
    'L.tensor_split(w, [-2])',
    'L.tensor_split(w, [3, 1])',
    'L.tensor_split(w, [])',
    'L.tensor_split(w, L.tensor(2))',
    'L.tensor_split(w, L.tensor([1, 3]))',
    'L.tensor_split(e, 2)',
    'w.tensor_split(2)',
    'L.tensor_split(w, sections=3)',
    'L.tensor_split(w, indices=[1])',
    'L.hsplit(f, 3)',
    'L.hsplit(f, [1, 5])',
    'L.hsplit(w, 2)',
    'L.vsplit(d, 3)',
    'L.vsplit(d, [1])',
    'L.dsplit(c, 2)',
    'L.dsplit(c, [1, 2])',
    'f.hsplit(3)',
    'c.dsplit([3])',
    'd.vsplit(3)',
    'L.tile(f, (2,))',
    'L.tile(f, (2, 1, 2))',
    'L.tile(f, ())',
    'L.tile(s, (2,))',
    'L.tile(s, ())',
    'f.tile(2, 2)',
    'f.tile((2, 2))',
    'f.tile(2)',
    'L.ravel(f.t())',
    'L.ravel(s)',
    'f.t().ravel()',
    'L.fliplr(f)',
    'L.fliplr(c)',
    'L.flipud(v)',
    'L.flipud(f)',
    'f.fliplr()',
    'f.flipud()',
    'L.rot90(f)',
    'L.rot90(f, 2)',
    'L.rot90(f, 3)',
    'L.rot90(f, 4)',
    'L.rot90(f, 5)',
    'L.rot90(f, -1)',
    'L.rot90(f, 2, [1, 0])',
    'L.rot90(c, 1, [2, 0])',
    'L.rot90(c, -3, [-1, -2])',
    'f.rot90(1, [1, 0])',
    'L.diagonal(q)',
    'L.diagonal(q, 1)',
    'L.diagonal(q, -2)',
    'L.diagonal(q, 5)',
    'L.diagonal(d, 1)',
    'L.diagonal(d, -1)',
    'L.diagonal(c, 0, 0, 2)',
    'L.diagonal(c, -1, 2, 0)',
    'L.diagonal(c, 1, -1, -2)',
    'L.diagonal(c.permute(2, 0, 1), 1, 0, 2)',
    'L.diagonal(d[1:, 1:], 1)',
    'q.diagonal(1)',
    'c.diagonal(dim1=1, dim2=2)',
    'L.diag_embed(f)',
    'L.diag_embed(f, 1)',
    'L.diag_embed(f, -2)',
    'L.diag_embed(f, 1, 0, 2)',
    'L.diag_embed(f, -1, 2, 0)',
    'L.diag_embed(c, 2, 1, 3)',
    'L.diag_embed(v)',
    'L.diag_embed(e)',
    'i.diag_embed()',
    'L.diag(v)',
    'L.diag(v, 1)',
    'L.diag(v, -2)',
    'L.diag(d)',
    'L.diag(d, 2)',
    'L.diag(d, -1)',
    'L.diag(e)',
    'L.diag(i)',
    'v.diag(1)',
    'L.diagflat(f)',
    'L.diagflat(f, -1)',
    'L.diagflat(s)',
    'L.diagflat(v, 2)',
    'i.diagflat()',
    'L.kron(f, v)',
    'L.kron(i, f)',
    'L.kron(s, f)',
    'L.kron(c, q)',
    'L.kron(v, i)',
    'L.kron(b, b)',
    'L.kron(e, v)',
    'f.kron(q)',
    'L.tensordot(c, q, ([1], [0]))',
    'L.tensordot(c, c, ([0, 1], [0, 1]))',
    'L.tensordot(c, c, 3)',
    'L.tensordot(f, f, 0)',
    'L.tensordot(f, v, 1)',
    'L.tensordot(f, f[:1], ([0], [0]))',
    'L.tensordot(f, f, L.tensor([[0], [0]]))',
    'L.tensordot(i, i, ([1], [1]))',
    'L.inner(f, f)',
    'L.inner(v, v)',
    'L.inner(f, s)',
    'L.inner(s, s)',
    'L.inner(i, i)',
    'f.inner(v)',
    'L.vdot(v, v)',
    'v.vdot(v)',
    'L.mv(f, v)',
    'L.mv(i, L.tensor([1, 2, 3]))',
    'L.mv(f.t(), L.tensor([1., 2.]))',
    'L.mv(L.zeros(0, 3), v)',
    'f.mv(v)',
    'L.addmv(L.zeros(2), f, v)',
    'L.addmv(L.tensor(1.), f, v)',
    "L.addmv(L.tensor(float('nan')), f, v, beta=0)",
    'L.addmv(L.tensor(2), i, L.tensor([1, 2, 3]), beta=2, alpha=3)',
    'L.addmv(L.tensor(2), i, L.tensor([1, 2, 3]), beta=2.5)',
    'L.addmv(L.ones(2), f, v, beta=0.5, alpha=-2)',
    'L.addmv(L.zeros(2, dtype=L.float64), f, v)',
    'L.ones(2).addmv(f, v, alpha=2)',
    'L.ones(2).addmv_(f, v, alpha=2)',
    'L.addr(L.zeros(2, 3), f[:, 0], f[0])',
    'L.addr(L.zeros(3), f[:, 0], v)',
    'L.addr(L.ones(2, 3), f[:, 0], v, beta=2, alpha=0.5)',
    'L.addr(f, f[:, 0], v, beta=0)',
    'L.addr(L.zeros(2, 3, dtype=L.int64), i[:, 0], i[0], alpha=2, beta=3)',
    'L.addr(b, b[:, 0], b[0])',
    'L.addr(b, b[:, 0], b[0], beta=False)',
    'L.addr(L.zeros(2, 3), i[:, 0], f[0])',
    'L.addr(L.zeros(2, 3), i[:, 0], i[0])',
    'L.addr(L.tensor(1.), f[:, 0], v)',
    'L.zeros(2, 3).addr(f[:, 0], v)',
    'L.zeros(2, 3).addr_(f[:, 0], v)',
    'L.ger(v, w)',
    'v.ger(w)',
    'L.outer(v, w)',
    "L.einsum('ij->', L.tensor([[1, 2], [3, 4]], dtype=L.int32))",
    "L.einsum('ij->j', L.tensor([[1, 2], [3, 4]], dtype=L.int32))",
    "L.einsum('ij,ij->', L.tensor([[1, 2], [3, 4]], dtype=L.int32), L.tensor([[1, 2], [3, 4]], dtype=L.int32))",
    "L.einsum('ij,jk', i, i.t())",
    "L.einsum('ij', f)",
    "L.einsum('ji', f)",
    "L.einsum('ii', q)",
    "L.einsum('ii->i', q)",
    "L.einsum('ij->i', [f])",
    "L.einsum('...j->j', c)",
    "L.einsum('...j->', c)",
    "L.einsum('...j->j...', c)",
    "L.einsum('j...->j', c)",
    "L.einsum('i...,...->...', c, w)",
    "L.einsum('ij,jk->ik', f, L.ones(1, 4))",
    "L.einsum('ij,ij->ij', f, L.ones(1, 3))",
    "L.einsum('i,i', v, L.ones(1))",
    "L.einsum('i,j', v, L.ones(1))",
    "L.einsum('ij,->ij', f, s)",
    "L.einsum(' i j -> j ', f)",
    "L.einsum('Ab->bA', f)",
    "L.einsum('bA', f)",
    'L.einsum(f, [0, 1], [1])',
    'L.einsum(f, [0, 1], f.t(), [1, 2])',
    'L.einsum(f, [Ellipsis, 1], [1])',
    'L.einsum(f, [0, 1], f, [0, 1], [])',
    "L.einsum('bij,bjk->bik', c, L.ones(1, 4, 5))",
    "L.einsum('bij,bjk->bik', c, L.ones(2, 4, 5))",
    "L.einsum('i->', L.tensor([True, True]))",
    "L.einsum('i,i->', L.ones(2, dtype=L.int32), L.ones(2, dtype=L.int32))",
    "L.einsum('i,j->ij', v, i32)",
    "L.einsum('ij,k->', f, w)",
    "L.einsum('i,i,i->', v, v, v)",
    "L.einsum('...ij,...jk->...ik', L.ones(2, 1, 2, 3), L.ones(5, 3, 4))",
    "L.einsum('ij...,j->i...', L.ones(2, 3, 4, 5), v)",
    "L.einsum('i...i', L.ones(2, 3, 2))",
    "L.einsum('...,...', f, v)",
    "L.einsum('ij->ij', L.ones(0, 3))",
    "L.einsum('ij,jk->ik', L.ones(2, 0), L.ones(0, 3))",
    "L.einsum('ij,jk->ik', L.ones(0, 2), L.ones(2, 3))",
    "L.einsum('', s)",
    "L.einsum('->', s)",
    "L.einsum('...', s)",
    "L.einsum('ab,bc,cd->ad', f, d.float(), L.ones(4, 5))",
    "L.einsum('ab,bc,cd->da', f, d.float(), L.ones(4, 5))",
    "L.einsum('bij,bkj->bik', c, c)",
    "L.einsum('bij,bkj->bki', c, c)",
    "L.einsum('bij,bkj->kb', c, c)",
    "L.einsum('bij,kj->bki', c, L.ones(5, 4))",
    "L.einsum('iij->j', L.ones(3, 3, 2))",
    "L.einsum('iji->j', L.ones(3, 2, 3))",
    "L.einsum('ijk,ikl,ilm->ijm', L.ones(2, 3, 4), L.ones(2, 4, 5), L.ones(2, 5, 6))",
    "L.einsum('abc,bcd->ad', c, L.ones(3, 4, 5))",
    "L.einsum('i,j,k->ijk', v, w, v)",
    "L.einsum('i,i->i', v, v)",
    "L.einsum('ij,ji->', q, q)",
    "L.einsum('ij,ji->i', q, q)",
    "L.einsum('...ij->...ji', c)",
    "L.einsum('b...,b...->b', c, c)",
    "L.einsum('i,...->i...', v, f)",
    "L.einsum('ij,ij->i', d, d)",
    "L.meshgrid(v, w, indexing='ij')",
    "L.meshgrid(v, w, indexing='xy')",
    'L.meshgrid(v, w)',
    "L.meshgrid([v, w], indexing='xy')",
    "L.meshgrid((v, w, s), indexing='xy')",
    "L.meshgrid(v, w[:2], s, indexing='ij')",
    "L.meshgrid(v, indexing='xy')",
    "L.meshgrid(s, indexing='ij')",
    "L.meshgrid(v, e, indexing='ij')",
    'L.cartesian_prod(v, w)',
    'L.cartesian_prod(v, w, v)',
    'L.cartesian_prod(v)',
    'L.cartesian_prod(v, e)',
    'L.cartesian_prod(i[0], i[1])',
    'L.repeat_interleave(i, 2)',
    'L.repeat_interleave(i, 2, dim=1)',
    'L.repeat_interleave(i, 0, dim=1)',
    'L.repeat_interleave(i, L.tensor([1, 2]), dim=0)',
    'L.repeat_interleave(i, L.tensor([0, 2]), dim=0)',
    'L.repeat_interleave(i, L.tensor([1, 0, 3]), dim=1)',
    'L.repeat_interleave(i, L.tensor([2]), dim=1)',
    'L.repeat_interleave(i, L.tensor(2), dim=1)',
    'L.repeat_interleave(i, L.tensor([1, 2], dtype=L.int32), dim=0)',
    'L.repeat_interleave(L.tensor([1, 0, 3]))',
    'L.repeat_interleave(L.tensor([0, 0]))',
    'L.repeat_interleave(L.tensor([], dtype=L.int64))',
    'L.repeat_interleave(L.tensor([2, 1], dtype=L.int32))',
    'L.repeat_interleave(i, L.tensor([1, 2, 3, 1, 1, 1]))',
    'L.repeat_interleave(i, L.tensor([1, 2]), dim=0, output_size=3)',
    'L.repeat_interleave(i, 2, dim=0, output_size=4)',
    'L.repeat_interleave(s, 2)',
    'L.repeat_interleave(i, 2, dim=-1)',
    'L.repeat_interleave(e, 3)',
    'L.repeat_interleave(c, L.tensor([3, 0, 1]), dim=-2)',
    'i.repeat_interleave(2)',
    'i.repeat_interleave(L.tensor([1, 2]), dim=0)',
    'L.take(i, L.tensor([[0, -1], [5, 2]]))',
    'L.take(s, L.tensor(0))',
    'L.take(i, L.tensor([], dtype=L.int64))',
    'L.take(e, L.tensor([], dtype=L.int64))',
    'L.take(c.transpose(0, 2), L.tensor([[1, 5], [7, 23]]))',
    'i.take(L.tensor([3]))',
    'L.take_along_dim(i, L.tensor([[0], [2]]), 1)',
    'L.take_along_dim(i, L.tensor([0, 5]))',
    'L.take_along_dim(i, L.tensor([[0, 5]]))',
    'L.take_along_dim(i[:, :1], L.tensor([[0, 0, 0]]), 0)',
    'L.take_along_dim(c, L.argsort(c, dim=-1), -1)',
    'L.take_along_dim(c, L.tensor([[[1]], [[0]]]), 1)',
    'L.take_along_dim(c, L.tensor([[[1]], [[0]]]), 2)',
    'f.take_along_dim(L.tensor([[1], [0]]), dim=1)',
    'L.index_add(f, 1, L.tensor([0, 0]), L.ones(2, 2), alpha=2)',
    'L.index_add(f, 0, L.tensor([1, 0, 1]), L.ones(3, 3))',
    'L.index_add(f, -1, L.tensor([2]), L.ones(2, 1) * 5)',
    'L.index_add(f, 1, L.tensor([0, 0], dtype=L.int32), L.ones(2, 2))',
    'L.index_add(f, 1, L.tensor(1), L.ones(2, 1))',
    'L.index_add(s, 0, L.tensor(0), L.tensor(2.))',
    'L.index_add(i, 0, L.tensor([1]), L.ones(1, 3, dtype=L.int64), alpha=2.5)',
    'L.index_add(f, 1, L.tensor([0, 0]), L.ones(2, 2), alpha=2.5)',
    'L.index_add(L.zeros(2, 3, 4), 1, L.tensor([0, 2]), L.ones(1, 2, 4))',
    'L.index_add(c, 1, L.tensor([], dtype=L.int64), L.ones(2, 0, 4))',
    'f.index_add(1, L.tensor([2, 0]), L.ones(2, 2))',
    'f.clone().index_add_(1, L.tensor([2, 0, 2]), L.ones(2, 3), alpha=-1)',
    's.clone().index_add_(0, L.tensor([0]), L.tensor([3.]))',
    'L.index_copy(f, 1, L.tensor([0, 2]), L.ones(2, 2))',
    'L.index_copy(f, 0, L.tensor([1]), L.ones(1, 3))',
    'L.index_copy(f, 1, L.tensor(1), L.ones(2, 1))',
    'L.index_copy(s, 0, L.tensor(0), L.tensor(7.))',
    'L.index_copy(s, 0, L.tensor([0]), L.tensor([7.]))',
    'f.index_copy(-1, L.tensor([1]), L.zeros(2, 1))',
    'f.clone().index_copy_(0, L.tensor([1, 0]), L.zeros(2, 3))',
    'L.index_fill(f, 1, L.tensor([0, 2]), -1)',
    'L.index_fill(f, 1, L.tensor([0, -1]), -1)',
    'L.index_fill(f, 1, L.tensor(1), L.tensor(5.))',
    'L.index_fill(i, 1, L.tensor(1), 2.5)',
    'L.index_fill(i, 1, L.tensor(1), L.tensor(2.5))',
    'L.index_fill(s, 0, L.tensor(0), 2.5)',
    'L.index_fill(b, 0, L.tensor(0), 2.5)',
    'L.index_fill(c, -2, L.tensor([], dtype=L.int64), 1.)',
    'f.index_fill(0, L.tensor([1]), 0)',
    'f.clone().index_fill_(0, L.tensor([1]), 0)',
    'L.masked_select(f, b)',
    'L.masked_select(f, b[0])',
    'L.masked_select(v, L.tensor([[True], [False]]))',
    'L.masked_select(f, b.to(L.uint8))',
    'L.masked_select(s, L.tensor(True))',
    'L.masked_select(s, L.tensor([True, False]))',
    'L.masked_select(e, L.tensor([], dtype=L.bool))',
    'f.masked_select(f > 0)',
    'L.masked_scatter(f, b[0], L.tensor([10., 20, 30, 40, 50]))',
    'L.masked_scatter(f, b, L.tensor([10., 20, 30]))',
    'L.masked_scatter(f, b[0], L.tensor([[10., 20], [30, 40]]))',
    'L.masked_scatter(f, b.long(), L.tensor([10., 20, 30, 40]))',
    'L.masked_scatter(f, b.to(L.uint8), L.tensor([10., 20, 30, 40]))',
    'L.masked_scatter(v, L.tensor([[True], [False]]), L.tensor([10., 20, 30, 40]))',
    'f.clone().masked_scatter_(L.tensor([[True], [False]]), L.tensor([10., 20, 30, 40]))',
    'L.masked_scatter(f, L.zeros(3, dtype=L.bool), L.tensor([]))',
    'L.masked_scatter(i, i > 0, L.arange(10, 20))',
    'i.masked_scatter(i < 0, L.arange(10, 20))',
    "L.scatter_reduce(L.full((2, 3), 2.), 0, L.tensor([[0, 1, 0], [0, 0, 1]]), L.tensor([[1., 5, 3], [2, 4, 6]]), 'sum')",
    "L.scatter_reduce(L.full((2, 3), 2.), 0, L.tensor([[0, 1, 0], [0, 0, 1]]), L.tensor([[1., 5, 3], [2, 4, 6]]), 'sum', include_self=False)",
    "L.scatter_reduce(L.full((2, 3), 2.), 0, L.tensor([[0, 1, 0], [0, 0, 1]]), L.tensor([[1., 5, 3], [2, 4, 6]]), 'prod')",
    "L.scatter_reduce(L.full((2, 3), 2.), 0, L.tensor([[0, 1, 0], [0, 0, 1]]), L.tensor([[1., 5, 3], [2, 4, 6]]), 'prod', include_self=False)",
    "L.scatter_reduce(L.full((2, 3), 2.), 0, L.tensor([[0, 1, 0], [0, 0, 1]]), L.tensor([[1., 5, 3], [2, 4, 6]]), 'mean')",
    "L.scatter_reduce(L.full((2, 3), 2.), 0, L.tensor([[0, 1, 0], [0, 0, 1]]), L.tensor([[1., 5, 3], [2, 4, 6]]), 'mean', include_self=False)",
    "L.scatter_reduce(L.full((2, 3), 2.), 0, L.tensor([[0, 1, 0], [0, 0, 1]]), L.tensor([[1., 5, 3], [2, 4, 6]]), 'amax')",
    "L.scatter_reduce(L.full((2, 3), 2.), 0, L.tensor([[0, 1, 0], [0, 0, 1]]), L.tensor([[1., 5, 3], [2, 4, 6]]), 'amax', include_self=False)",
    "L.scatter_reduce(L.full((2, 3), 2.), 0, L.tensor([[0, 1, 0], [0, 0, 1]]), L.tensor([[1., 5, 3], [2, 4, 6]]), 'amin')",
    "L.scatter_reduce(L.full((2, 3), 2.), 0, L.tensor([[0, 1, 0], [0, 0, 1]]), L.tensor([[1., 5, 3], [2, 4, 6]]), 'amin', include_self=False)",
    "L.scatter_reduce(L.full((2, 3), 3), 0, L.tensor([[0, 1, 0], [0, 0, 1]]), L.tensor([[1, 5, 3], [2, 4, 6]]), 'mean')",
    "L.scatter_reduce(L.full((2, 3), 3), 0, L.tensor([[0, 1, 0], [0, 0, 1]]), L.tensor([[1, 5, 3], [2, 4, 6]]), 'mean', include_self=False)",
    "L.scatter_reduce(L.full((2, 3), 3), 0, L.tensor([[0, 1, 0], [0, 0, 1]]), L.tensor([[1, 5, 3], [2, 4, 6]]), 'prod', include_self=False)",
    "L.scatter_reduce(L.full((2, 3), 3), 0, L.tensor([[0, 1, 0], [0, 0, 1]]), L.tensor([[1, 5, 3], [2, 4, 6]]), 'amin', include_self=False)",
    "L.scatter_reduce(L.full((2, 3), 3), 1, L.tensor([[0, 0, 0], [2, 2, 1]]), L.tensor([[1, 5, 3], [2, 4, 6]]), 'amax')",
    "L.scatter_reduce(L.zeros(5), 0, L.tensor([0, 1, 0, 1, 2, 1, 1, 1]), L.arange(1., 9.), 'prod', include_self=False)",
    "L.scatter_reduce(L.ones(5), 0, L.tensor([0, 1, 0, 1, 2, 1, 1, 1]), L.arange(1., 9.), 'prod')",
    "L.scatter_reduce(L.ones(5), 0, L.tensor([0, 1, 0, 1, 2, 1, 1, 1]), L.arange(1., 9.), 'amax', include_self=False)",
    "L.scatter_reduce(L.ones(5), 0, L.tensor([0, 1, 0, 1, 2, 1, 1, 1]), L.arange(1., 9.), 'mean', include_self=False)",
    "L.scatter_reduce(L.full((2, 3), 2.), 0, L.tensor([[0, 1], [0, 0]]), L.tensor([[1., 5, 3], [2, 4, 6]]), 'sum')",
    "L.scatter_reduce(L.full((2, 3), 2.), 1, L.tensor([[0, 1, 0]]), L.tensor([[1., 5, 3], [2, 4, 6]]), 'amax', include_self=False)",
    "L.scatter_reduce(L.full((2, 3), 2.), 0, L.tensor([[0, 1, 0]]), L.tensor([[1., 5, 3]]), 'amax')",
    "L.scatter_reduce(L.full((2, 3), 2.), 0, L.zeros(0, 3, dtype=L.int64), L.tensor([[1., 5, 3], [2, 4, 6]]), 'amax')",
    "L.scatter_reduce(L.tensor([1., float('nan'), 3]), 0, L.tensor([0, 0, 2]), L.tensor([float('nan'), 1, 5]), 'amax')",
    "L.scatter_reduce(L.tensor([1., 2, 3]), 0, L.tensor([0, 0, 2]), L.tensor([float('nan'), 1, 5]), 'amin', include_self=False)",
    "L.scatter_reduce(c, 2, L.tensor([[[0, 1, 0, 3]] * 3] * 2), c * 2, 'sum')",
    "L.scatter_reduce(c, -1, L.tensor([[[0, 1, 0, 3]] * 3] * 2), c * 2, 'prod', include_self=False)",
    "f.scatter_reduce(0, L.tensor([[1, 1, 0]]), f, 'amin')",
    "f.clone().scatter_reduce_(0, L.tensor([[1, 1, 0]]), f, 'sum')",
    'L.unique(u)',
    'L.unique(u, return_inverse=True)',
    'L.unique(u, return_counts=True)',
    'L.unique(u, return_inverse=True, return_counts=True)',
    'L.unique(e, return_inverse=True, return_counts=True)',
    'L.unique(s, return_inverse=True, return_counts=True)',
    'L.unique(f, return_inverse=True, return_counts=True)',
    'L.unique(b, return_inverse=True, return_counts=True)',
    'L.unique(L.tensor([[1, 2], [1, 2], [0, 5]]), dim=0, return_inverse=True, return_counts=True)',
    'L.unique(L.tensor([[1, 2], [1, 2], [0, 5]]), dim=1, return_inverse=True, return_counts=True)',
    'L.unique(L.tensor([[1, 2], [1, 2], [0, 5]]), dim=-1)',
    'L.unique(L.tensor([[2, 1, 2], [0, 5, 0], [2, 1, 2], [1, 1, 1]]), dim=1, return_inverse=True, return_counts=True)',
    'L.unique(L.tensor([[2, 1, 2], [0, 5, 0], [2, 1, 2], [1, 1, 1]]), dim=0, return_inverse=True, return_counts=True)',
    'L.unique(L.tensor([[[1, 0], [1, 1]], [[0, 0], [1, 1]], [[1, 0], [1, 1]]]), dim=0, return_inverse=True, return_counts=True)',
    'L.unique(L.tensor([[[1, 0], [1, 1]], [[0, 0], [1, 1]], [[1, 0], [1, 1]]]), dim=2, return_inverse=True, return_counts=True)',
    'L.unique(L.zeros(0, 2), dim=0, return_inverse=True, return_counts=True)',
    'u.unique(return_counts=True)',
    'L.unique_consecutive(L.tensor([1, 1, 2, 2, 3, 1, 1, 2]), return_inverse=True, return_counts=True)',
    'L.unique_consecutive(u, return_inverse=True, return_counts=True)',
    'L.unique_consecutive(L.tensor([[1, 2], [1, 2], [0, 5], [1, 2]]), dim=0, return_inverse=True, return_counts=True)',
    'L.unique_consecutive(L.tensor([[1, 2], [1, 2], [0, 5], [1, 2]]), dim=1, return_inverse=True, return_counts=True)',
    'L.unique_consecutive(e, return_inverse=True, return_counts=True)',
    'L.unique_consecutive(L.tensor(2), return_inverse=True, return_counts=True)',
    'L.unique_consecutive(u)',
    'u.unique_consecutive(return_counts=True)',
    'L.unique(L.zeros(0, 2), dim=0, return_inverse=True, return_counts=True)',
    'L.where(u > 1)',
    'L.where(L.tensor(1))',
    'L.where(L.tensor(0.))',
    'L.where(u)',
    'L.where(c > 0)',
    'L.where(e)',
    'L.where(u > 1, u, L.tensor(0))',
    'L.where(u > 1, u, 0)',
    'L.where(u > 1, 1.5, u)',
    'L.where(condition=u > 1, input=u, other=-u)',
    'u.where(u > 1, L.tensor(0))',
    'u.where(u > 1, -u)',
    'L.cross(L.ones(2, 3), f)',
    'L.cross(L.ones(3, 3), q)',
    'L.cross(L.ones(3, 3), q, dim=1)',
    'L.cross(L.ones(3, 3), q, dim=-1)',
    'L.cross(L.ones(3, 3), q, dim=0)',
    'L.cross(L.ones(1, 3), f)',
    'L.cross(L.ones(2, 3, dtype=L.int64), i)',
    'L.cross(v, v.flip(0))',
    'L.cross(L.ones(4, 3, 2), L.arange(24.).reshape(4, 3, 2))',
    'f.cross(L.ones(2, 3))',
    'L.cummax(L.tensor([1, 3, 2, 3, 5, 1]), 0)',
    'L.cummin(L.tensor([1, 3, 2, 1, 5, 0]), 0)',
    'L.cummax(h, 0)',
    'L.cummin(h, 0)',
    "L.cummax(L.tensor([1., float('nan'), 2, float('nan'), 5]), 0)",
    "L.cummin(L.tensor([float('nan'), 1., 2, float('nan'), 0]), 0)",
    'L.cummax(s, 0)',
    'L.cummax(s, 1)',
    'L.cummax(L.zeros(0, 3), 0)',
    'L.cummax(L.zeros(0, 3), 1)',
    'L.cummax(b, 1)',
    'L.cummin(b, 1)',
    'L.cummax(f, dim=1)',
    'L.cummax(c, 1)',
    'L.cummin(c, -1)',
    'L.cummax(L.tensor([[2, 2, 1, 2, 3, 3, 0, 3, 3]]), 1)',
    'L.cummin(L.tensor([[2, 2, 1, 2, 1, 3, 0, 3, 0]]), 1)',
    'L.cummax(L.tensor([2, 2, 1, 2, 3, 3, 0, 3, 3], dtype=L.int8), 0)',
    'L.cummax(d, 0)',
    'L.cummin(d, 1)',
    'c.cummax(0)',
    'c.cummin(dim=2)',
    'L.diff(L.tensor([1, 3, 2, 7]))',
    'L.diff(L.tensor([1, 3, 2, 7]), n=2)',
    'L.diff(L.tensor([1, 3, 2, 7]), n=5)',
    'L.diff(L.tensor([1, 3, 2, 7]), n=0)',
    'L.diff(L.tensor([1, 3, 2, 7]), n=-1)',
    'L.diff(f, dim=0)',
    'L.diff(f, dim=0, prepend=L.zeros(1, 3), append=L.ones(2, 3))',
    'L.diff(f, dim=1, prepend=L.zeros(2, 1, dtype=L.int64))',
    'L.diff(i, dim=1, prepend=L.zeros(2, 1))',
    'L.diff(L.tensor([True, False, False, True]))',
    'L.diff(L.tensor([True, False, False, True]), 2)',
    'L.diff(L.tensor([1, 3], dtype=L.uint8))',
    'L.diff(c, 3, 1)',
    'L.diff(c, 2, -1, append=c)',
    'L.diff(e)',
    'f.diff()',
    'f.diff(dim=0)',
    'L.diag_embed(f.half(), 1)',
    'L.diag_embed(f.bfloat16())',
    'L.kron(f.half(), v.half())',
    'L.cummin(f.bfloat16(), 0)',
    'L.index_add(f.half(), 1, L.tensor([0, 0]), L.ones(2, 2, dtype=L.float16))',
    'L.index_copy(i.to(L.int8), 1, L.tensor([0]), L.ones(2, 1, dtype=L.int8))',
    'L.index_fill(i.to(L.int16), 1, L.tensor([0]), 7)',
    'L.masked_scatter(i.to(L.int32), b, L.arange(10, 16, dtype=L.int32))',
    "L.scatter_reduce(i.to(L.int32), 1, L.tensor([[0, 0, 1], [2, 2, 2]]), i.to(L.int32), 'amax')",
    "L.scatter_reduce(b, 1, L.tensor([[0, 0, 1], [2, 2, 2]]), b, 'amax')",
    "L.scatter_reduce(b, 1, L.tensor([[0, 0, 1], [2, 2, 2]]), b, 'sum')",
    "L.scatter_reduce(f.half(), 1, L.tensor([[0, 0, 1], [2, 2, 2]]), f.half(), 'mean')",
    'L.unique(i.to(L.uint8), return_inverse=True)',
    'L.diff(i.to(L.int8))',
    'L.diff(f.half(), prepend=L.zeros(2, 1, dtype=L.float16))',
    "L.einsum('ij,jk->ik', f.double(), d)",
    'L.tensordot(i.to(L.int32), i.to(L.int32), ([0], [0]))',
    'L.take(b, L.tensor([0, 5]))',
    'L.take_along_dim(b, L.tensor([[0], [2]]), 1)',
    'L.repeat_interleave(b, 2, dim=0)',
    'L.cross(i.to(L.int32), i.to(L.int32).flip(1))',
    'L.rot90(b)',
    'L.tile(b, (2,))',
    'L.masked_select(i.to(L.uint8), b)',
    'L.cartesian_prod(b[0], b[1])',
    'L.diagflat(b)',
    'L.diag(b[0])',
    'L.hstack([b, i])',
    'L.addr(L.zeros(2, 3, dtype=L.float64), v[:2], v)',
    'L.inner(v.double(), v.double())',
    # edge cases: empty, 0-d, out-of-range bounds
    'L.tensor_split(L.zeros(0, 3), 2)',
    'L.tensor_split(w, [1, 10])',
    'L.tensor_split(w, (7, 9))',
    'L.atleast_1d([])',
    'L.atleast_2d(())',
    'L.column_stack([s, s])',
    'L.column_stack([e, e])',
    'L.diff(b, prepend=b[:, :1])',
    'L.diff(L.tensor([1.5]), 3)',
    "L.scatter_reduce(s, 0, L.tensor(0), L.tensor(2.), 'sum')",
    "L.scatter_reduce(s, 0, L.tensor([0]), L.tensor([2.]), 'amax')",
    'L.index_copy(v, 0, L.tensor([2, 0]), L.tensor([9., 8.]))',
    'L.index_fill(v, 0, L.tensor(-3), 0.)',
    'L.index_add(v, 0, L.tensor([2, 2, 2]), L.tensor([1., 2., 3.]), alpha=-1)',
    'L.take_along_dim(s, L.tensor(0))',
    'L.masked_scatter(s, L.tensor(True), L.tensor([4.]))',
    'L.masked_scatter(s, L.tensor([True, False]), L.tensor([4., 5.]))',
    "L.cummax(L.tensor([float('-inf'), float('inf'), 1.0]), 0)",
    "L.cummin(L.tensor([float('inf'), float('-inf'), float('-inf')]), 0)",
    'L.kron(s, s)',
    'L.kron(v, s)',
    'L.tensordot(s, s, 0)',
    'L.tensordot(v, v, ([], []))',
    'L.inner(e, e)',
    'L.vdot(e, e)',
    'L.mv(L.zeros(2, 0), e)',
    "L.einsum('i,i->', e, e)",
    "L.einsum('ij->j', L.zeros(0, 3))",
    "L.meshgrid(e, e, indexing='xy')",
    'L.cartesian_prod(e, e)',
    'L.unique(b)',
    'L.unique(L.tensor([[1., 2.], [1., 2.]]), dim=1)',
    'L.diag(L.zeros(0, 3))',
    'L.diag(L.zeros(0, 3), 2)',
    'L.diag_embed(L.zeros(2, 0))',
    'L.rot90(L.zeros(0, 2), 1)',
    'L.where(L.zeros(0, 3))',
    'L.flipud(e)',
    'L.tile(e, (2, 3))',
    'L.repeat_interleave(e, L.tensor([], dtype=L.int64))',
    'L.repeat_interleave(L.zeros(3, 0), 2, dim=0)',
    'L.cross(L.zeros(0, 3), L.zeros(0, 3))',
    'L.broadcast_shapes(())',
    'L.broadcast_shapes(1, 0)',
    'L.broadcast_tensors(s, s)',
    'L.dstack([e, e])',
    'L.vstack([e, e])',
    'L.hstack([e, v])',
]

ERROR_CASES = [
    ('L.atleast_1d(1)', 'TypeError'),
    ('L.broadcast_shapes((2, 1), (3, 2))', 'ShapeError'),
    ('L.broadcast_shapes((-1,), (1,))', 'ValueError'),
    ('L.broadcast_tensors(f, w)', 'ShapeError'),
    ('L.hstack([])', 'ValueError'),
    ('L.hstack(f)', 'TypeError'),
    ('L.column_stack([])', 'ValueError'),
    ('L.tensor_split(w, 0)', 'ValueError'),
    ('L.tensor_split(w, L.tensor([1.]))', 'DTypeError'),
    ('L.tensor_split(w, L.tensor([[1]]))', 'ShapeError'),
    ('L.tensor_split(s, 2)', 'ShapeError'),
    ('L.tensor_split(f, 2, dim=2)', 'IndexError'),
    ('L.hsplit(s, 2)', 'ShapeError'),
    ('L.hsplit(f, 2)', 'ShapeError'),
    ('L.hsplit(f, 0)', 'ShapeError'),
    ('L.vsplit(v, 3)', 'ShapeError'),
    ('L.vsplit(f, 3)', 'ShapeError'),
    ('L.dsplit(f, 3)', 'ShapeError'),
    ('L.tile(f, (-1,))', 'ValueError'),
    ('L.fliplr(v)', 'ShapeError'),
    ('L.flipud(s)', 'ShapeError'),
    ('L.rot90(f, 1, [0])', 'ValueError'),
    ('L.rot90(v, 1, [0, 1])', 'ShapeError'),
    ('L.rot90(f, 1, [0, 0])', 'ValueError'),
    ('L.rot90(f, 1, [0, -2])', 'ValueError'),
    ('L.rot90(f, 1, [-3, 1])', 'IndexError'),
    ('L.rot90(f, 1, [0, 2])', 'ValueError'),
    ('L.rot90(c, 1, [0, 3])', 'ValueError'),
    ('L.diagonal(f, 0, 1, 1)', 'ValueError'),
    ('L.diagonal(f, 0, 1, 2)', 'IndexError'),
    ('L.diagonal(s)', 'IndexError'),
    ('L.diag_embed(s)', 'IndexError'),
    ('L.diag_embed(f, 0, 1, 1)', 'ValueError'),
    ('L.diag_embed(f, 0, 1, 3)', 'IndexError'),
    ('L.diag(c)', 'ShapeError'),
    ('L.diag(s)', 'ShapeError'),
    ('L.tensordot(c, d, 1)', 'ShapeError'),
    ('L.tensordot(f, f, -1)', 'ValueError'),
    ('L.tensordot(f, f, 3)', 'IndexError'),
    ('L.tensordot(f, f, ([0], [1]))', 'ShapeError'),
    ('L.tensordot(f, f, ([0, 1], [1]))', 'ValueError'),
    ('L.tensordot(f, f, L.tensor(1))', 'ShapeError'),
    ('L.tensordot(c, d, dims=([1, 2], [0, 1]))', 'DTypeError'),
    ('L.tensordot(f, i, ([1], [1]))', 'DTypeError'),
    ('L.tensordot(f, f, ([1, 1], [0, 0]))', 'ValueError'),
    ('L.inner(c, f)', 'ShapeError'),
    ('L.inner(f, w)', 'ShapeError'),
    ('L.vdot(f, f)', 'ShapeError'),
    ('L.vdot(v, i32)', 'DTypeError'),
    ('L.vdot(v, w)', 'ShapeError'),
    ('L.vdot(s, s)', 'ShapeError'),
    ('L.mv(f, f)', 'ShapeError'),
    ('L.mv(f, w)', 'ShapeError'),
    ('L.mv(f, L.tensor([1, 2, 3]))', 'DTypeError'),
    ('L.mv(v, v)', 'ShapeError'),
    ('L.addmv(L.zeros(3), f, v)', 'ShapeError'),
    ('L.addmv(L.zeros(2, 2), f, v)', 'ShapeError'),
    ('L.addr(L.zeros(2, 3), f, f[0])', 'ShapeError'),
    ('L.addr(L.zeros(2, 3, dtype=L.int64), i[:, 0], i[0], alpha=2.5)', 'DTypeError'),
    ('L.addr(L.zeros(2, 3, dtype=L.int64), i[:, 0], i[0], beta=2.5)', 'DTypeError'),
    ('L.addr(L.zeros(4, 3), i[:, 0], i[0])', 'ShapeError'),
    ("L.einsum('ij,jk', f, i.t())", 'DTypeError'),
    ("L.einsum('ii', f)", 'ShapeError'),
    ("L.einsum('ij,jk->ik', f, L.ones(4, 4))", 'ShapeError'),
    ("L.einsum('ij', f, f)", 'ValueError'),
    ("L.einsum('ij,jk', f)", 'ValueError'),
    ("L.einsum('i', f)", 'ShapeError'),
    ("L.einsum('ijk', f)", 'ShapeError'),
    ("L.einsum('i1', f)", 'ValueError'),
    ("L.einsum('ij->ii', f)", 'ValueError'),
    ("L.einsum('ij->k', f)", 'ValueError'),
    ("L.einsum('ij->i.', f)", 'ValueError'),
    ("L.einsum('i.j', f)", 'ValueError'),
    ("L.einsum('i...j...', f)", 'ValueError'),
    ("L.einsum('ij-', f)", 'ValueError'),
    ('L.einsum(f, [0, 1], f, [1, 2])', 'ShapeError'),
    ('L.einsum(f, [0, 60])', 'ValueError'),
    ('L.einsum(f, [0, 1], [0, 0])', 'ValueError'),
    ("L.einsum('i,i->i', L.ones(3), L.ones(4))", 'ShapeError'),
    ("L.einsum('...,...->...', L.ones(3), L.ones(4))", 'ShapeError'),
    ("L.einsum('ij,ij->', b, b)", 'DTypeError'),
    ("L.einsum('ij,j->', L.ones(2, 2, dtype=L.int32), L.ones(2, dtype=L.int32))", 'DTypeError'),
    ("L.einsum('i', s)", 'ShapeError'),
    ("L.einsum('i,j', v)", 'ValueError'),
    ("L.einsum('abc,cb->a', c, L.ones(3, 4))", 'ShapeError'),
    ("L.meshgrid(v, i[0], indexing='ij')", 'DTypeError'),
    ("L.meshgrid(f, v, indexing='xy')", 'ShapeError'),
    ("L.meshgrid(v, v, indexing='yx')", 'ValueError'),
    ("L.meshgrid(indexing='ij')", 'ValueError'),
    ('L.cartesian_prod(f)', 'ShapeError'),
    ('L.cartesian_prod()', 'ValueError'),
    ('L.cartesian_prod(s, v)', 'ShapeError'),
    ('L.repeat_interleave(i, -1)', 'ValueError'),
    ('L.repeat_interleave(i, L.tensor([1, 2]), dim=1)', 'ShapeError'),
    ('L.repeat_interleave(i, L.tensor([1, -2]), dim=0)', 'ValueError'),
    ('L.repeat_interleave(i, L.tensor([1., 2]), dim=0)', 'DTypeError'),
    ('L.repeat_interleave(i, L.tensor([[1, 2]]), dim=0)', 'ShapeError'),
    ('L.repeat_interleave(L.tensor(2))', 'ShapeError'),
    ('L.repeat_interleave(i, L.tensor([1, 2, 3]))', 'ShapeError'),
    ('L.repeat_interleave(i, L.tensor([1, 2]), dim=0, output_size=4)', 'ShapeError'),
    ('L.repeat_interleave(i, 2, dim=0, output_size=5)', 'ShapeError'),
    ('L.repeat_interleave(s, 2, dim=0)', 'IndexError'),
    ('L.repeat_interleave(i, 2, dim=2)', 'IndexError'),
    ('L.take(i, L.tensor([6]))', 'IndexError'),
    ('L.take(i, L.tensor([-7]))', 'IndexError'),
    ('L.take(i, L.tensor([1], dtype=L.int32))', 'DTypeError'),
    ('L.take(e, L.tensor([0]))', 'IndexError'),
    ('L.take_along_dim(i, L.tensor([[0, 2]]), 0)', 'ShapeError'),
    ('L.take_along_dim(i, L.tensor([0]), 1)', 'ShapeError'),
    ('L.take_along_dim(i, L.tensor([[0]], dtype=L.int32), 1)', 'DTypeError'),
    ('L.take_along_dim(i, L.tensor([[[0]]]), 1)', 'ShapeError'),
    ('L.take_along_dim(i, L.tensor([[0], [1], [2]]), 1)', 'ShapeError'),
    ('L.take_along_dim(i, L.tensor([[3]]), 1)', 'IndexError'),
    ('L.take_along_dim(i, L.tensor([[1, 0, 2]]), 0)', 'IndexError'),
    ('L.index_add(f, 1, L.tensor([0, 0]), L.ones(2, 2, dtype=L.int64))', 'DTypeError'),
    ('L.index_add(f, 1, L.tensor([0, 0.]), L.ones(2, 2))', 'DTypeError'),
    ('L.index_add(f, 1, L.tensor([[0, 0]]), L.ones(2, 2))', 'IndexError'),
    ('L.index_add(f, 1, L.tensor([0, 0]), L.ones(2, 3))', 'ShapeError'),
    ('L.index_add(f, 1, L.tensor([0, 0]), L.ones(3, 2))', 'ShapeError'),
    ('L.index_add(f, 1, L.tensor([0, 3]), L.ones(2, 2))', 'IndexError'),
    ('L.index_add(f, 1, L.tensor([0, -1]), L.ones(2, 2))', 'IndexError'),
    ('L.index_add(f, 1, L.tensor(1), L.ones(2))', 'IndexError'),
    ('L.index_add(f, 2, L.tensor([0, 0]), L.ones(2, 2))', 'IndexError'),
    ('L.index_copy(f, 1, L.tensor([0, 2]), L.ones(2, 2, dtype=L.int64))', 'DTypeError'),
    ('L.index_copy(f, 1, L.tensor([0, 2], dtype=L.int32), L.ones(2, 2))', 'DTypeError'),
    ('L.index_copy(f, 1, L.tensor([[0, 2]]), L.ones(2, 2))', 'IndexError'),
    ('L.index_copy(f, 1, L.tensor([0, 2]), L.ones(2, 3))', 'IndexError'),
    ('L.index_copy(f, 1, L.tensor([0, 2]), L.ones(3, 2))', 'ShapeError'),
    ('L.index_copy(L.zeros(2, 3, 4), 1, L.tensor([0, 2]), L.ones(3, 2, 5))', 'ShapeError'),
    ('L.index_copy(f, 1, L.tensor([0, 3]), L.ones(2, 2))', 'IndexError'),
    ('L.index_copy(f, 1, L.tensor([0, -1]), L.ones(2, 2))', 'IndexError'),
    ('L.index_copy(f, 1, L.tensor(1), L.ones(2))', 'IndexError'),
    ('L.index_fill(f, 1, L.tensor([0, 3]), -1)', 'IndexError'),
    ('L.index_fill(f, 1, L.tensor([0, 2], dtype=L.int32), -1)', 'IndexError'),
    ('L.index_fill(f, 1, L.tensor([[0, 2]]), -1)', 'ShapeError'),
    ('L.index_fill(f, 1, L.tensor(1), L.tensor([5.]))', 'ShapeError'),
    ('L.masked_select(f, b.long())', 'DTypeError'),
    ('L.masked_select(f, L.tensor([True, False]))', 'ShapeError'),
    ('L.masked_scatter(f, b, L.tensor([10., 20]))', 'ShapeError'),
    ('L.masked_scatter(f, b, L.tensor([10, 20, 30]))', 'DTypeError'),
    ('v.clone().masked_scatter_(L.tensor([[True], [False]]), L.tensor([10., 20, 30, 40]))', 'ShapeError'),
    ("L.scatter_reduce(L.full((2, 3), 2.), 0, L.tensor([[0, 1, 0], [0, 0, 1]]), L.tensor([[1., 5, 3], [2, 4, 6]]), 'max')", 'ValueError'),
    ("L.scatter_reduce(L.full((2, 3), 2.), 0, L.tensor([[0, 1, 0], [0, 0, 1]]), L.tensor([[1, 5, 3], [2, 4, 6]]), 'sum')", 'DTypeError'),
    ("L.scatter_reduce(L.full((2, 3), 2.), 0, L.tensor([[0, 1, 0], [0, 0, 1]], dtype=L.int32), L.tensor([[1., 5, 3], [2, 4, 6]]), 'sum')", 'DTypeError'),
    ("L.scatter_reduce(L.full((2, 3), 2.), 0, L.tensor([[3]]), L.tensor([[1., 5, 3], [2, 4, 6]]), 'amax')", 'IndexError'),
    ("L.scatter_reduce(L.full((2, 3), 2.), 0, L.tensor([[-1]]), L.tensor([[1., 5, 3], [2, 4, 6]]), 'amax')", 'IndexError'),
    ("L.scatter_reduce(L.full((2, 3), 2.), 0, L.tensor([[[0]]]), L.tensor([[1., 5, 3], [2, 4, 6]]), 'amax')", 'ShapeError'),
    ("L.scatter_reduce(L.full((2, 3), 2.), 0, L.tensor([[0, 0, 0, 0]]), L.tensor([[1., 5, 3], [2, 4, 6]]), 'amax')", 'ShapeError'),
    ('L.unique(s, dim=0)', 'IndexError'),
    ('L.unique(L.zeros(2, 0), dim=0, return_inverse=True, return_counts=True)', 'ShapeError'),
    ('L.where(u > 1, u)', 'TypeError'),
    ('L.cross(L.ones(2, 2), L.ones(2, 2))', 'ShapeError'),
    ('L.cross(L.ones(2, 3), L.ones(2, 3), dim=0)', 'ShapeError'),
    ('L.cross(v, f)', 'ShapeError'),
    ('L.cross(L.ones(2, 3), i)', 'DTypeError'),
    ('L.cross(L.ones(2, 3), L.ones(2, 3), dim=2)', 'IndexError'),
    ('L.cummax(f, dim=2)', 'IndexError'),
    ('L.diff(s)', 'ShapeError'),
    ('L.diff(f, dim=0, prepend=L.zeros(3))', 'ShapeError'),
    ('L.diff(f, dim=0, prepend=L.zeros(1, 2))', 'ShapeError'),
    ('L.diff(f, dim=3)', 'IndexError'),
    ('L.diff(f, 1, 1, L.tensor(2.))', 'ShapeError'),
    ("L.einsum('ij,jk->ik', f.half(), L.ones(3, 2, dtype=L.float16))", 'DTypeError'),
    ('L.take_along_dim(s, L.tensor(0), 0)', 'IndexError'),
]


@pytest.mark.parametrize("expr", VALUE_CASES)
def test_matches_torch(expr):
    got, _ = evaluate(axle, expr)
    want, _ = evaluate(torch, expr)
    same(got, want)


# Where axle's text differs from torch's first line on purpose (or torch's is an artifact of
# its C++ layers): the part of axle's message checked instead.
MESSAGE_OVERRIDES = {
    "L.tensordot(f, f, ([1, 1], [0, 0]))": "dim 1 appears multiple times in the list of dims",
    "L.addr(L.zeros(4, 3), i[:, 0], i[0])": "must match the existing size (4) at non-singleton dimension 0",
    "L.einsum('...,...->...', L.ones(3), L.ones(4))": "dimension 0 covered by ellipsis in operand 1 has size 4",
    "v.clone().masked_scatter_(L.tensor([[True], [False]]), L.tensor([10., 20, 30, 40]))":
        "must be greater or equal to the number of dimensions in the tensor (2)",
    "L.where(u > 1, u)": "where() received an invalid combination of arguments",
    "L.meshgrid(f, v, indexing='xy')": "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got:",
    "L.masked_scatter(f, b, L.tensor([10, 20, 30]))": "expected self and source to have same dtypes but got Float "
                                                       "and Long",
    "L.scatter_reduce(L.full((2, 3), 2.), 0, L.tensor([[0, 1, 0], [0, 0, 1]]), L.tensor([[1., 5, 3], [2, 4, 6]]), "
    "'max')": "reduce argument must be either sum, prod, mean, amax or amin, got max",
}


@pytest.mark.parametrize("expr,kind", ERROR_CASES)
def test_errors_match_torch(expr, kind):
    with pytest.raises(Exception) as torch_error:
        evaluate(torch, expr)
    with pytest.raises(getattr(axle, kind)) as axle_error:
        evaluate(axle, expr)
    assert isinstance(axle_error.value, axle.AxleError)
    text = str(axle_error.value).replace("axle.", "torch.")
    expected = MESSAGE_OVERRIDES.get(expr, str(torch_error.value).split("\n")[0][:70])
    assert expected in text, (expected, text)


GRADIENT_INPUTS = dict(x=_rng.randn(3, 3), y=_rng.randn(3, 4), z=_rng.randn(2, 3, 4), p=_rng.randn(4), r=_rng.randn(3),
                       t=np.array(1.7))

GRADIENT_CASES = [
    "L.diagonal(x, 1)", "L.diagonal(z, -1, 2, 0)", "L.diagonal(z.transpose(0, 2), 0, 1, 2)",
    "L.diag_embed(y, 1, 0, 2)", "L.diag(r, -1)", "L.diag(y, 1)", "L.diagflat(x)", "L.kron(x, r)",
    "L.tensordot(z, y, ([1, 2], [0, 1]))", "L.tensordot(z, y.t(), 1)", "L.inner(z, y)", "L.vdot(r, r)",
    "L.mv(y.t(), r)", "L.addmv(r, x, r, beta=0.5, alpha=2)", "L.addmv(t, x, r)", "L.addr(x, r, r, beta=2, alpha=-1)",
    "L.einsum('ij,jk->ik', x, y)", "L.einsum('bij,jk->bik', z.transpose(1, 2), x)", "L.einsum('ii->i', x)",
    "L.einsum('ii', x)", "L.einsum('i,j->ij', r, p)", "L.einsum('...j,j->...', z, p)",
    "L.einsum('bij,bkj->bik', z, z)", "L.einsum('ij,jk,kl->il', x, y, y.t())", "L.einsum('ij,ij->', x, x)",
    "L.repeat_interleave(y, L.tensor([1, 0, 2]), dim=0)", "L.repeat_interleave(y, 2, dim=1)",
    "L.repeat_interleave(x, 3)", "L.take(y, L.tensor([[0, -1], [5, 5]]))",
    "L.take_along_dim(z, L.tensor([[[0, 3]], [[2, 2]]]), 2)", "L.take_along_dim(y, L.tensor([3, 0, 3]))",
    "L.index_add(y, 1, L.tensor([0, 0, 3]), x, alpha=2)", "L.index_add(x, 0, L.tensor([2, 0]), y[:2, :3])",
    "L.index_copy(y, 1, L.tensor([3, 1, 0]), x)", "L.index_fill(y, 1, L.tensor([3, 1]), t)",
    "L.index_fill(y, 0, L.tensor([1]), -2.0)", "L.masked_select(y, y > 0)",
    "L.masked_select(x, L.tensor([True, False, True]))", "L.masked_scatter(y, y > 0, p.repeat(3))",
    "L.masked_scatter(x, L.tensor([True, False, True]), y)",
    "L.scatter_reduce(y, 1, L.tensor([[0, 0, 1], [3, 3, 3], [1, 2, 1]]), x, 'sum')",
    "L.scatter_reduce(y, 1, L.tensor([[0, 0, 1], [3, 3, 3], [1, 2, 1]]), x, 'sum', include_self=False)",
    "L.scatter_reduce(y, 1, L.tensor([[0, 0, 1], [3, 3, 3], [1, 2, 1]]), x, 'mean')",
    "L.scatter_reduce(y, 1, L.tensor([[0, 0, 1], [3, 3, 3], [1, 2, 1]]), x, 'mean', include_self=False)",
    "L.scatter_reduce(y, 1, L.tensor([[0, 0, 1], [3, 3, 3], [1, 2, 1]]), x, 'prod')",
    "L.scatter_reduce(y, 1, L.tensor([[0, 0, 1], [3, 3, 3], [1, 2, 1]]), x, 'prod', include_self=False)",
    "L.scatter_reduce(y, 1, L.tensor([[0, 0, 1], [3, 3, 3], [1, 2, 1]]), x, 'amax')",
    "L.scatter_reduce(y, 1, L.tensor([[0, 0, 1], [3, 3, 3], [1, 2, 1]]), x, 'amin', include_self=False)",
    "L.cummax(y, 1)", "L.cummin(z, 0)", "L.cross(x, y[:, :3])", "L.cross(z[:, :, :3], z[:, :, 1:], dim=1)",
    "L.diff(y, 2)", "L.diff(y, 1, 0, prepend=x[:1, :1].expand(1, 4), append=p.reshape(1, 4))", "L.rot90(y, 1)",
    "L.rot90(z, -1, [2, 0])", "L.tile(y, (2, 1, 2))", "L.meshgrid(r, p, indexing='xy')", "L.cartesian_prod(r, p)",
    "L.broadcast_tensors(x, r)", "L.hstack([x, y])", "L.vstack([r, x])", "L.dstack([x, x])",
    "L.column_stack([r, x])", "L.tensor_split(y, [1, 3], dim=1)", "L.hsplit(y, 2)", "L.atleast_3d(t, r, x)",
    "L.fliplr(y)", "L.flipud(y)", "L.ravel(y.t())", "L.where(x > 0, x, r)",
    "y.clone().index_add_(1, L.tensor([0, 0, 3]), x, alpha=2)", "y.clone().index_copy_(1, L.tensor([3, 1, 0]), x)",
    "y.clone().index_fill_(1, L.tensor([3, 1]), t)", "y.clone().masked_scatter_(y > 0, p.repeat(3))",
    "y.clone().scatter_reduce_(1, L.tensor([[0, 0, 1], [3, 3, 3], [1, 2, 1]]), x, 'prod')",
    "r.clone().addmv_(x, r, beta=0.5)", "x.clone().addr_(r, r, alpha=3)",
]


def _gradients(L, expr):
    out, env = evaluate(L, expr, GRADIENT_INPUTS, requires_grad=True)
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    loss = 0
    for o in outs:
        if o.dtype.is_floating_point:
            weights = L.arange(o.numel(), dtype=o.dtype).reshape(tuple(o.shape)) * 0.1 + 0.3
            loss = loss + (o * weights).sum()
    loss.backward()
    return {k: env[k].grad for k in GRADIENT_INPUTS}


@pytest.mark.parametrize("expr", GRADIENT_CASES)
def test_gradients_match_torch(expr):
    got, want = _gradients(axle, expr), _gradients(torch, expr)
    for k in GRADIENT_INPUTS:
        if got[k] is None or want[k] is None:  # no path to the input: torch may still give zeros
            other = got[k] if got[k] is not None else want[k]
            assert other is None or not np.asarray(other).any(), k
            continue
        np.testing.assert_allclose(np.asarray(got[k]), want[k].numpy(), rtol=1e-7, atol=1e-9, err_msg=k)


# ---------------------------------------------------------------- behaviours beyond values
def test_install_is_idempotent_and_keeps_declared_ops():
    where, outer, roll, flip = axle.where, axle.outer, axle.roll, axle.flip
    _composites_shape.install(axle)
    assert axle.where is where and getattr(where, "_axle_one_arg_where", False)
    assert axle.outer is outer and axle.roll is roll and axle.flip is flip  # declared ops are not replaced
    assert axle.ger is axle.outer and axle.row_stack is not None
    for name in ("tensor_split", "diagonal", "unique", "cummax", "index_add_", "masked_scatter_", "where", "tile"):
        assert hasattr(axle.Tensor, name), name
    for name in ("einsum", "meshgrid", "atleast_1d", "tensordot", "broadcast_tensors"):
        assert not hasattr(axle.Tensor, name) and hasattr(axle, name), name


def test_diagonal_is_a_view_that_writes_through():
    x = axle.zeros(3, 4)
    x.diagonal().fill_(1)
    x.diagonal(1).copy_(axle.tensor([5.0, 6.0, 7.0]))
    x.diagonal(-1).fill_(-1)
    t = torch.zeros(3, 4)
    t.diagonal().fill_(1)
    t.diagonal(1).copy_(torch.tensor([5.0, 6.0, 7.0]))
    t.diagonal(-1).fill_(-1)
    same(x, t)
    base = axle.arange(24.0).reshape(2, 3, 4)[1]
    same(axle.diagonal(base, 1), torch.diagonal(torch.arange(24.0).reshape(2, 3, 4)[1], 1))


def test_permuted_dense_inputs():
    # A channels_last-strided 4-d tensor: reshape's own copy keeps that layout and cannot view it,
    # so the compositions reshape through a contiguous copy.
    a = axle.arange(36.0).reshape(2, 3, 3, 2).permute(0, 3, 1, 2)
    t = torch.arange(36.0).reshape(2, 3, 3, 2).permute(0, 3, 1, 2)
    for expr in ("L.ravel(x)", "L.einsum('abcd->dcba', x)", "L.einsum('abcd,abcd->ab', x, x)", "L.unique(x)",
                 "L.tensordot(x, x, ([2, 3], [2, 3]))", "L.take(x, L.tensor([5, 30]))",
                 "L.take_along_dim(x, L.zeros(2, 2, 3, 1, dtype=L.int64), 3)", "L.repeat_interleave(x, 2)",
                 "L.scatter_reduce(x, 3, L.zeros(2, 2, 3, 3, dtype=L.int64), x, 'amax')",
                 "L.masked_scatter(x, x > 10, x)", "L.diagflat(x[0, 0])", "L.unique(x, dim=1)"):
        same(eval(expr, {"L": axle, "x": a}), eval(expr, {"L": torch, "x": t}), expr)


def test_in_place_forms_return_self():
    x = axle.zeros(2, 3)
    for call in (lambda: x.index_add_(1, axle.tensor([0]), axle.ones(2, 1)),
                 lambda: x.index_copy_(1, axle.tensor([2]), axle.ones(2, 1)),
                 lambda: x.index_fill_(0, axle.tensor([1]), 3),
                 lambda: x.masked_scatter_(x > 2, axle.arange(6.0)),
                 lambda: x.scatter_reduce_(1, axle.tensor([[0, 0]]), axle.ones(2, 3), "sum")):
        assert call() is x
    same(x, torch.tensor([[3.0, 0.0, 1.0], [0.0, 1.0, 2.0]]))
    m = axle.zeros(2)
    assert m.addmv_(axle.ones(2, 3), axle.ones(3)) is m
    o = axle.zeros(2, 3)
    assert o.addr_(axle.ones(2), axle.ones(3)) is o


def test_where_one_and_three_arguments():
    c = axle.tensor([[1, 0, 2], [0, 3, 0]])
    rows, cols = axle.where(c)
    assert rows.tolist() == [0, 0, 1] and cols.tolist() == [0, 2, 1]
    assert [t.tolist() for t in axle.where(axle.tensor(True))] == [[0]]
    assert axle.where(c > 1, c, -c).tolist() == [[-1, 0, 2], [0, 3, 0]]
    assert c.where(c > 1, axle.tensor(9)).tolist() == [[9, 9, 2], [9, 3, 9]]


def test_cummax_cummin_return_named_tuples():
    r = axle.cummax(axle.tensor([1, 3, 2, 3]), 0)
    assert type(r) is axle.return_types.cummax and r._fields == ("values", "indices")
    assert r.values.tolist() == [1, 3, 3, 3] and r.indices.tolist() == [0, 1, 1, 3]
    values, indices = axle.cummin(axle.tensor([3.0, 1.0, 2.0, 1.0]), 0)
    assert values.tolist() == [3.0, 1.0, 1.0, 1.0] and indices.tolist() == [0, 1, 1, 3]
    assert type(axle.cummin(axle.ones(2), 0)) is axle.return_types.cummin


def test_meshgrid_without_indexing_warns_and_uses_ij():
    x, y = axle.arange(3), axle.arange(2)
    with pytest.warns(UserWarning, match="indexing argument"):
        gx, gy = axle.meshgrid(x, y)
    assert tuple(gx.shape) == (3, 2) and gx[:, 0].tolist() == [0, 1, 2]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        axle.meshgrid(x, y, indexing="xy")


def test_uint8_masks_warn_as_torch():
    f = axle.arange(3.0)
    with pytest.warns(UserWarning, match="deprecated"):
        assert axle.masked_select(f, axle.tensor([1, 0, 1], dtype=axle.uint8)).tolist() == [0.0, 2.0]


def test_unique_sorted_false_gives_the_same_set():
    x = np.array([[3, 1, 3], [2, 7, 1]])
    got = axle.unique(axle.tensor(x), sorted=False)
    assert sorted(got.tolist()) == sorted(torch.unique(torch.tensor(x), sorted=False).tolist())


# ---------------------------------------------------------------- seeded random cases
def _tensors(*arrays):
    return [axle.tensor(a) for a in arrays], [torch.tensor(a) for a in arrays]


@pytest.mark.parametrize("seed", range(40))
def test_random_scatter_reduce(seed):
    rng = np.random.RandomState(seed)
    nd = rng.randint(1, 4)
    shape = list(rng.randint(1, 5, size=nd))
    dim = rng.randint(nd)
    ishape = [rng.randint(1, s + 1) for s in shape]
    ishape[dim] = rng.randint(1, 8)
    sshape = [s + rng.randint(0, 2) for s in ishape]
    dt = [np.float64, np.int64, np.float32][seed % 3]
    arrays = ((rng.randn(*shape) * 3).astype(dt), rng.randint(0, shape[dim], size=ishape),
              (rng.randn(*sshape) * 3).astype(dt))
    (a_in, a_idx, a_src), (t_in, t_idx, t_src) = _tensors(*arrays)
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = torch.scatter_reduce(t_in, dim, t_idx, t_src, reduce, include_self=include_self)
            same(axle.scatter_reduce(a_in, dim, a_idx, a_src, reduce, include_self=include_self), want,
                 "%s include_self=%s" % (reduce, include_self))


@pytest.mark.parametrize("seed", range(30))
def test_random_cummax_cummin_with_ties_and_nan(seed):
    rng = np.random.RandomState(seed)
    shape = list(rng.randint(1, 7, size=rng.randint(1, 4)))
    dim = rng.randint(-len(shape), len(shape))
    x = rng.randint(0, 4, size=shape).astype(np.float32)
    if seed % 2:
        x[rng.rand(*shape) < 0.15] = np.nan
    elif seed % 4 == 0:
        x = x.astype(np.int64)
    (a,), (t,) = _tensors(x)
    same(axle.cummax(a, dim), torch.cummax(t, dim))
    same(axle.cummin(a, dim), torch.cummin(t, dim))


@pytest.mark.parametrize("seed", range(30))
def test_random_unique(seed):
    rng = np.random.RandomState(seed)
    shape = list(rng.randint(1, 5, size=rng.randint(1, 4)))
    (a,), (t,) = _tensors(rng.randint(0, 3, size=shape))
    same(axle.unique(a, return_inverse=True, return_counts=True),
         torch.unique(t, return_inverse=True, return_counts=True))
    dim = rng.randint(len(shape))
    same(axle.unique(a, dim=dim, return_inverse=True, return_counts=True),
         torch.unique(t, dim=dim, return_inverse=True, return_counts=True))
    same(axle.unique_consecutive(a, dim=dim, return_inverse=True, return_counts=True),
         torch.unique_consecutive(t, dim=dim, return_inverse=True, return_counts=True))
    same(axle.unique_consecutive(a, return_inverse=True, return_counts=True),
         torch.unique_consecutive(t, return_inverse=True, return_counts=True))


@pytest.mark.parametrize("seed", range(60))
def test_random_einsum(seed):
    rng = np.random.RandomState(seed)
    sizes = {c: int(rng.randint(1, 4)) for c in "abcd"}
    terms = ["".join(rng.choice(list("abcd"), size=rng.randint(0, 4))) for _ in range(rng.randint(1, 4))]
    used = sorted(set("".join(terms)))
    out = "".join(c for c in used if rng.rand() < 0.5)[::-1]
    equation = ",".join(terms) + ("->" + out if seed % 2 else "")
    arrays = [rng.randn(*[sizes[c] for c in term]) for term in terms]
    a, t = _tensors(*arrays)
    same(axle.einsum(equation, *a), torch.einsum(equation, *t), equation)


@pytest.mark.parametrize("seed", range(20))
def test_random_repeat_interleave_and_masked_scatter(seed):
    rng = np.random.RandomState(seed)
    shape = list(rng.randint(1, 5, size=rng.randint(1, 4)))
    dim = rng.randint(len(shape))
    x = rng.randn(*shape)
    (a, ar, am, asrc), (t, tr, tm, tsrc) = _tensors(x, rng.randint(0, 3, size=shape[dim]), rng.rand(*shape) < 0.5,
                                                    rng.randn(x.size))
    same(axle.repeat_interleave(a, ar, dim), torch.repeat_interleave(t, tr, dim))
    same(axle.masked_scatter(a, am, asrc), torch.masked_scatter(t, tm, tsrc))
    same(axle.masked_select(a, am), torch.masked_select(t, tm))
