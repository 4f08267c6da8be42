// The parity finder (axle/parity.h): record the application's operator calls,
// replay each on two backends, compare.
#include <axle/compare.h>
#include <axle/dispatcher.h>
#include <axle/generator.h>
#include <axle/ops.h>
#include <axle/parity.h>
#include <axle/serialization.h>

#include "json_limits.h"
#include "observe.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace axle {
namespace {

using detail::CallInfo;
using nlohmann::json;

std::string describe_ran(const CallInfo& info) {
  std::string s = info.kind;
  if (!info.plugin.empty()) s += " of plugin '" + info.plugin + "'";
  if (!info.provenance.empty()) s += " (" + info.provenance + ")";
  if (!info.declined.empty()) {
    s += "; declined by";
    for (const auto& p : info.declined) s += " '" + p + "'";
  }
  return s;
}

// A host copy that owns its memory (an in-place op must not change it later).
Tensor snapshot(const Tensor& t) {
  if (!t.defined()) return t;
  Tensor c = t.to(Device("cpu"), false, true);
  c.unsafe_impl().wrapped_number = t.unsafe_impl().wrapped_number;
  return c;
}

Generator copy_generator(const Generator& g, const Device& device) {
  Generator c(device);
  Generator src = g;
  c.manual_seed(src.initial_seed());
  c.set_offset(src.offset());
  return c;
}

// The device a call without tensor arguments would use: its device= argument, else the default.
Device call_device(const OpEntry& op, const Stack& args) {
  for (const Value& v : args)
    if (v.is_tensor() && v.tensor().defined()) return v.tensor().device();
  const int d = op.schema.find_argument("device");
  if (d >= 0 && static_cast<size_t>(d) < args.size() && !args[d].is_none()) return args[d].device();
  return get_default_device();
}

Value snapshot_value(const Value& v) {
  if (v.is_tensor()) return snapshot(v.tensor());
  if (v.tag() == Value::Tag::TensorList) {
    std::vector<Tensor> out;
    for (const Tensor& t : v.tensors()) out.push_back(snapshot(t));
    return out;
  }
  if (v.tag() == Value::Tag::Generator) return copy_generator(v.generator(), v.generator().device());
  return v;
}

struct Recorder final : detail::RecorderHook {
  Recording recording;
  RecordedCall pending;
  bool has_pending = false;

  void before(const OpEntry& op, const Stack& args) override {
    pending = RecordedCall{op.name, {}, {}, {}};
    for (const Value& v : args) pending.args.push_back(snapshot_value(v));
    // A random op drawing from the default generator gets that generator's
    // current state as an explicit one, so that both replays draw the same numbers.
    const int g = op.schema.find_argument("generator");
    if (g >= 0 && static_cast<size_t>(g) < pending.args.size() && pending.args[g].is_none()) {
      const Device d = call_device(op, args);
      pending.args[g] = copy_generator(default_generator(d), d);
    }
    has_pending = true;
  }
  void after(const OpEntry& op, const Stack& outputs, const CallInfo& info) override {
    if (!has_pending || pending.op != op.name) return;
    for (const Value& v : outputs) pending.outputs.push_back(snapshot_value(v));
    pending.ran = describe_ran(info);
    recording.calls.push_back(std::move(pending));
    has_pending = false;
  }
};

// Observes the calls of one replay: what ran the top-level call.
struct ReplayWatcher final : detail::RecorderHook {
  CallInfo info;
  void before(const OpEntry&, const Stack&) override {}
  void after(const OpEntry&, const Stack&, const CallInfo& i) override { info = i; }
};

// Hooks run with the thread's recorder unset, so their own calls are not recorded.
struct HookSwap {
  detail::RecorderHook* previous;
  explicit HookSwap(detail::RecorderHook* next) : previous(detail::thread_recorder()) {
    detail::set_thread_recorder(next);
  }
  ~HookSwap() { detail::set_thread_recorder(previous); }
};

// ---------------------------------------------------------------- replay
Value to_backend(const Value& v, const Device& device) {
  if (v.is_tensor()) {
    if (!v.tensor().defined()) return v;
    Tensor t = v.tensor().to(device, false, true);
    t.unsafe_impl().wrapped_number = v.tensor().unsafe_impl().wrapped_number;
    return t;
  }
  if (v.tag() == Value::Tag::TensorList) {
    std::vector<Tensor> out;
    for (const Tensor& t : v.tensors()) out.push_back(t.defined() ? t.to(device, false, true) : t);
    return out;
  }
  if (v.tag() == Value::Tag::Device) return device;
  if (v.tag() == Value::Tag::Generator) return copy_generator(v.generator(), device);
  return v;
}

// DEVICE@PLUGIN: the plugins serving the device type ranked above PLUGIN are
// kept out, so its kernels come first and lower-ranked plugins serve what it
// lacks or declines. Throws ValueError when PLUGIN does not serve the type.
std::vector<std::string> ranked_above(const Backend& backend, const Device& device) {
  load_all_plugins();
  const std::string type(device.type().name());
  auto serves = [&](const PluginInfo& p) {
    return p.status == PluginStatus::Loaded &&
           std::find(p.device_types.begin(), p.device_types.end(), type) != p.device_types.end();
  };
  const std::vector<PluginInfo> all = plugins();
  auto it = std::find_if(all.begin(), all.end(), [&](const PluginInfo& p) { return p.name == backend.plugin; });
  AXLE_CHECK(it != all.end() && serves(*it), ValueError, "backend '", backend.str(), "': no loaded plugin '",
             backend.plugin, "' serves device type '", type, "'");
  std::vector<std::string> above;
  for (const PluginInfo& p : all)
    if (serves(p) && p.name != backend.plugin && p.rank > it->rank) above.push_back(p.name);
  return above;
}

struct Replay {
  Stack outputs;
  std::string ran;
  std::string error;
};

// `excluded`: ranked_above(backend) for DEVICE@PLUGIN, computed once per finder run.
Replay replay(const RecordedCall& call, const Backend& backend,
              const std::optional<std::vector<std::string>>& excluded) {
  const Device device(backend.device);
  Stack args;
  for (const Value& v : call.args) args.push_back(to_backend(v, device));
  std::unique_ptr<PluginFilterGuard> filter;
  if (excluded) filter = std::make_unique<PluginFilterGuard>(PluginFilterGuard::Mode::Exclude, *excluded);
  Replay r;
  ReplayWatcher watcher;
  try {
    HookSwap swap(&watcher);
    r.outputs = call_op(find_op(call.op), std::move(args));
  } catch (const std::exception& e) {
    r.error = e.what();
  }
  r.ran = describe_ran(watcher.info);
  return r;
}

struct Difference {
  bool differs = false;
  double max_abs = 0, max_rel = 0;
  std::string detail;
};

Difference compare(const Value& va, const Value& vb, const ParityOptions& o) {
  Difference d;
  if (va.is_tensor() != vb.is_tensor()) {
    d.differs = true;
    d.detail = "one output is a tensor, the other is not";
    return d;
  }
  if (!va.is_tensor()) {
    d.differs = va.repr() != vb.repr();
    if (d.differs) d.detail = "values " + va.repr() + " and " + vb.repr();
    return d;
  }
  const Tensor& a = va.tensor();
  const Tensor& b = vb.tensor();
  if (!a.defined() || !b.defined()) {
    d.differs = a.defined() != b.defined();
    if (d.differs) d.detail = "one output is undefined";
    return d;
  }
  if (a.sizes() != b.sizes() || a.dtype() != b.dtype()) {
    d.differs = true;
    d.detail = detail::concat("shapes/dtypes differ: ", dtype_name(a.dtype()), shape_string(a.sizes()), " vs ",
                              dtype_name(b.dtype()), shape_string(b.sizes()));
    return d;
  }
  // Integer and bool outputs must match exactly; NaN matches NaN.
  const bool exact = !is_floating_point(a.dtype());
  const Comparison c = axle::compare(a, b, Tolerance{.rtol = exact ? 0 : o.rtol, .atol = exact ? 0 : o.atol});
  d.max_abs = c.max_abs;
  d.max_rel = c.max_rel;
  d.differs = !c.matches();
  if (d.differs) d.detail = c.describe();
  return d;
}

// ---------------------------------------------------------------- file format
json encode(const Value& v, const std::string& name, std::map<std::string, Tensor>& tensors) {
  switch (v.tag()) {
    case Value::Tag::None: return nullptr;
    case Value::Tag::Tensor:
      if (!v.tensor().defined()) return nullptr;
      tensors[name] = v.tensor();
      return {{"tensor", name}, {"wrapped", v.tensor().unsafe_impl().wrapped_number}};
    case Value::Tag::TensorList: {
      json names = json::array();
      for (size_t k = 0; k < v.tensors().size(); ++k) {
        if (!v.tensors()[k].defined()) {
          names.push_back(nullptr);
          continue;
        }
        tensors[name + "." + std::to_string(k)] = v.tensors()[k];
        names.push_back(name + "." + std::to_string(k));
      }
      return {{"tensors", names}};
    }
    case Value::Tag::Int: return {{"int", v.to_int()}};
    case Value::Tag::Double: {
      const double x = v.to_double();
      if (std::isfinite(x)) return {{"double", x}};
      return {{"double", std::isnan(x) ? "nan" : x > 0 ? "inf" : "-inf"}};
    }
    case Value::Tag::Bool: return {{"bool", v.to_bool()}};
    case Value::Tag::IntList: return {{"ints", std::vector<int64_t>(v.int_list())}};
    case Value::Tag::String: return {{"str", v.str()}};
    case Value::Tag::DType: return {{"dtype", std::string(dtype_name(v.dtype()))}};
    case Value::Tag::Device: return {{"device", v.device().str()}};
    case Value::Tag::Generator: {
      Generator g = v.generator();
      return {{"generator", {{"device", g.device().str()}, {"seed", g.initial_seed()}, {"offset", g.offset()}}}};
    }
  }
  return nullptr;
}

[[noreturn]] void bad_file(const std::string& path, const std::string& what) {
  throw ValueError("recording '" + path + "': " + what);
}

Tensor named(const std::map<std::string, Tensor>& tensors, const json& name, const std::string& path) {
  if (!name.is_string()) bad_file(path, "a tensor reference is not a string");
  auto it = tensors.find(name.get<std::string>());
  if (it == tensors.end())
    bad_file(path, "names tensor '" + detail::excerpt(name.get<std::string>()) + "', which the file lacks");
  return it->second;
}

Value decode(const json& j, const std::map<std::string, Tensor>& tensors, const std::string& path) {
  if (j.is_null()) return Value();
  if (!j.is_object() || j.size() < 1) bad_file(path, "a value is not an object: " + detail::json_excerpt(j));
  if (j.contains("tensor")) {
    Tensor t = named(tensors, j["tensor"], path);
    t.unsafe_impl().wrapped_number = j.value("wrapped", false);
    return t;
  }
  if (j.contains("tensors")) {
    if (!j["tensors"].is_array()) bad_file(path, "'tensors' is not an array");
    std::vector<Tensor> out;
    for (const json& n : j["tensors"]) out.push_back(n.is_null() ? Tensor() : named(tensors, n, path));
    return out;
  }
  try {
    if (j.contains("int")) return Value(j["int"].get<int64_t>());
    if (j.contains("double")) {
      const json& x = j["double"];
      if (x.is_string()) {
        const std::string s = x.get<std::string>();
        if (s == "nan") return Value(std::nan(""));
        if (s == "inf" || s == "-inf") return Value(s == "inf" ? HUGE_VAL : -HUGE_VAL);
        bad_file(path, "bad double '" + detail::excerpt(s) + "'");
      }
      return Value(x.get<double>());
    }
    if (j.contains("bool")) return Value(j["bool"].get<bool>());
    if (j.contains("ints")) return Value(IntList(j["ints"].get<std::vector<int64_t>>()));
    if (j.contains("str")) return Value(j["str"].get<std::string>());
    if (j.contains("dtype")) return Value(dtype_from_name(j["dtype"].get<std::string>()));
    if (j.contains("device")) return Value(Device(j["device"].get<std::string>()));
    if (j.contains("generator")) {
      const json& g = j["generator"];
      Generator gen{Device(g.at("device").get<std::string>())};
      gen.manual_seed(g.at("seed").get<uint64_t>());
      gen.set_offset(g.at("offset").get<uint64_t>());
      return gen;
    }
  } catch (const json::exception& e) {
    bad_file(path, std::string("malformed value ") + detail::json_excerpt(j) + ": " + e.what());
  }
  bad_file(path, "unknown value " + detail::json_excerpt(j));
}

constexpr const char* kMetadataKey = "axle.recording";

}  // namespace

// ---------------------------------------------------------------- Recording
void Recording::save(const std::string& path) const {
  std::map<std::string, Tensor> tensors;
  json list = json::array();
  for (size_t i = 0; i < calls.size(); ++i) {
    const RecordedCall& c = calls[i];
    json args = json::array(), outs = json::array();
    for (size_t k = 0; k < c.args.size(); ++k)
      args.push_back(encode(c.args[k], "c" + std::to_string(i) + ".a" + std::to_string(k), tensors));
    for (size_t k = 0; k < c.outputs.size(); ++k)
      outs.push_back(encode(c.outputs[k], "c" + std::to_string(i) + ".o" + std::to_string(k), tensors));
    list.push_back({{"op", c.op}, {"args", args}, {"outputs", outs}, {"ran", c.ran}});
  }
  save_safetensors(tensors, path, {{kMetadataKey, list.dump()}, {"format", "axle recording 1"}});
}

Recording Recording::load(const std::string& path) {
  std::map<std::string, std::string> metadata;
  const auto tensors = load_safetensors(path, &metadata);
  auto it = metadata.find(kMetadataKey);
  if (it == metadata.end()) bad_file(path, std::string("not an axle recording (no '") + kMetadataKey + "' metadata)");
  if (detail::json_depth(it->second) > detail::kMaxJsonDepth)
    bad_file(path, detail::concat("malformed call list: nested deeper than ", detail::kMaxJsonDepth, " levels"));
  json list;
  try {
    list = json::parse(it->second);
  } catch (const json::exception& e) {
    bad_file(path, std::string("malformed call list: ") + e.what());
  }
  if (!list.is_array()) bad_file(path, "the call list is not an array");
  Recording r;
  for (const json& c : list) {
    if (!c.is_object() || !c.contains("op") || !c["op"].is_string() || !c.contains("args") || !c["args"].is_array() ||
        !c.contains("outputs") || !c["outputs"].is_array())
      bad_file(path, "a call lacks op/args/outputs: " + detail::json_excerpt(c, 200));
    RecordedCall call;
    call.op = c["op"].get<std::string>();
    find_op(call.op);  // an unknown operator is a NotImplementedError naming it
    for (const json& a : c["args"]) call.args.push_back(decode(a, tensors, path));
    for (const json& o : c["outputs"]) call.outputs.push_back(decode(o, tensors, path));
    if (c.contains("ran") && c["ran"].is_string()) call.ran = c["ran"].get<std::string>();
    r.calls.push_back(std::move(call));
  }
  return r;
}

struct RecordScope::Impl {
  Recorder recorder;
  detail::RecorderHook* previous = nullptr;
};

RecordScope::RecordScope() : impl_(new Impl) {
  impl_->previous = detail::thread_recorder();
  detail::set_thread_recorder(&impl_->recorder);
}
RecordScope::~RecordScope() {
  detail::set_thread_recorder(impl_->previous);
  delete impl_;
}
Recording RecordScope::take() { return impl_->recorder.recording; }

Recording record(const std::function<void()>& fn) {
  RecordScope scope;
  fn();
  return scope.take();
}

// ---------------------------------------------------------------- Backend
Backend Backend::parse(std::string_view text) {
  Backend b;
  const size_t at = text.find('@');
  b.device = std::string(text.substr(0, at));
  if (at != std::string_view::npos) b.plugin = std::string(text.substr(at + 1));
  AXLE_CHECK(!b.device.empty() && (at == std::string_view::npos || !b.plugin.empty()), ValueError, "backend '", text,
             "': expected DEVICE or DEVICE@PLUGIN (e.g. cpu@reference)");
  b.device = Device(b.device).str();  // validates the device text
  return b;
}
std::string Backend::str() const { return plugin.empty() ? device : device + "@" + plugin; }

// ---------------------------------------------------------------- finder
ParityResult find_parity(const Recording& recording, const Backend& a, const Backend& b, const ParityOptions& o) {
  ParityResult r;
  // A bad @PLUGIN is an error even for an empty recording.
  auto exclusions = [](const Backend& x) -> std::optional<std::vector<std::string>> {
    if (x.plugin.empty()) return std::nullopt;
    return ranked_above(x, Device(x.device));
  };
  const auto excluded_a = exclusions(a), excluded_b = exclusions(b);
  for (size_t i = 0; i < recording.calls.size(); ++i) {
    const RecordedCall& call = recording.calls[i];
    const Replay ra = replay(call, a, excluded_a);
    const Replay rb = replay(call, b, excluded_b);
    auto report = [&](size_t output, const Difference& d) {
      r.ok = false;
      r.index = i;
      r.op = call.op;
      r.output = output;
      r.max_abs = d.max_abs;
      r.max_rel = d.max_rel;
      r.ran_a = ra.ran;
      r.ran_b = rb.ran;
      r.detail = d.detail;
    };
    if (!ra.error.empty() || !rb.error.empty()) {
      if (!ra.error.empty() && !rb.error.empty()) {  // both refuse the call: nothing to compare
        r.skipped.push_back(detail::concat("#", i, " ", call.op, ": raised on both backends: ", ra.error));
        continue;
      }
      Difference d;
      d.differs = true;
      d.detail = !ra.error.empty() ? "raised on " + a.str() + " only: " + ra.error
                                   : "raised on " + b.str() + " only: " + rb.error;
      report(0, d);
      return r;
    }
    ++r.compared;
    if (ra.outputs.size() != rb.outputs.size()) {
      Difference d;
      d.detail = detail::concat(ra.outputs.size(), " outputs vs ", rb.outputs.size());
      report(0, d);
      return r;
    }
    for (size_t k = 0; k < ra.outputs.size(); ++k) {
      const Difference d = compare(ra.outputs[k], rb.outputs[k], o);
      if (d.differs) {
        report(k, d);
        return r;
      }
    }
  }
  return r;
}

ParityResult find_parity(const std::function<void()>& fn, const Backend& a, const Backend& b, const ParityOptions& o) {
  return find_parity(record(fn), a, b, o);
}

std::string format_parity(const ParityResult& r, const Backend& a, const Backend& b) {
  std::string s;
  if (r.ok) {
    s = detail::concat("parity: ", r.compared, " calls agree between ", a.str(), " and ", b.str(), "\n");
  } else {
    char err[96];
    std::snprintf(err, sizeof err, "max abs error %.3g, max rel error %.3g", r.max_abs, r.max_rel);
    s = detail::concat("parity: first difference at call #", r.index, " ", r.op, " (output ", r.output, "): ", r.detail,
                       "; ", err, "\n  on ", a.str(), ": ", r.ran_a, "\n  on ", b.str(), ": ", r.ran_b, "\n");
  }
  for (const auto& k : r.skipped) s += "  skipped " + k + "\n";
  return s;
}

}  // namespace axle
