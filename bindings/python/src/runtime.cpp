// Runtime functions, one binding function per concept: generators, plugins and
// devices, files, defaults, configuration, streams, memory, trace, parity.
#include "bindings.h"
#include "convert.h"

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <axle/parity.h>
#include <axle/stream.h>
#include <axle/trace.h>

#include <map>

namespace axle::python {

namespace {

// A seed as torch takes it: any int in [-2^63, 2^64), negative ones as their
// two's complement; beyond, torch's "Overflow when unpacking long".
uint64_t seed_of(const py::int_& s) {
  const unsigned long long u = PyLong_AsUnsignedLongLong(s.ptr());
  if (!(u == static_cast<unsigned long long>(-1) && PyErr_Occurred())) return u;
  PyErr_Clear();
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(s.ptr(), &overflow);
  AXLE_CHECK(!overflow, DTypeError, "Overflow when unpacking long");
  return static_cast<uint64_t>(v);
}

// Generator and the default generators.
void bind_generators(py::module_& m) {
  py::class_<Generator>(m, "Generator", "A seeded random-number stream (torch.Generator): (seed, offset) of Philox.")
      .def(py::init([](const py::object& device) {
             return Generator(device.is_none() ? Device("cpu") : *as_device(device));
           }),
           py::arg("device") = py::none())
      .def(
          "manual_seed", [](Generator& g, const py::int_& s) -> Generator& { return g.manual_seed(seed_of(s)); },
          py::arg("seed"), py::return_value_policy::reference)
      .def("seed", [](Generator& g) { return g.seed(); })
      .def("initial_seed", &Generator::initial_seed)
      .def("get_state", [](const Generator& g) { return py::make_tuple(g.initial_seed(), g.offset()); })
      .def("set_state",
           [](Generator& g, const py::tuple& st) {
             if (py::len(st) != 2) throw ValueError("Generator.set_state: expected (seed, offset)");
             g.manual_seed(st[0].cast<uint64_t>());
             g.set_offset(st[1].cast<uint64_t>());
           })
      .def_property_readonly("device", [](const Generator& g) { return g.device().str(); })
      .def("__repr__", [](const Generator& g) { return "<axle.Generator on " + g.device().str() + ">"; });
  m.def("default_generator", [](const std::string& d) { return default_generator(Device(d)); });
  m.def("manual_seed", [](const py::int_& s) {
    manual_seed(seed_of(s));
    return default_generator(Device("cpu"));
  });
}

// Plugins, devices, explain, load_plugin, fallback stats.
void bind_plugins(py::module_& m) {
  m.def(
      "plugins",
      [] {
        py::list out;
        for (const PluginInfo& p : plugins()) {
          py::dict d;
          d["name"] = p.name;
          d["version"] = p.version;
          d["description"] = p.description;
          d["abi"] = std::to_string(p.abi_major) + "." + std::to_string(p.abi_minor);
          d["device_types"] = p.device_types;
          d["rank"] = p.rank;
          d["path"] = p.path;
          d["status"] = plugin_status_name(p.status);
          d["reason"] = p.reason;
          out.append(d);
        }
        return out;
      },
      "Every plugin found on the search path, with its status and (if rejected) the reason.");
  m.def(
      "devices",
      [] {
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
      },
      "Device types with a runtime, their device counts and names.");
  m.def(
      "explain",
      [](const std::string& op) {
        py::dict out;
        for (const ExplainRow& r : explain(op)) {
          py::list chain;
          for (const CandidateInfo& c : r.chain) {
            py::dict e;
            e["kind"] = c.kind;
            e["plugin"] = c.plugin;
            e["provenance"] = c.provenance;
            e["rank"] = c.rank;
            e["host_scalars"] = c.host_scalars;
            e["declines"] = c.declines;
            e["decline_reason"] = c.decline_reason;
            chain.append(e);
          }
          out[py::str(r.device_type)] = chain;
        }
        return out;
      },
      py::arg("op"), "For each device type: the chain of kernels that would run for OP, first first.");
  m.def(
      "load_plugin", [](const std::string& path) { return load_plugin(path).name; }, py::arg("path"));
  m.def(
      "fallback_stats",
      [] {
        py::dict out;
        for (const FallbackCount& f : fallback_stats()) out[py::make_tuple(f.op, f.device)] = f.count;
        return out;
      },
      "Host-fallback hits per (op, device type).");
}

// safetensors and .npy files.
void bind_serialization(py::module_& m) {
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
}

// The default dtype and device; dtype promotion.
void bind_defaults(py::module_& m) {
  m.def("_get_default_dtype", [] { return static_cast<int>(get_default_dtype()); });
  m.def("_set_default_dtype", [](int d) { set_default_dtype(static_cast<DType>(d)); });
  m.def("_get_default_device", [] { return get_default_device().str(); });
  m.def("_set_default_device", [](const std::string& d) { set_default_device(Device(d)); });
  m.def("_check_device", [](const std::string& d) { return Device(d).str(); });
  m.def("_promote_types",
        [](int a, int b) { return static_cast<int>(promote_types(static_cast<DType>(a), static_cast<DType>(b))); });
}

// Configuration (layers, sources, reload), matmul precision, deterministic algorithms.
void bind_config(py::module_& m) {
  m.def("_configure", [](const std::string& json_text) { configure(Config::parse(json_text, "axle.configure")); });
  m.def(
      "config_sources",
      [] {
        py::list out;
        for (const ConfigEntry& e : config_sources()) {
          py::dict d;
          d["key"] = e.key;
          d["value"] = e.value;
          d["layer"] = config_layer_name(e.layer);
          d["source"] = e.source;
          out.append(d);
        }
        return out;
      },
      "Every effective setting: key, value (JSON text), the layer it came from and its file or variable.");
  m.def("set_float32_matmul_precision", &set_float32_matmul_precision, py::arg("precision"),
        "'highest', 'high' or 'medium', as torch.set_float32_matmul_precision.");
  m.def("get_float32_matmul_precision", &get_float32_matmul_precision);
  m.def("use_deterministic_algorithms", &use_deterministic_algorithms, py::arg("mode"));
  m.def("are_deterministic_algorithms_enabled", &are_deterministic_algorithms_enabled);
}

// Streams and events (torch.cuda.Stream / Event for any device type).
void bind_streams(py::module_& m) {
  py::class_<Stream>(m, "Stream", "A device queue; ops enqueue on the current stream of their device.")
      .def(py::init([](const std::string& device) { return Stream::create(Device(device)); }), py::arg("device"))
      .def_static(
          "default", [](const std::string& device) { return Stream::default_stream(Device(device)); },
          py::arg("device"))
      .def_property_readonly("device", [](const Stream& s) { return s.device().str(); })
      .def_property_readonly("is_default", &Stream::is_default)
      .def("synchronize",
           [](const Stream& s) {
             py::gil_scoped_release release;
             s.synchronize();
           })
      .def("__eq__", [](const Stream& a, const Stream& b) { return a == b; })
      .def("__repr__", [](const Stream& s) {
        return std::string("<axle.Stream ") + (s.is_default() ? "default" : "") + " on " + s.device().str() + ">";
      });
  py::class_<Event>(m, "Event")
      .def(py::init([](const std::string& device) { return Event(Device(device)); }), py::arg("device"))
      .def("record", &Event::record, py::arg("stream"))
      .def("synchronize",
           [](const Event& e) {
             py::gil_scoped_release release;
             e.synchronize();
           })
      .def(
          "wait", [](const Event& e, const Stream& s) { e.block(s); }, py::arg("stream"),
          "Makes `stream` wait for the recorded point (torch's Event.wait).");
  m.def(
      "current_stream", [](const std::string& device) { return current_stream(Device(device)); }, py::arg("device"));
  m.def("set_stream", &set_current_stream, py::arg("stream"));
  m.def(
      "synchronize",
      [](const std::string& device) {
        py::gil_scoped_release release;
        synchronize(Device(device));
      },
      py::arg("device"), "Waits for all work on the device (every stream).");
}

// The device's caching allocator (torch.cuda.memory_stats and friends).
void bind_memory(py::module_& m) {
  m.def(
      "memory_stats",
      [](const std::string& device) {
        const AllocatorStats st = memory_stats(Device(device));
        py::dict d;
        d["allocated_bytes"] = st.allocated_bytes;
        d["reserved_bytes"] = st.reserved_bytes;
        d["peak_allocated_bytes"] = st.peak_allocated_bytes;
        d["num_allocs"] = st.num_allocs;
        d["num_frees"] = st.num_frees;
        return d;
      },
      py::arg("device") = "cpu", "The device allocator's statistics: allocated, reserved and peak bytes, call counts.");
  m.def(
      "memory_allocated", [](const std::string& device) { return memory_stats(Device(device)).allocated_bytes; },
      py::arg("device") = "cpu", "Bytes of the device's memory held by tensors now.");
  m.def(
      "max_memory_allocated",
      [](const std::string& device) { return memory_stats(Device(device)).peak_allocated_bytes; },
      py::arg("device") = "cpu", "The peak of memory_allocated.");
  m.def(
      "memory_reserved", [](const std::string& device) { return memory_stats(Device(device)).reserved_bytes; },
      py::arg("device") = "cpu", "Bytes the device's caching allocator holds (allocated plus cached).");
  m.def(
      "empty_cache", [](const std::string& device) { empty_cache(Device(device)); }, py::arg("device") = "cpu",
      "Returns the allocator's cached, unused blocks to the device.");
}

// Trace mode.
void bind_trace(py::module_& m) {
  m.def("_set_trace_enabled", &set_trace_enabled);
  m.def("trace_enabled", &trace_enabled);
  m.def("clear_trace", &clear_trace);
  m.def("_trace_event_count", [] { return trace_event_count(); });
  m.def(
      "export_chrome_trace", [](const std::string& path) { export_chrome_trace(path); }, py::arg("path"),
      "Writes the recorded events as Chrome-trace JSON (opens in Perfetto / chrome://tracing).");
  m.def(
      "trace_events",
      [] {
        auto tensors = [](const std::vector<TraceTensor>& ts) {
          py::list l;
          for (const auto& t : ts)
            l.append(py::make_tuple(t.dtype, py::tuple(py::cast(std::vector<int64_t>(t.sizes))), t.device));
          return l;
        };
        py::list out;
        for (const TraceEvent& e : trace_events()) {
          py::dict d;
          d["op"] = e.op;
          d["device"] = e.device;
          d["kind"] = e.kind;
          d["plugin"] = e.plugin;
          d["provenance"] = e.provenance;
          d["declined"] = e.declined;
          d["decline_reasons"] = e.decline_reasons;
          d["host_fallback"] = e.fell_back;
          d["inputs"] = tensors(e.inputs);
          d["outputs"] = tensors(e.outputs);
          d["depth"] = e.depth;
          d["thread"] = e.thread;
          d["start_ns"] = e.start_ns;
          d["duration_ns"] = e.duration_ns;
          d["error"] = e.error;
          d["line"] = format_trace_event(e);
          out.append(d);
        }
        return out;
      },
      "The recorded operator calls, each a dict (op, device, kind, plugin, provenance, declined, ..., line).");
}

// The parity finder: recordings and backend comparisons.
void bind_parity(py::module_& m) {
  py::class_<Recording>(m, "Recording", "Operator calls recorded by axle.record(fn): replayable on any backend.")
      .def("save", &Recording::save, py::arg("path"))
      .def_static("load", &Recording::load, py::arg("path"))
      .def("__len__", [](const Recording& r) { return r.calls.size(); })
      .def_property_readonly("ops",
                             [](const Recording& r) {
                               std::vector<std::string> ops;
                               for (const auto& c : r.calls) ops.push_back(c.op);
                               return ops;
                             })
      .def("__repr__",
           [](const Recording& r) { return "<axle.Recording of " + std::to_string(r.calls.size()) + " calls>"; });
  m.def(
      "record", [](const std::function<void()>& fn) { return record(fn); }, py::arg("fn"),
      "Runs fn() and returns the operator calls it made (host copies of inputs and outputs).");
  auto result_dict = [](const ParityResult& r, const Backend& a, const Backend& b) {
    py::dict d;
    d["ok"] = r.ok;
    d["compared"] = r.compared;
    d["skipped"] = r.skipped;
    d["index"] = r.index;
    d["op"] = r.op;
    d["output"] = r.output;
    d["max_abs"] = r.max_abs;
    d["max_rel"] = r.max_rel;
    d["ran_a"] = r.ran_a;
    d["ran_b"] = r.ran_b;
    d["detail"] = r.detail;
    d["report"] = format_parity(r, a, b);
    return d;
  };
  m.def("_parity_fn", [result_dict](const std::function<void()>& fn, const std::string& a, const std::string& b,
                                    double rtol, double atol) {
    const Backend ba = Backend::parse(a), bb = Backend::parse(b);
    return result_dict(find_parity(fn, ba, bb, ParityOptions{rtol, atol}), ba, bb);
  });
  m.def("_parity_recording",
        [result_dict](const Recording& rec, const std::string& a, const std::string& b, double rtol, double atol) {
          const Backend ba = Backend::parse(a), bb = Backend::parse(b);
          return result_dict(find_parity(rec, ba, bb, ParityOptions{rtol, atol}), ba, bb);
        });
}

}  // namespace

void bind_runtime(py::module_& m) {
  m.def("version", &version);
  bind_generators(m);
  bind_plugins(m);
  bind_serialization(m);
  bind_defaults(m);
  bind_config(m);
  bind_streams(m);
  bind_memory(m);
  bind_trace(m);
  bind_parity(m);
}

}  // namespace axle::python
