// The conformance samples for Python: the differential suite against PyTorch
// (tests/python/test_torch_samples.py) runs every op's generator cases through
// the Python API. Samples come from libaxle-conformance, the same generators
// `axle check` and the C++ conformance engine use.
#include "bindings.h"
#include "convert.h"

#include <axle/conformance.h>

namespace axle::python {

void bind_samples(py::module_& m) {
  m.def("_sample_ops", [] {
    // (op, [dtype indices], tolerance scale, whether values are compared)
    py::list out;
    for (const conformance::OpSamples& s : conformance::all_samples()) {
      py::list dtypes;
      for (DType d : s.dtypes.empty() ? conformance::kEveryDType : s.dtypes) dtypes.append(static_cast<int>(d));
      out.append(py::make_tuple(s.op, dtypes, s.rtol_scale, s.values));
    }
    return out;
  });
  m.def("_sample_inputs", [](const std::string& op, int dtype, const std::string& device, uint64_t seed) {
    // Per sample: ([(arg name, kwarg_only, value)], note, expected error class, rtol, atol).
    const conformance::OpSamples* spec = conformance::find_samples(op);
    if (!spec) throw ValueError("no samples for operator '" + op + "'");
    const FunctionSchema& schema = find_op(op).schema();
    conformance::SampleContext ctx{Device(device), static_cast<DType>(dtype), seed};
    py::list out;
    for (const conformance::Sample& s : spec->samples(ctx)) {
      py::list args;
      for (size_t i = 0; i < s.args.size() && i < schema.arguments.size(); ++i)
        args.append(py::make_tuple(schema.arguments[i].name, schema.arguments[i].kwarg_only, from_value(s.args[i])));
      out.append(py::make_tuple(args, s.note, s.error, s.rtol, s.atol));
    }
    return out;
  });
}

}  // namespace axle::python
