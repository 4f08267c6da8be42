// Operators as Python callables, produced from the op declarations: one
// OpGroup per operator name holds its overloads (add.Tensor, sum / sum.dim_IntList)
// and binds (*args, **kwargs) by schema, trying overloads in declaration order.
#include "bindings.h"
#include "convert.h"

#include <pybind11/stl.h>

#include <unordered_map>

namespace axle::python {

namespace {

// Binds Python arguments to one schema; nullopt (with the reason) when they do not fit.
std::optional<Stack> bind(const FunctionSchema& s, const py::args& args, const py::kwargs& kwargs, std::string& why) {
  const size_t n = s.arguments.size();
  size_t positional = 0;
  for (const Argument& a : s.arguments) positional += a.kwarg_only ? 0 : 1;
  if (args.size() > positional) {
    why = "takes " + std::to_string(positional) + " positional arguments but " + std::to_string(args.size()) +
          " were given";
    return std::nullopt;
  }
  std::vector<py::handle> given(n);
  for (size_t i = 0; i < args.size(); ++i) given[i] = args[i];
  size_t used_kwargs = 0;
  for (size_t i = 0; i < n; ++i) {
    const char* name = s.arguments[i].name.c_str();
    if (kwargs.contains(name)) {
      if (given[i]) {
        why = "got multiple values for argument '" + s.arguments[i].name + "'";
        return std::nullopt;
      }
      given[i] = kwargs[name];
      ++used_kwargs;
    }
  }
  if (used_kwargs != kwargs.size()) {
    for (const auto& kv : kwargs)
      if (s.find_argument(kv.first.cast<std::string>()) < 0) {
        why = "got an unexpected keyword argument '" + kv.first.cast<std::string>() + "'";
        return std::nullopt;
      }
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
    std::optional<Value> v = to_value(given[i], a.type, reason);
    if (!v) {
      why = "argument '" + a.name + "' (" + a.type.str() + "): " + reason + ", got " +
            std::string(py::str(given[i].get_type().attr("__name__")));
      return std::nullopt;
    }
    stack.push_back(std::move(*v));
  }
  return stack;
}

py::object results(const FunctionSchema& s, Stack out) {
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

void OpGroup::add(const OpHandle& h) { overloads_.push_back(h); }

py::object OpGroup::call(const py::args& args, const py::kwargs& kwargs) const {
  std::string reasons;
  for (const OpHandle& h : overloads_) {
    std::string why;
    std::optional<Stack> stack = bind(h.schema(), args, kwargs, why);
    if (!stack) {
      reasons += "\n  " + h.schema().text + ": " + why;
      continue;
    }
    Stack out;
    if (large_call(*stack)) {
      py::gil_scoped_release release;
      out = call_op(h, std::move(*stack));
    } else {
      out = call_op(h, std::move(*stack));
    }
    return results(h.schema(), std::move(out));
  }
  throw ArgumentTypeError(name_ + "(): no overload matches these arguments:" + reasons);
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
      .def("docs", [](const OpGroup& g) {
        std::vector<std::pair<std::string, std::string>> out;
        for (const OpHandle& h : g.overloads()) out.emplace_back(h.schema().text, "");
        return out;
      });
  m.def("_op_groups", &op_groups, "Every declared operator, grouped by name (overloads in declaration order).");
  m.def("_op_doc", [](const std::string& name) {
    for (const OpDecl& d : builtin_op_decls())
      if (FunctionSchema::parse(d.schema).full_name() == name) return std::string(d.doc);
    return std::string();
  });
}

}  // namespace axle::python
