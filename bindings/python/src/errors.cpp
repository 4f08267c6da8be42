// C++ exceptions -> the Python classes of axle/_errors.py, which are made from
// the same list (kErrorKinds, axle/error_kinds.h): each derives from
// axle.AxleError and from the builtin PyTorch raises for the same mistake.
#include <axle/error_kinds.h>

#include "bindings.h"

#include <cstring>

namespace axle::python {

namespace {

PyObject* error_class(std::string_view name) {
  static py::handle module = py::module_::import("axle._errors").release();
  return module.attr(py::str(name.data(), name.size())).ptr();
}

// Raises `cls` with `message`. A message is not always UTF-8 (a file's bytes, an
// environment variable): PyErr_SetString would then raise the class with no
// message at all, so invalid bytes are kept as \xNN escapes instead.
void raise_with(PyObject* cls, const char* message) {
  PyObject* text = PyUnicode_DecodeUTF8(message, static_cast<Py_ssize_t>(std::strlen(message)), "backslashreplace");
  if (!text) {  // cannot happen with backslashreplace but for memory
    PyErr_Clear();
    text = PyUnicode_FromString("(an error message that could not be decoded)");
  }
  PyErr_SetObject(cls, text);
  Py_XDECREF(text);
}

}  // namespace

void set_python_error(std::exception_ptr p) {
  if (!p) return;
  try {
    std::rethrow_exception(p);
  } catch (const Error& e) {
    raise_with(error_class(error_kind_of(e)->python_name), e.what());
  } catch (const ArgumentTypeError& e) {
    raise_with(error_class("TypeError"), e.what());
  } catch (const py::cast_error& e) {
    raise_with(error_class("TypeError"), e.what());
  }
}

void bind_errors(py::module_& m) {
  py::register_exception_translator(&set_python_error);
  // The list axle/_errors.py makes its classes from, as dicts.
  m.def("_error_kinds", [] {
    py::list out;
    for (const ErrorKind& k : kErrorKinds) {
      py::dict d;
      d["name"] = k.name;
      d["python_name"] = k.python_name;
      d["python_base"] = k.python_base;
      d["status"] = k.status;
      d["doc"] = k.doc;
      out.append(d);
    }
    return out;
  });
  // Tests: throws the C++ class `name` (through the translator) or, given a
  // plugin status instead, the class that status becomes.
  m.def("_raise_error", [](const std::string& name, const std::string& message) {
    for (const ErrorKind& k : kErrorKinds)
      if (k.name == name) k.raise(message);
    throw ValueError("_raise_error: no error kind '" + name + "'");
  });
  m.def("_raise_status",
        [](axle_status status, const std::string& message) { error_kind_for_status(status).raise(message); });
}

}  // namespace axle::python
