"""AdaptiveLogSoftmaxWithLoss (torch 1.13): a head Linear over the shortlist plus one logit per tail
cluster, and per cluster a two-layer projection (in_features // div_value ** (i + 1) hidden units);
forward returns the named tuple (output, loss) of each target's log-probability and their negated
mean, log_prob the full (N, n_classes) log-distribution, predict its argmax."""
import collections

import axle as _axle

from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = collections.namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False, device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if not cutoffs:
            raise ValueError("min() arg is an empty sequence")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value, self.head_bias = div_value, head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        kw = {"device": device, "dtype": dtype}
        self.head = Linear(in_features, self.head_size, bias=head_bias, **kw)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, **kw),
                                        Linear(hidden, self.cutoffs[i + 1] - self.cutoffs[i], bias=False, **kw)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_, target_):
        if target_.dim() == 1:
            if input_.shape[0] != target_.shape[0]:
                raise _axle.ShapeError("Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise _axle.ShapeError("1D target tensor expects 2D input tensors, but found inputs with size {}"
                                       .format(list(input_.shape)))
        elif target_.dim() == 0:
            if input_.dim() != 1:
                raise _axle.ShapeError("0D target tensor expects 1D input tensors, but found inputs with size {}"
                                       .format(list(input_.shape)))
        else:
            raise _axle.ShapeError("0D or 1D target tensor expected, multi-target not supported")
        batched = target_.dim() > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        rows = target.shape[0]
        output = _axle.zeros(rows, dtype=input.dtype, device=input.device)
        head_index = target
        used = 0
        bounds = [0] + self.cutoffs
        for i in range(len(bounds) - 1):
            mask = (target >= bounds[i]) & (target < bounds[i + 1])
            picked = mask.nonzero().reshape(-1)
            if picked.numel() == 0:
                continue
            used += picked.numel()
            if i == 0:
                continue
            cluster = F.log_softmax(self.tail[i - 1](input.index_select(0, picked)), 1)
            local = cluster.gather(1, (target.index_select(0, picked) - bounds[i]).unsqueeze(1)).reshape(-1)
            output = output.index_add(0, picked, local)
            head_index = _axle.where(mask, _axle.full_like(target, self.shortlist_size + i - 1), head_index)
        if used != rows:
            raise _axle.IndexError("Target values should be in [0, {}], but values in range [{}, {}] were found. "
                                   .format(self.n_classes - 1, target.min().item(), target.max().item()))
        head = F.log_softmax(self.head(input), 1)
        output = output + head.gather(1, head_index.unsqueeze(1)).reshape(-1)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _get_full_log_prob(self, input, head_output):
        head = F.log_softmax(head_output, 1)
        parts = [head[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster = F.log_softmax(self.tail[i](input), 1)
            parts.append(cluster + head[:, self.shortlist_size + i].unsqueeze(1))
        return _axle.cat(parts, 1)

    def log_prob(self, input):
        """(N, n_classes) log-probabilities of every class."""
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most likely class of each row (the full distribution only where the head's best is a cluster)."""
        head_output = self.head(input)
        output = _axle.argmax(head_output, 1)
        outside = output >= self.shortlist_size
        if not bool(outside.any().item()):
            return output
        if bool(outside.all().item()):
            return _axle.argmax(self._get_full_log_prob(input, head_output), 1)
        rows = outside.nonzero().reshape(-1)
        best = _axle.argmax(self._get_full_log_prob(input.index_select(0, rows), head_output.index_select(0, rows)), 1)
        return output.index_put((rows,), best)
