// The host fallback: an op no candidate on its device serves runs on the
// fallback target (fallback.target, default "cpu") with its inputs copied there
// and its outputs copied back, as the fallback policy (fallback_policy) allows.
#include "call_internal.h"
#include "config_internal.h"
#include "registry.h"

#include <axle/logging.h>

#include <algorithm>

namespace axle {

namespace {

Value to_device(const Value& v, const Device& target) {
  if (v.is_tensor() && v.tensor().defined()) return v.tensor().to(target);
  if (v.tag() == Value::Tag::TensorList) {
    std::vector<Tensor> out;
    for (const Tensor& t : v.tensors()) out.push_back(t.defined() ? t.to(target) : Tensor());
    return out;
  }
  return v;
}

}  // namespace

void host_fallback(const OpEntry& op, const Stack& args, Stack& outputs, const Device& device,
                   const std::string& declines) {
  const std::shared_ptr<const Config> snapshot = detail::config_snapshot();
  const Config& cfg = *snapshot;
  const FallbackPolicy policy = fallback_policy(cfg, op, device.type());
  if (policy == FallbackPolicy::Error)
    no_kernel(op, device,
              detail::concat(
                  declines.empty() ? "has no kernel" : "has only kernels that declined this call (" + declines + ")",
                  " and the fallback policy for it on '", device.type().name(), "' is 'error'")
                  .c_str());
  const Device target = Device(cfg.fallback_target.value_or("cpu")).resolved();
  AXLE_CHECK(target.type() != device.type(), ConfigError, "fallback.target '", target,
             "' is the device type the call failed on (", device, ") for operator '", op.name, "'");
  // A target that could only fall back again lacks the op too: missing, before any copy.
  PluginManager& pm = PluginManager::get();
  if (!pm.is_device_type_ready(target.type())) pm.ensure_device_type(target.type());
  const Slot* there = Registry::get().table().slot(op.index, target.type().id());
  if (!there || std::all_of(there->chain.begin(), there->chain.end(),
                            [](const Candidate& c) { return c.kind == CandidateKind::HostFallback; }))
    no_kernel(op, target, "has no kernel (not even on the fallback target)");
  if (record_host_fallback(op.name, device.type().name(), policy == FallbackPolicy::WarnOnce))
    AXLE_LOG(LogLevel::Warn, "operator '", op.name, "' has no kernel for device '", device.type().name(),
             "' that serves this call (none registered, or each declined): running it on ", target,
             " (inputs copied there, outputs copied back). Warned once per op.");
  Stack host_args;
  host_args.reserve(args.size());
  for (const Value& v : args) host_args.push_back(to_device(v, target));
  const int d = op.schema.find_argument("device");
  if (d >= 0 && !host_args[d].is_none()) host_args[d] = target;
  Stack host_out = dispatch(op, host_args);
  for (size_t i = 0; i < outputs.size() && i < host_out.size(); ++i) {
    const Tensor& result = host_out[i].tensor();
    if (outputs[i].is_tensor() && outputs[i].tensor().defined())
      outputs[i].tensor().copy_(result);
    else  // a data-dependent output the kernel left unallocated (output_mask) stays undefined
      outputs[i] = result.defined() ? result.to(device) : Tensor();
  }
}

// fallback.ops (by the op's full name or its base name) over fallback.devices
// over fallback.policy.
FallbackPolicy fallback_policy(const Config& cfg, const OpEntry& op, DeviceType type) {
  for (const std::string& name : {op.name, op.schema.name}) {
    auto o = cfg.fallback_by_op.find(name);
    if (o != cfg.fallback_by_op.end()) return o->second;
  }
  auto it = cfg.fallback_by_device.find(type.name());
  if (it != cfg.fallback_by_device.end()) return it->second;
  return cfg.fallback_policy.value_or(FallbackPolicy::WarnOnce);
}

}  // namespace axle
