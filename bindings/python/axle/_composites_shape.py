"""torch's shape, indexing and contraction functions that are compositions of
declared ops, written in Python: the atleast_* / *stack / *split family,
broadcast_tensors / broadcast_shapes, tile, ravel, flips and rot90, diag /
diagonal / diag_embed / diagflat, kron, tensordot, inner, vdot, mv, addmv, addr,
einsum, meshgrid, cartesian_prod, repeat_interleave, take, take_along_dim,
index_add / index_copy / index_fill, masked_select / masked_scatter,
scatter_reduce, unique / unique_consecutive, where(condition), cross,
cummax / cummin and diff, with torch 1.13's signatures, dtypes and errors.

Every function is built from differentiable ops (cat, reshape, as_strided,
gather, scatter, index_select, where, bmm ...), so autograd flows through it
without a backward of its own. ``install(axle)`` attaches the functions to the
module (and the ones torch also has as methods to axle.Tensor), leaving any name
axle already has alone; the one exception is ``where``, wrapped so that its
one-argument form (``nonzero(as_tuple=True)``) exists while the three-argument
form still reaches the declared op. Compared with torch in
tests/python/test_composites_shape.py.
"""
import builtins as _builtins
import collections
import operator
import warnings

axle = None  # the axle module, set by install()
_TORCH_DTYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16",
                      "int8": "Char", "uint8": "Byte", "int16": "Short", "int32": "Int", "int64": "Long",
                      "bool": "Bool"}


# ---------------------------------------------------------------- helpers
def _tname(dtype):
    """torch's scalar type name for a dtype ("Float", "Long" ...), as its messages spell it."""
    return _TORCH_DTYPE_NAMES.get(dtype.name, dtype.name)


def _is_tensor(x):
    return isinstance(x, axle.Tensor)


def _check_tensor(x, fname, argname="input", position=1):
    if not _is_tensor(x):
        raise axle.TypeError("%s(): argument '%s' (position %d) must be Tensor, not %s" %
                             (fname, argname, position, type(x).__name__))


def _as_int(x, fname, argname):
    if isinstance(x, _builtins.bool) or not hasattr(x, "__index__"):
        raise axle.TypeError("%s(): argument '%s' must be int, not %s" % (fname, argname, type(x).__name__))
    return operator.index(x)


def _wrap_dim(dim, ndim, scalar_ok=True):
    """dim in [0, ndim) from a possibly negative dim, with torch's IndexError text.
    A 0-d tensor takes dims -1 and 0 (scalar_ok), as torch's maybe_wrap_dim."""
    dim = operator.index(dim)
    if ndim == 0 and not scalar_ok:
        raise axle.IndexError("Dimension specified as %d but tensor has no dimensions" % dim)
    n = _builtins.max(ndim, 1)
    if dim < -n or dim >= n:
        raise axle.IndexError("Dimension out of range (expected to be in range of [%d, %d], but got %d)" %
                              (-n, n - 1, dim))
    return dim % n


def _shape(t):
    return tuple(t.shape)


def _shape_str(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _prod(values):
    p = 1
    for v in values:
        p *= v
    return p


def _reshape(t, shape):
    """t.reshape(shape), through a contiguous copy where reshape itself fails: its copy keeps
    a permuted layout (a channels_last-strided 4-d tensor) that view() then refuses."""
    try:
        return t.reshape(shape)
    except axle.ShapeError:
        return t.contiguous().reshape(shape)


def _broadcast_pair(a, b):
    n = _builtins.max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise axle.ShapeError("The size of tensor a (%d) must match the size of tensor b (%d) at "
                                  "non-singleton dimension %d" % (x, y, i))
    return tuple(out)


def _broadcast_all(shapes):
    out = ()
    for s in shapes:
        out = _broadcast_pair(out, s)
    return out


def _index_vector_view(index, ndim, dim):
    """A 1-d index viewed as size-1 everywhere but along dim (for expand against a tensor)."""
    shape = [1] * ndim
    shape[dim] = -1
    return index.reshape(shape)


def _tensor_list(args, fname):
    """The tensors of a varargs call that may also pass one list or tuple (torch's old form)."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = tuple(args[0])
    for i, t in enumerate(args):
        if not _is_tensor(t):
            raise axle.TypeError("%s(): expected Tensor as element %d in argument 0, but got %s" %
                                 (fname, i, type(t).__name__))
    return tuple(args)


def _sequence_of_tensors(tensors, fname):
    if _is_tensor(tensors) or not isinstance(tensors, (list, tuple)):
        raise axle.TypeError("%s(): argument 'tensors' (position 1) must be tuple of Tensors, not %s" %
                             (fname, type(tensors).__name__))
    for i, t in enumerate(tensors):
        if not _is_tensor(t):
            raise axle.TypeError("%s(): expected Tensor as element %d in argument 0, but got %s" %
                                 (fname, i, type(t).__name__))
    if not tensors:
        raise axle.ValueError("%s expects a non-empty TensorList" % fname)
    return list(tensors)


# ---------------------------------------------------------------- atleast_*, broadcasting
def _atleast(n):
    def one(t):
        d = t.dim()
        if d >= n:
            return t
        if n == 1:
            return t.reshape(1)
        if n == 2:
            return t.reshape(1, 1) if d == 0 else t.unsqueeze(0)
        if d == 0:
            return t.reshape(1, 1, 1)
        return t.unsqueeze(0).unsqueeze(-1) if d == 1 else t.unsqueeze(-1)

    def atleast(*tensors):
        name = "atleast_%dd" % n
        if len(tensors) == 1 and _is_tensor(tensors[0]):
            return one(tensors[0])
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            tensors = tuple(tensors[0])
        elif len(tensors) == 1:
            raise axle.TypeError("%s() received an invalid combination of arguments - got (%s), but expected "
                                 "one of: (Tensor input), (tuple of Tensors tensors)" %
                                 (name, type(tensors[0]).__name__))
        return tuple(one(t) for t in _tensor_list(tensors, name))

    atleast.__name__ = atleast.__qualname__ = "atleast_%dd" % n
    atleast.__doc__ = ("atleast_%dd(*tensors): each tensor viewed with at least %d dims (size-1 dims added as "
                       "torch does); one tensor gives a tensor, several or a list a tuple." % (n, n))
    return atleast


atleast_1d, atleast_2d, atleast_3d = _atleast(1), _atleast(2), _atleast(3)


def broadcast_shapes(*shapes):
    """The shape the given shapes (ints or sequences of ints) broadcast to, as a tuple."""
    for s in shapes:
        if not (isinstance(s, (int, list, tuple)) and not isinstance(s, _builtins.bool)):
            raise axle.TypeError("Input shapes should be of type ints, a tuple of ints, or a list of ints, got %r" %
                                 (s,))
    length = _builtins.max([1 if isinstance(s, int) else len(s) for s in shapes], default=0)
    result = [1] * length
    for s in shapes:
        s = (s,) if isinstance(s, int) else tuple(s)
        for i in range(-1, -1 - len(s), -1):
            size = operator.index(s[i])
            if size < 0:
                raise axle.ValueError("Trying to create tensor with negative dimension (%d): (%d)" % (size, size))
            if size == 1 or size == result[i]:
                continue
            if result[i] != 1:
                raise axle.ShapeError("Shape mismatch: objects cannot be broadcast to a single shape")
            result[i] = size
    return tuple(result)


def broadcast_tensors(*tensors):
    """Views of the tensors expanded to their common broadcast shape."""
    for i, t in enumerate(tensors):
        if not _is_tensor(t):
            raise axle.TypeError("broadcast_tensors(): expected Tensor as element %d in argument 0, but got %s" %
                                 (i, type(t).__name__))
    shape = _broadcast_all(_shape(t) for t in tensors)
    return tuple(t.expand(shape) for t in tensors)


def broadcast_to(input, size):
    """input expanded to size (a view), as Tensor.broadcast_to."""
    return input.expand(tuple(size))


# ---------------------------------------------------------------- stacking and splitting
def hstack(tensors):
    """Concatenation along dim 1 (dim 0 for 1-d tensors) of atleast_1d of each tensor."""
    ts = atleast_1d(_sequence_of_tensors(tensors, "hstack"))
    return axle.cat(list(ts), 0 if ts[0].dim() == 1 else 1)


def vstack(tensors):
    """Concatenation along dim 0 of atleast_2d of each tensor (row_stack)."""
    return axle.cat(list(atleast_2d(_sequence_of_tensors(tensors, "vstack"))), 0)


def row_stack(tensors):
    """Alias of vstack."""
    return axle.cat(list(atleast_2d(_sequence_of_tensors(tensors, "row_stack"))), 0)


def dstack(tensors):
    """Concatenation along dim 2 of atleast_3d of each tensor."""
    return axle.cat(list(atleast_3d(_sequence_of_tensors(tensors, "dstack"))), 2)


def column_stack(tensors):
    """0-d and 1-d tensors as columns (n, 1), others as they are, concatenated along dim 1."""
    ts = _sequence_of_tensors(tensors, "column_stack")
    return axle.cat([_reshape(t, (t.numel(), 1)) if t.dim() <= 1 else t for t in ts], 1)


def tensor_split(input, indices_or_sections=None, dim=0, *, sections=None, indices=None,
                 tensor_indices_or_sections=None):
    """Views of input split along dim into `sections` near-equal parts (the first
    size % sections one longer) or at the given indices (Python slice bounds)."""
    _check_tensor(input, "tensor_split")
    spec = indices_or_sections
    for other in (sections, indices, tensor_indices_or_sections):
        if other is not None:
            spec = other
    if spec is None:
        raise axle.TypeError("tensor_split(): missing argument 'indices_or_sections'")
    if input.dim() == 0:
        raise axle.ShapeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    dim = _wrap_dim(dim, input.dim())
    if _is_tensor(spec):
        if spec.dtype != axle.int64:
            raise axle.DTypeError("tensor_split expected tensor_indices_or_sections to have dtype of long, but got %s"
                                  % _tname(spec.dtype))
        if spec.dim() > 1:
            raise axle.ShapeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                                  "one-dimensional tensor, but got a tensor with %d dims" % spec.dim())
        spec = spec.item() if spec.dim() == 0 else spec.tolist()
    size = input.shape[dim]
    if isinstance(spec, (list, tuple)):
        bounds = [operator.index(i) for i in spec]
        starts = [0] + bounds
        ends = bounds + [None]
        return tuple(axle.slice(input, dim, s, e) for s, e in zip(starts, ends))
    n = _as_int(spec, "tensor_split", "sections")
    if n <= 0:
        raise axle.ValueError("number of sections must be larger than 0, got %d" % n)
    q, r = divmod(size, n)
    out, start = [], 0
    for i in range(n):
        length = q + 1 if i < r else q
        out.append(input.narrow(dim, start, length))
        start += length
    return tuple(out)


def _split_family(name, dim_for, min_dims):
    def split(input, indices_or_sections):
        _check_tensor(input, name)
        if input.dim() < min_dims:
            raise axle.ShapeError("torch.%s requires a tensor with at least %d dimension, but got a tensor with %d "
                                  "dimensions!" % (name, min_dims, input.dim()))
        dim = dim_for(input)
        if _is_tensor(indices_or_sections) or isinstance(indices_or_sections, (list, tuple)):
            return tensor_split(input, indices_or_sections, dim)
        sections = _as_int(indices_or_sections, name, "sections")
        size = input.shape[dim]
        if sections == 0 or size % sections != 0:
            raise axle.ShapeError("torch.%s attempted to split along dimension %d, but the size of the dimension %d "
                                  "is not divisible by the split_size %d!" % (name, dim, size, sections))
        return tensor_split(input, sections, dim)

    split.__name__ = split.__qualname__ = name
    split.__doc__ = "%s(input, indices_or_sections): tensor_split along dim %s." % (
        name, {"hsplit": "1 (0 for 1-d input)", "vsplit": "0", "dsplit": "2"}[name])
    return split


hsplit = _split_family("hsplit", lambda t: 0 if t.dim() == 1 else 1, 1)
vsplit = _split_family("vsplit", lambda t: 0, 2)
dsplit = _split_family("dsplit", lambda t: 2, 3)


def tile(input, dims):
    """input repeated dims times along each dim; dims shorter than input.dim() get leading 1s."""
    _check_tensor(input, "tile")
    if isinstance(dims, int):
        dims = (dims,)
    dims = tuple(operator.index(d) for d in dims)
    if len(dims) < input.dim():
        dims = (1,) * (input.dim() - len(dims)) + dims
    if _builtins.any(d < 0 for d in dims):
        shape = [a * b for a, b in zip((1,) * (len(dims) - input.dim()) + _shape(input), dims)]
        raise axle.ValueError("Trying to create tensor with negative dimension %d: %s" %
                              (_builtins.min(shape), _shape_str(shape)))
    return input.repeat(dims)


def ravel(input):
    """input flattened to 1-d (a view when the strides allow)."""
    return _reshape(input, -1)


def fliplr(input):
    """input reversed along dim 1."""
    if input.dim() < 2:
        raise axle.ShapeError("Input must be >= 2-d.")
    return axle.flip(input, [1])


def flipud(input):
    """input reversed along dim 0."""
    if input.dim() < 1:
        raise axle.ShapeError("Input must be >= 1-d.")
    return axle.flip(input, [0])


def rot90(input, k=1, dims=(0, 1)):
    """input rotated k times by 90 degrees in the plane of dims, from dims[0] towards dims[1]."""
    dims = list(dims)
    if len(dims) != 2:
        raise axle.ValueError("expected total rotation dims == 2, but got dims = %d" % len(dims))
    n = input.dim()
    if n < 2:
        raise axle.ShapeError("expected total dims >= 2, but got total dims = %d" % n)
    d0, d1 = dims
    if d0 == d1 or abs(d0 - d1) == n:
        raise axle.ValueError("expected rotation dims to be different, but got dim0 = %d and dim1 = %d" % (d0, d1))
    if d0 < -n or d0 >= n:
        raise axle.IndexError("Rotation dim0 out of range, dim0 = %d" % d0)
    if d1 < -n or d1 >= n:
        raise axle.IndexError("Rotation dim1 out of range, dim1 = %d" % d1)
    k = operator.index(k) % 4
    if k == 1:
        return axle.flip(input, [d1]).transpose(d0, d1)
    if k == 2:
        return axle.flip(input, [d0, d1])
    if k == 3:
        return axle.flip(input, [d0]).transpose(d0, d1)
    return input.clone()


# ---------------------------------------------------------------- diagonals
def diagonal(input, offset=0, dim1=0, dim2=1):
    """A view of the offset diagonal of the planes (dim1, dim2), as the last dim."""
    _check_tensor(input, "diagonal")
    n = input.dim()
    a, b = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if a == b:
        raise axle.ValueError("diagonal dimensions cannot be identical %d, %d" % (dim1, dim2))
    offset = operator.index(offset)
    sizes, strides = _shape(input), input.stride()
    if offset >= 0:
        length = _builtins.max(_builtins.min(sizes[a], sizes[b] - offset), 0)
        start = offset * strides[b]
    else:
        length = _builtins.max(_builtins.min(sizes[a] + offset, sizes[b]), 0)
        start = -offset * strides[a]
    if length == 0:
        start = 0
    keep = [d for d in range(n) if d not in (a, b)]
    size = [sizes[d] for d in keep] + [length]
    stride = [strides[d] for d in keep] + [strides[a] + strides[b]]
    return input.as_strided(size, stride, input.storage_offset() + start)


_diagonal = diagonal  # (diag's argument is named diagonal, as torch's)


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor with one more dim whose (dim1, dim2) planes hold input's last dim on
    their offset diagonal, zeros elsewhere."""
    _check_tensor(input, "diag_embed")
    n = input.dim() + 1
    a, b = _wrap_dim(dim1, n), _wrap_dim(dim2, n)
    if a == b:
        raise axle.ValueError("diagonal dimensions cannot be identical %d, %d" % (dim1, dim2))
    offset = operator.index(offset)
    batch, m = _shape(input)[:-1], input.shape[-1]

    def zeros(*shape):
        return axle.zeros(batch + shape, dtype=input.dtype, device=input.device)

    # v (..., m) -> (..., m, m+1) with v in column 0 -> flattened, the first m*m values are
    # the m x m matrix with v on its diagonal.
    square = axle.cat([input.unsqueeze(-1), zeros(m, m)], -1).reshape(batch + (m * (m + 1),))
    square = square.narrow(-1, 0, m * m).reshape(batch + (m, m))
    k = abs(offset)
    if k:
        if offset > 0:  # v[i] at (i, i + k)
            square = axle.cat([zeros(m, k), square], -1)
            square = axle.cat([square, zeros(k, m + k)], -2)
        else:  # v[i] at (i + k, i)
            square = axle.cat([zeros(k, m), square], -2)
            square = axle.cat([square, zeros(m + k, k)], -1)
    return square.movedim([n - 2, n - 1], [a, b])


def diag(input, diagonal=0):
    """1-d input: the square matrix with input on its diagonal-th diagonal;
    2-d input: a copy of its diagonal-th diagonal."""
    _check_tensor(input, "diag")
    if input.dim() == 1:
        return diag_embed(input, diagonal)
    if input.dim() == 2:
        return _diagonal(input, diagonal).clone()
    raise axle.ShapeError("matrix or a vector expected")


def diagflat(input, offset=0):
    """The square matrix with flattened input on its offset diagonal."""
    _check_tensor(input, "diagflat")
    return diag_embed(_reshape(input, -1), offset)


# ---------------------------------------------------------------- products
def kron(input, other):
    """Kronecker product: result[i * other.size + j] = input[i] * other[j] in every dim."""
    _check_tensor(input, "kron")
    _check_tensor(other, "kron", "other", 2)
    n = _builtins.max(input.dim(), other.dim())
    sa = (1,) * (n - input.dim()) + _shape(input)
    sb = (1,) * (n - other.dim()) + _shape(other)
    a = _reshape(input, [x for s in sa for x in (s, 1)])
    b = _reshape(other, [x for s in sb for x in (1, s)])
    return _reshape(a * b, [x * y for x, y in zip(sa, sb)])


def _dims_list(dims, ndim):
    out = []
    for d in dims:
        w = _wrap_dim(d, ndim)
        if w in out:
            raise axle.ValueError("dim %d appears multiple times in the list of dims" % w)
        out.append(w)
    return out


def tensordot(a, b, dims=2, out=None):
    """Sum over the products of a's dims_a and b's dims_b (an int n: a's last n dims
    with b's first n); the result has a's free dims then b's free dims."""
    _check_tensor(a, "tensordot", "a")
    _check_tensor(b, "tensordot", "b", 2)
    if _is_tensor(dims):
        dims = dims.item() if dims.numel() == 1 else dims.tolist()
    if isinstance(dims, (list, tuple)):
        if len(dims) != 2:
            raise axle.ValueError("tensordot expects dims to be an int or a pair of lists of dims")
        da, db = ([d] if isinstance(d, int) else list(d) for d in dims)
    else:
        n = _as_int(dims, "tensordot", "dims")
        if n < 0:
            raise axle.ValueError("tensordot expects dims >= 0, but got dims=%d" % n)
        da, db = list(range(-n, 0)), list(range(n))
    if len(da) != len(db):
        raise axle.ValueError("both dimension lists should have same length")
    wa, wb = _dims_list(da, a.dim()), _dims_list(db, b.dim())
    for i, (x, y) in enumerate(zip(wa, wb)):
        sx, sy = a.shape[x], b.shape[y]
        if sx == sy:
            continue
        if sy == 1:
            a = a.sum(x, keepdim=True)
        elif sx == 1:
            b = b.sum(y, keepdim=True)
        else:
            raise axle.ShapeError("contracted dimensions need to match, but first has size %d in dim %d and second "
                                  "has size %d in dim %d" % (sx, da[i], sy, db[i]))
    free_a = [d for d in range(a.dim()) if d not in wa]
    free_b = [d for d in range(b.dim()) if d not in wb]
    size_a = [a.shape[d] for d in free_a]
    size_b = [b.shape[d] for d in free_b]
    k = _prod(a.shape[d] for d in wa)
    pa = _reshape(a.permute(free_a + wa), (_prod(size_a), k))
    pb = _reshape(b.permute(wb + free_b), (k, _prod(size_b)))
    result = axle.mm(pa, pb).reshape(size_a + size_b)
    if out is not None:
        return out.copy_(result)
    return result


def inner(input, other):
    """Sum of products over the last dims (a product when one is 0-d)."""
    _check_tensor(input, "inner")
    _check_tensor(other, "inner", "other", 2)
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise axle.ShapeError("inner() the last dimension must match on both input tensors but got shapes %s and %s"
                              % (_shape_str(input.shape), _shape_str(other.shape)))
    return tensordot(input, other, ([-1], [-1]))


def vdot(input, other):
    """Dot product of two 1-d tensors (real tensors: no conjugation)."""
    _check_tensor(input, "vdot")
    _check_tensor(other, "vdot", "other", 2)
    if input.dim() != 1 or other.dim() != 1:
        raise axle.ShapeError("1D tensors expected, but got %dD and %dD tensors" % (input.dim(), other.dim()))
    return axle.dot(input, other)


def _check_mv(mat, vec, input_dim=1, input_size=None):
    if mat.dim() != 2 or vec.dim() != 1 or input_dim != 1:
        raise axle.ShapeError("vector + matrix @ vector expected, got %d, %d, %d" % (input_dim, mat.dim(), vec.dim()))
    if mat.dtype != vec.dtype:
        raise axle.DTypeError("expected scalar type %s but found %s" % (_tname(mat.dtype), _tname(vec.dtype)))
    n = mat.shape[0] if input_size is None else input_size
    if mat.shape[1] != vec.shape[0] or n != mat.shape[0]:
        raise axle.ShapeError("size mismatch, got %d, %dx%d,%d" % (n, mat.shape[0], mat.shape[1], vec.shape[0]))


def mv(input, vec):
    """Matrix (n, m) times vector (m,)."""
    _check_tensor(input, "mv")
    _check_tensor(vec, "mv", "vec", 2)
    _check_mv(input, vec)
    return axle.matmul(input, vec)


def _scaled(t, factor):
    return t if factor == 1 else t * factor


def _integral_factor(value, dtype):
    """torch truncates beta / alpha for integral results of addmv (a float scalar)."""
    if not dtype.is_floating_point and dtype != axle.bool and isinstance(value, float):
        return int(value)
    return value


def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """beta * input + alpha * (mat @ vec) in mat's dtype; beta = 0 ignores input (NaN too)."""
    _check_tensor(input, "addmv")
    _check_tensor(mat, "addmv", "mat", 2)
    _check_tensor(vec, "addmv", "vec", 3)
    if input.dim() > 1:
        _check_mv(mat, vec, input.dim())
    _check_mv(mat, vec, 1, input.shape[0] if input.dim() == 1 and input.shape[0] != 1 else None)
    beta, alpha = _integral_factor(beta, mat.dtype), _integral_factor(alpha, mat.dtype)
    result = _scaled(axle.matmul(mat, vec), alpha)
    if beta != 0:
        result = result + _scaled(input.to(mat.dtype), beta)
    result = result.to(mat.dtype)
    if out is not None:
        return out.copy_(result)
    return result


def _result_type(*tensors):
    """torch's result_type of tensors: the tensors with dims promote among themselves;
    0-d ones decide only where they are of a higher category (bool < integral < floating)."""
    def category(dt):
        return 2 if dt.is_floating_point else (0 if dt == axle.bool else 1)

    def promote(dtypes):
        result = None
        for dt in dtypes:
            result = dt if result is None else axle.promote_types(result, dt)
        return result

    dims = promote(t.dtype for t in tensors if t.dim() > 0)
    zero = promote(t.dtype for t in tensors if t.dim() == 0)
    if dims is None:
        return zero
    if zero is not None and category(zero) > category(dims):
        return zero
    return dims


def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """beta * input + alpha * outer(vec1, vec2), broadcast to (n, m); beta = 0 ignores input."""
    _check_tensor(input, "addr")
    _check_tensor(vec1, "addr", "vec1", 2)
    _check_tensor(vec2, "addr", "vec2", 3)
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        if v.dim() != 1:
            raise axle.ShapeError("addr: Expected 1-D argument %s, but got %d-D" % (name, v.dim()))
    dt = _result_type(input, vec1, vec2)
    shape = (vec1.shape[0], vec2.shape[0])
    input.expand(shape)  # torch's error where input does not broadcast to the outer product
    if dt == axle.bool:
        result = axle.logical_and(vec1.unsqueeze(1), vec2.unsqueeze(0)) if alpha else axle.zeros(
            shape, dtype=axle.bool, device=input.device)
        if beta:
            result = axle.logical_or(result, input)
        result = result.expand(shape).clone()
    else:
        if not dt.is_floating_point:
            for name, v in (("beta", beta), ("alpha", alpha)):
                if isinstance(v, float):
                    raise axle.DTypeError("For integral input tensors, argument %s must not be a floating point "
                                          "number." % name)
        result = _scaled(axle.outer(vec1.to(dt), vec2.to(dt)), alpha)
        if beta != 0:
            result = result + _scaled(input.to(dt), beta)
        result = result.expand(shape).to(dt).contiguous()
    if out is not None:
        return out.copy_(result)
    return result


# ---------------------------------------------------------------- einsum
_ELLIPSIS = "..."


def _label_char(i):
    if not isinstance(i, int) or not 0 <= i < 52:
        raise axle.ValueError("einsum(): subscript in subscript list is not within the valid range [0, 52)")
    return chr(ord("A") + i) if i < 26 else chr(ord("a") + i - 26)


def _sublist_equation(args):
    """einsum(op0, sub0, op1, sub1, ..., [out]) -> (equation, operands)."""
    operands, terms = [], []
    args = list(args)
    while len(args) >= 2:
        operands.append(args.pop(0))
        terms.append(args.pop(0))
    out = args[0] if args else None

    def term(sub):
        return "".join(_ELLIPSIS if s is Ellipsis else _label_char(s) for s in sub)

    eq = ",".join(term(t) for t in terms)
    if out is not None:
        eq += "->" + term(out)
    return eq, operands


def _parse_term(eq, start, stop, what):
    """The labels of eq[start:stop] (letters, and _ELLIPSIS once), skipping spaces."""
    labels, i = [], start
    while i < stop:
        c = eq[i]
        if c == " ":
            i += 1
        elif c == ".":
            if eq[i:i + 3] != "..." or i + 3 > stop:
                raise axle.ValueError("einsum(): found '.' for %s that is not part of any ellipsis%s" %
                                      (what, " (...)" if what == "output" else ""))
            if _ELLIPSIS in labels:
                raise axle.ValueError("einsum(): found '.' for %s for which an ellipsis was already found" % what)
            labels.append(_ELLIPSIS)
            i += 3
        elif ("a" <= c <= "z") or ("A" <= c <= "Z"):
            labels.append(c)
            i += 1
        else:
            raise axle.ValueError("einsum(): invalid subscript given at index %d in the equation string, subscripts "
                                  "must be in [a-zA-Z]" % i)
    return labels


def einsum(*args):
    """Einstein summation (torch's equation string with '...' and implicit output, or
    the sublist form), by diagonals, sums, permutes and batched matrix products."""
    if not args:
        raise axle.TypeError("einsum(): must specify the equation string and at least one operand, or at least one "
                             "operand and its subscripts list")
    if _is_tensor(args[0]):
        equation, operands = _sublist_equation(args)
    else:
        equation, operands = args[0], list(args[1:])
        if not isinstance(equation, str):
            raise axle.TypeError("einsum(): the equation must be a string, not %s" % type(equation).__name__)
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
    for i, t in enumerate(operands):
        if not _is_tensor(t):
            raise axle.TypeError("einsum(): expected Tensor as element %d in argument 1, but got %s" %
                                 (i, type(t).__name__))

    arrow = equation.find("->")
    lhs_end = arrow if arrow >= 0 else len(equation)
    terms, start = [], 0
    while True:
        comma = equation.find(",", start, lhs_end)
        stop = lhs_end if comma < 0 else comma
        terms.append((start, stop))
        if comma < 0:
            break
        start = comma + 1
    if len(terms) < len(operands):
        raise axle.ValueError("einsum(): more operands were provided than specified in the equation")
    if len(terms) > len(operands):
        raise axle.ValueError("einsum(): fewer operands were provided than specified in the equation")
    op_labels = [_parse_term(equation, s, e, "operand %d" % k) for k, (s, e) in enumerate(terms)]

    # Ellipsis dims: right-aligned across operands, named (_ELLIPSIS, j).
    n_ell = 0
    for k, (labels, t) in enumerate(zip(op_labels, operands)):
        letters = len(labels) - (1 if _ELLIPSIS in labels else 0)
        if _ELLIPSIS in labels:
            if t.dim() < letters:
                raise axle.ShapeError("einsum(): the number of subscripts in the equation (%d) is more than the number "
                                      "of dimensions (%d) for operand %d" % (letters, t.dim(), k))
            n_ell = _builtins.max(n_ell, t.dim() - letters)
        elif t.dim() != letters:
            raise axle.ShapeError("einsum(): the number of subscripts in the equation (%d) does not match the number "
                                  "of dimensions (%d) for operand %d and no ellipsis was given" % (letters, t.dim(), k))
    ell_labels = [(_ELLIPSIS, j) for j in range(n_ell)]

    dim_labels = []  # per operand, the label of each dim
    for labels, t in zip(op_labels, operands):
        out = []
        for lab in labels:
            if lab == _ELLIPSIS:
                e = t.dim() - (len(labels) - 1)
                out.extend(ell_labels[n_ell - e:])
            else:
                out.append(lab)
        dim_labels.append(out)

    # Sizes: equal or 1 (broadcast) for every label.
    sizes = {}
    for k, (labels, t) in enumerate(zip(dim_labels, operands)):
        seen_here = {}
        for d, (lab, size) in enumerate(zip(labels, t.shape)):
            if lab in seen_here:
                if seen_here[lab] != size:
                    raise axle.ShapeError("einsum(): subscript %s is repeated for operand %d but the sizes don't "
                                          "match, %d != %d" % (lab, k, size, seen_here[lab]))
                continue
            seen_here[lab] = size
            prev = sizes.get(lab)
            if prev is None or prev == 1:
                sizes[lab] = size
            elif size != prev and size != 1:
                if isinstance(lab, tuple):
                    raise axle.ShapeError("einsum(): dimension %d covered by ellipsis in operand %d has size %d which "
                                          "does not broadcast with previously seen ellipsis with size %d for the "
                                          "respective dimension" % (d, k, size, prev))
                raise axle.ShapeError("einsum(): subscript %s has size %d for operand %d which does not broadcast with "
                                      "previously seen size %d" % (lab, size, k, prev))

    letters_seen = collections.Counter(lab for labels in op_labels for lab in labels if lab != _ELLIPSIS)
    if arrow >= 0:
        out_labels_raw = _parse_term(equation, arrow + 2, len(equation), "output")
        out_labels = []
        for lab in out_labels_raw:
            if lab == _ELLIPSIS:
                out_labels.extend(ell_labels)
                continue
            if lab in out_labels:
                raise axle.ValueError("einsum(): output subscript %s appears more than once in the output" % lab)
            if lab not in letters_seen:
                raise axle.ValueError("einsum(): output subscript %s does not appear in the equation for any input "
                                      "operand" % lab)
            out_labels.append(lab)
    else:
        out_labels = ell_labels + sorted(lab for lab, c in letters_seen.items() if c == 1)

    all_labels = ell_labels + sorted(letters_seen)
    position = {lab: i for i, lab in enumerate(all_labels)}

    # Each operand: diagonals for repeated labels, then dims in all_labels order (size 1 where absent).
    aligned = []
    for labels, t in zip(dim_labels, operands):
        labels = list(labels)
        while True:
            repeated = next((lab for lab in labels if labels.count(lab) > 1), None)
            if repeated is None:
                break
            d1 = labels.index(repeated)
            d2 = labels.index(repeated, d1 + 1)
            t = diagonal(t, 0, d1, d2)
            labels = [lab for i, lab in enumerate(labels) if i not in (d1, d2)] + [repeated]
        order = sorted(range(len(labels)), key=lambda d: position[labels[d]])
        if order != list(range(len(labels))):
            t = t.permute(order)
        present = {labels[d] for d in order}
        for i, lab in enumerate(all_labels):
            if lab not in present:
                t = t.unsqueeze(i)
        aligned.append(t)

    n_ops = len(aligned)
    last_use = {}
    for k, labels in enumerate(dim_labels):
        for lab in labels:
            last_use[lab] = k
    output_set = set(out_labels)

    def needed_after(lab, k):
        return lab in output_set or last_use.get(lab, -1) > k

    result = aligned[0]
    drop = [position[lab] for lab in all_labels if not needed_after(lab, 0) and result.shape[position[lab]] != 1]
    if drop:
        result = result.sum(drop, keepdim=True)
    for k in range(1, n_ops):
        other = aligned[k]
        contract = []
        for lab in all_labels:
            if needed_after(lab, k):
                continue
            d = position[lab]
            r1, o1 = result.shape[d] != 1, other.shape[d] != 1
            if r1 and o1:
                contract.append(d)
            elif o1:
                other = other.sum(d, keepdim=True)
            elif r1:
                result = result.sum(d, keepdim=True)
        if not contract:
            result = result * other
            continue
        rs, os_ = _shape(result), _shape(other)
        keep = [position[lab] for lab in all_labels if needed_after(lab, k)]
        batch = [d for d in keep if rs[d] != 1 and os_[d] != 1]
        left = [d for d in keep if rs[d] != 1 and os_[d] == 1]
        right = [d for d in keep if rs[d] == 1 and os_[d] != 1]
        rest = [d for d in range(len(all_labels)) if d not in batch and d not in left and d not in right]
        rest_r = [d for d in range(len(all_labels)) if d not in batch and d not in left and d not in contract]
        rest_o = [d for d in range(len(all_labels)) if d not in batch and d not in right and d not in contract]
        bsz, lsz, rsz = [rs[d] for d in batch], [rs[d] for d in left], [os_[d] for d in right]
        ksz = _prod(rs[d] for d in contract)
        a = _reshape(result.permute(batch + left + contract + rest_r), (_prod(bsz), _prod(lsz), ksz))
        b = _reshape(other.permute(batch + contract + right + rest_o), (_prod(bsz), ksz, _prod(rsz)))
        prod = axle.bmm(a, b).reshape(bsz + lsz + rsz + [1] * len(rest))
        perm = batch + left + right + rest
        inverse = [0] * len(perm)
        for i, d in enumerate(perm):
            inverse[d] = i
        result = prod.permute(inverse)
    # Labels left over (a single operand): summed above; now the output order.
    out_pos = [position[lab] for lab in out_labels]
    rest = [d for d in range(len(all_labels)) if d not in out_pos]
    if rest or out_pos != sorted(out_pos):
        result = result.permute(out_pos + rest)
    return _reshape(result, [result.shape[i] for i in range(len(out_pos))])


# ---------------------------------------------------------------- grids
def meshgrid(*tensors, indexing=None):
    """Coordinate grids of 0-d / 1-d tensors: 'ij' (matrix) indexing, or 'xy'
    (Cartesian: the first two dims swapped). Without indexing, 'ij' and a warning."""
    ts = _tensor_list(tensors, "meshgrid")
    if not ts:
        raise axle.ValueError("meshgrid expects a non-empty TensorList")
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise axle.ValueError('torch.meshgrid: indexing must be one of "xy" or "ij", but received: %s' % indexing)
    for t in ts:
        if t.dim() > 1:
            raise axle.ShapeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: %s" % (t,))
    for t in ts[1:]:
        if t.dtype != ts[0].dtype:
            raise axle.DTypeError("meshgrid expects all tensors to have the same dtype")
        if t.device != ts[0].device:
            raise axle.DeviceError("meshgrid expects all tensors to have the same device")
    order = list(range(len(ts)))
    if indexing == "xy" and len(ts) >= 2:
        order[0], order[1] = 1, 0
    shape = [0] * len(ts)
    for i, t in enumerate(ts):
        shape[order[i]] = t.numel()
    out = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[order[i]] = -1
        out.append(t.reshape(view).expand(shape))
    return tuple(out)


def cartesian_prod(*tensors):
    """The rows of every combination of the 1-d tensors' elements (one tensor: itself)."""
    ts = _tensor_list(tensors, "cartesian_prod")
    for t in ts:
        if t.dim() != 1:
            raise axle.ShapeError("Expect a 1D vector, but got shape %s" % _shape_str(t.shape))
    if len(ts) == 1:
        return ts[0]
    grids = meshgrid(*ts, indexing="ij")
    return axle.stack([_reshape(g, -1) for g in grids], 1)


# ---------------------------------------------------------------- repeat_interleave, take
def _repeat_index(repeats):
    """For a 1-d int64 repeats r: [0]*r[0] + [1]*r[1] + ... (repeat_interleave(r))."""
    n = repeats.numel()
    ends = axle.cumsum(repeats, 0)
    total = int(ends[-1].item()) if n else 0
    if total == 0:
        return axle.zeros(0, dtype=axle.int64, device=repeats.device)
    marks = axle.zeros(total + 1, dtype=axle.int64, device=repeats.device)
    if n > 1:  # a 1 where each next element starts; empty ones stack up there
        marks = marks.scatter_add(0, ends[:-1], axle.ones(n - 1, dtype=axle.int64, device=repeats.device))
    return axle.cumsum(marks[:total], 0)


def _check_repeats(repeats):
    if repeats.dtype not in (axle.int64, axle.int32):
        raise axle.DTypeError('"repeat_interleave_cpu" not implemented for \'%s\'' % _tname(repeats.dtype))
    if repeats.numel() and bool((repeats < 0).any()):
        raise axle.ValueError("repeats can not be negative")


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (each slice along dim) repeated repeats times in place; dim None
    flattens. repeat_interleave(repeats) alone gives the indices that repeats."""
    _check_tensor(input, "repeat_interleave")
    if repeats is None:
        if input.dim() != 1:
            raise axle.ShapeError("repeat_interleave only accept 1D vector as repeat")
        _check_repeats(input)
        index = _repeat_index(input.to(axle.int64))
        if output_size is not None and output_size != index.numel():
            raise axle.ShapeError("allocated size does not match required size")
        return index.to(input.dtype)
    if dim is None:
        input, dim = _reshape(input, -1), 0
    else:
        dim = _wrap_dim(dim, input.dim(), scalar_ok=False)
    size = input.shape[dim]
    if _is_tensor(repeats):
        if repeats.dim() > 1:
            raise axle.ShapeError("repeats must be 0-dim or 1-dim tensor")
        _check_repeats(repeats)
        if repeats.numel() == 1:
            repeats = int(repeats.item())
        elif repeats.numel() != size:
            raise axle.ShapeError("repeats must have the same size as input along dim")
        else:
            index = _repeat_index(repeats.to(axle.int64))
            if output_size is not None and output_size != index.numel():
                raise axle.ShapeError("allocated size does not match required size")
            return axle.index_select(input, dim, index)
    r = _as_int(repeats, "repeat_interleave", "repeats")
    if r < 0:
        raise axle.ValueError("repeats can not be negative")
    if output_size is not None and output_size != size * r:
        raise axle.ShapeError("allocated size does not match required size")
    shape = _shape(input)
    expanded = list(shape[:dim + 1]) + [r] + list(shape[dim + 1:])
    return _reshape(input.unsqueeze(dim + 1).expand(expanded), shape[:dim] + (size * r,) + shape[dim + 1:])


def take(input, index):
    """input treated as 1-d, at index (negative indices count from the end); index's shape."""
    _check_tensor(input, "take")
    _check_tensor(index, "take", "index", 2)
    if index.dtype != axle.int64:
        raise axle.DTypeError("take(): Expected a long tensor for index, but got %s" % _tname(index.dtype))
    n = input.numel()
    flat_index = _reshape(index, -1)
    if flat_index.numel():
        if n == 0:
            raise axle.IndexError("take(): tried to take from an empty tensor")
        bad = (flat_index >= n) | (flat_index < -n)
        if bool(bad.any()):
            value = int(flat_index[bad][0].item())
            raise axle.IndexError("out of range: tried to access index %d on a tensor of %d elements." % (value, n))
        flat_index = axle.where(flat_index < 0, flat_index + n, flat_index)
    return axle.index_select(_reshape(input, -1), 0, flat_index).reshape(_shape(index))


def take_along_dim(input, indices, dim=None):
    """gather along dim after broadcasting input and indices in the other dims; dim
    None: the flattened input at the flattened indices."""
    _check_tensor(input, "take_along_dim")
    _check_tensor(indices, "take_along_dim", "indices", 2)
    if indices.dtype != axle.int64:
        raise axle.DTypeError("torch.take_along_dim(): dtype of indices should be Long but got %s" %
                              _tname(indices.dtype))
    if dim is None:
        return axle.gather(_reshape(input, -1), 0, _reshape(indices, -1))
    if input.dim() != indices.dim():
        raise axle.ShapeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                              "but got %d dimensions for input, and %d dimensions for indices" %
                              (input.dim(), indices.dim()))
    dim = _wrap_dim(dim, input.dim(), scalar_ok=False)
    si, sx = list(input.shape), list(indices.shape)
    si_d, sx_d = si[dim], sx[dim]
    si[dim] = sx[dim] = 1
    shape = list(_broadcast_pair(si, sx))
    shape[dim] = si_d
    input = input.expand(shape)
    shape[dim] = sx_d
    indices = indices.expand(shape)
    return axle.gather(input, dim, indices)


# ---------------------------------------------------------------- index_add / index_copy / index_fill
def _index_add_args(input, dim, index, source, alpha, name):
    dim = _wrap_dim(dim, input.dim())
    if index.dim() > 1:
        raise axle.IndexError("%s(): Index is supposed to be a vector, but got dim: %d with type: %s and size: %s" %
                              (name, index.dim(), _tname(index.dtype), _shape_str(index.shape)))
    if index.dtype not in (axle.int64, axle.int32):
        raise axle.DTypeError("%s(): Expected dtype int32/int64 for index but got: %s" % (name, _tname(index.dtype)))
    if input.dtype != source.dtype:
        raise axle.DTypeError("%s(): self (%s) and source (%s) must have the same scalar type" %
                              (name, _tname(input.dtype), _tname(source.dtype)))
    nd = _builtins.max(input.dim(), 1)
    src_dim_ok = source.dim() == 0 or dim < source.dim()
    if not src_dim_ok:
        raise axle.IndexError("%s(): Indexing dim %d is out of bounds of the source tensor with dim %d" %
                              (name, dim, source.dim()))
    n_src = source.shape[dim] if source.dim() else 1
    if index.numel() != n_src:
        raise axle.ShapeError("%s(): Number of indices (%d) should be equal to source.size(dim): (%d), for dim: %d" %
                              (name, index.numel(), n_src, dim))
    size = input.shape[dim] if input.dim() else 1
    idx = _reshape(index, -1).to(axle.int64)
    if idx.numel() and bool(((idx < 0) | (idx >= size)).any()):
        raise axle.IndexError("index out of range in self")
    src_shape = list(_shape(source)) if source.dim() else [1]
    src_shape = [1] * (nd - len(src_shape)) + src_shape if len(src_shape) < nd else src_shape
    if len(src_shape) != nd:
        raise axle.ShapeError("output with shape %s doesn't match the broadcast shape %s" %
                              (_shape_str(input.shape), _shape_str(src_shape)))
    target = list(_shape(input)) if input.dim() else [1]
    for d in range(nd):
        if d != dim and src_shape[d] != target[d] and src_shape[d] != 1:
            raise axle.ShapeError("The size of tensor a (%d) must match the size of tensor b (%d) at non-singleton "
                                  "dimension %d" % (target[d], src_shape[d], d))
    target[dim] = idx.numel()
    src = _reshape(source, src_shape).expand(target)
    if not input.dtype.is_floating_point and isinstance(alpha, float):
        alpha = int(alpha)
    src = _scaled(src, alpha)
    return dim, _index_vector_view(idx, nd, dim).expand(target), src


def index_add(input, dim, index, source, *, alpha=1):
    """A copy of input with alpha * source's slices added at index along dim (repeats accumulate)."""
    _check_tensor(input, "index_add")
    _check_tensor(index, "index_add", "index", 3)
    _check_tensor(source, "index_add", "source", 4)
    dim, idx, src = _index_add_args(input, dim, index, source, alpha, "index_add_")
    if input.dim() == 0:
        return axle.scatter_add(input.reshape(1), 0, idx, src).reshape(())
    return axle.scatter_add(input, dim, idx, src)


def index_add_(self, dim, index, source, *, alpha=1):
    """In-place index_add."""
    _check_tensor(index, "index_add_", "index", 2)
    _check_tensor(source, "index_add_", "source", 3)
    dim, idx, src = _index_add_args(self, dim, index, source, alpha, "index_add_")
    if self.dim() == 0:
        return self.copy_(axle.scatter_add(self.reshape(1), 0, idx, src).reshape(()))
    return self.scatter_add_(dim, idx, src)


def _index_copy_args(input, dim, index, source):
    name = "index_copy_"
    dim = _wrap_dim(dim, input.dim())
    if index.dim() >= 2:
        raise axle.IndexError("%s(): Index should have dimension 1 or 0 (got %d)" % (name, index.dim()))
    n_src = source.shape[dim] if source.dim() > dim else 1
    if source.dim() and dim < source.dim() and index.numel() != n_src:
        raise axle.IndexError("%s(): Number of indices (%d) should be equal to source.size(dim) (%d)" %
                              (name, index.numel(), n_src))
    if input.dtype != source.dtype:
        raise axle.DTypeError("%s(): self and source expected to have the same dtype, but got (self) %s and (source) %s"
                              % (name, _tname(input.dtype), _tname(source.dtype)))
    if index.dtype != axle.int64:
        raise axle.DTypeError("%s(): Expected a long tensor for index, but got %s" % (name, _tname(index.dtype)))
    if input.dim() > 0 and source.dim() > 0 and input.dim() != source.dim():
        raise axle.IndexError("%s(): When source and destination are not scalars, their dimensionality must match. "
                              "Source dimensionality (%d), destination dimensionality (%d)" %
                              (name, source.dim(), input.dim()))
    if input.dim() == source.dim() and input.dim() > 0:
        dst_slice = [s for d, s in enumerate(input.shape) if d != dim]
        src_slice = [s for d, s in enumerate(source.shape) if d != dim]
        if dst_slice != src_slice:
            raise axle.ShapeError("%s(): Source/destination tensor must have same slice shapes. Destination slice "
                                  "shape: %s at dimension %d and source slice shape: %s at dimension 0." %
                                  (name, " ".join(map(str, dst_slice)), dim, " ".join(map(str, src_slice))))
        if index.numel() != source.shape[dim]:
            raise axle.IndexError("%s(): Number of indices (%d) should be equal to source.size(dim) (%d)" %
                                  (name, index.numel(), source.shape[dim]))
    size = input.shape[dim] if input.dim() else 1
    idx = index.reshape(-1)
    if idx.numel():
        bad = (idx < 0) | (idx >= size)
        if bool(bad.any()):
            raise axle.IndexError("%s(): index %d is out of bounds for dimension %d with size %d" %
                                  (name, int(idx[bad][0].item()), dim, size))
    nd = _builtins.max(input.dim(), 1)
    target = list(_shape(input)) if input.dim() else [1]
    target[dim] = idx.numel()
    src = _reshape(source, target)
    return dim, _index_vector_view(idx, nd, dim).expand(target), src


def index_copy(input, dim, index, source):
    """A copy of input with source's slices written at index along dim."""
    _check_tensor(input, "index_copy")
    _check_tensor(index, "index_copy", "index", 3)
    _check_tensor(source, "index_copy", "source", 4)
    dim, idx, src = _index_copy_args(input, dim, index, source)
    if input.dim() == 0:
        return axle.scatter(input.reshape(1), 0, idx, src).reshape(())
    return axle.scatter(input, dim, idx, src)


def index_copy_(self, dim, index, source):
    """In-place index_copy."""
    dim, idx, src = _index_copy_args(self, dim, index, source)
    if self.dim() == 0:
        return self.copy_(axle.scatter(self.reshape(1), 0, idx, src).reshape(()))
    return self.scatter_(dim, idx, src)


def _index_fill_mask(input, dim, index, value):
    dim = _wrap_dim(dim, input.dim())
    if index.dtype != axle.int64:
        raise axle.IndexError("index_fill_(): Expected dtype int64 for index.")
    if index.dim() > 1:
        raise axle.ShapeError("Index has to be a vector/scalar")
    if _is_tensor(value) and value.dim() != 0:
        raise axle.ShapeError("index_fill_ only supports a 0-dimensional value tensor, but got tensor with %d "
                              "dimension(s)." % value.dim())
    size = input.shape[dim] if input.dim() else 1
    idx = index.reshape(-1)
    if idx.numel():
        bad = (idx < -size) | (idx >= size)
        if bool(bad.any()):
            raise axle.IndexError("index %d is out of bounds for dimension %d with size %d" %
                                  (int(idx[bad][0].item()), dim, size))
        idx = axle.where(idx < 0, idx + size, idx)
    mask = axle.zeros(size, dtype=axle.bool, device=input.device)
    if idx.numel():
        mask = mask.scatter(0, idx, True)
    if input.dim() == 0:
        return mask.reshape(())
    return _index_vector_view(mask, input.dim(), dim)


def index_fill(input, dim, index, value):
    """A copy of input with value at every position index takes along dim."""
    _check_tensor(input, "index_fill")
    _check_tensor(index, "index_fill", "index", 3)
    return axle.masked_fill(input, _index_fill_mask(input, dim, index, value), value)


def index_fill_(self, dim, index, value):
    """In-place index_fill."""
    return self.masked_fill_(_index_fill_mask(self, dim, index, value), value)


# ---------------------------------------------------------------- masked_select / masked_scatter
def _bool_mask(mask, name, allow_any_int=False):
    if mask.dtype == axle.bool:
        return mask
    if mask.dtype == axle.uint8:
        warnings.warn("%s received a mask with dtype torch.uint8, this behavior is now deprecated,please use a mask "
                      "with dtype torch.bool instead." % name, UserWarning, stacklevel=3)
        return mask != 0
    if allow_any_int and not mask.dtype.is_floating_point:
        return mask != 0
    raise axle.DTypeError("%s: expected BoolTensor or ByteTensor for mask" % name)


def masked_select(input, mask):
    """The elements of input (broadcast with mask) where mask is true, as a 1-d tensor."""
    _check_tensor(input, "masked_select")
    _check_tensor(mask, "masked_select", "mask", 2)
    mask = _bool_mask(mask, "masked_select")
    shape = _broadcast_pair(_shape(mask), _shape(input))
    if not shape:
        shape = (1,)
    return axle.index(input.expand(shape), [mask.expand(shape)])


def _masked_scatter(input, mask, source, shape):
    if input.dtype != source.dtype:
        raise axle.DTypeError("masked_scatter: expected self and source to have same dtypes but got %s and %s" %
                              (_tname(input.dtype), _tname(source.dtype)))
    m = mask.expand(shape)
    inp = input.expand(shape)
    flat = _reshape(m, -1)
    count = int(flat.sum().item()) if flat.numel() else 0
    if count > source.numel():
        raise axle.ShapeError("Number of elements of source < number of ones in mask")
    if count == 0:
        return inp.clone()
    position = axle.clamp(axle.cumsum(flat, 0) - 1, min=0)  # the source element for each masked place
    gathered = axle.index_select(_reshape(source, -1), 0, position).reshape(shape)
    return axle.where(m, gathered, inp)


def masked_scatter(input, mask, source):
    """A copy of input (broadcast with mask) with source's elements, in order, where mask is true."""
    _check_tensor(input, "masked_scatter")
    _check_tensor(mask, "masked_scatter", "mask", 2)
    _check_tensor(source, "masked_scatter", "source", 3)
    mask = _bool_mask(mask, "masked_scatter_", allow_any_int=True)
    return _masked_scatter(input, mask, source, _broadcast_pair(_shape(input), _shape(mask)))


def masked_scatter_(self, mask, source):
    """In-place masked_scatter (mask broadcasts to self's shape)."""
    mask = _bool_mask(mask, "masked_scatter_", allow_any_int=True)
    mask.expand(_shape(self))
    return self.copy_(_masked_scatter(self, mask, source, _shape(self)))


# ---------------------------------------------------------------- scatter_reduce
_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """A copy of input where each src[i][j] (dim 0) is combined into position
    index[i][j] by reduce ('sum', 'prod', 'mean', 'amax', 'amin'), with the input's
    value included or not (include_self). Integral 'mean' rounds down."""
    _check_tensor(input, "scatter_reduce")
    _check_tensor(index, "scatter_reduce", "index", 3)
    _check_tensor(src, "scatter_reduce", "src", 4)
    if reduce not in _REDUCTIONS:
        raise axle.ValueError("reduce argument must be either sum, prod, mean, amax or amin, got %s" % (reduce,))
    dim = _wrap_dim(dim, input.dim())
    if index.dtype != axle.int64:
        raise axle.DTypeError("scatter(): Expected dtype int64 for index")
    if input.dtype != src.dtype:
        raise axle.DTypeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if index.numel() == 0:
        return input.clone()
    nd = _builtins.max(input.dim(), 1)
    shape = list(_shape(input)) or [1]
    ishape = list(_shape(index)) or [1]
    sshape = list(_shape(src)) or [1]
    if len(ishape) != nd:
        raise axle.ShapeError("Index tensor must have the same number of dimensions as self tensor")
    if len(sshape) != nd:
        raise axle.ShapeError("Index tensor must have the same number of dimensions as src tensor")
    for d in range(nd):
        if ishape[d] > sshape[d] or (d != dim and ishape[d] > shape[d]):
            raise axle.ShapeError("Expected index %s to be smaller than self %s apart from dimension %d and to be "
                                  "smaller size than src %s" % (_shape_str(ishape), _shape_str(shape), dim,
                                                                _shape_str(sshape)))
    index = _reshape(index, ishape)
    bad = (index < 0) | (index >= shape[dim])
    if bool(bad.any()):
        raise axle.IndexError("index %d is out of bounds for dimension %d with size %d" %
                              (int(index[bad][0].item()), dim, shape[dim]))
    # Every index element's position in the flattened output, and its src value.
    with axle.no_grad():
        target = index * _prod(shape[dim + 1:])
        for d in range(nd):
            if d != dim:
                coord = axle.arange(ishape[d], device=index.device).reshape([-1 if e == d else 1 for e in range(nd)])
                target = target + coord * _prod(shape[d + 1:])
        target = _reshape(target, -1)
    values = _reshape(src, sshape)
    for d in range(nd):
        if ishape[d] != sshape[d]:
            values = values.narrow(d, 0, ishape[d])
    values = _reshape(values, -1)
    base = _reshape(input, -1)
    if reduce in ("sum", "mean"):
        if not include_self:
            base = base.scatter(0, target, 0)
        out = base.scatter_add(0, target, values)
        if reduce == "mean":
            with axle.no_grad():
                count = axle.full((base.numel(),), 1 if include_self else 0, dtype=input.dtype, device=input.device)
                count = count.scatter_add(0, target, axle.ones(values.numel(), dtype=input.dtype, device=input.device))
                count = axle.masked_fill(count, count == 0, 1)
            if input.dtype.is_floating_point:
                out = out / count
            else:
                out = axle.div(out, count, rounding_mode="floor")
        return out.reshape(_shape(input))
    combine = {"prod": axle.mul, "amax": axle.maximum, "amin": axle.minimum}[reduce]
    # Values grouped by target (a stable sort), then a segmented inclusive scan in
    # log2(largest group) rounds: after it, each group's last element holds the
    # combination of the whole group.
    with axle.no_grad():
        order = axle.argsort(target, stable=True)
        sorted_target = target[order]
        n = sorted_target.numel()
        last = axle.ones(n, dtype=axle.bool, device=target.device)
        if n > 1:
            last = axle.cat([sorted_target[1:] != sorted_target[:-1], last[:1]])
        ends = axle.nonzero(last).reshape(-1)
        largest = int((ends - axle.cat([ends.new_full((1,), -1), ends[:-1]])).max().item())
    scan = axle.index_select(values, 0, order)
    step = 1
    while step < largest:
        with axle.no_grad():
            same = sorted_target[step:] == sorted_target[:-step]
        later = scan.narrow(0, step, n - step)
        merged = axle.where(same, combine(scan.narrow(0, 0, n - step), later), later)
        scan = axle.cat([scan.narrow(0, 0, step), merged])
        step *= 2
    where_to = sorted_target[ends]
    grouped = axle.index_select(scan, 0, ends)
    if include_self:
        grouped = combine(axle.index_select(base, 0, where_to), grouped)
    return base.scatter(0, where_to, grouped).reshape(_shape(input))


def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    """In-place scatter_reduce."""
    return self.copy_(scatter_reduce(self, dim, index, src, reduce, include_self=include_self))


# ---------------------------------------------------------------- unique
def _unique_result(values, inverse, counts, return_inverse, return_counts):
    if not return_inverse and not return_counts:
        return values
    out = (values,)
    if return_inverse:
        out += (inverse,)
    if return_counts:
        out += (counts,)
    return out


def _group_counts(first):
    """Lengths of the runs that start where first is true."""
    n = first.numel()
    starts = axle.nonzero(first).reshape(-1)
    ends = axle.cat([starts[1:], axle.full((1,), n, dtype=axle.int64, device=first.device)])
    return ends - starts


def _rows_first(rows):
    """True for each row that differs from the one before it (and the first)."""
    n = rows.shape[0]
    if n == 0:
        return axle.zeros(0, dtype=axle.bool, device=rows.device)
    head = axle.ones(1, dtype=axle.bool, device=rows.device)
    if n == 1:
        return head
    diff = rows[1:] != rows[:-1]
    if diff.dim() > 1:
        diff = _reshape(diff, (n - 1, -1)).any(1) if diff.shape[1] else axle.zeros(n - 1, dtype=axle.bool,
                                                                                device=rows.device)
    return axle.cat([head, diff])


def _unique_impl(input, sort, return_inverse, return_counts, dim, name):
    with axle.no_grad():
        if dim is None:
            flat = _reshape(input, -1)
            if sort:
                values, perm = axle.sort(flat, stable=True)
            else:
                values, perm = flat, None
            first = _rows_first(values)
            uniq = values[first] if values.numel() else values
            group = axle.cumsum(first, 0) - 1 if values.numel() else axle.zeros(0, dtype=axle.int64)
            if perm is not None and values.numel():
                inverse = axle.zeros(flat.numel(), dtype=axle.int64, device=input.device).scatter(0, perm, group)
            else:
                inverse = group
            inverse = inverse.reshape(_shape(input))
            counts = _group_counts(first) if values.numel() else axle.zeros(0, dtype=axle.int64)
            return _unique_result(uniq, inverse, counts, return_inverse, return_counts)
        dim = _wrap_dim(dim, input.dim(), scalar_ok=False)
        x = input.transpose(0, dim)  # (torch orders slices by this flattening)
        n = x.shape[0]
        if input.numel() == 0 and n != 0:
            raise axle.ShapeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
        rows = _reshape(x, (n, _prod(x.shape[1:])))
        if sort and n:
            order = axle.arange(n, device=input.device)
            for c in range(rows.shape[1] - 1, -1, -1):  # lexicographic: stable sorts from the last column
                key = rows[:, c][order]
                order = order[axle.argsort(key, stable=True)]
        else:
            order = axle.arange(n, device=input.device)
        sorted_rows = rows[order]
        first = _rows_first(sorted_rows)
        kept = x[order][first] if n else x
        uniq = kept.transpose(0, dim)
        group = axle.cumsum(first, 0) - 1 if n else axle.zeros(0, dtype=axle.int64)
        inverse = axle.zeros(n, dtype=axle.int64, device=input.device).scatter(0, order, group) if n else group
        counts = _group_counts(first) if n else axle.zeros(0, dtype=axle.int64)
        return _unique_result(uniq, inverse, counts, return_inverse, return_counts)


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements (or slices along dim) of input, in ascending order, with
    optionally the index of each input element in them and how often each occurs.
    (The result is sorted even with sorted=False, which torch allows.)"""
    _check_tensor(input, "unique")
    return _unique_impl(input, True, return_inverse, return_counts, dim, "unique")


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """input with each run of equal consecutive elements (or slices along dim) kept once."""
    _check_tensor(input, "unique_consecutive")
    return _unique_impl(input, False, return_inverse, return_counts, dim, "unique_consecutive")


# ---------------------------------------------------------------- where(condition), cross, cummax, diff
def _where_tuple(condition):
    c = condition.reshape(1) if condition.dim() == 0 else condition
    nz = axle.nonzero(c)
    return tuple(nz[:, i].contiguous() for i in range(c.dim()))


def _make_where(op):
    def where(condition, input=None, other=None):
        if input is None and other is None:
            _check_tensor(condition, "where", "condition")
            return _where_tuple(condition)
        if input is None or other is None:
            raise axle.TypeError("where() received an invalid combination of arguments - expected (Tensor condition) "
                                 "or (Tensor condition, Tensor input, Tensor other)")
        return op(condition, input, other)

    where.__name__ = where.__qualname__ = "where"
    where.__doc__ = ("where(condition): the indices of condition's non-zero elements, one 1-d tensor per dim "
                     "(nonzero(as_tuple=True)).\n" + (getattr(op, "__doc__", "") or ""))
    where._axle_one_arg_where = True
    return where


def cross(input, other, dim=None):
    """Cross product of 3-vectors along dim (None: the first dim of size 3), broadcast."""
    _check_tensor(input, "cross")
    _check_tensor(other, "cross", "other", 2)
    if input.dim() != other.dim():
        raise axle.ShapeError("linalg.cross: inputs must have the same number of dimensions.")
    if input.dtype != other.dtype:
        raise axle.DTypeError("expected scalar type %s but found %s" % (_tname(input.dtype), _tname(other.dtype)))
    if dim is None:
        dim = next((d for d, s in enumerate(input.shape) if s == 3), None)
        if dim is None:
            raise axle.ShapeError("no dimension of size 3 in input")
    d = _wrap_dim(dim, input.dim())
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise axle.ShapeError("linalg.cross: inputs dimension %d must have length 3. Got %d and %d" %
                              (dim, input.shape[d], other.shape[d]))
    shape = _broadcast_pair(_shape(input), _shape(other))
    a, b = input.expand(shape), other.expand(shape)
    a0, a1, a2 = (a.narrow(d, i, 1) for i in range(3))
    b0, b1, b2 = (b.narrow(d, i, 1) for i in range(3))
    return axle.cat([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], d)


def _named(name):
    rt = axle.return_types
    t = getattr(rt, name, None)
    if t is None:
        t = collections.namedtuple(name, ("values", "indices"))
        t.__module__ = rt.__name__
        t.__qualname__ = name
        setattr(rt, name, t)
    return t


def _cumulative_extreme(input, dim, largest):
    name = "cummax" if largest else "cummin"
    result_type = _named(name)
    if input.dim() == 0:
        return result_type(input.clone(), axle.zeros((), dtype=axle.int64, device=input.device))
    dim = _wrap_dim(dim, input.dim())
    n = input.shape[dim]
    if n == 0 or input.numel() == 0:
        return result_type(input.clone(), axle.zeros(_shape(input), dtype=axle.int64, device=input.device))
    floating = input.dtype.is_floating_point
    with axle.no_grad():
        v = input.detach()
        shape = [1] * input.dim()
        shape[dim] = n
        i = axle.arange(n, device=input.device).reshape(shape).expand(_shape(input))
        step = 1
        # Prefix scan in log2(n) rounds: position p combines the result for the window
        # ending at p - step (earlier) with its own (later). The later one wins on ties
        # (>=, <=) and whenever it is NaN; an earlier NaN wins from a later number.
        while step < n:
            pv, pi = v.narrow(dim, 0, n - step), i.narrow(dim, 0, n - step)
            cv, ci = v.narrow(dim, step, n - step), i.narrow(dim, step, n - step)
            take = (cv >= pv) if largest else (cv <= pv)
            if floating:
                take = axle.logical_or(axle.isnan(cv), axle.logical_and(axle.logical_not(axle.isnan(pv)), take))
            v = axle.cat([v.narrow(dim, 0, step), axle.where(take, cv, pv)], dim)
            i = axle.cat([i.narrow(dim, 0, step), axle.where(take, ci, pi)], dim)
            step *= 2
        i = i.contiguous()
    return result_type(axle.gather(input, dim, i), i)


def cummax(input, dim):
    """(values, indices): the running maximum along dim and where it was last reached."""
    _check_tensor(input, "cummax")
    return _cumulative_extreme(input, dim, True)


def cummin(input, dim):
    """(values, indices): the running minimum along dim and where it was last reached."""
    _check_tensor(input, "cummin")
    return _cumulative_extreme(input, dim, False)


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along dim (logical xor for bool), after
    concatenating prepend and append along dim."""
    _check_tensor(input, "diff")
    if input.dim() == 0:
        raise axle.ShapeError("diff expects input to be at least one-dimensional")
    n = _as_int(n, "diff", "n")
    dim = _wrap_dim(dim, input.dim())
    parts = []
    for which, extra in (("prepend", prepend), (None, input), ("append", append)):
        if extra is None:
            continue
        if which is not None:
            _check_tensor(extra, "diff", which)
            if extra.dim() != input.dim():
                raise axle.ShapeError("diff expects prepend or append to be the same dimension as input")
            for d in range(input.dim()):
                if d != dim and extra.shape[d] != input.shape[d]:
                    raise axle.ShapeError("diff expects the shape of tensor to prepend or append to match that of "
                                          "input except along the differencing dimension; input.size(%d) = %d, but "
                                          "got tensor.size(%d) = %d" % (d, input.shape[d], d, extra.shape[d]))
        parts.append(extra)
    if n <= 0:
        return input
    x = axle.cat(parts, dim) if len(parts) > 1 else input
    for _ in range(n):
        length = x.shape[dim]
        if length == 0:
            break
        later, earlier = x.narrow(dim, 1, length - 1), x.narrow(dim, 0, length - 1)
        x = axle.logical_xor(later, earlier) if x.dtype == axle.bool else later - earlier
    return x


# ---------------------------------------------------------------- install
_FUNCTIONS = [atleast_1d, atleast_2d, atleast_3d, broadcast_shapes, broadcast_tensors, broadcast_to, hstack, vstack,
              row_stack, dstack, column_stack, tensor_split, hsplit, vsplit, dsplit, tile, ravel, fliplr, flipud,
              rot90, diagonal, diag_embed, diag, diagflat, kron, tensordot, inner, vdot, mv, addmv, addr, einsum,
              meshgrid, cartesian_prod, repeat_interleave, take, take_along_dim, index_add, index_copy, index_fill,
              masked_select, masked_scatter, scatter_reduce, unique, unique_consecutive, cross, cummax, cummin, diff]

# torch.Tensor methods that are the functions with self first.
_METHODS = ["tensor_split", "hsplit", "vsplit", "dsplit", "ravel", "fliplr", "flipud", "rot90", "diagonal",
            "diag_embed", "diag", "diagflat", "kron", "inner", "vdot", "mv", "addmv", "addr", "repeat_interleave",
            "take", "take_along_dim", "index_add", "index_copy", "index_fill", "masked_select", "masked_scatter",
            "scatter_reduce", "unique", "unique_consecutive", "cross", "cummax", "cummin", "diff"]


def _tile_method(self, *dims):
    """self tiled dims times (a tuple or varargs), as tile()."""
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = tuple(dims[0])
    return tile(self, dims)


def _where_method(self, condition, y):
    """self where condition else y."""
    return axle.where(condition, self, y)


def _addmv_(self, mat, vec, *, beta=1, alpha=1):
    """In-place addmv."""
    return self.copy_(addmv(self, mat, vec, beta=beta, alpha=alpha))


def _addr_(self, vec1, vec2, *, beta=1, alpha=1):
    """In-place addr."""
    return self.copy_(addr(self, vec1, vec2, beta=beta, alpha=alpha))


def install(module):
    """Attaches the functions to the axle module and the methods to axle.Tensor,
    where axle does not have the name yet; wraps axle.where for its one-argument form."""
    global axle
    axle = module
    Tensor = module.Tensor
    for fn in _FUNCTIONS:
        if not hasattr(module, fn.__name__):
            setattr(module, fn.__name__, fn)
    if not hasattr(module, "ger") and hasattr(module, "outer"):
        module.ger = module.outer
    for name in _METHODS:
        if not hasattr(Tensor, name):
            setattr(Tensor, name, globals()[name])
    extra = {"tile": _tile_method, "where": _where_method, "index_add_": index_add_, "index_copy_": index_copy_,
             "index_fill_": index_fill_, "masked_scatter_": masked_scatter_, "scatter_reduce_": scatter_reduce_,
             "addmv_": _addmv_, "addr_": _addr_}
    for name, fn in extra.items():
        if not hasattr(Tensor, name):
            setattr(Tensor, name, fn)
    if not hasattr(Tensor, "ger") and hasattr(Tensor, "outer"):
        Tensor.ger = Tensor.outer
    if hasattr(module, "where") and not getattr(module.where, "_axle_one_arg_where", False):
        module.where = _make_where(module.where)
    _named("cummax")
    _named("cummin")
