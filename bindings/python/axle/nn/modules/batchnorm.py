"""BatchNorm1d/2d/3d: batch statistics in training (the running mean and the
unbiased running variance updated with momentum, or a cumulative average when
momentum is None, and num_batches_tracked counted, as torch), the running
statistics in evaluation."""
import axle as _axle

from .. import functional as F
from ..parameter import Parameter, UninitializedBuffer, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d",
           "SyncBatchNorm"]
# and _NormBase, _LazyNormBase for InstanceNorm


class _NormBase(Module):
    """The parameters and running statistics BatchNorm and InstanceNorm share (torch's _NormBase)."""

    _version = 2  # torch's: state dicts from version 2 on hold num_batches_tracked

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        kw = {"device": device, "dtype": dtype or _axle.get_default_dtype()}
        if affine:
            self.weight = Parameter(_axle.ones(num_features, **kw))
            self.bias = Parameter(_axle.zeros(num_features, **kw))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _axle.zeros(num_features, **kw))
            self.register_buffer("running_var", _axle.ones(num_features, **kw))
            self.register_buffer("num_batches_tracked", _axle.tensor(0, dtype=_axle.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self):
        if self.track_running_stats:
            with _axle.no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            with _axle.no_grad():
                self.weight.fill_(1)
                self.bias.zero_()

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        # Checkpoints from before num_batches_tracked existed (torch's version < 2) lack it.
        key = prefix + "num_batches_tracked"
        if self.track_running_stats and key not in state_dict:
            state_dict[key] = _axle.tensor(0, dtype=_axle.int64)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def extra_repr(self):
        return ("{num_features}, eps={eps}, momentum={momentum}, affine={affine}, "
                "track_running_stats={track_running_stats}".format(**self.__dict__))


class _BatchNorm(_NormBase):
    _ranks = (2, 3)

    def _check_input_dim(self, input):
        if input.dim() not in self._ranks:
            raise ValueError("expected {} input (got {}D input)".format(
                " or ".join("%dD" % r for r in self._ranks), input.dim()))

    def forward(self, input):
        """torch's: in training the batch's statistics, which also update the running ones
        (with momentum, or a cumulative average when momentum is None) in the same call."""
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:  # F.batch_norm checks the batch, as torch's
            self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked.item())
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        track = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if track else None, self.running_var if track else None,
                            self.weight, self.bias, bn_training, factor, self.eps)




class BatchNorm1d(_BatchNorm):
    _ranks = (2, 3)


class BatchNorm2d(_BatchNorm):
    _ranks = (4,)


class BatchNorm3d(_BatchNorm):
    _ranks = (5,)


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """num_features from the first input's dim 1 (BatchNorm and InstanceNorm's lazy forms)."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None):
        super().__init__(0, eps, momentum, False, False, device, dtype)
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = _axle.tensor(0, dtype=_axle.int64, device=device)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            if self.affine:
                self.weight.materialize((self.num_features,))
                self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
                self._plain_buffers()
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    cls_to_become = BatchNorm1d
    _ranks = BatchNorm1d._ranks


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    cls_to_become = BatchNorm2d
    _ranks = BatchNorm2d._ranks


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    cls_to_become = BatchNorm3d
    _ranks = BatchNorm3d._ranks


class SyncBatchNorm(_BatchNorm):
    """torch 1.13's SyncBatchNorm in a process without torch.distributed (axle has none): a CPU input
    is refused ("expected input tensor to be on GPU"); on a GPU, evaluation normalizes as BatchNorm
    and training, which would synchronize batch statistics, fails as torch's without an initialized
    default process group. convert_sync_batchnorm swaps BatchNorm layers for it as torch's."""

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError("expected at least 2D input (got {}D input)".format(input.dim()))

    def _check_non_zero_input_channels(self, input):
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def forward(self, input):
        if not input.is_cuda:
            raise ValueError("SyncBatchNorm expected input tensor to be on GPU")
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        if self.training and self.track_running_stats:
            self.num_batches_tracked.add_(1)
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        if self.training:  # (bn_training too) a process group would be needed
            raise RuntimeError("Default process group has not been initialized, please make sure to call "
                               "init_process_group.")
        return F.batch_norm(input, self.running_mean, self.running_var, self.weight, self.bias, bn_training, 0.0,
                            self.eps)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """`module` with every BatchNorm*d (any _BatchNorm) replaced by a SyncBatchNorm sharing its
        parameters and buffers; a BatchNorm itself gives a new SyncBatchNorm."""
        out = module
        if isinstance(module, _BatchNorm):
            out = SyncBatchNorm(module.num_features, module.eps, module.momentum, module.affine,
                                module.track_running_stats, process_group)
            if module.affine:
                with _axle.no_grad():
                    out.weight = module.weight
                    out.bias = module.bias
            out.running_mean = module.running_mean
            out.running_var = module.running_var
            out.num_batches_tracked = module.num_batches_tracked
            if hasattr(module, "qconfig"):
                out.qconfig = module.qconfig
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out
