// Runtime functions: plugins, devices, explain, load_plugin, defaults, fallback stats.
#include "bindings.h"
#include "convert.h"

#include <pybind11/stl.h>

#include <map>

namespace axle::python {

void bind_runtime(py::module_& m) {
  m.def("version", &version);
  py::class_<Generator>(m, "Generator", "A seeded random-number stream (torch.Generator): (seed, offset) of Philox.")
      .def(py::init([](const py::object& device) {
             return Generator(device.is_none() ? Device("cpu") : *as_device(device));
           }),
           py::arg("device") = py::none())
      .def("manual_seed", [](Generator& g, int64_t s) -> Generator& { return g.manual_seed(static_cast<uint64_t>(s)); },
           py::arg("seed"), py::return_value_policy::reference)
      .def("seed", [](Generator& g) { return g.seed(); })
      .def("initial_seed", &Generator::initial_seed)
      .def("get_state", [](const Generator& g) { return py::make_tuple(g.initial_seed(), g.offset()); })
      .def("set_state", [](Generator& g, const py::tuple& st) {
        if (py::len(st) != 2) throw ValueError("Generator.set_state: expected (seed, offset)");
        g.manual_seed(st[0].cast<uint64_t>());
        g.set_offset(st[1].cast<uint64_t>());
      })
      .def_property_readonly("device", [](const Generator& g) { return g.device().str(); })
      .def("__repr__", [](const Generator& g) { return "<axle.Generator on " + g.device().str() + ">"; });
  m.def("default_generator", [](const std::string& d) { return default_generator(Device(d)); });
  m.def("manual_seed", [](int64_t s) {
    manual_seed(static_cast<uint64_t>(s));
    return default_generator(Device("cpu"));
  });
  m.def("plugins", [] {
    py::list out;
    for (const PluginInfo& p : plugins()) {
      py::dict d;
      d["name"] = p.name;
      d["version"] = p.version;
      d["abi"] = std::to_string(p.abi_major) + "." + std::to_string(p.abi_minor);
      d["device_types"] = p.device_types;
      d["rank"] = p.rank;
      d["path"] = p.path;
      d["status"] = plugin_status_name(p.status);
      d["reason"] = p.reason;
      out.append(d);
    }
    return out;
  }, "Every plugin found on the search path, with its status and (if rejected) the reason.");
  m.def("devices", [] {
    py::list out;
    for (const DeviceInfo& d : devices()) {
      py::dict e;
      e["type"] = d.type;
      e["count"] = d.count;
      e["provider"] = d.provider;
      e["names"] = d.names;
      e["note"] = d.note;
      out.append(e);
    }
    return out;
  }, "Device types with a runtime, their device counts and names.");
  m.def("explain", [](const std::string& op) {
    py::dict out;
    for (const ExplainRow& r : explain(op)) {
      py::list chain;
      for (const CandidateInfo& c : r.chain) {
        py::dict e;
        e["kind"] = c.kind;
        e["plugin"] = c.plugin;
        e["provenance"] = c.provenance;
        e["rank"] = c.rank;
        chain.append(e);
      }
      out[py::str(r.device_type)] = chain;
    }
    return out;
  }, py::arg("op"), "For each device type: the chain of kernels that would run for OP, first first.");
  m.def("load_plugin", [](const std::string& path) { return load_plugin(path).name; }, py::arg("path"));
  m.def("fallback_stats", [] {
    py::dict out;
    for (const FallbackCount& f : fallback_stats()) out[py::make_tuple(f.op, f.device)] = f.count;
    return out;
  }, "Host-fallback hits per (op, device type).");
  m.def("_save_safetensors", [](const std::map<std::string, Tensor>& tensors, const std::string& path,
                                const std::map<std::string, std::string>& metadata) {
    py::gil_scoped_release release;
    save_safetensors(tensors, path, metadata);
  });
  m.def("_load_safetensors", [](const std::string& path) {
    std::map<std::string, Tensor> out;
    {
      py::gil_scoped_release release;
      out = load_safetensors(path);
    }
    return out;
  });
  m.def("_save_npy", [](const Tensor& t, const std::string& path) { save_npy(t, path); });
  m.def("_load_npy", [](const std::string& path) { return load_npy(path); });
  m.def("_get_default_dtype", [] { return static_cast<int>(get_default_dtype()); });
  m.def("_set_default_dtype", [](int d) { set_default_dtype(static_cast<DType>(d)); });
  m.def("_get_default_device", [] { return get_default_device().str(); });
  m.def("_set_default_device", [](const std::string& d) { set_default_device(Device(d)); });
  m.def("_check_device", [](const std::string& d) { return Device(d).str(); });
  m.def("_promote_types", [](int a, int b) { return static_cast<int>(promote_types(static_cast<DType>(a), static_cast<DType>(b))); });
}

}  // namespace axle::python
