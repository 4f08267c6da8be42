// axle.Tensor as a plain CPython type: the object holds the axle::Tensor handle
// inline (no pybind11 instance registry, no separate allocation), which halves
// the cost of returning a tensor to Python. A pybind11 type caster makes
// `const Tensor&` parameters and Tensor results work in every binding.
#pragma once

#include <axle/tensor.h>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace axle::python {

namespace py = pybind11;

struct TensorObject {
  PyObject_HEAD Tensor value;
  PyObject* weakrefs;
};

// The axle.Tensor type (created by create_tensor_type, called once by bind_tensor).
PyTypeObject* tensor_type();
PyTypeObject* create_tensor_type(PyType_Slot* extra_slots);

inline bool is_tensor(PyObject* o) { return PyObject_TypeCheck(o, tensor_type()) != 0; }
// The axle::Tensor held by `o`, which must satisfy is_tensor.
inline Tensor& tensor_ref(PyObject* o) { return reinterpret_cast<TensorObject*>(o)->value; }
// A new axle.Tensor object owning `t`.
py::object wrap_tensor(Tensor t);
// A new object of `type` (axle.Tensor or a Python subclass of it) owning `t`.
py::object wrap_tensor_as(PyTypeObject* type, Tensor t);

// Binds methods and properties on axle.Tensor with pybind11's cpp_function, as
// py::class_::def would.
class TensorClass {
 public:
  explicit TensorClass(py::handle type) : type_(type) {}
  template <typename F, typename... Extra>
  TensorClass& def(const char* name, F&& f, const Extra&... extra) {
    py::cpp_function cf(std::forward<F>(f), py::name(name), py::is_method(type_),
                        py::sibling(py::getattr(type_, name, py::none())), extra...);
    py::setattr(type_, name, cf);
    return *this;
  }
  template <typename F>
  TensorClass& def_property_readonly(const char* name, F&& f) {
    py::cpp_function getter(std::forward<F>(f));
    py::setattr(type_, name, py::module_::import("builtins").attr("property")(getter));
    return *this;
  }
  template <typename Get, typename Set>
  TensorClass& def_property(const char* name, Get&& get, Set&& set) {
    py::cpp_function getter(std::forward<Get>(get));
    py::cpp_function setter(std::forward<Set>(set));
    py::setattr(type_, name, py::module_::import("builtins").attr("property")(getter, setter));
    return *this;
  }
  py::handle type() const { return type_; }

 private:
  py::handle type_;
};

}  // namespace axle::python

namespace pybind11::detail {
template <>
struct type_caster<axle::Tensor> {
  PYBIND11_TYPE_CASTER(axle::Tensor, const_name("axle.Tensor"));
  bool load(handle src, bool) {
    if (!axle::python::is_tensor(src.ptr())) return false;
    value = axle::python::tensor_ref(src.ptr());
    return true;
  }
  static handle cast(const axle::Tensor& t, return_value_policy, handle) {
    return axle::python::wrap_tensor(t).release();
  }
};
// axle::IntList (a small vector) converts as std::vector<int64_t> does: to a list,
// from any sequence of ints.
template <>
struct type_caster<axle::IntList> : list_caster<axle::IntList, int64_t> {};
}  // namespace pybind11::detail
