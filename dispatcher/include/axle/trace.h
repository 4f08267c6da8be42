// Seeing what ran. Trace mode records every operator call: the kernel that ran
// and its provenance (plugin, source file:line), the plugins that declined
// first, whether the call went through the host fallback, the inputs' and
// outputs' dtypes and shapes, the device and the time. Turned on by
// AXLE_TRACE=1, the config key trace.enabled or set_trace_enabled(); each event
// is also logged as one line (format_trace_event) at level info, and
// AXLE_TRACE_FILE / trace.file writes the Chrome-trace JSON (Perfetto,
// chrome://tracing) when the process exits. While tracing is off a call pays
// one relaxed atomic load.
#pragma once

#include <axle/export.h>
#include <axle/tensor.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace axle {

struct TraceTensor {
  std::string dtype;  // "float32"
  IntList sizes;
  std::string device;  // "cpu:0"
};

struct TraceEvent {
  std::string op;                     // "prelu", "add.Tensor"
  std::string device;                 // where the call ran ("cpu:0")
  std::string kind;                   // "kernel", "app kernel", "composite", "boxed fallback", "host fallback", "copy"
  std::string plugin;                 // the plugin whose code ran ("" for the core)
  std::string provenance;             // the kernel's source file:line (or symbol)
  std::vector<std::string> declined;  // plugins whose kernels declined the call first
  std::vector<std::string> decline_reasons;  // their reasons, one per declined entry ("" when not given)
  bool fell_back = false;                    // ran on the host through the host fallback
  std::vector<TraceTensor> inputs;           // tensor arguments (lists flattened)
  std::vector<TraceTensor> outputs;
  int depth = 0;         // 0: called by the application; > 0: inside a composite or fallback
  uint32_t thread = 0;   // small per-process thread number
  int64_t start_ns = 0;  // since the first traced call of the process
  int64_t duration_ns = 0;
  std::string error;  // the message when the call raised
};

AXLE_API void set_trace_enabled(bool enabled);
AXLE_API bool trace_enabled();
// Events recorded so far (at most 1,000,000; later ones are counted as dropped).
AXLE_API std::vector<TraceEvent> trace_events();
AXLE_API uint64_t trace_dropped();
AXLE_API size_t trace_event_count();  // trace_events().size() without copying them
AXLE_API void clear_trace();
// One line: "prelu on cpu:0 ran kernel of plugin 'cpu' (plugins/cpu/nn.cpp:187) in 3.1 us:
// float32[1, 3, 8, 8], float32[3] -> float32[1, 3, 8, 8]".
AXLE_API std::string format_trace_event(const TraceEvent& e);
// {"traceEvents": [...]}: complete ("X") events, one per call, nested per thread.
AXLE_API std::string chrome_trace_json(const std::vector<TraceEvent>& events);
// Writes chrome_trace_json(trace_events()) to `path`. Throws Error if it cannot.
AXLE_API void export_chrome_trace(const std::string& path);

// Tracing on while it lives (the previous state restored after).
class AXLE_API TraceScope {
 public:
  TraceScope();
  ~TraceScope();
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;

 private:
  bool previous_;
};

// What ran one operator call the application made (not the calls inside a
// composite or fallback), as trace mode sees it but without tracing.
struct CallOutcome {
  std::string op;                            // "add.Tensor"
  std::string kind;                          // as TraceEvent::kind; "" when the call raised
  std::string plugin;                        // the plugin whose code ran ("" for the core or when it raised)
  std::vector<std::string> declined;         // plugins whose kernels declined the call first
  std::vector<std::string> decline_reasons;  // their reasons, one per declined entry ("" when not given)
  bool raised = false;                       // the call raised (a kernel's error or the core's)
};

// Collects the outcomes of the calling thread's top-level operator calls while
// it lives (the conformance kit counts with it how many cases the plugin
// under test served and declined). Scopes nest: an outer one (or a parity
// recording) still sees every call. While any exists, calls on every thread
// take the observed path (one more branch and a CallInfo per call).
class AXLE_API CallOutcomeScope {
 public:
  CallOutcomeScope();
  ~CallOutcomeScope();
  CallOutcomeScope(const CallOutcomeScope&) = delete;
  CallOutcomeScope& operator=(const CallOutcomeScope&) = delete;
  // The outcomes since the scope began or the last take(), oldest first; clears them.
  std::vector<CallOutcome> take();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace axle
