// What `axle info` and `axle explain` show: plugins, devices, search path, and
// for an op the computed candidate chain per device type with provenance.
#include "registry.h"

namespace axle {

std::vector<std::string> plugin_search_path() { return PluginManager::get().search_path(); }
std::vector<PluginInfo> plugins() { return PluginManager::get().infos(); }
PluginInfo load_plugin(const std::string& path) { return PluginManager::get().load_file(path); }
void load_all_plugins() { PluginManager::get().load_all(); }

std::vector<DeviceInfo> devices(bool load_all) {
  if (load_all) load_all_plugins();
  std::vector<DeviceInfo> out;
  for (DeviceType t : Registry::get().runtime_types()) {
    DeviceInfo info;
    info.type = t.name();
    DeviceRuntime* rt = Registry::get().runtime(t, &info.provider);
    try {
      info.count = rt->device_count();
      for (int i = 0; i < info.count; ++i) info.names.push_back(rt->properties(i).name);
      if (info.count == 0) {
        const std::string reason = rt->unavailable_reason();
        info.note = "the plugin reports zero devices" + (reason.empty() ? std::string() : ": " + reason);
      }
    } catch (const Error& e) {
      info.note = e.what();
    }
    out.push_back(std::move(info));
  }
  return out;
}

std::vector<std::string> op_names() {
  const Registry& r = Registry::get();
  std::vector<std::string> out;
  for (size_t i = 0; i < r.op_count(); ++i) out.push_back(r.at(i).name);
  return out;
}

namespace {
const char* kind_name(CandidateKind k) {
  switch (k) {
    case CandidateKind::Kernel: return "kernel";
    case CandidateKind::AppKernel: return "application kernel";
    case CandidateKind::Composite: return "composite";
    case CandidateKind::BoxedFallback: return "boxed fallback";
    case CandidateKind::HostFallback: return "host fallback";
  }
  AXLE_INTERNAL_ASSERT(false, "candidate kind ", static_cast<int>(k), " has no name");
}
}  // namespace

std::vector<ExplainRow> explain(std::string_view name) {
  const OpEntry* op = Registry::get().find(name);
  AXLE_CHECK(op != nullptr, NotImplementedError, "unknown operator '", name, "'");
  load_all_plugins();
  std::vector<std::string> types = PluginManager::get().known_device_types();
  for (DeviceType t : Registry::get().runtime_types())
    if (std::find(types.begin(), types.end(), t.name()) == types.end()) types.push_back(t.name());
  std::vector<ExplainRow> rows;
  const Table& table = Registry::get().table();
  for (const std::string& type : types) {
    ExplainRow row;
    row.device_type = type;
    const Slot* slot = table.slot(op->index, DeviceType(type).id());
    if (slot)
      for (const Candidate& c : slot->chain) {
        CandidateInfo info;
        info.kind = kind_name(c.kind);
        info.plugin = c.plugin;
        info.provenance = c.provenance;
        info.rank = c.rank;
        info.host_scalars = (c.flags & AXLE_KERNEL_HOST_SCALARS) != 0;
        if (c.declines) {
          info.declines = c.declines->count.load(std::memory_order_relaxed);
          std::lock_guard lock(c.declines->mutex);
          info.decline_reason = c.declines->last_reason;
        }
        row.chain.push_back(std::move(info));
      }
    if (row.chain.empty()) row.note = "no kernel: calling it raises NotImplementedError";
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace axle
