// Argument conversion for the generated op functions, and nested data.
#include "convert.h"

#include "bindings.h"
#include "tensor_handle.h"

#include <axle/plugin/helpers.hpp>

#include <pybind11/stl.h>

#include <cmath>

namespace axle::python {

namespace {

bool is_bool(const py::handle& o) { return PyBool_Check(o.ptr()); }
bool is_int(const py::handle& o) { return PyLong_Check(o.ptr()) && !PyBool_Check(o.ptr()); }
bool is_float(const py::handle& o) { return PyFloat_Check(o.ptr()); }
bool is_number(const py::handle& o) { return is_bool(o) || is_int(o) || is_float(o); }

// A Python int as int64; one outside int64 is torch's "Overflow when unpacking long"
// (never a wrapped or truncated value).
int64_t as_int64(const py::handle& o) {
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(o.ptr(), &overflow);
  if (v == -1 && !overflow && PyErr_Occurred()) throw py::error_already_set();
  AXLE_CHECK(!overflow, DTypeError, "Overflow when unpacking long");
  return static_cast<int64_t>(v);
}

// A Python int or float as a double; an int beyond a double's range raises
// Python's OverflowError "int too large to convert to float", as torch's float
// arguments do (never pybind11's cast error).
double as_double(const py::handle& o) {
  const double d = PyFloat_AsDouble(o.ptr());
  if (d == -1.0 && PyErr_Occurred()) throw py::error_already_set();
  return d;
}

std::optional<Scalar> as_scalar(const py::handle& o) {
  if (is_bool(o)) return Scalar(o.cast<bool>());
  if (is_int(o)) return Scalar(as_int64(o));
  if (is_float(o)) return Scalar(as_double(o));
  if (is_tensor(o.ptr())) {
    const Tensor& t = tensor_ref(o.ptr());
    if (t.numel() == 1) return t.item();
  }
  return std::nullopt;
}

std::optional<IntList> as_int_list(const py::handle& o, int64_t fixed) {
  if (is_int(o)) return IntList(fixed > 0 ? fixed : 1, as_int64(o));
  if (!py::isinstance<py::tuple>(o) && !py::isinstance<py::list>(o)) return std::nullopt;
  IntList out;
  for (const py::handle& item : o) {
    if (!is_int(item)) return std::nullopt;
    out.push_back(as_int64(item));
  }
  return out;
}

}  // namespace

std::optional<DType> as_dtype(const py::handle& obj) {
  if (py::hasattr(obj, "_axle_dtype")) return static_cast<DType>(obj.attr("_axle_dtype").cast<int>());
  return std::nullopt;
}

std::optional<Device> as_device(const py::handle& obj) {
  if (py::isinstance<py::str>(obj)) return Device(obj.cast<std::string>());
  if (py::hasattr(obj, "_axle_device")) return Device(obj.attr("_axle_device").cast<std::string>());
  return std::nullopt;
}

MemoryFormat as_memory_format(const py::handle& obj) {
  if (!py::hasattr(obj, "_axle_memory_format"))
    throw ArgumentTypeError(
        "expected an axle memory format (axle.channels_last, axle.contiguous_format, "
        "axle.preserve_format)");
  return memory_format_from_name(obj.attr("_axle_memory_format").cast<std::string>());
}

py::object dtype_object(DType d) {
  static py::handle module = py::module_::import("axle").release();
  return module.attr(std::string(dtype_name(d)).c_str());
}

std::optional<Value> to_value(const py::handle& obj, const ArgType& type, std::string& why, bool tensor_as_scalar) {
  if (obj.is_none()) {
    if (type.optional) return Value();
    why = "None is not allowed";
    return std::nullopt;
  }
  switch (type.kind) {
    case ArgKind::Tensor:
      if (is_tensor(obj.ptr())) return Value(tensor_ref(obj.ptr()));
      if (is_number(obj)) return Value(scalar_to_tensor(*as_scalar(obj)));
      why = "expected a Tensor";
      return std::nullopt;
    case ArgKind::TensorList: {
      if (!py::isinstance<py::tuple>(obj) && !py::isinstance<py::list>(obj)) break;
      std::vector<Tensor> ts;
      for (const py::handle& item : obj) {
        if (item.is_none() && type.optional_elements) {  // Tensor?[]: None items are undefined Tensors
          ts.emplace_back();
          continue;
        }
        if (!is_tensor(item.ptr())) {
          why = "expected a sequence of Tensors";
          return std::nullopt;
        }
        ts.push_back(tensor_ref(item.ptr()));
      }
      return Value(ts);
    }
    case ArgKind::Int:
      if (is_int(obj)) {
        if (auto s = as_scalar(obj)) return Value(*s);
      }
      why = "expected an int";
      return std::nullopt;
    case ArgKind::IntList:
      if (auto l = as_int_list(obj, type.fixed_size)) return Value(*l);
      why = "expected an int or a sequence of ints";
      return std::nullopt;
    case ArgKind::Float:
      if (is_int(obj) || is_float(obj)) return Value(as_double(obj));
      why = "expected a float";
      return std::nullopt;
    case ArgKind::Bool:
      if (is_bool(obj)) return Value(obj.cast<bool>());
      why = "expected a bool";
      return std::nullopt;
    case ArgKind::Scalar:
      // As torch's argument parser: a Tensor passes for a Scalar only when 0-dim (so that
      // scatter(..., src) with a one-element src binds scatter.src, not scatter.value).
      if (is_tensor(obj.ptr()) && (!tensor_as_scalar || tensor_ref(obj.ptr()).dim() != 0)) {
        why = tensor_as_scalar ? "expected a number or a 0-dim Tensor" : "expected a number";
        return std::nullopt;
      }
      if (auto s = as_scalar(obj)) return Value(*s);
      why = "expected a number";
      return std::nullopt;
    case ArgKind::ScalarType:
      if (auto d = as_dtype(obj)) return Value(*d);
      why = "expected an axle dtype";
      return std::nullopt;
    case ArgKind::Device:
      if (py::isinstance<py::str>(obj) || py::hasattr(obj, "_axle_device")) return Value(*as_device(obj));
      why = "expected a device";
      return std::nullopt;
    case ArgKind::Str:
      if (py::isinstance<py::str>(obj)) return Value(obj.cast<std::string>());
      why = "expected a str";
      return std::nullopt;
    case ArgKind::Generator:
      if (py::isinstance<Generator>(obj)) return Value(obj.cast<Generator>());
      why = "expected an axle.Generator";
      return std::nullopt;
    case ArgKind::MemoryFormat:
      if (py::hasattr(obj, "_axle_memory_format")) return Value(obj.attr("_axle_memory_format").cast<std::string>());
      why = "expected an axle memory format (axle.channels_last, ...)";
      return std::nullopt;
    case ArgKind::Layout: return Value();
  }
  why = "expected " + type.str();
  return std::nullopt;
}

py::object from_value(const Value& v) {
  switch (v.tag()) {
    case Value::Tag::None: return py::none();
    // An output an op leaves undefined (output_mask of the backward ops) is None, as torch's.
    case Value::Tag::Tensor: return v.tensor().defined() ? wrap_tensor(v.tensor()) : py::none();
    case Value::Tag::TensorList: {  // undefined items (Tensor?[]) are None
      py::list out;
      for (const Tensor& t : v.tensors()) out.append(t.defined() ? wrap_tensor(t) : py::none());
      return out;
    }
    case Value::Tag::Int: return py::int_(v.to_int());
    case Value::Tag::IntList: return py::cast(v.int_list());
    case Value::Tag::Double: return py::float_(v.to_double());
    case Value::Tag::Bool: return py::bool_(v.to_bool());
    case Value::Tag::String: return py::str(v.str());
    case Value::Tag::DType: return dtype_object(v.dtype());
    case Value::Tag::Device: return py::str(v.device().str());
    case Value::Tag::Generator: return py::cast(v.generator());
  }
  return py::none();
}

namespace {

struct Flattened {
  IntList shape;
  std::vector<Scalar> values;
  bool any_float = false, any_int = false, all_bool = true;
  bool any_big_int = false;  // an int outside int64 (in values as a double)
};

void flatten(const py::handle& obj, size_t depth, Flattened& f) {
  if (py::isinstance<py::list>(obj) || py::isinstance<py::tuple>(obj)) {
    const int64_t n = static_cast<int64_t>(py::len(obj));
    if (depth == f.shape.size()) {
      AXLE_CHECK(f.values.empty() || depth > 0, ValueError, "tensor(): expected sequence of length ", n);
      // Bounds the recursion too: a list nested 100,000 deep overflowed the stack.
      AXLE_CHECK(depth < static_cast<size_t>(kMaxTensorDims), ShapeError, "tensor(): a sequence nested more than ",
                 kMaxTensorDims, " deep; tensors have at most ", kMaxTensorDims, " dimensions");
      f.shape.push_back(n);
    } else if (depth > f.shape.size() || f.shape[depth] != n) {
      throw ValueError(detail::concat("tensor(): expected sequence of length ",
                                      depth < f.shape.size() ? f.shape[depth] : -1, " at dim ", depth, " (got ", n,
                                      ")"));
    }
    for (const py::handle& item : obj) flatten(item, depth + 1, f);
    return;
  }
  AXLE_CHECK(depth == f.shape.size(), ValueError, "tensor(): ragged nested sequence (a number at dim ", depth,
             " where a sequence of ", depth < f.shape.size() ? f.shape[depth] : 0, " was expected)");
  if (is_int(obj)) {  // beyond int64: carried as a float, as torch does when the result is floating
    int overflow = 0;
    PyLong_AsLongLongAndOverflow(obj.ptr(), &overflow);
    if (overflow) {
      f.any_big_int = true;
      f.all_bool = false;
      f.values.emplace_back(as_double(obj));
      return;
    }
  }
  std::optional<Scalar> s = as_scalar(obj);
  if (!s)
    throw ArgumentTypeError("tensor(): could not convert an object of type " +
                            std::string(py::str(py::type::handle_of(obj).attr("__name__"))) + " to a number");
  f.any_float |= s->is_floating_point();
  f.any_int |= s->is_integral();
  f.all_bool &= s->is_bool();
  f.values.push_back(*s);
}

// torch.tensor(data, dtype=<integral>): each number must fit the dtype (c10's
// checked conversion: uint8 also takes -255..-1, which wrap; floats strictly).
void check_fits(const Scalar& v, DType dt) {
  if (!is_integral(dt, false)) return;
  double lo = 0, hi = 0;
  switch (dt) {
    case kUInt8: lo = v.is_floating_point() ? 0 : -255, hi = 255; break;
    case kInt8: lo = -128, hi = 127; break;
    case kInt16: lo = -32768, hi = 32767; break;
    case kInt32: lo = -2147483648.0, hi = 2147483647.0; break;
    default:  // int64: any int; a float below 2^63
      if (!v.is_floating_point()) return;
      lo = -9223372036854775808.0, hi = std::nextafter(9223372036854775808.0, 0.0);
  }
  const double x = v.to_double();
  AXLE_CHECK(x >= lo && x <= hi, DTypeError, "value cannot be converted to type ", dtype_name(dt), " without overflow");
}

}  // namespace

Tensor tensor_from_data(const py::handle& data, std::optional<DType> dtype, std::optional<Device> device) {
  if (is_tensor(data.ptr())) {
    const Tensor& t = tensor_ref(data.ptr());
    return t.to(device.value_or(t.device()), dtype.value_or(t.dtype()), false, true);
  }
  Flattened f;
  flatten(data, 0, f);
  // No values (tensor([]), tensor([[]])): the default dtype, as torch.
  const DType inferred = f.any_float || f.values.empty() ? get_default_dtype() : f.all_bool ? kBool : kInt64;
  const DType dt = dtype.value_or(inferred);
  Tensor host = make_empty(f.shape, kFloat64, Device("cpu"));
  Tensor ints = make_empty(f.shape, kInt64, Device("cpu"));
  // Integers go through int64 so that large values stay exact.
  double* pd = static_cast<double*>(host.data_ptr());
  int64_t* pi = static_cast<int64_t*>(ints.data_ptr());
  const bool floating = f.any_float || is_floating_point(dt);
  AXLE_CHECK(floating || !f.any_big_int, DTypeError, "Overflow when unpacking long");
  for (size_t i = 0; i < f.values.size(); ++i) {
    check_fits(f.values[i], dt);
    pd[i] = f.values[i].to_double();
    pi[i] = floating ? 0 : f.values[i].to_int();
  }
  const Tensor& src = floating ? host : ints;
  Tensor out = make_empty(f.shape, dt, device.value_or(get_default_device()).resolved());
  out.copy_(src);
  return out;
}

namespace {
py::object list_rec(const Tensor& t, const char* base, int64_t dim, int64_t offset) {
  const size_t esize = t.element_size();
  if (dim == t.dim()) {
    const void* p = base + offset * static_cast<int64_t>(esize);
    const auto d = static_cast<axle_dtype>(t.dtype());
    if (t.dtype() == kBool) return py::bool_(plugin::load_as<bool>(p, d));
    if (is_floating_point(t.dtype())) return py::float_(plugin::load_as<double>(p, d));
    return py::int_(plugin::load_as<int64_t>(p, d));
  }
  py::list out;
  for (int64_t i = 0; i < t.sizes()[dim]; ++i) out.append(list_rec(t, base, dim + 1, offset + i * t.strides()[dim]));
  return out;
}
}  // namespace

py::object to_list(const Tensor& t) {
  const Tensor h = t.device().is_cpu() ? t : t.cpu();
  return list_rec(h, static_cast<const char*>(h.data_ptr()), 0, 0);
}

}  // namespace axle::python
