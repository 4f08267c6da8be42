// The operator registry and the publication of dispatch tables
// (see Note [Dispatch resolution] in registry.h).
#include "registry.h"
#include "observe.h"

#include <algorithm>

namespace axle {

Registry& Registry::get() {
  static Registry* r = new Registry;  // never destroyed: plugins outlive static teardown
  return *r;
}

Registry::Registry() {
  for (const OpDecl& d : builtin_op_decls()) define(d, true);
  {
    std::lock_guard lock(records_mutex_);
    publish_locked();
  }
  detail::init_trace_from_config();  // trace.enabled / AXLE_TRACE before the first call
}

size_t Registry::op_count() const {
  std::shared_lock lock(ops_mutex_);
  return ops_.size();
}

const OpEntry* Registry::find(std::string_view name) const {
  std::shared_lock lock(ops_mutex_);
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : it->second;
}

const OpEntry& Registry::define(const OpDecl& decl, bool builtin) {
  FunctionSchema schema = FunctionSchema::parse(decl.schema);
  const std::string name = schema.full_name();
  const OpEntry* defined = nullptr;
  {
    std::unique_lock lock(ops_mutex_);
    auto existing = by_name_.find(name);
    // A bare-name alias ("randint" -> randint.low) gives way to the op of that exact name.
    AXLE_CHECK(existing == by_name_.end() || existing->second->name != name, ValueError, "operator '", name,
               "' is already declared");
    OpEntry& e = ops_.emplace_back();
    e.schema = std::move(schema);
    e.decl = decl;
    e.name = name;
    e.index = ops_.size() - 1;
    e.builtin = builtin;
    // torch lets fill_ and zero_ write an expanded view, and only warns (deprecated) for masked_fill_ and index_put_.
    const bool fills = e.schema.name == "fill_" || e.schema.name == "zero_" || e.schema.name == "masked_fill_" ||
                       e.schema.name == "index_put_";
    for (size_t i = 0; i < e.schema.arguments.size(); ++i)
      if (e.schema.arguments[i].is_write && (e.schema.arguments[i].type.kind == ArgKind::Tensor ||
                                             e.schema.arguments[i].type.kind == ArgKind::TensorList)) {
        e.written.push_back(i);
        if (!fills) e.overlap_checked.push_back(i);
        const auto& alias = e.schema.arguments[i].alias;
        const bool returned = std::any_of(e.schema.returns.begin(), e.schema.returns.end(),
                                          [&](const Argument& r) { return r.alias && alias && *r.alias == *alias; });
        if (i != 0 && !returned && !e.schema.returns.empty() && e.schema.arguments[i].type.kind == ArgKind::Tensor)
          e.side_effects.push_back(i);
        else if (i != 0)
          e.writes_out_args = true;
      }
    by_name_[name] = &e;
    // An op without overload can also be found by its bare name.
    const std::string bare = (e.schema.ns == "aten" ? "" : e.schema.ns + "::") + e.schema.name;
    if (by_name_.find(bare) == by_name_.end()) by_name_[bare] = &e;
    if (decl.kernel_op) {
      auto it = by_name_.find(decl.kernel_op);
      // Only built-in declarations name a kernel_op (Library::def cannot), declared before the borrower.
      AXLE_INTERNAL_ASSERT(it != by_name_.end(), "operator '", name, "' borrows kernels of undeclared '",
                           decl.kernel_op, "'");
      e.kernel_entry = it->second;
      const Derivative& own = decl.derivative;
      if (!own.vjp && !own.none && !own.decomposes) e.derivative = &it->second->decl.derivative;
    }
    defined = &e;
  }
  if (!builtin) {
    std::lock_guard lock(records_mutex_);
    publish_locked();
  }
  return *defined;
}

void Registry::add_kernels(std::vector<KernelRecord> kernels, std::vector<KernelRecord> fallbacks) {
  std::lock_guard lock(records_mutex_);
  for (auto& k : kernels) kernels_.push_back(std::move(k));
  for (auto& f : fallbacks) fallbacks_.push_back(std::move(f));
  publish_locked();
}

void Registry::add_runtime(DeviceType type, std::unique_ptr<DeviceRuntime> rt, const std::string& plugin, int rank) {
  std::lock_guard lock(records_mutex_);
  auto& list = runtimes_[type.id()];
  list.push_back({std::move(rt), plugin, rank});
  std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.rank > b.rank; });
  publish_locked();
}

DeviceRuntime* Registry::runtime(DeviceType type, std::string* provider) const {
  std::lock_guard lock(records_mutex_);
  auto it = runtimes_.find(type.id());
  if (it == runtimes_.end() || it->second.empty()) return nullptr;
  if (provider) *provider = it->second.front().plugin;
  return it->second.front().runtime.get();
}

std::vector<DeviceType> Registry::runtime_types() const {
  std::lock_guard lock(records_mutex_);
  std::vector<DeviceType> out;
  for (const auto& [id, list] : runtimes_)
    if (!list.empty()) out.push_back(DeviceType::from_id(id));
  std::sort(out.begin(), out.end(), [](DeviceType a, DeviceType b) { return a.id() < b.id(); });
  return out;
}

std::vector<std::string> Registry::devices_with_kernel(const OpEntry& op) const {
  std::lock_guard lock(records_mutex_);
  std::vector<std::string> out;
  for (const KernelRecord& k : kernels_)
    if (k.op == op.kernel_entry->name && std::find(out.begin(), out.end(), k.device_type) == out.end())
      out.push_back(k.device_type);
  return out;
}

Slot Registry::build_slot(const OpEntry& op, DeviceType type) const {
  Slot slot;
  const std::string& type_name = type.name();
  // Appends the matching records, highest rank first, as candidates.
  auto append = [&](const std::vector<KernelRecord>& records, auto&& matches, bool boxed) {
    std::vector<const KernelRecord*> found;
    for (const KernelRecord& r : records)
      if (r.device_type == type_name && matches(r)) found.push_back(&r);
    std::stable_sort(found.begin(), found.end(), [](auto* a, auto* b) { return a->rank > b->rank; });
    for (const KernelRecord* r : found) {
      Candidate c;
      c.kind = boxed ? CandidateKind::BoxedFallback : r->app ? CandidateKind::AppKernel : CandidateKind::Kernel;
      c.fn = r->fn;
      c.user_data = r->user_data;
      c.app = r->app;
      c.plugin = r->plugin;
      c.provenance = r->provenance;
      c.rank = r->rank;
      c.flags = r->flags;
      c.declines = decline_counter(op.name, type_name, r->plugin);
      slot.chain.push_back(std::move(c));
    }
  };
  append(
      kernels_, [&](const KernelRecord& k) { return k.op == op.kernel_entry->name; }, false);
  if (op.decl.composite) {
    Candidate c;
    c.kind = CandidateKind::Composite;
    c.provenance = "composite in dispatcher (" + op.name + ")";
    slot.chain.push_back(std::move(c));
  }
  append(
      fallbacks_, [](const KernelRecord&) { return true; }, true);
  if (!type.is_host()) {
    Candidate c;
    c.kind = CandidateKind::HostFallback;
    c.provenance = "host fallback: copy to cpu, run, copy back";
    slot.chain.push_back(std::move(c));
  }
  return slot;
}

void Registry::publish_locked() {
  auto table = std::make_unique<Table>();
  uint16_t max_type = 0;
  for (const auto& k : kernels_) max_type = std::max(max_type, DeviceType(k.device_type).id());
  for (const auto& f : fallbacks_) max_type = std::max(max_type, DeviceType(f.device_type).id());
  for (const auto& [id, list] : runtimes_) max_type = std::max(max_type, id);
  std::shared_lock ops_lock(ops_mutex_);
  table->rows.resize(ops_.size());
  for (const OpEntry& op : ops_) {
    auto& row = table->rows[op.index];
    row.resize(static_cast<size_t>(max_type) + 1);
    for (uint16_t t = 0; t <= max_type; ++t) row[t] = build_slot(op, DeviceType::from_id(t));
  }
  table_.store(table.get(), std::memory_order_release);
  tables_.push_back(std::move(table));
}

}  // namespace axle
