// Operators as Python callables, produced from the op declarations: one
// OpGroup per operator name holds its overloads (add.Tensor, sum / sum.dim_IntList)
// and binds (*args, **kwargs) by schema, trying overloads in declaration order.
#include "bindings.h"
#include "convert.h"
#include "tensor_handle.h"

#include <pybind11/stl.h>

#include <cstring>
#include <unordered_map>

namespace axle::python {

namespace {

// Binds Python arguments (vectorcall layout: positional, then the values of the
// keywords named in `kwnames`) to one schema; nullopt (with the reason) when they
// do not fit, so the next overload can be tried.
std::optional<Stack> bind(const FunctionSchema& s, PyObject* const* args, size_t nargs, PyObject* kwnames,
                          std::string& why, bool tensor_as_scalar) {
  const size_t n = s.arguments.size();
  size_t positional = 0;
  for (const Argument& a : s.arguments) positional += a.kwarg_only ? 0 : 1;
  if (nargs > positional) {
    why = "takes " + std::to_string(positional) + " positional arguments but " + std::to_string(nargs) + " were given";
    return std::nullopt;
  }
  PyObject* given[64] = {};
  if (n > 64) {
    why = "too many arguments";
    return std::nullopt;
  }
  for (size_t i = 0; i < nargs; ++i) given[i] = args[i];
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    const char* key = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
    if (!key) PyErr_Clear();  // a name that is not UTF-8 (a lone surrogate) names no argument
    const int i = key ? s.find_argument(key) : -1;
    if (i < 0) {
      why = key ? std::string("got an unexpected keyword argument '") + key + "'"
                : std::string("got an unexpected keyword argument that is not valid UTF-8");
      return std::nullopt;
    }
    if (given[i]) {
      why = "got multiple values for argument '" + s.arguments[i].name + "'";
      return std::nullopt;
    }
    given[i] = args[nargs + static_cast<size_t>(k)];
  }
  Stack stack;
  stack.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    const Argument& a = s.arguments[i];
    if (!given[i]) {
      if (!a.default_value) {
        why = "missing required argument '" + a.name + "'";
        return std::nullopt;
      }
      stack.push_back(*a.default_value);
      continue;
    }
    std::string reason;
    std::optional<Value> v = to_value(given[i], a.type, reason, tensor_as_scalar);
    if (!v) {
      why = "argument '" + a.name + "' (" + a.type.str() + "): " + reason + ", got " + Py_TYPE(given[i])->tp_name;
      return std::nullopt;
    }
    stack.push_back(std::move(*v));
  }
  return stack;
}

py::object results(const FunctionSchema& s, Stack out) {
  // Tensor[] results are tuples, as torch.split / torch.unbind return.
  if (s.returns.empty()) return py::none();  // `-> ()`: ops that only write their arguments
  if (s.returns.size() == 1 && out.at(0).tag() == Value::Tag::TensorList) return py::tuple(from_value(out[0]));
  if (s.returns.size() == 1) return from_value(out.at(0));
  py::tuple t(out.size());
  for (size_t i = 0; i < out.size(); ++i) t[i] = from_value(out[i]);
  return t;
}

// Tensors at least this large release the GIL while the kernel runs; smaller
// ones keep it (releasing costs more than the work).
constexpr int64_t kReleaseGilElements = 1 << 15;

bool large_call(const Stack& stack) {
  for (const Value& v : stack)
    if (v.is_tensor() && v.tensor().defined() && v.tensor().numel() >= kReleaseGilElements) return true;
  return false;
}

}  // namespace

OpGroup::OpGroup(std::string name) : name_(std::move(name)) {}

void OpGroup::add(const OpHandle& h) {
  overloads_.push_back(h);
  has_out_kwarg_ = !declares_out();
}

py::object OpGroup::call(const py::args& args, const py::kwargs& kwargs) const {
  std::vector<PyObject*> flat;
  for (const py::handle& a : args) flat.push_back(a.ptr());
  py::tuple names(kwargs.size());
  size_t k = 0;
  for (const auto& kv : kwargs) {
    names[k++] = kv.first;
    flat.push_back(kv.second.ptr());
  }
  return call_fast(flat.data(), args.size(), kwargs.size() ? names.ptr() : nullptr);
}

bool OpGroup::declares_out() const {
  for (const OpHandle& h : overloads_)
    if (h.schema().find_argument("out") >= 0) return true;
  return false;
}

// `out=` for every op whose schemas have no out argument (torch's *.out overloads):
// the functional overload runs with the out tensors handed to the dispatcher
// (call_op_out), which lets kernels write into them directly.
py::object OpGroup::call_with_out(PyObject* const* args, size_t nargs, PyObject* kwnames, Py_ssize_t out_at) const {
  const Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
  PyObject* out_obj = args[nargs + static_cast<size_t>(out_at)];
  std::vector<PyObject*> rest(args, args + nargs);
  py::tuple names(nkw - 1);
  for (Py_ssize_t k = 0, j = 0; k < nkw; ++k) {
    if (k == out_at) continue;
    names[j++] = py::reinterpret_borrow<py::object>(PyTuple_GET_ITEM(kwnames, k));
    rest.push_back(args[nargs + static_cast<size_t>(k)]);
  }
  PyObject* rest_names = nkw > 1 ? names.ptr() : nullptr;
  if (out_obj == Py_None) return call_fast(rest.data(), nargs, rest_names);
  const std::string op = name_ + "(out=...)";
  std::vector<Tensor> outs;
  const bool single = is_tensor(out_obj);
  if (single) {
    outs.push_back(tensor_ref(out_obj));
  } else {
    py::handle o(out_obj);
    if (!(py::isinstance<py::tuple>(o) || py::isinstance<py::list>(o)))
      throw ArgumentTypeError(op + ": out must be a Tensor or a tuple of Tensors");
    for (const py::handle item : o) {
      if (!is_tensor(item.ptr())) throw ArgumentTypeError(op + ": out must hold Tensors");
      outs.push_back(tensor_ref(item.ptr()));
    }
  }
  call_resolved(rest.data(), nargs, rest_names, &outs);
  return py::reinterpret_borrow<py::object>(out_obj);
}

py::object OpGroup::call_fast(PyObject* const* args, size_t nargs, PyObject* kwnames) const {
  if (kwnames && has_out_kwarg_) {
    for (Py_ssize_t k = 0, n = PyTuple_GET_SIZE(kwnames); k < n; ++k)
      if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, k), "out") == 0)
        return call_with_out(args, nargs, kwnames, k);
  }
  return call_resolved(args, nargs, kwnames, nullptr);
}

py::object OpGroup::call_resolved(PyObject* const* args, size_t nargs, PyObject* kwnames,
                                  const std::vector<Tensor>* outs) const {
  // Two passes, as torch's argument parser ranks overloads: first Tensors bind only to
  // Tensor parameters; then a 0-dim Tensor may also stand for a Scalar.
  std::string reasons;
  for (const bool lenient : {false, true}) {
    for (const OpHandle& h : overloads_) {
      std::string why;
      std::optional<Stack> stack = bind(h.schema(), args, nargs, kwnames, why, lenient);
      if (!stack) {
        if (lenient) reasons += "\n  " + h.schema().text + ": " + why;
        continue;
      }
      if (outs && h.schema().returns.size() != outs->size())
        throw ArgumentTypeError(name_ + "(out=...): out must be " +
                                (h.schema().returns.size() == 1
                                     ? std::string("a Tensor")
                                     : "a tuple of " + std::to_string(h.schema().returns.size()) + " Tensors"));
      Stack out;
      auto run = [&] { out = outs ? call_op_out(h, std::move(*stack), *outs) : call_op(h, std::move(*stack)); };
      if (large_call(*stack)) {
        py::gil_scoped_release release;
        run();
      } else {
        run();
      }
      // A result that is one of the argument tensors themselves (an in-place op's
      // self, contiguous() of a contiguous tensor) is that Python object, as torch:
      // `t.add_(1) is t`.
      if (out.size() == 1 && out[0].is_tensor() && out[0].tensor().defined()) {
        const size_t given = nargs + (kwnames ? static_cast<size_t>(PyTuple_GET_SIZE(kwnames)) : 0);
        for (size_t i = 0; i < given; ++i)
          if (is_tensor(args[i]) && tensor_ref(args[i]).is_same(out[0].tensor()))
            return py::reinterpret_borrow<py::object>(args[i]);
      }
      return results(h.schema(), std::move(out));
    }
  }
  throw ArgumentTypeError(name_ + "(): no overload matches these arguments:" + reasons);
}

namespace {

// The C entry of every generated builtin: `self` is a capsule holding the OpGroup.
PyObject* op_vectorcall(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  try {
    auto* group = static_cast<const OpGroup*>(PyCapsule_GetPointer(self, "axle.OpGroup"));
    return group->call_fast(args, static_cast<size_t>(nargs), kwnames).release().ptr();
  } catch (const py::error_already_set& e) {
    py::error_already_set(e).restore();
  } catch (...) {
    try {
      set_python_error(std::current_exception());
    } catch (const std::exception& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  }
  return nullptr;
}

}  // namespace

py::object make_builtin(const std::shared_ptr<OpGroup>& group, const std::string& doc) {
  // Method definitions and docs must outlive the function objects: kept forever.
  static std::vector<std::shared_ptr<OpGroup>> keep;
  keep.push_back(group);
  auto* def = new PyMethodDef{strdup(group->name().c_str()),
                              reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&op_vectorcall)),
                              METH_FASTCALL | METH_KEYWORDS, strdup(doc.c_str())};
  py::capsule self(static_cast<const void*>(group.get()), "axle.OpGroup");
  PyObject* fn = PyCFunction_NewEx(def, self.ptr(), nullptr);
  if (!fn) throw py::error_already_set();
  return py::reinterpret_steal<py::object>(fn);
}

std::string OpGroup::doc() const {
  std::string d;
  for (const OpHandle& h : overloads_) d += h.schema().text + "\n";
  return d;
}

bool OpGroup::has_self() const {
  for (const OpHandle& h : overloads_)
    if (!h.schema().arguments.empty() && h.schema().arguments[0].name == "self" &&
        h.schema().arguments[0].type.kind == ArgKind::Tensor)
      return true;
  return false;
}

std::vector<std::shared_ptr<OpGroup>> op_groups() {
  std::vector<std::shared_ptr<OpGroup>> groups;
  std::unordered_map<std::string, std::shared_ptr<OpGroup>> by_name;
  for (const std::string& full : op_names()) {
    const OpHandle h = find_op(full);
    const FunctionSchema& s = h.schema();
    const std::string key = (s.ns == "aten" ? "" : s.ns + "::") + s.name;
    auto& g = by_name[key];
    if (!g) {
      g = std::make_shared<OpGroup>(key);
      groups.push_back(g);
    }
    g->add(h);
  }
  return groups;
}

void bind_ops(py::module_& m) {
  py::class_<OpGroup, std::shared_ptr<OpGroup>>(m, "OpGroup")
      .def("__call__", &OpGroup::call)
      .def_property_readonly("name", &OpGroup::name)
      .def_property_readonly("schemas", &OpGroup::doc)
      .def_property_readonly("has_self", &OpGroup::has_self)
      .def("signatures",
           [](const OpGroup& g) {
             // Per overload: [(name, type, kwarg_only, default text or None)], number of returns.
             py::list out;
             for (const OpHandle& h : g.overloads()) {
               py::list args;
               for (const Argument& a : h.schema().arguments)
                 args.append(
                     py::make_tuple(a.name, a.type.str(), a.kwarg_only,
                                    a.default_value ? py::object(py::str(a.default_text)) : py::object(py::none())));
               out.append(py::make_tuple(args, h.schema().returns.size()));
             }
             return out;
           })
      .def("docs", [](const OpGroup& g) {
        std::vector<std::pair<std::string, std::string>> out;
        for (const OpHandle& h : g.overloads()) out.emplace_back(h.schema().text, "");
        return out;
      });
  m.def("_builtin", &make_builtin, "A fast builtin function calling an OpGroup (vectorcall, no tuples).");
  m.def("_op_groups", &op_groups, "Every declared operator, grouped by name (overloads in declaration order).");
  m.def("_nn_functional_ops", [] {
    // (name, only_in_nn) for ops flagged for axle.nn.functional.
    std::vector<std::pair<std::string, bool>> out;
    for (const OpDecl& d : builtin_op_decls())
      if (d.flags & (kNNFunctional | kNNOnly))
        out.emplace_back(FunctionSchema::parse(d.schema).name, (d.flags & kNNOnly) != 0);
    return out;
  });
  m.def("_op_doc", [](const std::string& name) {
    for (const OpDecl& d : builtin_op_decls())
      if (FunctionSchema::parse(d.schema).full_name() == name) return std::string(d.doc);
    return std::string();
  });
}

}  // namespace axle::python
