"""Named results of the operators that return several tensors, as torch.return_types:
``values, indices = axle.sort(t)`` and ``axle.sort(t).values`` both work. The
field names are the names of the returns in the operator's schema
(``sort(...) -> (Tensor values, Tensor indices)``); one named tuple type per
operator name, e.g. ``axle.return_types.sort``."""
import collections
import re

_RETURNS = re.compile(r"->\s*\((.*)\)\s*$")


def _fields(schema):
    """The names of a schema's returns, or None when it returns one value or unnamed ones."""
    m = _RETURNS.search(schema)
    if not m:
        return None
    names = []
    for part in m.group(1).split(","):
        words = part.split()
        if len(words) != 2 or not words[1].isidentifier():
            return None
        names.append(words[1])
    return tuple(names)


def wrap(name, schemas, fn):
    """fn, returning this module's named tuple where an overload's returns are named
    (told apart by their count); fn itself when none is."""
    types = {}
    for schema in schemas:
        fields = _fields(schema)
        if fields and len(fields) not in types:
            t = collections.namedtuple(name, fields)
            t.__module__ = __name__
            t.__qualname__ = name
            types[len(fields)] = t
            globals().setdefault(name, t)
    if not types:
        return fn

    def op(*args, **kwargs):
        result = fn(*args, **kwargs)
        if type(result) is tuple:
            named = types.get(len(result))
            if named is not None:
                return named(*result)
        return result

    op.__name__ = op.__qualname__ = getattr(fn, "__name__", name)
    op.__doc__ = fn.__doc__
    return op
