"""repr of tensors in torch's style: ``tensor([[1., 2.]])`` with a dtype/device
suffix when not the default."""

_options = {"precision": 4}


def set_printoptions(precision=None):
    if precision is not None:
        _options["precision"] = int(precision)


def _format_values(flat, floating):
    if not floating:
        return [str(v) for v in flat]
    finite = [v for v in flat if v == v and v not in (float("inf"), float("-inf"))]
    if all(v == int(v) for v in finite):
        return ["nan" if v != v else ("inf" if v > 0 else "-inf") if v in (float("inf"), float("-inf"))
                else "%d." % v for v in flat]
    p = _options["precision"]
    return ["nan" if v != v else ("inf" if v > 0 else "-inf") if v in (float("inf"), float("-inf"))
            else "%.*f" % (p, v) for v in flat]


def _flatten(values, depth):
    if depth == 0:
        return [values]
    out = []
    for v in values:
        out.extend(_flatten(v, depth - 1))
    return out


def _nest(cells, shape, indent):
    if not shape:
        return cells[0]
    if len(shape) == 1:
        return "[" + ", ".join(cells) + "]"
    step = len(cells) // shape[0] if shape[0] else 0
    parts = [_nest(cells[i * step:(i + 1) * step], shape[1:], indent + 1) for i in range(shape[0])]
    sep = "," + "\n" * (len(shape) - 1) + " " * (indent + 1)
    return "[" + sep.join(parts) + "]"


def tensor_repr(t):
    import axle

    values = t.tolist()
    shape = tuple(t.shape)
    flat = _flatten(values, len(shape))
    cells = _format_values(flat, t.dtype.is_floating_point)
    width = max((len(c) for c in cells), default=0)
    cells = [c.rjust(width) for c in cells]
    body = _nest(cells, shape, len("tensor(")) if flat or not shape else "[]"
    suffix = []
    if t._device_str not in ("cpu", "cpu:0"):
        suffix.append("device='%s'" % t._device_str)
    if t.dtype not in (axle.get_default_dtype(), axle.int64, axle.bool) or (not flat and t.dtype != axle.get_default_dtype()):
        suffix.append("dtype=%r" % t.dtype)
    return "tensor(" + body + "".join(", " + s for s in suffix) + ")"
