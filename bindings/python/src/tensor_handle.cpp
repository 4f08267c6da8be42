// See tensor_handle.h.
#include "tensor_handle.h"

#include <structmember.h>
#include <new>

namespace axle::python {

namespace {

PyTypeObject* g_type = nullptr;

void tensor_dealloc(PyObject* self) {
  auto* obj = reinterpret_cast<TensorObject*>(self);
  if (obj->weakrefs) PyObject_ClearWeakRefs(self);
  obj->value.~Tensor();
  PyTypeObject* type = Py_TYPE(self);
  type->tp_free(self);
  Py_DECREF(type);  // heap types are referenced by their instances
}

PyMemberDef kMembers[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(TensorObject, weakrefs), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr},
};

}  // namespace

PyTypeObject* tensor_type() { return g_type; }

PyTypeObject* create_tensor_type(PyType_Slot* extra_slots) {
  std::vector<PyType_Slot> slots = {
      {Py_tp_dealloc, reinterpret_cast<void*>(&tensor_dealloc)},
      {Py_tp_members, kMembers},
      {Py_tp_doc, const_cast<char*>("A tensor: a view (sizes, strides, offset, dtype) of device memory.")},
  };
  for (PyType_Slot* s = extra_slots; s && s->slot; ++s) slots.push_back(*s);
  slots.push_back({0, nullptr});
  // BASETYPE: Python subclasses (nn.Parameter) hold the same handle; their
  // instances come from make_subclass (the type has no tp_new of its own).
  PyType_Spec spec = {"axle.Tensor", static_cast<int>(sizeof(TensorObject)), 0,
                      Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, slots.data()};
  PyObject* type = PyType_FromSpec(&spec);
  if (!type) throw py::error_already_set();
  g_type = reinterpret_cast<PyTypeObject*>(type);
  return g_type;
}

py::object wrap_tensor_as(PyTypeObject* type, Tensor t) {
  if (!PyType_IsSubtype(type, g_type)) throw py::type_error("_make_subclass(): cls must be a subclass of axle.Tensor");
  PyObject* o = type->tp_alloc(type, 0);
  if (!o) throw py::error_already_set();
  auto* obj = reinterpret_cast<TensorObject*>(o);
  new (&obj->value) Tensor(std::move(t));
  obj->weakrefs = nullptr;
  return py::reinterpret_steal<py::object>(o);
}

py::object wrap_tensor(Tensor t) {
  PyObject* o = g_type->tp_alloc(g_type, 0);
  if (!o) throw py::error_already_set();
  auto* obj = reinterpret_cast<TensorObject*>(o);
  new (&obj->value) Tensor(std::move(t));
  obj->weakrefs = nullptr;
  return py::reinterpret_steal<py::object>(o);
}

}  // namespace axle::python
