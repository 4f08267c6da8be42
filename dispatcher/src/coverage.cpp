// The coverage matrix behind `axle ops`: for every operator and every backend
// (a loaded plugin on one device type it serves), how a call would be served,
// read off the published table's candidate chains (Note [Dispatch resolution]
// in registry.h). Nothing here names a concrete backend: the columns are
// whatever plugins are loaded.
#include "config_internal.h"
#include "registry.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace axle {

const char* coverage_name(Coverage c) {
  switch (c) {
    case Coverage::Kernel: return "kernel";
    case Coverage::Declines: return "declines";
    case Coverage::Composite: return "composite";
    case Coverage::FallsThrough: return "falls through";
    case Coverage::HostFallback: return "host fallback";
    case Coverage::Missing: return "missing";
  }
  return "?";
}

namespace {

// The cell of plugin `plugin` (of `rank`) in one slot, before probing. `host`:
// the op's slot on the host device type, where the host fallback would run it.
// `fallback_allowed`: false when the fallback policy for this op and device type is 'error'.
Coverage classify(const Slot* slot, const Slot* host, bool fallback_allowed, const std::string& plugin, int rank) {
  if (slot == nullptr || slot->chain.empty()) return Coverage::Missing;
  for (const Candidate& c : slot->chain)
    if ((c.kind == CandidateKind::Kernel || c.kind == CandidateKind::AppKernel) && c.plugin == plugin)
      return Coverage::Kernel;
  // The plugin has no kernel. The column describes what covers the op where the
  // plugin sits in the chain: kernels ranked above it would run before it anyway,
  // so a composite after them still counts as the op's cover here (the lowest
  // plugin lacking `cat` is covered by cat's composite, not by the faster plugin
  // above it). They do count when only the host fallback is left after them.
  // Boxed fallbacks are generic (offered every op, they may decline any), so
  // they count only when nothing else is left.
  bool kernel_above = false, boxed = false;
  for (const Candidate& c : slot->chain) {
    switch (c.kind) {
      case CandidateKind::Kernel:
      case CandidateKind::AppKernel:
        if (c.rank > rank) {
          kernel_above = true;
          break;
        }
        return Coverage::FallsThrough;
      case CandidateKind::Composite: return Coverage::Composite;
      case CandidateKind::BoxedFallback: boxed = true; break;
      case CandidateKind::HostFallback:
        if (kernel_above) return Coverage::FallsThrough;
        // An op nothing serves on the host raises there too.
        return fallback_allowed && host != nullptr && !host->chain.empty() ? Coverage::HostFallback : Coverage::Missing;
    }
  }
  return kernel_above || boxed ? Coverage::FallsThrough : Coverage::Missing;
}

int device_count(DeviceType type) {
  DeviceRuntime* rt = Registry::get().runtime(type);
  if (rt == nullptr) return 0;
  try {
    return rt->device_count();
  } catch (const Error&) {
    return 0;  // a runtime that cannot count its devices has none usable
  }
}

}  // namespace

CoverageMatrix coverage(const std::optional<std::vector<DeclineCount>>& declines) {
  load_all_plugins();
  CoverageMatrix m;
  m.probed = declines.has_value();

  // Columns: each loaded plugin on each device type it serves, grouped by device
  // type (in the order the types first appear), the highest rank first as in a chain.
  std::vector<std::string> type_order;
  for (const PluginInfo& p : plugins()) {
    if (p.status != PluginStatus::Loaded || p.name.empty()) continue;
    for (const std::string& type : p.device_types) {
      if (std::find(type_order.begin(), type_order.end(), type) == type_order.end()) type_order.push_back(type);
      m.backends.push_back({p.name + "/" + type, p.name, type, p.rank, device_count(DeviceType(type))});
    }
  }
  auto type_index = [&](const std::string& t) {
    return std::find(type_order.begin(), type_order.end(), t) - type_order.begin();
  };
  std::stable_sort(m.backends.begin(), m.backends.end(), [&](const CoverageBackend& a, const CoverageBackend& b) {
    return std::tuple(type_index(a.device_type), -a.rank, a.plugin) <
           std::tuple(type_index(b.device_type), -b.rank, b.plugin);
  });

  std::set<std::tuple<std::string, std::string, std::string>> declined;  // (op, device type, plugin)
  if (declines)
    for (const DeclineCount& d : *declines)
      if (d.count > 0) declined.insert({d.op, d.device, d.plugin});

  const Registry& registry = Registry::get();
  const Table& table = registry.table();
  const std::shared_ptr<const Config> config = detail::config_snapshot();
  std::vector<uint16_t> type_ids;
  for (const CoverageBackend& b : m.backends) type_ids.push_back(DeviceType(b.device_type).id());
  for (size_t i = 0; i < registry.op_count(); ++i) {
    const OpEntry& op = registry.at(i);
    CoverageRow row;
    row.op = op.name;
    for (size_t b = 0; b < m.backends.size(); ++b) {
      const CoverageBackend& backend = m.backends[b];
      const bool fallback_allowed =
          fallback_policy(*config, op, DeviceType::from_id(type_ids[b])) != FallbackPolicy::Error;
      Coverage c = classify(table.slot(op.index, type_ids[b]), table.slot(op.index, DeviceType().id()),
                            fallback_allowed, backend.plugin, backend.rank);
      // Declines are counted under the op that was called; an op served by another
      // op's kernels (kernel_entry) shares that op's counts.
      if (c == Coverage::Kernel && (declined.count({op.name, backend.device_type, backend.plugin}) ||
                                    declined.count({op.kernel_entry->name, backend.device_type, backend.plugin})))
        c = Coverage::Declines;
      row.cells.push_back(c);
    }
    m.ops.push_back(std::move(row));
  }
  return m;
}

}  // namespace axle
