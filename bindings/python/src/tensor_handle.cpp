// See tensor_handle.h.
#include "tensor_handle.h"

#include "bindings.h"

namespace axle::python {

py::detail::type_info* tensor_type() {
  static py::detail::type_info* info = py::detail::get_type_info(typeid(Tensor), /*throw_if_missing=*/true);
  return info;
}

Tensor& tensor_ref(PyObject* o) {
  auto* inst = reinterpret_cast<py::detail::instance*>(o);
  auto vh = inst->get_value_and_holder(tensor_type(), /*throw_if_missing=*/true);
  if (!vh.value_ptr() || !vh.holder_constructed())
    throw ArgumentTypeError("an axle.Tensor whose __init__ was not called");
  return *static_cast<Tensor*>(vh.value_ptr());
}

py::object wrap_tensor(Tensor t) {
  auto copy = [](const void* p) -> void* { return new Tensor(*static_cast<const Tensor*>(p)); };
  auto move = [](const void* p) -> void* {
    return new Tensor(std::move(*const_cast<Tensor*>(static_cast<const Tensor*>(p))));
  };
  return py::reinterpret_steal<py::object>(
      py::detail::type_caster_generic::cast(&t, py::return_value_policy::move, py::handle(), tensor_type(), copy, move));
}

}  // namespace axle::python
