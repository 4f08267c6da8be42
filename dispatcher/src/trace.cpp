// Trace mode: every operator call recorded with what ran it (see axle/trace.h).
#include <axle/config.h>
#include <axle/logging.h>
#include <axle/trace.h>

#include "config_internal.h"
#include "observe.h"

#include <nlohmann/json.hpp>

#include <unistd.h>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace axle {
namespace detail {

std::atomic<int> g_observers{0};

namespace {

std::atomic<bool> g_trace_on{false};
// AXLE_TRACE=1 / trace.enabled: each event is logged whatever the log level.
std::atomic<bool> g_trace_lines{false};
constexpr size_t kMaxEvents = 1000000;

struct TraceStore {
  std::mutex mutex;
  std::vector<TraceEvent> events;
  uint64_t dropped = 0;
  std::chrono::steady_clock::time_point epoch = std::chrono::steady_clock::now();
  std::string exit_file;  // trace.file: written at exit
};
TraceStore& store() {
  static auto* s = new TraceStore;  // never destroyed: calls may run during static teardown
  return *s;
}

std::atomic<uint32_t> g_next_thread{0};
uint32_t thread_number() {
  thread_local const uint32_t n = g_next_thread.fetch_add(1);
  return n;
}

thread_local int t_depth = 0;
thread_local RecorderHook* t_recorder = nullptr;

void add_tensor(std::vector<TraceTensor>& out, const Tensor& t) {
  if (!t.defined()) return;
  out.push_back({std::string(dtype_name(t.dtype())), t.sizes(), t.device().str()});
}
std::vector<TraceTensor> tensors_of(const Stack& s) {
  std::vector<TraceTensor> out;
  for (const Value& v : s) {
    if (v.is_tensor())
      add_tensor(out, v.tensor());
    else if (v.tag() == Value::Tag::TensorList)
      for (const Tensor& t : v.tensors()) add_tensor(out, t);
  }
  return out;
}

void push_event(TraceEvent&& e) {
  if (g_trace_lines.load(std::memory_order_relaxed) || log_enabled(LogLevel::Info))
    log_message(LogLevel::Info, "trace: " + format_trace_event(e));
  TraceStore& s = store();
  std::lock_guard lock(s.mutex);
  if (s.events.size() >= kMaxEvents) {
    if (s.dropped++ == 0) AXLE_LOG(LogLevel::Warn, "trace: more than ", kMaxEvents, " events; later ones dropped");
    return;
  }
  s.events.push_back(std::move(e));
}

void write_exit_file() {
  TraceStore& s = store();
  std::string path;
  {
    std::lock_guard lock(s.mutex);
    path = s.exit_file;
  }
  if (path.empty()) return;
  try {
    export_chrome_trace(path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "axle: trace.file: %s\n", e.what());
  }
}

}  // namespace

RecorderHook* thread_recorder() { return t_recorder; }
void set_thread_recorder(RecorderHook* r) {
  if (r && !t_recorder) g_observers.fetch_add(1);
  if (!r && t_recorder) g_observers.fetch_sub(1);
  t_recorder = r;
}

// trace.enabled / trace.file: read at start and again after every configuration
// change (axle::configure, reload_config). A change of trace.enabled turns
// tracing on or off (set_trace_enabled and TraceScope keep working in between);
// a trace.file turns it on and is written at exit.
void apply_trace_config() {
  static std::mutex mutex;
  static std::optional<bool> applied_enabled;
  static std::string applied_file;
  try {
    const Config cfg = effective_config();
    std::lock_guard guard(mutex);
    const std::string file = cfg.trace_file.value_or("");
    if (!file.empty() && file != applied_file) {
      static std::once_flag at_exit;
      std::call_once(at_exit, [] { std::atexit(&write_exit_file); });
      {
        std::lock_guard lock(store().mutex);
        store().exit_file = file;
      }
      set_trace_enabled(true);
    }
    applied_file = file;
    if (cfg.trace_enabled != applied_enabled) {
      applied_enabled = cfg.trace_enabled;
      g_trace_lines.store(cfg.trace_enabled.value_or(false));
      if (cfg.trace_enabled) set_trace_enabled(*cfg.trace_enabled || !file.empty());
    }
  } catch (const std::exception& e) {
    AXLE_LOG(LogLevel::Warn, "trace settings ignored: ", e.what());
  }
}

void init_trace_from_config() {
  add_config_listener(&apply_trace_config);
  apply_trace_config();
}

Stack observe_call(const OpEntry& op, Stack& args, const std::vector<Tensor>* out, DispatchFn impl) {
  const bool tracing = g_trace_on.load(std::memory_order_relaxed);
  RecorderHook* recorder = t_depth == 0 ? t_recorder : nullptr;
  // The hooks copy tensors (operator calls themselves): neither recorded nor
  // traced as calls of the application (they run one level down).
  struct Hook {
    RecorderHook* r;
    explicit Hook(RecorderHook* h) : r(h) {
      t_recorder = nullptr;
      ++t_depth;
    }
    ~Hook() {
      --t_depth;
      t_recorder = r;
    }
  };
  if (recorder) {
    Hook h(recorder);
    recorder->before(op, args);
  }
  TraceEvent e;
  std::chrono::steady_clock::time_point t0;
  if (tracing) {
    e.op = op.name;
    e.inputs = tensors_of(args);
    e.depth = t_depth;
    e.thread = thread_number();
    t0 = std::chrono::steady_clock::now();
  }
  CallInfo info;
  // One event per call, raised or not.
  auto finish = [&](const Stack* result, const char* error) {
    const auto t1 = std::chrono::steady_clock::now();
    e.start_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t0 - store().epoch).count();
    e.duration_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count();
    if (result) e.outputs = tensors_of(*result);
    e.device = !e.outputs.empty() ? e.outputs.front().device : !e.inputs.empty() ? e.inputs.front().device : "";
    e.kind = info.kind;
    e.plugin = info.plugin;
    e.provenance = info.provenance;
    e.declined = info.declined;
    e.decline_reasons = info.decline_reasons;
    e.fell_back = info.fell_back;
    if (error) e.error = error;
    push_event(std::move(e));
  };
  ++t_depth;
  Stack result;
  try {
    result = impl(op, args, out, &info);
  } catch (const std::exception& ex) {
    --t_depth;
    if (tracing) finish(nullptr, ex.what());
    if (recorder) {
      Hook h(recorder);
      recorder->raised(op, info);
    }
    throw;
  }
  --t_depth;
  if (tracing) finish(&result, nullptr);
  if (recorder) {
    Hook h(recorder);
    recorder->after(op, result, info);
  }
  return result;
}

}  // namespace detail

// CallOutcomeScope: a recorder that keeps what ran each top-level call and
// passes every hook on to the recorder it replaced.
struct CallOutcomeScope::Impl final : detail::RecorderHook {
  detail::RecorderHook* previous = nullptr;
  std::vector<CallOutcome> outcomes;
  void before(const OpEntry& op, const Stack& args) override {
    if (previous) previous->before(op, args);
  }
  void after(const OpEntry& op, const Stack& outputs, const detail::CallInfo& info) override {
    outcomes.push_back({op.name, info.kind, info.plugin, info.declined, info.decline_reasons, false});
    if (previous) previous->after(op, outputs, info);
  }
  void raised(const OpEntry& op, const detail::CallInfo& info) override {
    outcomes.push_back({op.name, "", "", info.declined, info.decline_reasons, true});
    if (previous) previous->raised(op, info);
  }
};

CallOutcomeScope::CallOutcomeScope() : impl_(std::make_unique<Impl>()) {
  impl_->previous = detail::thread_recorder();
  detail::set_thread_recorder(impl_.get());
}
CallOutcomeScope::~CallOutcomeScope() { detail::set_thread_recorder(impl_->previous); }
std::vector<CallOutcome> CallOutcomeScope::take() { return std::exchange(impl_->outcomes, {}); }

void set_trace_enabled(bool enabled) {
  const bool was = detail::g_trace_on.exchange(enabled);
  if (enabled && !was) detail::g_observers.fetch_add(1);
  if (!enabled && was) detail::g_observers.fetch_sub(1);
}
bool trace_enabled() { return detail::g_trace_on.load(); }

std::vector<TraceEvent> trace_events() {
  auto& s = detail::store();
  std::lock_guard lock(s.mutex);
  return s.events;
}
size_t trace_event_count() {
  auto& s = detail::store();
  std::lock_guard lock(s.mutex);
  return s.events.size();
}
uint64_t trace_dropped() {
  auto& s = detail::store();
  std::lock_guard lock(s.mutex);
  return s.dropped;
}
void clear_trace() {
  auto& s = detail::store();
  std::lock_guard lock(s.mutex);
  s.events.clear();
  s.dropped = 0;
}

namespace {
std::string tensor_text(const TraceTensor& t) { return t.dtype + shape_string(t.sizes); }
std::string tensors_text(const std::vector<TraceTensor>& ts) {
  std::string s;
  for (const auto& t : ts) s += (s.empty() ? "" : ", ") + tensor_text(t);
  return s.empty() ? "()" : s;
}
}  // namespace

std::string format_trace_event(const TraceEvent& e) {
  std::string by = e.kind;
  if (!e.plugin.empty()) by += " of plugin '" + e.plugin + "'";
  if (!e.provenance.empty()) by += " (" + e.provenance + ")";
  char time[32];
  const double ns = static_cast<double>(e.duration_ns);
  if (ns < 1e6)
    std::snprintf(time, sizeof time, "%.1f us", ns / 1e3);
  else
    std::snprintf(time, sizeof time, "%.1f ms", ns / 1e6);
  std::string line = std::string(static_cast<size_t>(e.depth) * 2, ' ') + e.op + " on " +
                     (e.device.empty() ? "?" : e.device) + " ran " + by + " in " + time + ": " +
                     tensors_text(e.inputs) + " -> " + tensors_text(e.outputs);
  if (!e.declined.empty()) {
    line += "; declined by";
    for (size_t i = 0; i < e.declined.size(); ++i) {
      line += " '" + e.declined[i] + "'";
      if (i < e.decline_reasons.size() && !e.decline_reasons[i].empty()) line += " (" + e.decline_reasons[i] + ")";
    }
  }
  if (e.fell_back) line += "; host fallback";
  if (!e.error.empty()) line += "; raised: " + e.error;
  return line;
}

std::string chrome_trace_json(const std::vector<TraceEvent>& events) {
  using nlohmann::json;
  json list = json::array();
  const int pid = static_cast<int>(getpid());
  auto tensors = [](const std::vector<TraceTensor>& ts) {
    json a = json::array();
    for (const auto& t : ts)
      a.push_back({{"dtype", t.dtype}, {"sizes", std::vector<int64_t>(t.sizes)}, {"device", t.device}});
    return a;
  };
  for (const auto& e : events) {
    json args = {{"device", e.device},
                 {"kind", e.kind},
                 {"plugin", e.plugin},
                 {"provenance", e.provenance},
                 {"declined", e.declined},
                 {"decline_reasons", e.decline_reasons},
                 {"host_fallback", e.fell_back},
                 {"inputs", tensors(e.inputs)},
                 {"outputs", tensors(e.outputs)},
                 {"depth", e.depth}};
    if (!e.error.empty()) args["error"] = e.error;
    list.push_back({{"name", e.op},
                    {"cat", e.kind},
                    {"ph", "X"},
                    {"ts", static_cast<double>(e.start_ns) / 1e3},
                    {"dur", static_cast<double>(e.duration_ns) / 1e3},
                    {"pid", pid},
                    {"tid", e.thread},
                    {"args", args}});
  }
  return json{{"traceEvents", list}, {"displayTimeUnit", "ns"}, {"otherData", {{"producer", "axle"}}}}.dump();
}

void export_chrome_trace(const std::string& path) {
  const std::string text = chrome_trace_json(trace_events());
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  AXLE_CHECK(f.good(), Error, "export_chrome_trace: cannot open '", path, "' for writing");
  f << text;
  AXLE_CHECK(f.good(), Error, "export_chrome_trace: writing '", path, "' failed");
}

TraceScope::TraceScope() : previous_(trace_enabled()) { set_trace_enabled(true); }
TraceScope::~TraceScope() { set_trace_enabled(previous_); }

}  // namespace axle
