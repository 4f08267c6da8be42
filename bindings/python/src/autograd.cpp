// Autograd in Python: the Tensor attributes and methods (requires_grad, grad,
// grad_fn, is_leaf, backward, detach, retain_grad, register_hook, data) and the
// engine's entry points under axle._C, which axle/autograd.py wraps as torch.autograd.
#include "bindings.h"

#include <pybind11/functional.h>
#include <pybind11/stl.h>

namespace axle::python {

namespace {

std::vector<Tensor> tensors_of(const py::handle& o) {
  std::vector<Tensor> out;
  if (o.is_none()) return out;
  if (is_tensor(o.ptr())) return {tensor_ref(o.ptr())};
  for (const py::handle& item : o) out.push_back(item.is_none() ? Tensor() : py::cast<Tensor>(item));
  return out;
}

py::object node_or_none(const std::shared_ptr<autograd::Node>& n) {
  if (!n) return py::none();
  return py::cast(n);
}

}  // namespace

void bind_autograd(py::module_& m, TensorClass& cls) {
  py::class_<autograd::Node, std::shared_ptr<autograd::Node>>(m, "Node", "A node of the backward graph (grad_fn).")
      .def("name", &autograd::Node::name)
      .def_property_readonly("next_functions",
                             [](const autograd::Node& n) {
                               py::list out;
                               for (const autograd::Edge& e : n.next_edges())
                                 out.append(py::make_tuple(node_or_none(e.fn), e.input_nr));
                               return py::tuple(out);
                             })
      .def("register_prehook",
           [](autograd::Node& n, const py::function& fn) {
             for (uint32_t i = 0; i < n.num_outputs(); ++i)
               n.add_pre_hook(i, [fn](const Tensor& g) {
                 py::gil_scoped_acquire gil;
                 py::object r = fn(g);
                 return r.is_none() ? Tensor() : py::cast<Tensor>(r);
               });
           })
      .def("__repr__", [](const autograd::Node& n) { return "<" + n.name() + " object>"; });

  cls.def_property(
         "requires_grad", [](const Tensor& t) { return t.requires_grad(); },
         [](Tensor& t, bool v) { t.requires_grad_(v); })
      .def(
          "requires_grad_", [](Tensor& t, bool v) -> Tensor { return t.requires_grad_(v); },
          py::arg("requires_grad") = true)
      .def_property(
          "grad", [](const Tensor& t) -> py::object { return t.grad().defined() ? py::cast(t.grad()) : py::none(); },
          [](Tensor& t, const py::object& g) { t.set_grad(g.is_none() ? Tensor() : py::cast<Tensor>(g)); })
      .def_property_readonly("grad_fn", [](const Tensor& t) { return node_or_none(t.grad_fn()); })
      .def_property_readonly("is_leaf", &Tensor::is_leaf)
      .def_property_readonly("_version", &Tensor::_version)
      .def("detach", &Tensor::detach)
      .def("detach_", [](Tensor& t) -> Tensor { return t.detach_(); })
      .def("retain_grad", &Tensor::retain_grad)
      .def_property_readonly("retains_grad", &Tensor::retains_grad)
      .def(
          "register_hook",
          [](const Tensor& t, const py::function& fn) {
            autograd::register_hook(t, [fn](const Tensor& g) {
              py::gil_scoped_acquire gil;
              py::object r = fn(g);
              return r.is_none() ? Tensor() : py::cast<Tensor>(r);
            });
          },
          py::arg("hook"))
      .def_property(
          "data", [](const Tensor& t) { return t.detach(); },
          [](Tensor& t, const Tensor& d) {
            // torch's `t.data = d`: t takes d's memory and geometry, keeps its autograd state.
            TensorImpl& i = t.unsafe_impl();
            const TensorImpl& s = d.unsafe_impl();
            i.storage = s.storage;
            i.sizes = s.sizes;
            i.strides = s.strides;
            i.storage_offset = s.storage_offset;
            i.dtype = s.dtype;
          });

  m.def("is_grad_enabled", &is_grad_enabled);
  m.def("_set_grad_enabled", &set_grad_enabled, py::arg("mode"));
  m.def(
      "_backward",
      [](const py::object& tensors, const py::object& grads, std::optional<bool> retain_graph, bool create_graph,
         const py::object& inputs) {
        autograd::backward(tensors_of(tensors), tensors_of(grads), retain_graph, create_graph, tensors_of(inputs));
      },
      py::arg("tensors"), py::arg("grad_tensors") = py::none(), py::arg("retain_graph") = py::none(),
      py::arg("create_graph") = false, py::arg("inputs") = py::none());
  m.def(
      "_grad",
      [](const py::object& outputs, const py::object& inputs, const py::object& grad_outputs,
         std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
        std::vector<Tensor> r = autograd::grad(tensors_of(outputs), tensors_of(inputs), tensors_of(grad_outputs),
                                               retain_graph, create_graph, allow_unused);
        py::list out;
        for (const Tensor& t : r) out.append(t.defined() ? py::cast(t) : py::none());
        return py::tuple(out);
      },
      py::arg("outputs"), py::arg("inputs"), py::arg("grad_outputs") = py::none(), py::arg("retain_graph") = py::none(),
      py::arg("create_graph") = false, py::arg("allow_unused") = false);
  m.def("_ops_without_derivative", &autograd::ops_without_derivative);
  m.def("_derivative_of", [](const std::string& op) { return autograd::derivative_of(op); });
}

}  // namespace axle::python
