// axle._C: the extension module. The Python package `axle` builds its public API
// on these pieces (see bindings/python/axle/__init__.py).
#include "bindings.h"

PYBIND11_MODULE(_C, m) {
  m.doc() = "axle's C++ core: tensors, the dispatcher and the operators declared in it";
  axle::python::bind_errors(m);
  axle::python::bind_tensor(m);
  axle::python::bind_ops(m);
  axle::python::bind_runtime(m);
  axle::python::bind_samples(m);
}
