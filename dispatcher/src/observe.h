// Internal: the hook through which trace mode (trace.cpp) and the parity
// recorder (parity.cpp) see operator calls. dispatch() calls observe_call only
// while g_observers > 0; everything else takes the direct path.
#pragma once

#include "registry.h"

#include <atomic>
#include <string>
#include <vector>

namespace axle::detail {

// Filled by the dispatch step: what ran the call.
struct CallInfo {
  std::string kind = "kernel";  // "kernel", "app kernel", "composite", "boxed fallback", "host fallback", "copy"
  std::string plugin;
  std::string provenance;
  std::vector<std::string> declined;
  std::vector<std::string> decline_reasons;  // one per declined entry ("" when not given)
  bool fell_back = false;
};

using DispatchFn = Stack (*)(const OpEntry& op, Stack& args, const std::vector<Tensor>* out, CallInfo* info);

// Tracing on (1) plus active parity recorders, plus 1 once the autograd hook
// is active (autograd_hook.h).
extern std::atomic<int> g_observers;

Stack observe_call(const OpEntry& op, Stack& args, const std::vector<Tensor>* out, DispatchFn impl);

// parity.cpp (and CallOutcomeScope, trace.cpp): the calling thread's recorder sees each top-level call (depth 0)
// before (arguments) and after (outputs and what ran).
struct RecorderHook {
  virtual ~RecorderHook() = default;
  virtual void before(const OpEntry& op, const Stack& args) = 0;
  virtual void after(const OpEntry& op, const Stack& outputs, const CallInfo& info) = 0;
  // The call raised: `info` holds what was known then (the plugins that declined).
  virtual void raised(const OpEntry& /*op*/, const CallInfo& /*info*/) {}
};
RecorderHook* thread_recorder();
void set_thread_recorder(RecorderHook* r);

// Reads trace.enabled / trace.file once (the registry calls it at start).
void init_trace_from_config();

}  // namespace axle::detail
