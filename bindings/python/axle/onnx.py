"""axle.onnx: present so that programs importing torch.onnx load; exporting a
model to ONNX is not implemented (export raises NotImplementedError)."""
import axle as _axle


def export(*args, **kwargs):
    raise _axle.NotImplementedError("axle.onnx.export: exporting to ONNX is not implemented")


def is_in_onnx_export():
    return False
