// Python <-> axle conversions driven by schema argument types, and nested
// Python data -> Tensor (axle.tensor).
#pragma once

#include <axle/axle.h>

#include <pybind11/pybind11.h>

#include "tensor_handle.h"

#include <optional>
#include <string>

namespace axle::python {

namespace py = pybind11;

// Converts `obj` for an argument of type `type`; nullopt (with `why`) when the
// Python value does not fit that type, so overload resolution can try the next.
// tensor_as_scalar=false refuses 0-dim Tensors for Scalar parameters (the first,
// exact pass of overload resolution: clamp(t, tensor) binds clamp.Tensor).
std::optional<Value> to_value(const py::handle& obj, const ArgType& type, std::string& why,
                              bool tensor_as_scalar = true);
// A Value returned by an op as a Python object.
py::object from_value(const Value& v);
// axle.dtype / axle.device objects <-> C++.
std::optional<DType> as_dtype(const py::handle& obj);
std::optional<Device> as_device(const py::handle& obj);
py::object dtype_object(DType d);
// axle.channels_last / contiguous_format / preserve_format -> C++ (TypeError otherwise).
MemoryFormat as_memory_format(const py::handle& obj);
// Builds a tensor from nested sequences of numbers (shape and dtype inferred as torch).
Tensor tensor_from_data(const py::handle& data, std::optional<DType> dtype, std::optional<Device> device);
// Nested Python lists of a tensor's values (tolist()).
py::object to_list(const Tensor& t);

}  // namespace axle::python
