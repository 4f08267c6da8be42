// C++ exceptions -> the Python classes of axle/_errors.py (each derives from
// axle.AxleError and from the builtin PyTorch raises for the same mistake).
#include "bindings.h"

namespace axle::python {

namespace {

PyObject* error_class(const char* name) {
  static py::handle module = py::module_::import("axle._errors").release();
  return module.attr(name).ptr();
}


}  // namespace

void set_python_error(std::exception_ptr p) {
    if (!p) return;
    try {
      std::rethrow_exception(p);
    } catch (const ShapeError& e) {
      PyErr_SetString(error_class("ShapeError"), e.what());
    } catch (const DTypeError& e) {
      PyErr_SetString(error_class("DTypeError"), e.what());
    } catch (const DeviceError& e) {
      PyErr_SetString(error_class("DeviceError"), e.what());
    } catch (const IndexError& e) {
      PyErr_SetString(error_class("IndexError"), e.what());
    } catch (const ValueError& e) {
      PyErr_SetString(error_class("ValueError"), e.what());
    } catch (const NotImplementedError& e) {
      PyErr_SetString(error_class("NotImplementedError"), e.what());
    } catch (const SchemaError& e) {
      PyErr_SetString(error_class("SchemaError"), e.what());
    } catch (const PluginError& e) {
      PyErr_SetString(error_class("PluginError"), e.what());
    } catch (const ConfigError& e) {
      PyErr_SetString(error_class("ConfigError"), e.what());
    } catch (const OutOfMemoryError& e) {
      PyErr_SetString(error_class("OutOfMemoryError"), e.what());
    } catch (const Error& e) {
      PyErr_SetString(error_class("AxleError"), e.what());
    } catch (const ArgumentTypeError& e) {
      PyErr_SetString(error_class("TypeError"), e.what());
    } catch (const py::cast_error& e) {
      PyErr_SetString(error_class("TypeError"), e.what());
    }
}

void bind_errors(py::module_&) { py::register_exception_translator(&set_python_error); }

}  // namespace axle::python
