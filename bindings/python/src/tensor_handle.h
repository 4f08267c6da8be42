// Fast conversions between axle.Tensor Python objects and axle::Tensor on the
// hot paths (op calls, number slots). pybind11's py::isinstance<Tensor> and
// py::cast look the type up by hashing its typeid name on every call (a fifth
// of a 1-element add's time); these use the type record looked up once.
#pragma once

#include <axle/tensor.h>

#include <pybind11/pybind11.h>

namespace axle::python {

namespace py = pybind11;

// axle.Tensor's pybind11 type record (after bind_tensor registered the class).
py::detail::type_info* tensor_type();

inline bool is_tensor(PyObject* o) { return PyObject_TypeCheck(o, tensor_type()->type) != 0; }

// The axle::Tensor held by `o`, which must satisfy is_tensor (TypeError when its
// value was never constructed, e.g. a subclass skipping __init__).
Tensor& tensor_ref(PyObject* o);

// A new axle.Tensor object owning `t` (new reference).
py::object wrap_tensor(Tensor t);

}  // namespace axle::python
