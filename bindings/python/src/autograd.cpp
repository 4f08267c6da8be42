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

// A Python object owned from C++ (a custom function's callbacks and context):
// released with the GIL held, whichever thread frees the graph.
struct PyRef {
  py::object object;
  explicit PyRef(py::object o) : object(std::move(o)) {}
  PyRef(const PyRef&) = delete;
  PyRef& operator=(const PyRef&) = delete;
  ~PyRef() {
    py::gil_scoped_acquire gil;
    object = py::object();
  }
};

// torch.autograd.Function.apply: forward(ctx, *args) below autograd; a node
// whose backward calls backward(ctx, *grads) and takes one gradient per argument.
py::object function_apply(const std::string& name, const py::object& forward, const py::object& backward,
                          const py::tuple& args) {
  std::vector<Tensor> inputs;
  std::vector<size_t> positions;
  py::list needs;
  for (size_t i = 0; i < args.size(); ++i) {
    const bool tensor = is_tensor(args[i].ptr());
    if (tensor) {
      inputs.push_back(tensor_ref(args[i].ptr()));
      positions.push_back(i);
    }
    needs.append(tensor && is_grad_enabled() && tensor_ref(args[i].ptr()).requires_grad());
  }
  auto ctx = std::make_shared<autograd::AutogradContext>();
  auto py_ctx = std::make_shared<PyRef>(py::cast(ctx));
  py_ctx->object.attr("needs_input_grad") = py::tuple(needs);
  auto py_backward = std::make_shared<PyRef>(backward);
  bool single = false;
  const size_t num_args = args.size();
  auto fwd = [&](autograd::AutogradContext&, const std::vector<Tensor>&) {
    py::object r = forward(py_ctx->object, *args);
    std::vector<Tensor> out;
    if (is_tensor(r.ptr())) {
      single = true;
      out.push_back(tensor_ref(r.ptr()));
      return out;
    }
    if (!py::isinstance<py::tuple>(r))
      throw py::type_error(name + ": forward must return a Tensor or a tuple of Tensors");
    for (const py::handle& o : r) {
      if (!is_tensor(o.ptr())) throw py::type_error(name + ": forward must return a Tensor or a tuple of Tensors");
      out.push_back(tensor_ref(o.ptr()));
    }
    return out;
  };
  auto bwd = [py_ctx, py_backward, positions, num_args, name](autograd::AutogradContext&,
                                                              const std::vector<Tensor>& grads) {
    py::gil_scoped_acquire gil;
    py::tuple g(grads.size());
    for (size_t i = 0; i < grads.size(); ++i) g[i] = grads[i].defined() ? py::cast(grads[i]) : py::none();
    py::object r = py_backward->object(py_ctx->object, *g);
    py::tuple all = py::isinstance<py::tuple>(r) ? py::tuple(r) : py::make_tuple(r);
    if (all.size() != num_args)
      throw AutogradError(detail::concat("function ", name, " returned an incorrect number of gradients (expected ",
                                         num_args, ", got ", all.size(), ")"));
    std::vector<Tensor> out;
    for (size_t p : positions) out.push_back(all[p].is_none() ? Tensor() : py::cast<Tensor>(all[p]));
    return out;
  };
  std::vector<Tensor> outputs = autograd::apply_function(name, inputs, fwd, bwd, ctx);
  if (single) return py::cast(outputs[0]);
  py::tuple out(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) out[i] = py::cast(outputs[i]);
  return out;
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
      // In place: the same Python object back (a Parameter stays one), as torch's.
      .def(
          "requires_grad_",
          [](py::object self, bool v) {
            py::cast<Tensor>(self).requires_grad_(v);  // a handle: the same tensor
            return self;
          },
          py::arg("requires_grad") = true)
      .def_property(
          "grad", [](const Tensor& t) -> py::object { return t.grad().defined() ? py::cast(t.grad()) : py::none(); },
          [](Tensor& t, const py::object& g) { t.set_grad(g.is_none() ? Tensor() : py::cast<Tensor>(g)); })
      .def_property_readonly("grad_fn", [](const Tensor& t) { return node_or_none(t.grad_fn()); })
      .def_property_readonly("is_leaf", &Tensor::is_leaf)
      .def_property_readonly("_version", &Tensor::_version)
      .def("detach", &Tensor::detach)
      .def("detach_",
           [](py::object self) {
             py::cast<Tensor>(self).detach_();
             return self;
           })
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

  // torch's Tensor._make_subclass(cls, data, require_grad): an instance of the
  // subclass `cls` (nn.Parameter) sharing data's memory, detached from its history.
  m.def(
      "_make_subclass",
      [](const py::handle& cls, const Tensor& data, bool requires_grad) {
        if (!PyType_Check(cls.ptr())) throw py::type_error("_make_subclass(): cls must be a type");
        Tensor t = data.detach();
        if (requires_grad) t.requires_grad_(true);
        return wrap_tensor_as(reinterpret_cast<PyTypeObject*>(cls.ptr()), std::move(t));
      },
      py::arg("cls"), py::arg("data"), py::arg("requires_grad") = false);
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
  py::class_<autograd::AutogradContext, std::shared_ptr<autograd::AutogradContext>>(
      m, "FunctionCtx", py::dynamic_attr(), "The ctx of a custom autograd Function (torch's FunctionCtx).")
      .def("save_for_backward",
           [](autograd::AutogradContext& c, const py::args& tensors) {
             std::vector<Tensor> v;
             for (const py::handle& t : tensors) v.push_back(t.is_none() ? Tensor() : py::cast<Tensor>(t));
             c.save_for_backward(std::move(v));
           })
      .def_property_readonly("saved_tensors",
                             [](const autograd::AutogradContext& c) {
                               py::list out;
                               for (const Tensor& t : c.get_saved_variables())
                                 out.append(t.defined() ? py::cast(t) : py::none());
                               return py::tuple(out);
                             })
      .def("mark_non_differentiable",
           [](autograd::AutogradContext& c, const py::args& tensors) {
             std::vector<Tensor> v;
             for (const py::handle& t : tensors) v.push_back(py::cast<Tensor>(t));
             c.mark_non_differentiable(v);
           })
      .def("set_materialize_grads", &autograd::AutogradContext::set_materialize_grads, py::arg("value"))
      .def("mark_dirty", [](autograd::AutogradContext&, const py::args&) {
        throw NotImplementedError(
            "mark_dirty: custom functions that modify their inputs in place are not supported yet");
      });
  m.def("_function_apply", &function_apply, py::arg("name"), py::arg("forward"), py::arg("backward"), py::arg("args"));
  m.def("_ops_without_derivative", &autograd::ops_without_derivative);
  m.def("_derivative_of", [](const std::string& op) { return autograd::derivative_of(op); });
}

}  // namespace axle::python
