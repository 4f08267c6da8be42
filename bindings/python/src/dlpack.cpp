// DLPack (v0.6, libdlpack-dev): Tensor.__dlpack__ / __dlpack_device__ export a
// host tensor without copying; axle.from_dlpack imports any producer (numpy
// arrays, torch tensors, capsules) without copying, keeping the producer's
// memory alive until the last axle tensor using it dies.
#include "bindings.h"

#include <dlpack/dlpack.h>

namespace axle::python {

namespace {

struct ExportContext {
  Tensor tensor;
  std::vector<int64_t> shape, strides;
  DLManagedTensor managed;
};

void delete_export(DLManagedTensor* m) { delete static_cast<ExportContext*>(m->manager_ctx); }

DLDataType dl_dtype(DType d) {
  switch (d) {
    case kFloat32: return {kDLFloat, 32, 1};
    case kFloat64: return {kDLFloat, 64, 1};
    case kFloat16: return {kDLFloat, 16, 1};
    case kBFloat16: return {kDLBfloat, 16, 1};
    case kInt8: return {kDLInt, 8, 1};
    case kInt16: return {kDLInt, 16, 1};
    case kInt32: return {kDLInt, 32, 1};
    case kInt64: return {kDLInt, 64, 1};
    case kUInt8: return {kDLUInt, 8, 1};
    default: throw DTypeError(detail::concat("DLPack 0.6 has no ", dtype_name(d), " type"));
  }
}

DType axle_dtype_of(const DLDataType& t) {
  AXLE_CHECK(t.lanes == 1, DTypeError, "from_dlpack(): vector types (lanes ", t.lanes, ") are not supported");
  if (t.code == kDLFloat && t.bits == 32) return kFloat32;
  if (t.code == kDLFloat && t.bits == 64) return kFloat64;
  if (t.code == kDLFloat && t.bits == 16) return kFloat16;
  if (t.code == kDLBfloat && t.bits == 16) return kBFloat16;
  if (t.code == kDLInt && t.bits == 8) return kInt8;
  if (t.code == kDLInt && t.bits == 16) return kInt16;
  if (t.code == kDLInt && t.bits == 32) return kInt32;
  if (t.code == kDLInt && t.bits == 64) return kInt64;
  if (t.code == kDLUInt && t.bits == 8) return kUInt8;
  if (t.code == 6 /* kDLBool, DLPack >= 0.8 */ && t.bits == 8) return kBool;
  throw DTypeError(detail::concat("from_dlpack(): unsupported DLPack dtype (code ", int(t.code), ", bits ",
                                  int(t.bits), ")"));
}

void capsule_destructor(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, "used_dltensor")) return;  // a consumer owns it now
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
  if (m && m->deleter) m->deleter(m);
  else PyErr_Clear();
}

py::object to_dlpack(const Tensor& t, const py::object& stream) {
  AXLE_CHECK(stream.is_none(), ValueError, "__dlpack__(): stream must be None for host tensors");
  AXLE_CHECK(t.device().is_cpu(), DeviceError, "__dlpack__(): DLPack export of ", t.device(),
             " tensors is not supported yet; use .cpu() first");
  auto* ctx = new ExportContext{t, t.sizes(), t.strides(), {}};
  DLTensor& dl = ctx->managed.dl_tensor;
  try {
    dl.dtype = dl_dtype(t.dtype());
  } catch (...) {
    delete ctx;
    throw;
  }
  dl.data = t.data_ptr();
  dl.device = {kDLCPU, 0};
  dl.ndim = static_cast<int>(t.dim());
  dl.shape = ctx->shape.data();
  dl.strides = ctx->strides.data();
  dl.byte_offset = 0;
  ctx->managed.manager_ctx = ctx;
  ctx->managed.deleter = &delete_export;
  PyObject* cap = PyCapsule_New(&ctx->managed, "dltensor", &capsule_destructor);
  if (!cap) {
    delete ctx;
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::object>(cap);
}

Tensor from_dlpack(const py::object& obj) {
  py::object capsule = obj;
  if (py::hasattr(obj, "__dlpack__")) capsule = obj.attr("__dlpack__")();
  AXLE_CHECK(PyCapsule_IsValid(capsule.ptr(), "dltensor"), ValueError,
             "from_dlpack(): expected an object with __dlpack__ or an unused 'dltensor' capsule");
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  const DLTensor& dl = m->dl_tensor;
  AXLE_CHECK(dl.device.device_type == kDLCPU, DeviceError, "from_dlpack(): device type ", int(dl.device.device_type),
             " is not supported yet (only CPU memory)");
  const DType dt = axle_dtype_of(dl.dtype);
  IntList sizes(dl.shape, dl.shape + dl.ndim);
  IntList strides = dl.strides ? IntList(dl.strides, dl.strides + dl.ndim) : contiguous_strides(sizes);
  for (int64_t s : strides) AXLE_CHECK(s >= 0, ValueError, "from_dlpack(): negative strides are not supported");
  void* data = static_cast<char*>(dl.data) + dl.byte_offset;
  // The producer's deleter may touch Python objects (numpy's does): hold the GIL.
  Tensor t = from_blob(data, sizes, strides,
                       [m](void*) {
                         if (!m->deleter || !Py_IsInitialized()) return;
                         py::gil_scoped_acquire gil;
                         m->deleter(m);
                       },
                       TensorOptions().dtype(dt).device(Device("cpu")));
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");  // ownership moved to `t`
  return t;
}

}  // namespace

void bind_dlpack(py::module_& m, TensorClass& cls) {
  cls.def("__dlpack__", &to_dlpack, py::arg("stream") = py::none(),
          "A DLPack capsule sharing this host tensor's memory.");
  cls.def("__dlpack_device__", [](const Tensor& t) {
    AXLE_CHECK(t.device().is_cpu(), DeviceError, "__dlpack_device__(): ", t.device(), " has no DLPack device type yet");
    return py::make_tuple(static_cast<int>(kDLCPU), 0);
  });
  m.def("from_dlpack", &from_dlpack, py::arg("x"),
        "A tensor sharing memory with a DLPack producer (numpy array, torch tensor, capsule).");
}

}  // namespace axle::python
