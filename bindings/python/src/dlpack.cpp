// DLPack (v0.6, libdlpack-dev): Tensor.__dlpack__ / __dlpack_device__ export a
// host or CUDA tensor without copying; axle.from_dlpack imports any producer
// (numpy arrays, torch tensors, CuPy arrays, capsules) without copying, keeping
// the producer's memory alive until the last axle tensor using it dies. CUDA
// tensors also speak __cuda_array_interface__ (v3), both ways. Before a CUDA
// export the tensor's current stream is synchronized, so the consumer may use
// the memory on any stream.
#include "bindings.h"
#include "dlpack_import.h"

#include <axle/device_runtime.h>
#include <axle/stream.h>

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

void capsule_destructor(PyObject* capsule) {
  if (PyCapsule_IsValid(capsule, "used_dltensor")) return;  // a consumer owns it now
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
  if (m && m->deleter)
    m->deleter(m);
  else
    PyErr_Clear();
}

// The DLPack device of an axle device: CPU memory, or CUDA memory of "cuda:N".
DLDevice dl_device(const Device& d, const char* where) {
  if (d.is_cpu()) return {kDLCPU, 0};
  AXLE_CHECK(d.type().name() == std::string_view("cuda"), DeviceError, where, ": ", d,
             " memory has no DLPack device type; use .cpu() first");
  return {kDLCUDA, d.index()};
}

// Work queued on the tensor's device finishes before another library reads it.
void settle(const Tensor& t) {
  if (!t.device().is_cpu()) current_stream(t.device()).synchronize();
}

py::object to_dlpack(const Tensor& t, const py::object& stream) {
  AXLE_CHECK(stream.is_none() || !t.device().is_cpu(), ValueError,
             "__dlpack__(): stream must be None for host tensors");
  const DLDevice device = dl_device(t.device(), "__dlpack__()");
  settle(t);
  auto* ctx = new ExportContext{t, t.sizes(), t.strides(), {}};
  DLTensor& dl = ctx->managed.dl_tensor;
  try {
    dl.dtype = dl_dtype(t.dtype());
  } catch (...) {
    delete ctx;
    throw;
  }
  dl.data = t.data_ptr();
  dl.device = device;
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

// ---------------------------------------------------------------- __cuda_array_interface__ (v3)
const char* typestr(DType d) {
  switch (d) {
    case kFloat32: return "<f4";
    case kFloat64: return "<f8";
    case kFloat16: return "<f2";
    case kInt8: return "|i1";
    case kUInt8: return "|u1";
    case kInt16: return "<i2";
    case kInt32: return "<i4";
    case kInt64: return "<i8";
    case kBool: return "|b1";
    default: throw DTypeError(detail::concat("__cuda_array_interface__ has no ", dtype_name(d), " type"));
  }
}

DType dtype_of_typestr(const std::string& s) {
  static const std::pair<const char*, DType> kTypes[] = {{"<f4", kFloat32}, {"<f8", kFloat64}, {"<f2", kFloat16},
                                                         {"|i1", kInt8},    {"|u1", kUInt8},   {"<i2", kInt16},
                                                         {"<i4", kInt32},   {"<i8", kInt64},   {"|b1", kBool}};
  for (const auto& [name, d] : kTypes)
    if (s == name) return d;
  throw DTypeError("__cuda_array_interface__: unsupported typestr '" + s + "'");
}

py::dict cuda_array_interface(const Tensor& t) {
  if (t.device().type().name() != std::string_view("cuda"))
    throw py::attribute_error("__cuda_array_interface__ is only defined for CUDA tensors, not " + t.device().str());
  settle(t);
  py::tuple shape(t.dim()), strides(t.dim());
  const int64_t es = static_cast<int64_t>(t.element_size());
  for (int64_t d = 0; d < t.dim(); ++d) {
    shape[d] = t.sizes()[d];
    strides[d] = t.strides()[d] * es;
  }
  py::dict out;
  out["shape"] = shape;
  out["typestr"] = typestr(t.dtype());
  out["data"] = py::make_tuple(reinterpret_cast<uintptr_t>(t.data_ptr()), false);
  out["strides"] = strides;
  out["version"] = 3;
  out["stream"] = py::none();  // settled above: no synchronization needed
  return out;
}

// The interface does not say which GPU the pointer is on: `device_index` when
// given, else the producer's `device.id` (CuPy) or `device.index` (torch), else
// cuda:0 when it is the only device; otherwise a ValueError asking for it.
int producer_device(const py::object& obj, int device_index) {
  if (device_index >= 0) return device_index;
  if (py::hasattr(obj, "device")) {
    const py::object d = obj.attr("device");
    for (const char* attr : {"id", "index"})
      if (py::hasattr(d, attr) && !d.attr(attr).is_none()) return d.attr(attr).cast<int>();
  }
  const int count = device_runtime(DeviceType("cuda")).device_count();
  AXLE_CHECK(count <= 1, ValueError, "__cuda_array_interface__ does not name the device and ", count,
             " CUDA devices exist: pass device_index (axle._from_cuda_array_interface(x, i)) or use DLPack");
  return 0;
}

// A CUDA tensor on the memory an object's __cuda_array_interface__ describes
// (the object is kept alive while the tensor lives). A producer's stream is
// synchronized on by the device before the memory is used here.
Tensor from_cuda_array_interface(const py::object& obj, int device_index) {
  const py::dict cai = obj.attr("__cuda_array_interface__");
  const Device device("cuda:" + std::to_string(producer_device(obj, device_index)));
  checked_runtime(device);
  const DType dt = dtype_of_typestr(cai["typestr"].cast<std::string>());
  IntList sizes;
  for (const auto& v : cai["shape"]) sizes.push_back(v.cast<int64_t>());
  IntList strides = contiguous_strides(sizes);
  if (cai.contains("strides") && !cai["strides"].is_none()) {
    strides.clear();
    for (const auto& v : cai["strides"]) {
      const int64_t bytes = v.cast<int64_t>();
      AXLE_CHECK(bytes >= 0 && bytes % static_cast<int64_t>(element_size(dt)) == 0, ValueError,
                 "__cuda_array_interface__: stride ", bytes, " is negative or not a multiple of the element size");
      strides.push_back(bytes / static_cast<int64_t>(element_size(dt)));
    }
  }
  AXLE_CHECK(strides.size() == sizes.size(), ValueError, "__cuda_array_interface__: ", sizes.size(), " dims but ",
             strides.size(), " strides");
  const py::tuple data = cai["data"];
  void* ptr = reinterpret_cast<void*>(data[0].cast<uintptr_t>());
  if (cai.contains("stream") && !cai["stream"].is_none()) synchronize(device);  // the producer's queued work
  auto* keep = new py::object(obj);
  return from_blob(
      ptr, sizes, strides,
      [keep](void*) {
        if (!Py_IsInitialized()) return;
        py::gil_scoped_acquire gil;
        delete keep;
      },
      TensorOptions().dtype(dt).device(device));
}

// ---------------------------------------------------------------- from_dlpack
// A DLPack producer, or failing that an object with __cuda_array_interface__.
Tensor from_dlpack(const py::object& obj) {
  if (!py::hasattr(obj, "__dlpack__") && py::hasattr(obj, "__cuda_array_interface__"))
    return from_cuda_array_interface(obj, -1);
  py::object capsule = obj;
  if (py::hasattr(obj, "__dlpack__")) capsule = obj.attr("__dlpack__")();
  AXLE_CHECK(PyCapsule_IsValid(capsule.ptr(), "dltensor"), ValueError,
             "from_dlpack(): expected an object with __dlpack__ or an unused 'dltensor' capsule");
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"));
  const DLPackImport in = check_dlpack(m->dl_tensor, "from_dlpack()");
  // The producer's deleter may touch Python objects (numpy's does): hold the GIL.
  Tensor t = from_blob(
      in.data, in.sizes, in.strides,
      [m](void*) {
        if (!m->deleter || !Py_IsInitialized()) return;
        py::gil_scoped_acquire gil;
        m->deleter(m);
      },
      TensorOptions().dtype(in.dtype).device(in.device));
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");  // ownership moved to `t`
  return t;
}

}  // namespace

void bind_dlpack(py::module_& m, TensorClass& cls) {
  cls.def("__dlpack__", &to_dlpack, py::arg("stream") = py::none(),
          "A DLPack capsule sharing this host tensor's memory.");
  cls.def("__dlpack_device__", [](const Tensor& t) {
    const DLDevice d = dl_device(t.device(), "__dlpack_device__()");
    return py::make_tuple(static_cast<int>(d.device_type), d.device_id);
  });
  // CUDA Array Interface v3 of a CUDA tensor (CuPy, Numba, torch read it without
  // copying); an AttributeError elsewhere, so hasattr() is False for host tensors.
  cls.def_property_readonly("__cuda_array_interface__", &cuda_array_interface);
  m.def("from_dlpack", &from_dlpack, py::arg("x"),
        "A tensor sharing memory with a DLPack producer (numpy array, torch tensor, CuPy array, capsule) or an "
        "object with __cuda_array_interface__.");
  m.def("_from_cuda_array_interface", &from_cuda_array_interface, py::arg("x"), py::arg("device_index") = -1);
}

}  // namespace axle::python
