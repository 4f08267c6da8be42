// Plugin loading: a library opened, its register step run and its kernels and
// device runtimes committed; PluginManager's public functions (plugin_loader.h
// says where discovery and validation live).
//
// Note [Plugin discovery]
// Search order: the embedding application's paths (axle::configure), then
// AXLE_PLUGIN_PATH, then the config file's plugin_paths, then the default
// folder <libdir>/axle/plugins found relative to libaxle itself; in a build tree
// an axle-uninstalled.json next to libaxle names the build's plugin folders
// instead. Never the current directory. Environment variables are ignored in
// secure-execution processes (detail::secure_getenv_str).
// A folder that others may write to (its group, anyone, another user owning
// it, a world-writable non-sticky folder above it, or a symlink into such a
// place) is skipped, and such a library or manifest rejected, unless
// allow_world_writable_plugin_paths is set (plugin_discovery.cpp).
// In each folder (non-recursive, sorted), every `X.so` is a plugin candidate. If
// `X.json` (a manifest written by axle-plugin-manifest at build time) sits next
// to it, the plugin's identity (name, version, ABI, device types, rank) is known
// without running its code, and the library is loaded lazily: only when one of
// its device types is first used. A `.so` without a manifest is loaded at
// discovery to ask its descriptor, unless the configuration filters plugins by
// name (backends.allow / deny, plugins.X.enabled): then it is disabled unloaded,
// since no filter can be applied to it without running its code. Configuration
// filters apply before anything is loaded. A manifest's name is a claim: it
// never pushes out another plugin; of several claims of one name, the first
// whose library confirms it (load) takes it, and the other claimants are then
// rejected unloaded. Loading uses RTLD_NOW | RTLD_LOCAL (plus RTLD_NODELETE:
// plugins are never unloaded). Every rejection (not ELF, missing entry, ABI
// mismatch, unresolved symbol, register step failing, a kernel for an op
// without a shape function, duplicate name, manifest that disagrees with the
// library) is recorded with its reason, logged, and listed by `axle info`; it
// never stops the other plugins from loading.
#include "plugin_loader.h"

#include <axle/logging.h>

#include <dlfcn.h>

#include <algorithm>

namespace axle {

namespace fs = std::filesystem;

const char* plugin_status_name(PluginStatus s) {
  switch (s) {
    case PluginStatus::Loaded: return "loaded";
    case PluginStatus::Available: return "available, not loaded";
    case PluginStatus::Rejected: return "rejected";
    case PluginStatus::Disabled: return "disabled";
  }
  return "?";
}

namespace {

// What a plugin's register step hands back, committed only if it succeeds.
struct RegistrationContext : ErrorSink {
  std::string plugin;
  int rank = 0;
  std::vector<std::string> device_types;
  std::vector<KernelRecord> kernels, fallbacks;
  std::vector<const axle_device_interface*> runtimes;

  bool serves(const char* type) const {
    return type && std::find(device_types.begin(), device_types.end(), type) != device_types.end();
  }
  axle_status reject(const std::string& why) {
    message = why;
    return AXLE_ERROR_INVALID_ARGUMENT;
  }
};

axle_status reg_device_type(void* context, const axle_device_interface* iface) {
  auto* ctx = static_cast<RegistrationContext*>(context);
  if (!iface || iface->struct_size < AXLE_DEVICE_INTERFACE_SIZE_V1_0)
    return ctx->reject(detail::concat("register_device_type: struct_size ", iface ? iface->struct_size : 0,
                                      " is smaller than ABI 1.0's ", AXLE_DEVICE_INTERFACE_SIZE_V1_0));
  if (!ctx->serves(iface->type_name))
    return ctx->reject(detail::concat("register_device_type: device type '", iface->type_name ? iface->type_name : "",
                                      "' is not listed in the plugin's descriptor"));
  const void* fns[] = {reinterpret_cast<const void*>(iface->device_count),
                       reinterpret_cast<const void*>(iface->get_properties),
                       reinterpret_cast<const void*>(iface->allocate),
                       reinterpret_cast<const void*>(iface->deallocate),
                       reinterpret_cast<const void*>(iface->copy),
                       reinterpret_cast<const void*>(iface->synchronize),
                       reinterpret_cast<const void*>(iface->stream_create),
                       reinterpret_cast<const void*>(iface->stream_destroy),
                       reinterpret_cast<const void*>(iface->stream_synchronize),
                       reinterpret_cast<const void*>(iface->event_create),
                       reinterpret_cast<const void*>(iface->event_destroy),
                       reinterpret_cast<const void*>(iface->event_record),
                       reinterpret_cast<const void*>(iface->event_synchronize),
                       reinterpret_cast<const void*>(iface->stream_wait_event),
                       reinterpret_cast<const void*>(iface->allocator_stats),
                       reinterpret_cast<const void*>(iface->empty_cache)};
  for (const void* f : fns)
    if (!f)
      return ctx->reject(detail::concat("register_device_type('", iface->type_name, "'): a required function is NULL"));
  ctx->runtimes.push_back(iface);
  return AXLE_OK;
}

axle_status add_kernel(RegistrationContext* ctx, const char* op, const char* device_type, axle_kernel_fn fn,
                       void* user_data, const char* provenance, uint32_t flags) {
  if (!op || !fn) return ctx->reject("register_kernel: op name and function must not be NULL");
  if (!ctx->serves(device_type))
    return ctx->reject(detail::concat("register_kernel('", op, "'): device type '", device_type ? device_type : "",
                                      "' is not listed in the plugin's descriptor"));
  const OpEntry* e = Registry::get().find(op);
  if (!e) return ctx->reject(detail::concat("register_kernel: unknown operator '", op, "'"));
  // The call path sizes a kernel's outputs with the op's shape function; an op
  // without one (composite-only, as `sum` over every dim) would fail every
  // call on the device type once a kernel sat in front of its composite.
  if (!e->decl.shape)
    return ctx->reject(detail::concat("register_kernel('", op, "'): operator '", e->name,
                                      "' has no shape function (it is composite-only) and cannot take plugin kernels; "
                                      "register kernels for the operators it is built from"));
  if (flags & ~uint32_t{AXLE_KERNEL_HOST_SCALARS})
    return ctx->reject(detail::concat("register_kernel_entry('", op, "'): unknown flags 0x", std::hex, flags));
  ctx->kernels.push_back(
      {e->name, device_type, fn, user_data, nullptr, ctx->plugin, ctx->rank, provenance ? provenance : "", flags});
  return AXLE_OK;
}

axle_status reg_kernel(void* context, const char* op, const char* device_type, axle_kernel_fn fn, void* user_data,
                       const char* provenance) {
  return add_kernel(static_cast<RegistrationContext*>(context), op, device_type, fn, user_data, provenance, 0);
}

// ABI 1.4: named fields and flags.
axle_status reg_kernel_entry(void* context, const axle_kernel_entry* k) {
  auto* ctx = static_cast<RegistrationContext*>(context);
  if (!k || k->struct_size < sizeof(axle_kernel_entry))
    return ctx->reject(detail::concat("register_kernel_entry: struct_size ", k ? k->struct_size : 0,
                                      " is smaller than ABI 1.4's ", sizeof(axle_kernel_entry)));
  return add_kernel(ctx, k->op_name, k->device_type, k->fn, k->user_data, k->provenance, k->flags);
}

axle_status reg_fallback(void* context, const char* device_type, axle_kernel_fn fn, void* user_data,
                         const char* provenance) {
  auto* ctx = static_cast<RegistrationContext*>(context);
  if (!fn || !ctx->serves(device_type))
    return ctx->reject(detail::concat("register_fallback: bad function or device type '",
                                      device_type ? device_type : "", "' not listed in the descriptor"));
  ctx->fallbacks.push_back(
      {"", device_type, fn, user_data, nullptr, ctx->plugin, ctx->rank, provenance ? provenance : "", 0});
  return AXLE_OK;
}

}  // namespace

void PluginManager::Impl::load(PluginRecord& r) {
  if (r.info.status == PluginStatus::Loaded || r.info.status == PluginStatus::Rejected ||
      r.info.status == PluginStatus::Disabled)
    return;
  // A claim of a name that a loaded plugin holds is not loaded at all.
  if (const PluginRecord* other = find_named(r.info.name, &r);
      r.info.has_manifest && other && other->info.status == PluginStatus::Loaded) {
    reject(r, detail::concat("duplicate plugin name '", r.info.name, "': already provided by ", other->info.path));
    return;
  }
  const auto mode = boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local |
                    static_cast<boost::dll::load_mode::type>(RTLD_NODELETE);
  try {
    r.library.load(fs::path(r.info.path), mode);
  } catch (const std::exception& e) {
    reject(r, detail::concat("cannot load library: ", e.what()));
    return;
  }
  if (!r.library.has(AXLE_PLUGIN_ENTRY_SYMBOL)) {
    reject(r, "not an axle plugin: no exported symbol " AXLE_PLUGIN_ENTRY_SYMBOL);
    return;
  }
  const axle_plugin_descriptor* d = nullptr;
  try {
    d = r.library.get<const axle_plugin_descriptor*()>(AXLE_PLUGIN_ENTRY_SYMBOL)();
  } catch (const std::exception& e) {
    reject(r, detail::concat("descriptor query threw: ", e.what()));
    return;
  }
  if (!validate_descriptor(r, d)) return;
  register_plugin(r, d);
}

void PluginManager::Impl::register_plugin(PluginRecord& r, const axle_plugin_descriptor* d) {
  RegistrationContext ctx;
  ctx.plugin = r.info.name;
  ctx.rank = r.info.rank;
  ctx.device_types = r.info.device_types;
  axle_registrar registrar{};
  registrar.struct_size = sizeof registrar;
  registrar.context = &ctx;
  registrar.host = host_api();
  registrar.register_device_type = &reg_device_type;
  registrar.register_kernel = &reg_kernel;
  registrar.register_fallback = &reg_fallback;
  registrar.register_kernel_entry = &reg_kernel_entry;
  axle_status status = AXLE_ERROR_INTERNAL;
  try {
    status = d->register_plugin(&registrar);
  } catch (...) {
    ctx.message = "register step threw a C++ exception across the C ABI";
  }
  if (status != AXLE_OK) {
    reject(r, detail::concat("register step failed with status ", status,
                             ctx.message.empty() ? std::string() : ": " + ctx.message));
    return;
  }
  for (const axle_device_interface* iface : ctx.runtimes) {
    try {
      Registry::get().add_runtime(DeviceType(iface->type_name), make_plugin_runtime(*iface, r.info.name), r.info.name,
                                  r.info.rank);
    } catch (const Error& e) {
      reject(r, detail::concat("device type '", iface->type_name, "' failed to initialize: ", e.what()));
      return;
    }
  }
  Registry::get().add_kernels(std::move(ctx.kernels), std::move(ctx.fallbacks));
  r.info.status = PluginStatus::Loaded;
  // Its name is confirmed now: other claims of it are refused, never loaded.
  for (auto& other : records)
    if (other.get() != &r && other->info.name == r.info.name && other->info.status == PluginStatus::Available)
      reject(*other, detail::concat("duplicate plugin name '", r.info.name, "': already provided by ", r.info.path));
  if (d->struct_size > offsetof(axle_plugin_descriptor, description) && d->description)  // ABI 1.4
    r.info.description = std::string(d->description).substr(0, 256);
  AXLE_LOG(LogLevel::Info, "loaded plugin '", r.info.name, "' ", r.info.version, " (rank ", r.info.rank, ") from ",
           r.info.path);
}

PluginManager& PluginManager::get() {
  static PluginManager* m = new PluginManager;
  return *m;
}

PluginManager::PluginManager() : impl_(new Impl) {}

namespace {
// The core asks the dispatcher for device runtimes; installed when libaxle loads
// so that even a first call into the core (make_empty) finds the plugins.
const bool g_resolver_installed = [] {
  detail::set_runtime_resolver([](DeviceType t) -> DeviceRuntime* {
    PluginManager::get().ensure_device_type(t);
    return Registry::get().runtime(t);
  });
  return true;
}();
}  // namespace

void PluginManager::ensure_device_type(DeviceType type) {
  std::lock_guard lock(impl_->mutex);
  impl_->discover();
  const std::string& name = type.name();
  for (auto& r : impl_->records)
    if (r->info.status == PluginStatus::Available &&
        std::find(r->info.device_types.begin(), r->info.device_types.end(), name) != r->info.device_types.end())
      impl_->load(*r);
  if (type.id() < ready_.size()) ready_[type.id()].store(true, std::memory_order_release);
}

PluginInfo PluginManager::load_file(const std::string& path) {
  std::lock_guard lock(impl_->mutex);
  impl_->discover();
  std::error_code ec;
  const fs::path abs = fs::absolute(path, ec);
  AXLE_CHECK(!ec && fs::is_regular_file(abs, ec), PluginError, "load_plugin: no such file '", path, "'");
  PluginRecord* r = impl_->add_candidate(abs);
  impl_->load(*r);
  AXLE_CHECK(r->info.status == PluginStatus::Loaded, PluginError, "plugin ", r->info.path, " ",
             plugin_status_name(r->info.status), ": ", r->info.reason);
  return r->info;
}

void PluginManager::load_all() {
  std::lock_guard lock(impl_->mutex);
  impl_->discover();
  for (auto& r : impl_->records) impl_->load(*r);
}

std::vector<PluginInfo> PluginManager::infos() const {
  std::lock_guard lock(impl_->mutex);
  impl_->discover();
  std::vector<PluginInfo> out;
  for (const auto& r : impl_->records) out.push_back(r->info);
  return out;
}

std::vector<std::string> PluginManager::search_path() const {
  std::lock_guard lock(impl_->mutex);
  impl_->discover();
  return impl_->search_path;
}

std::vector<std::string> PluginManager::known_device_types() const {
  std::lock_guard lock(impl_->mutex);
  impl_->discover();
  std::vector<std::string> out;
  for (const auto& r : impl_->records)
    if (r->info.status == PluginStatus::Loaded || r->info.status == PluginStatus::Available)
      for (const auto& t : r->info.device_types)
        if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
  return out;
}

}  // namespace axle
