// axle.Tensor: properties, views, indexing, arithmetic slots, conversion, the
// buffer protocol (zero-copy numpy views of host tensors) and from_numpy.
#include "bindings.h"
#include "convert.h"
#include "tensor_handle.h"

#include <pybind11/stl.h>

namespace axle::python {

namespace {

Scalar to_scalar(const py::handle& o) {
  std::string why;
  ArgType t;
  t.kind = ArgKind::Scalar;
  std::optional<Value> v = to_value(o, t, why);
  if (!v)
    throw ArgumentTypeError("expected a number or a one-element Tensor, got " +
                            std::string(py::str(py::type::handle_of(o).attr("__name__"))));
  return v->scalar();
}

// A Tensor operand: a Tensor as is, a Python number as a wrapped 0-dim tensor.
std::optional<Tensor> operand(const py::handle& o) {
  if (is_tensor(o.ptr())) return tensor_ref(o.ptr());
  if (PyBool_Check(o.ptr()) || PyLong_Check(o.ptr()) || PyFloat_Check(o.ptr())) return scalar_to_tensor(to_scalar(o));
  return std::nullopt;
}

template <Tensor (*F)(const Tensor&, const Tensor&)>
py::object binary(const Tensor& a, const py::handle& b) {
  auto o = operand(b);
  if (!o) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
  return py::cast(F(a, *o));
}
Tensor add2(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor sub2(const Tensor& a, const Tensor& b) { return sub(a, b); }

IntList int_args(const py::args& args) {  // f(2, 3) and f((2, 3))
  if (args.size() == 1 && (py::isinstance<py::tuple>(args[0]) || py::isinstance<py::list>(args[0])))
    return args[0].cast<IntList>();
  return args.cast<IntList>();
}

// Applies a Python index (int, slice, None, Ellipsis, or a tuple of them) as views.
// t[idx] as torch: ints, slices, None, ... and Python bools index as views; Tensors
// (int64/int32 positions, bool/uint8 masks) and lists of ints or bools index
// through index.Tensor (advanced indexing: a copy). `indices` receives one entry
// per dim of the returned view (undefined = not indexed) when any Tensor appears.
struct Indexing {
  Tensor view;
  std::vector<Tensor> indices;  // Tensor?[] for index.Tensor / index_put_
  bool advanced = false;
};

bool is_index_tensor_like(const py::handle& h) { return is_tensor(h.ptr()) || py::isinstance<py::list>(h); }

Indexing apply_indexing(const Tensor& self, const py::handle& idx) {
  std::vector<py::handle> items;
  // A tuple indexes several dims; a list is one advanced index (as numpy/torch).
  if (py::isinstance<py::tuple>(idx))
    for (const py::handle& h : idx) items.push_back(h);
  else
    items.push_back(idx);
  std::vector<Tensor> tensors(items.size());  // converted advanced indices
  int64_t consumed = 0, ellipses = 0;
  for (size_t k = 0; k < items.size(); ++k) {
    const py::handle& h = items[k];
    if (h.is_none() || PyBool_Check(h.ptr())) continue;
    if (h.ptr() == Py_Ellipsis) {
      ++ellipses;
      continue;
    }
    if (is_index_tensor_like(h)) {
      tensors[k] = is_tensor(h.ptr()) ? tensor_ref(h.ptr()) : tensor_from_data(h, std::nullopt, Device("cpu"));
      const DType d = tensors[k].dtype();
      if (d == kBool || d == kUInt8)
        consumed += tensors[k].dim();  // a mask covers as many dims as it has
      else if (is_integral(d, false))
        ++consumed;
      else
        throw IndexError(
            detail::concat("tensors used as indices must be long, int, byte or bool tensors, got ", dtype_name(d)));
      continue;
    }
    if (!PyLong_Check(h.ptr()) && !PySlice_Check(h.ptr()) && !PyIndex_Check(h.ptr()))
      throw ArgumentTypeError(
          "only integers, slices (`:`), ellipsis (`...`), None, bools and long or bool tensors "
          "are valid indices, got " +
          std::string(py::str(py::type::handle_of(h).attr("__name__"))));
    ++consumed;
  }
  AXLE_CHECK(ellipses <= 1, IndexError, "an index can only have a single ellipsis ('...')");
  AXLE_CHECK(consumed <= self.dim(), IndexError, "too many indices for tensor of dimension ", self.dim());
  Indexing r;
  Tensor t = self;
  int64_t dim = 0;
  auto mark = [&](int64_t d, const Tensor& index) {
    if (r.indices.size() <= static_cast<size_t>(d)) r.indices.resize(static_cast<size_t>(d) + 1);
    r.indices[static_cast<size_t>(d)] = index;
    r.advanced = true;
  };
  for (size_t k = 0; k < items.size(); ++k) {
    const py::handle& h = items[k];
    if (h.is_none()) {
      t = t.unsqueeze(dim++);
    } else if (PyBool_Check(h.ptr())) {  // True: a new dim of 1; False: a new dim of 0
      t = t.unsqueeze(dim);
      if (h.ptr() == Py_False) t = t.slice(dim, 0, 0);
      ++dim;
    } else if (h.ptr() == Py_Ellipsis) {
      dim += self.dim() - consumed;
    } else if (tensors[k].defined()) {
      const Tensor& index = tensors[k];
      mark(dim, index);
      dim += (index.dtype() == kBool || index.dtype() == kUInt8) ? index.dim() : 1;
    } else if (PySlice_Check(h.ptr())) {
      Py_ssize_t start, stop, step;
      if (PySlice_Unpack(h.ptr(), &start, &stop, &step) < 0) throw py::error_already_set();
      AXLE_CHECK(step > 0, ValueError, "step must be greater than zero");
      const int64_t len = t.sizes()[dim];
      PySlice_AdjustIndices(len, &start, &stop, step);
      t = t.slice(dim++, start, std::max<Py_ssize_t>(stop, start), step);
    } else {
      t = t.select(dim, py::reinterpret_borrow<py::object>(h).cast<int64_t>());
    }
  }
  r.view = t;
  return r;
}

Tensor index(const Tensor& self, const py::handle& idx) {
  Indexing r = apply_indexing(self, idx);
  if (!r.advanced) return r.view;
  return call_op("index.Tensor", {r.view, Value(r.indices)})[0].tensor();
}

void set_index(Tensor& self, const py::handle& idx, const py::handle& v) {
  Indexing r = apply_indexing(self, idx);
  Tensor value = is_tensor(v.ptr()) ? tensor_ref(v.ptr()) : Tensor();
  if (!r.advanced) {
    if (value.defined())
      r.view.copy_(value);
    else
      r.view.fill_(to_scalar(v));
    return;
  }
  if (!value.defined()) value = scalar_to_tensor(to_scalar(v), self.device()).to(self.dtype());
  call_op("index_put_", {r.view, Value(r.indices), value, false});
}

const char* buffer_format(DType d) {
  switch (d) {
    case kFloat32: return "f";
    case kFloat64: return "d";
    case kFloat16: return "e";
    case kInt8: return "b";
    case kUInt8: return "B";
    case kInt16: return "h";
    case kInt32: return "i";
    case kInt64: return "q";
    case kBool: return "?";
    default: return nullptr;
  }
}

std::optional<DType> dtype_of_format(std::string f, size_t itemsize) {
  if (!f.empty() && (f[0] == '<' || f[0] == '=' || f[0] == '@' || f[0] == '|')) f = f.substr(1);
  if (f == "f") return kFloat32;
  if (f == "d") return kFloat64;
  if (f == "e") return kFloat16;
  if (f == "b") return kInt8;
  if (f == "B") return kUInt8;
  if (f == "h") return kInt16;
  if (f == "i") return kInt32;
  if ((f == "l" || f == "q") && itemsize == 8) return kInt64;
  if (f == "?") return kBool;
  return std::nullopt;
}

// A writable view of b's buffer: axle tensors are writable, so a read-only array
// is a ValueError (axle's, as for the other buffers from_numpy refuses).
py::buffer_info writable_buffer(const py::buffer& b) {
  try {
    return b.request(true);
  } catch (py::error_already_set& e) {
    if (!e.matches(PyExc_BufferError) && !e.matches(PyExc_ValueError)) throw;
    throw ValueError(detail::concat("from_numpy(): the given array is not writable (", e.what(),
                                    "); axle does not support non-writable tensors: copy it first (numpy.array(a))"));
  }
}

Tensor from_buffer(const py::buffer& b) {
  py::buffer_info info = writable_buffer(b);
  const auto dt = dtype_of_format(info.format, static_cast<size_t>(info.itemsize));
  AXLE_CHECK(dt.has_value(), DTypeError, "from_numpy(): unsupported buffer format '", info.format, "'");
  IntList sizes(info.shape.begin(), info.shape.end()), strides;
  for (py::ssize_t s : info.strides) {
    AXLE_CHECK(s >= 0, ValueError, "from_numpy(): at least one stride in the given numpy array is negative (", s,
               " bytes); copy it first (np.ascontiguousarray)");
    AXLE_CHECK(s % info.itemsize == 0, ValueError, "from_numpy(): stride ", s, " is not a multiple of the item size ",
               info.itemsize);
    strides.push_back(s / info.itemsize);
  }
  py::object keep = py::reinterpret_borrow<py::object>(b);
  auto* holder = new py::object(std::move(keep));
  return from_blob(
      info.ptr, sizes, strides,
      [holder](void*) {
        if (!Py_IsInitialized()) return;  // interpreter gone: nothing to release
        py::gil_scoped_acquire gil;
        delete holder;
      },
      TensorOptions().dtype(*dt).device(Device("cpu")));
}

// The buffer protocol (PEP 3118) written against the CPython API: pybind11's
// def_buffer cannot report an error (it terminates the process), and a device
// tensor or a dtype numpy lacks must raise, not crash. Shape and strides live in
// view->internal until release; view->obj keeps the Tensor alive.
struct BufferShape {
  std::vector<Py_ssize_t> shape, strides;
};

int tensor_getbuffer(PyObject* obj, Py_buffer* view, int flags) {
  try {
    const Tensor& t = tensor_ref(obj);
    AXLE_CHECK(device_runtime(t.device().type()).host_accessible(), DeviceError, "can't convert a ", t.device(),
               " tensor to numpy: use .cpu() first");
    const char* fmt = buffer_format(t.dtype());
    AXLE_CHECK(fmt != nullptr, DTypeError, "numpy has no ", dtype_name(t.dtype()),
               " dtype; convert with .to(axle.float32) first");
    auto* bs = new BufferShape;
    for (int64_t i = 0; i < t.dim(); ++i) {
      bs->shape.push_back(t.sizes()[i]);
      bs->strides.push_back(t.strides()[i] * static_cast<Py_ssize_t>(t.element_size()));
    }
    view->buf = t.data_ptr();
    view->obj = obj;
    Py_INCREF(obj);
    view->len = static_cast<Py_ssize_t>(t.numel() * static_cast<int64_t>(t.element_size()));
    view->readonly = 0;
    view->itemsize = static_cast<Py_ssize_t>(t.element_size());
    view->format = (flags & PyBUF_FORMAT) ? const_cast<char*>(fmt) : nullptr;
    view->ndim = static_cast<int>(t.dim());
    view->shape = bs->shape.data();
    view->strides = bs->strides.data();
    view->suboffsets = nullptr;
    view->internal = bs;
    return 0;
  } catch (...) {
    view->obj = nullptr;
    try {
      set_python_error(std::current_exception());
    } catch (const std::exception& e) {
      PyErr_SetString(PyExc_BufferError, e.what());
    }
    return -1;
  }
}

void tensor_releasebuffer(PyObject*, Py_buffer* view) { delete static_cast<BufferShape*>(view->internal); }

// Arithmetic through the type's number slots (raw CPython API): `a + b` skips
// pybind11's overload dispatch. The slot receives the operands in source order
// (2 - t arrives as (2, t)), so one function serves the reflected forms too.
template <Tensor (*F)(const Tensor&, const Tensor&)>
PyObject* nb_binary(PyObject* a, PyObject* b) {
  try {
    auto x = operand(a), y = operand(b);
    if (!x || !y) Py_RETURN_NOTIMPLEMENTED;
    return wrap_tensor(F(*x, *y)).release().ptr();
  } catch (...) {
    set_python_error(std::current_exception());
    return nullptr;
  }
}

template <const char* Op>
PyObject* nb_inplace(PyObject* a, PyObject* b) {
  try {
    auto y = operand(b);
    if (!y || !is_tensor(a)) Py_RETURN_NOTIMPLEMENTED;
    Tensor self = tensor_ref(a);
    call_op(Op, {self, *y});
    Py_INCREF(a);
    return a;
  } catch (...) {
    set_python_error(std::current_exception());
    return nullptr;
  }
}

constexpr char kAddInplace[] = "add_.Tensor";
constexpr char kSubInplace[] = "sub_.Tensor";
constexpr char kMulInplace[] = "mul_.Tensor";
constexpr char kDivInplace[] = "div_.Tensor";

// The type's C slots: arithmetic and the buffer protocol.
PyType_Slot kTensorSlots[] = {
    {Py_nb_add, reinterpret_cast<void*>(&nb_binary<&add2>)},
    {Py_nb_subtract, reinterpret_cast<void*>(&nb_binary<&sub2>)},
    {Py_nb_multiply, reinterpret_cast<void*>(&nb_binary<&mul>)},
    {Py_nb_true_divide, reinterpret_cast<void*>(&nb_binary<&div>)},
    {Py_nb_matrix_multiply, reinterpret_cast<void*>(&nb_binary<&matmul>)},
    {Py_nb_inplace_add, reinterpret_cast<void*>(&nb_inplace<kAddInplace>)},
    {Py_nb_inplace_subtract, reinterpret_cast<void*>(&nb_inplace<kSubInplace>)},
    {Py_nb_inplace_multiply, reinterpret_cast<void*>(&nb_inplace<kMulInplace>)},
    {Py_nb_inplace_true_divide, reinterpret_cast<void*>(&nb_inplace<kDivInplace>)},
    {Py_bf_getbuffer, reinterpret_cast<void*>(&tensor_getbuffer)},
    {Py_bf_releasebuffer, reinterpret_cast<void*>(&tensor_releasebuffer)},
    {0, nullptr},
};

// Parses .to(device), .to(dtype), .to(device, dtype), .to(other), keywords.
Tensor to(const Tensor& self, const py::args& args, const py::kwargs& kwargs) {
  std::optional<Device> device;
  std::optional<DType> dtype;
  bool copy = kwargs.contains("copy") && kwargs["copy"].cast<bool>();
  bool non_blocking = kwargs.contains("non_blocking") && kwargs["non_blocking"].cast<bool>();
  for (const py::handle& a : args) {
    if (auto d = as_dtype(a))
      dtype = d;
    else if (is_tensor(a.ptr())) {
      device = tensor_ref(a.ptr()).device();
      dtype = tensor_ref(a.ptr()).dtype();
    } else if (auto dv = as_device(a))
      device = dv;
    else
      throw ArgumentTypeError("to(): expected a device, a dtype or a Tensor, got " +
                              std::string(py::str(py::type::handle_of(a).attr("__name__"))));
  }
  if (kwargs.contains("dtype")) dtype = as_dtype(kwargs["dtype"]);
  if (kwargs.contains("device")) device = as_device(kwargs["device"]);
  Value format;  // None: preserve_format
  if (kwargs.contains("memory_format") && !kwargs["memory_format"].is_none())
    format = std::string(memory_format_name(as_memory_format(kwargs["memory_format"])));
  return call_op("to.device",
                 {self, device.value_or(self.device()), dtype.value_or(self.dtype()), non_blocking, copy, format})[0]
      .tensor();
}

}  // namespace

// axle.Size (bindings/python/axle/_size.py), registered at import: shape and
// size() allocate it directly (no Python-level __new__, no intermediate tuple),
// a plain tuple until then.
namespace {
PyObject* g_size_type = nullptr;

py::object sizes_object(const IntList& sizes) {
  const auto n = static_cast<Py_ssize_t>(sizes.size());
  // A tuple subclass is allocated as tuple's own constructor allocates it, then filled.
  PyObject* r =
      g_size_type
          ? reinterpret_cast<PyTypeObject*>(g_size_type)->tp_alloc(reinterpret_cast<PyTypeObject*>(g_size_type), n)
          : PyTuple_New(n);
  if (!r) throw py::error_already_set();
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* v = PyLong_FromLongLong(sizes[static_cast<size_t>(i)]);
    if (!v) {
      Py_DECREF(r);
      throw py::error_already_set();
    }
    PyTuple_SET_ITEM(r, i, v);
  }
  return py::reinterpret_steal<py::object>(r);
}
}  // namespace

void bind_tensor(py::module_& m) {
  TensorClass cls(reinterpret_cast<PyObject*>(create_tensor_type(kTensorSlots)));
  py::setattr(cls.type(), "__module__", py::str("axle"));
  m.attr("Tensor") = cls.type();
  m.def("_set_size_type", [](py::object type) {
    if (!PyType_Check(type.ptr()) || !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(type.ptr()), &PyTuple_Type))
      throw py::type_error("_set_size_type: expected a subclass of tuple");
    Py_XDECREF(g_size_type);
    g_size_type = type.release().ptr();  // kept for the interpreter's lifetime
  });
  cls.def_property_readonly("shape", [](const Tensor& t) { return sizes_object(t.sizes()); })
      .def(
          "size",
          [](const Tensor& t, std::optional<int64_t> d) -> py::object {
            if (d) return py::int_(t.size(*d));
            return sizes_object(t.sizes());
          },
          py::arg("dim") = py::none())
      .def_property_readonly("dtype", [](const Tensor& t) { return dtype_object(t.dtype()); })
      .def_property_readonly("_device_str", [](const Tensor& t) { return t.device().str(); })
      .def_property_readonly("ndim", &Tensor::dim)
      .def("dim", &Tensor::dim)
      .def("numel", &Tensor::numel)
      .def("element_size", &Tensor::element_size)
      .def(
          "stride",
          [](const Tensor& t, std::optional<int64_t> d) -> py::object {
            if (d) return py::int_(t.stride(*d));
            return py::tuple(py::cast(t.strides()));
          },
          py::arg("dim") = py::none())
      .def("storage_offset", &Tensor::storage_offset)
      .def(
          "is_contiguous",
          [](const Tensor& t, const py::object& format) {
            return t.is_contiguous(format.is_none() ? MemoryFormat::Contiguous : as_memory_format(format));
          },
          py::arg("memory_format") = py::none())
      .def("data_ptr", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(t.data_ptr()); })
      .def("item", [](const Tensor& t) { return from_value(Value(t.item())); })
      .def("tolist", [](const Tensor& t) { return to_list(t); })
      .def("__len__",
           [](const Tensor& t) {
             AXLE_CHECK(t.dim() > 0, ValueError, "len() of a 0-d tensor");
             return t.sizes()[0];
           })
      .def("view", [](const Tensor& t, const py::args& a) { return t.view(int_args(a)); })
      .def("permute", [](const Tensor& t, const py::args& a) { return t.permute(int_args(a)); })
      .def("expand", [](const Tensor& t, const py::args& a) { return t.expand(int_args(a)); })
      .def("transpose", &Tensor::transpose, py::arg("dim0"), py::arg("dim1"))
      .def("t", &Tensor::t)
      .def("select", &Tensor::select, py::arg("dim"), py::arg("index"))
      .def(
          "squeeze", [](const Tensor& t, std::optional<int64_t> d) { return d ? t.squeeze(*d) : t.squeeze(); },
          py::arg("dim") = py::none())
      .def("unsqueeze", &Tensor::unsqueeze, py::arg("dim"))
      .def(
          "as_strided",
          [](const Tensor& t, const IntList& size, const IntList& stride, std::optional<int64_t> off) {
            return t.as_strided(size, stride, off);
          },
          py::arg("size"), py::arg("stride"), py::arg("storage_offset") = py::none())
      .def("to", &to)
      .def("cpu", [](const Tensor& t) { return t.cpu(); })
      .def(
          "pin_memory",
          [](const Tensor& t, std::optional<std::string> device_type) { return t.pin_memory(device_type); },
          py::arg("device_type") = py::none(),
          "A copy in page-locked host memory of a device type (default: the first with devices that offers it).")
      .def("is_pinned", &Tensor::is_pinned)
      .def("record_stream", &Tensor::record_stream, py::arg("stream"),
           "Marks the memory as used by work on `stream`: once released it is not reused before that work is done "
           "(torch.Tensor.record_stream).")
      // + - * / @ and their reflected and in-place forms are the type's number slots (kTensorSlots).
      .def("__getitem__", &index)
      .def("__setitem__", &set_index)
      .def("__neg__", [](const Tensor& t) { return neg(t); })
      .def("__eq__", &binary<&eq>, py::is_operator())
      .def("__ne__", &binary<&ne>, py::is_operator())
      .def("__lt__", &binary<&lt>, py::is_operator())
      .def("__le__", &binary<&le>, py::is_operator())
      .def("__gt__", &binary<&gt>, py::is_operator())
      .def("__ge__", &binary<&ge>, py::is_operator())
      .def("__hash__", [](const py::object& self) { return reinterpret_cast<intptr_t>(self.ptr()); })
      .def("__bool__",
           [](const Tensor& t) {
             AXLE_CHECK(t.numel() == 1, ValueError, "Boolean value of Tensor with more than one value is ambiguous");
             return t.item().to_bool();
           })
      .def("__float__",
           [](const Tensor& t) {
             AXLE_CHECK(t.numel() == 1, ValueError, "only one element tensors can be converted to Python scalars");
             return t.item().to_double();
           })
      .def("__int__",
           [](const Tensor& t) {
             AXLE_CHECK(t.numel() == 1, ValueError, "only one element tensors can be converted to Python scalars");
             const Scalar v = t.item();
             // A float goes through Python's int(float): exact for any finite value,
             // ValueError for NaN and OverflowError for infinities (as torch).
             if (!v.is_floating_point()) return py::object(py::int_(v.to_int()));
             PyObject* i = PyNumber_Long(py::float_(v.to_double()).ptr());
             if (!i) throw py::error_already_set();
             return py::reinterpret_steal<py::object>(i);
           })
      .def("__index__",
           [](const Tensor& t) {
             if (t.numel() != 1 || !is_integral(t.dtype(), true))
               throw ArgumentTypeError("only integer tensors of a single element can be converted to an index");
             return t.item().to_int();
           })
      .def("_same_storage", [](const Tensor& a, const Tensor& b) { return a.storage() == b.storage(); })
      // The identity of the C++ tensor behind a Python object (two objects may hold one).
      .def("_impl_id", [](const Tensor& t) { return reinterpret_cast<uintptr_t>(&t.unsafe_impl()); });
  bind_dlpack(m, cls);
  bind_autograd(m, cls);
  m.def("from_numpy", &from_buffer, py::arg("array"),
        "A host tensor sharing memory with a numpy array (or any buffer); keeps it alive.");
  m.def("_tensor", [](const py::handle& data, const py::handle& dtype, const py::handle& device) {
    const std::optional<DType> dt = dtype.is_none() ? std::nullopt : as_dtype(dtype);
    const std::optional<Device> dev = device.is_none() ? std::nullopt : as_device(device);
    if (!dtype.is_none() && !dt) throw ArgumentTypeError("tensor(): dtype must be an axle dtype");
    if (!device.is_none() && !dev) throw ArgumentTypeError("tensor(): device must be a str or an axle.device");
    return tensor_from_data(data, dt, dev);
  });
}

}  // namespace axle::python
