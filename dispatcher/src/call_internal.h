// Internal to libaxle: what the files of the call path share. call.cpp holds the
// path itself (target device, table slot, shape function, outputs, candidates);
// the steps it hands off live by concept in cross_device_copy.cpp (copy_
// between devices), host_fallback.cpp (running an op on the fallback target),
// call_out.cpp (the out= form), call_stats.cpp (fallback and decline counts)
// and plugin_filter.cpp (PluginFilterGuard).
#pragma once

#include "registry.h"

#include <axle/dispatcher.h>

#include <string>
#include <vector>

namespace axle {

// ---- call.cpp
// Runs `op` on `args` (already completed with defaults). `out`: the caller's
// out= tensors, written directly by the kernels where usable_out says so.
Stack dispatch(const OpEntry& op, Stack& args, const std::vector<Tensor>* out = nullptr);
// The NotImplementedError of a call nothing serves: `why`, and the device types
// that do have a kernel for the op.
[[noreturn]] void no_kernel(const OpEntry& op, const Device& device, const char* why);
// Whether device type `type` has a candidate of its own for `op` (a plugin or
// application kernel, a boxed fallback), not only the composite or the host
// fallback. Factory ops ask it for fill_ (ops/creation.cpp).
bool has_device_kernel(const OpEntry& op, DeviceType type);
// The copy_ operator (resolved once; inline: dispatch_impl asks on every call).
inline const OpEntry* copy_op() {
  static const OpEntry* e = Registry::get().find("copy_");
  return e;
}
// The host API's allocate_output: a data-dependent output allocated by the kernel
// (`context` is the call's KernelCallContext).
axle_status allocate_data_dependent_output(void* context, int32_t index, axle_dtype dtype, int32_t ndim,
                                           const int64_t* sizes, axle_tensor_view* out);

// copy_across_devices and host_fallback are [[gnu::cold]], the call path's rare
// exits: with the attribute dispatch_impl's common path compiles as lean as when
// they were file-local in call.cpp (without it, 12 more instructions per
// 1-element add under callgrind).

// ---- cross_device_copy.cpp
// copy_ from `src` into `dst` on another device (the dispatcher's own path for
// copy_ across devices): non_blocking copies that need no conversion may return
// before they are done; everything else is complete on return.
[[gnu::cold]] void copy_across_devices(Tensor& dst, const Tensor& src, bool non_blocking);

// ---- host_fallback.cpp
// Runs `op` on the fallback target (fallback.target, default "cpu") for a call on
// `device` that no candidate there served, and writes the results into `outputs`
// (allocating those that are not yet). Obeys the fallback policy and counts the hit.
// `declines`: the kernels that declined the call first and why ("" if none), for
// the error the `error` policy raises.
[[gnu::cold]] void host_fallback(const OpEntry& op, const Stack& args, Stack& outputs, const Device& device,
                                 const std::string& declines);

// ---- call_out.cpp
// Whether the kernels may write the caller's out= tensor `t` directly as the
// output `o` of a call on `device` with `args`.
bool usable_out(const Tensor& t, const OutputSpec& o, const Device& device, const Stack& args);

// ---- call_stats.cpp
// Counts a host-fallback hit of (op, device type). True when `warn_once` and the
// pair has not been warned about yet (the caller warns once).
bool record_host_fallback(const std::string& op, const std::string& device_type, bool warn_once);

// ---- plugin_filter.cpp
// The calling thread's innermost PluginFilterGuard, or null.
extern constinit thread_local const PluginFilterGuard* t_plugin_filter;

}  // namespace axle
