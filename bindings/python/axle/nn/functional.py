"""NN operators as in torch.nn.functional: the declared ops flagged for it
(OpFlags kNNFunctional / kNNOnly in their C++ declarations), no hand-kept list."""
import axle as _axle
from axle import _C

for _name, _only_nn in _C._nn_functional_ops():
    _fn = _axle._nn_functional.get(_name) or getattr(_axle, _name, None)
    if _fn is not None:
        globals()[_name] = _fn
del _name, _only_nn, _fn


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """torch.nn.functional.embedding's call form (indices first) over axle.embedding(weight, indices, ...).
    padding_idx only matters for gradients (axle has none) but is checked as torch does; max_norm
    (renormalizing rows of weight in place) is not supported."""
    if padding_idx is not None:
        rows = weight.size(0) if weight.dim() > 0 else 0
        if not -rows <= padding_idx < rows:
            raise _axle.ValueError("embedding(): Padding_idx must be within num_embeddings")
        padding_idx = padding_idx + rows if padding_idx < 0 else padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        raise _axle.NotImplementedError("embedding(): max_norm (in-place renormalization of weight) is not supported")
    return _axle.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
