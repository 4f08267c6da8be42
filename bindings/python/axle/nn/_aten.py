"""The nn-flavoured torch.* functions (torch.ctc_loss, the flat-weight RNN functions, the native_*
norms, the SyncBatchNorm kernels, ...): torch exposes these at the top level, axle composes them in
the nn package. install(axle) attaches each one where the name is still free (a declared op wins)."""


def install(axle):
    from . import _ctc

    names = {
        "ctc_loss": _ctc.ctc_loss_aten,
    }
    for name, fn in names.items():
        if not hasattr(axle, name):
            setattr(axle, name, fn)
