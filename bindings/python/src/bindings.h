// Internal declarations shared by the _C extension's files.
#pragma once

#include <axle/axle.h>

#include <pybind11/pybind11.h>

#include "tensor_handle.h"

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace axle::python {

namespace py = pybind11;

// Arguments of the wrong Python type: raised as axle.TypeError (AxleError + TypeError).
struct ArgumentTypeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class OpGroup {
 public:
  explicit OpGroup(std::string name);
  void add(const OpHandle& h);
  py::object call(const py::args& args, const py::kwargs& kwargs) const;
  // Vectorcall layout: positional args, then the values of the keywords in kwnames.
  py::object call_fast(PyObject* const* args, size_t nargs, PyObject* kwnames) const;
  const std::string& name() const { return name_; }
  const std::vector<OpHandle>& overloads() const { return overloads_; }
  std::string doc() const;
  bool has_self() const;

 private:
  bool declares_out() const;
  py::object call_with_out(PyObject* const* args, size_t nargs, PyObject* kwnames, Py_ssize_t out_at) const;
  // Overload resolution and the call; `outs` non-null: torch's out= (call_op_out).
  py::object call_resolved(PyObject* const* args, size_t nargs, PyObject* kwnames,
                           const std::vector<Tensor>* outs) const;
  std::string name_;
  std::vector<OpHandle> overloads_;
  bool has_out_kwarg_ = true;  // out= handled generically (no overload declares `out`)
};

// Sets the Python error for a C++ exception (the axle classes; std exceptions and
// pybind11's own are rethrown for pybind11's translators).
void set_python_error(std::exception_ptr p);
void bind_errors(py::module_& m);
// A builtin function (METH_FASTCALL) for an operator group, with `doc` as __doc__.
py::object make_builtin(const std::shared_ptr<OpGroup>& group, const std::string& doc);
void bind_ops(py::module_& m);
void bind_tensor(py::module_& m);
void bind_dlpack(py::module_& m, TensorClass& cls);
void bind_autograd(py::module_& m, TensorClass& cls);
void bind_runtime(py::module_& m);
void bind_samples(py::module_& m);

}  // namespace axle::python
