// Plugin discovery and loading.
//
// Note [Plugin discovery]
// Search order: the embedding application's paths (axle::configure), then
// AXLE_PLUGIN_PATH, then the config file's plugin_paths, then the default
// folder <libdir>/axle/plugins found relative to libaxle itself; in a build tree
// an axle-uninstalled.json next to libaxle names the build's plugin folders
// instead. Never the current directory. Environment variables are ignored in
// secure-execution processes (detail::secure_getenv_str).
// In each folder (non-recursive, sorted), every `X.so` is a plugin candidate. If
// `X.json` (a manifest written by axle-plugin-manifest at build time) sits next
// to it, the plugin's identity (name, version, ABI, device types, rank) is known
// without running its code, and the library is loaded lazily: only when one of
// its device types is first used. A `.so` without a manifest is loaded at
// discovery to ask its descriptor. Loading uses RTLD_NOW | RTLD_LOCAL (plus
// RTLD_NODELETE: plugins are never unloaded). Every rejection (not ELF, missing
// entry, ABI mismatch, unresolved symbol, register step failing, duplicate name,
// manifest that disagrees with the library) is recorded with its reason, logged,
// and listed by `axle info`; it never stops the other plugins from loading.
#include "config_internal.h"
#include "registry.h"

#include <axle/config.h>
#include <axle/logging.h>

#include <vector>  // before boost/dll (header bug in 1.74)
#include <fnmatch.h>
#include <boost/dll/shared_library.hpp>
#include <dlfcn.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace axle {

std::string abi_incompatibility(int plugin_major, int plugin_minor, int core_major, int core_minor) {
  if (plugin_major != core_major)
    return detail::concat("plugin ABI ", plugin_major, ".", plugin_minor, " does not match the core's major ",
                          core_major, " (core ABI ", core_major, ".", core_minor, ")");
  if (plugin_minor > core_minor)
    return detail::concat("plugin ABI ", plugin_major, ".", plugin_minor, " is newer than the core's ", core_major,
                          ".", core_minor, "; upgrade axle");
  return {};  // same major, older or equal minor: fields are append-only
}


namespace fs = std::filesystem;
using nlohmann::json;

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

struct PluginRecord {
  PluginInfo info;
  std::string manifest_path;
  boost::dll::shared_library library;
};

struct Manifest {
  std::string name, version, library;
  int abi_major = 0, abi_minor = 0, rank = 0;
  std::vector<std::string> device_types;
};

Manifest read_manifest(const fs::path& path) {
  std::ifstream in(path);
  AXLE_CHECK(in.good(), PluginError, "cannot read manifest ", path.string());
  std::stringstream ss;
  ss << in.rdbuf();
  json j;
  try {
    j = json::parse(ss.str());
  } catch (const json::exception& e) {
    throw PluginError(detail::concat("malformed manifest ", path.string(), ": ", e.what()));
  }
  try {
    AXLE_CHECK(j.is_object() && j.value("axle_plugin_manifest", 0) == 1, PluginError, "manifest ", path.string(),
               " lacks \"axle_plugin_manifest\": 1");
    Manifest m;
    m.name = j.at("name").get<std::string>();
    m.version = j.at("version").get<std::string>();
    m.abi_major = j.at("abi_major").get<int>();
    m.abi_minor = j.at("abi_minor").get<int>();
    m.device_types = j.at("device_types").get<std::vector<std::string>>();
    m.rank = j.at("rank").get<int>();
    m.library = j.at("library").get<std::string>();
    return m;
  } catch (const json::exception& e) {
    throw PluginError(detail::concat("invalid manifest ", path.string(), ": ", e.what()));
  }
}

bool valid_plugin_name(std::string_view n) {
  if (n.empty() || n.size() > 64) return false;
  return std::all_of(n.begin(), n.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

std::string libaxle_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&plugin_status_name), &info) == 0 || !info.dli_fname) return {};
  std::error_code ec;
  fs::path p = fs::canonical(info.dli_fname, ec);
  return ec ? std::string() : p.parent_path().string();
}

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
  const void* fns[] = {reinterpret_cast<const void*>(iface->device_count), reinterpret_cast<const void*>(iface->get_properties),
                       reinterpret_cast<const void*>(iface->allocate),     reinterpret_cast<const void*>(iface->deallocate),
                       reinterpret_cast<const void*>(iface->copy),         reinterpret_cast<const void*>(iface->synchronize),
                       reinterpret_cast<const void*>(iface->stream_create), reinterpret_cast<const void*>(iface->stream_destroy),
                       reinterpret_cast<const void*>(iface->stream_synchronize), reinterpret_cast<const void*>(iface->event_create),
                       reinterpret_cast<const void*>(iface->event_destroy), reinterpret_cast<const void*>(iface->event_record),
                       reinterpret_cast<const void*>(iface->event_synchronize), reinterpret_cast<const void*>(iface->stream_wait_event),
                       reinterpret_cast<const void*>(iface->allocator_stats), reinterpret_cast<const void*>(iface->empty_cache)};
  for (const void* f : fns)
    if (!f) return ctx->reject(detail::concat("register_device_type('", iface->type_name, "'): a required function is NULL"));
  ctx->runtimes.push_back(iface);
  return AXLE_OK;
}

axle_status reg_kernel(void* context, const char* op, const char* device_type, axle_kernel_fn fn, void* user_data,
                       const char* provenance) {
  auto* ctx = static_cast<RegistrationContext*>(context);
  if (!op || !fn) return ctx->reject("register_kernel: op name and function must not be NULL");
  if (!ctx->serves(device_type))
    return ctx->reject(detail::concat("register_kernel('", op, "'): device type '", device_type ? device_type : "",
                                      "' is not listed in the plugin's descriptor"));
  const OpEntry* e = Registry::get().find(op);
  if (!e) return ctx->reject(detail::concat("register_kernel: unknown operator '", op, "'"));
  ctx->kernels.push_back({e->name, device_type, fn, user_data, nullptr, ctx->plugin, ctx->rank,
                          provenance ? provenance : ""});
  return AXLE_OK;
}

axle_status reg_fallback(void* context, const char* device_type, axle_kernel_fn fn, void* user_data,
                         const char* provenance) {
  auto* ctx = static_cast<RegistrationContext*>(context);
  if (!fn || !ctx->serves(device_type))
    return ctx->reject(detail::concat("register_fallback: bad function or device type '", device_type ? device_type : "",
                                      "' not listed in the descriptor"));
  ctx->fallbacks.push_back({"", device_type, fn, user_data, nullptr, ctx->plugin, ctx->rank, provenance ? provenance : ""});
  return AXLE_OK;
}

}  // namespace

struct PluginManager::Impl {
  std::recursive_mutex mutex;
  bool discovered = false;
  std::vector<std::string> search_path;
  std::vector<std::unique_ptr<PluginRecord>> records;

  void reject(PluginRecord& r, const std::string& why) {
    r.info.status = PluginStatus::Rejected;
    r.info.reason = why;
    AXLE_LOG(LogLevel::Warn, "plugin ", r.info.path, " rejected: ", why);
  }

  const PluginRecord* find_named(const std::string& name, const PluginRecord* except) const {
    for (const auto& r : records)
      if (r.get() != except && r->info.name == name &&
          (r->info.status == PluginStatus::Loaded || r->info.status == PluginStatus::Available))
        return r.get();
    return nullptr;
  }

  void compute_search_path() {
    search_path.clear();
    auto add = [&](const std::optional<std::vector<std::string>>& paths) {
      if (paths)
        for (const auto& p : *paths) search_path.push_back(p);
    };
    add(config_layer(ConfigLayer::Application).plugin_paths);
    add(config_layer(ConfigLayer::Environment).plugin_paths);
    add(config_layer(ConfigLayer::File).plugin_paths);
    const std::string dir = libaxle_dir();
    if (dir.empty()) return;
    const fs::path uninstalled = fs::path(dir) / "axle-uninstalled.json";
    if (fs::exists(uninstalled)) {
      std::ifstream in(uninstalled);
      try {
        const json doc = json::parse(in);
        for (const auto& p : doc.at("plugin_paths")) search_path.push_back(p.get<std::string>());
      } catch (const json::exception& e) {
        AXLE_LOG(LogLevel::Error, "ignoring malformed ", uninstalled.string(), ": ", e.what());
      }
    } else {
      search_path.push_back((fs::path(dir) / "axle" / "plugins").string());
    }
  }

  // Whether `p` exists and anyone may write to it.
  static bool world_writable(const fs::path& p) {
    std::error_code ec;
    const fs::file_status st = fs::status(p, ec);
    return !ec && st.type() != fs::file_type::not_found &&
           (st.permissions() & fs::perms::others_write) != fs::perms::none;
  }
  static bool allow_world_writable() {
    return detail::config_snapshot()->allow_world_writable_plugin_paths.value_or(false);
  }

  void discover() {
    if (discovered) return;
    discovered = true;
    compute_search_path();
    for (const std::string& dir : search_path) {
      std::error_code ec;
      if (!fs::is_directory(dir, ec)) {
        AXLE_LOG(LogLevel::Debug, "plugin folder ", dir, " does not exist");
        continue;
      }
      // Anyone could drop a library into a world-writable folder, and it would
      // run inside every axle process: refused unless the config allows it.
      if (world_writable(dir) && !allow_world_writable()) {
        AXLE_LOG(LogLevel::Warn, "plugin folder ", dir,
                 " is world-writable: its plugins are not loaded (set allow_world_writable_plugin_paths to "
                 "true in the configuration to allow it)");
        continue;
      }
      std::vector<fs::path> files;
      for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.path().extension() == ".so") files.push_back(entry.path());
      std::sort(files.begin(), files.end());
      for (const fs::path& f : files) add_candidate(fs::absolute(f));
    }
  }

  PluginRecord* add_candidate(const fs::path& path) {
    for (auto& r : records)
      if (r->info.path == path.string()) return r.get();
    auto rec = std::make_unique<PluginRecord>();
    PluginRecord& r = *rec;
    records.push_back(std::move(rec));
    r.info.path = path.string();
    fs::path manifest = path;
    manifest.replace_extension(".json");
    // A world-writable library or manifest in a safe folder can be replaced by
    // anyone just the same: refused on the same terms as a world-writable folder.
    for (const fs::path& f : {path, manifest})
      if (world_writable(f) && !allow_world_writable()) {
        reject(r, f.string() + " is world-writable (set allow_world_writable_plugin_paths to true in the "
                               "configuration to allow it)");
        return &r;
      }
    if (fs::exists(manifest)) {
      r.manifest_path = manifest.string();
      r.info.has_manifest = true;
      try {
        const Manifest m = read_manifest(manifest);
        AXLE_CHECK(m.library == path.filename().string(), PluginError, "manifest ", manifest.string(),
                   " describes library '", m.library, "', not '", path.filename().string(), "'");
        r.info.name = m.name;
        r.info.version = m.version;
        r.info.abi_major = m.abi_major;
        r.info.abi_minor = m.abi_minor;
        r.info.device_types = m.device_types;
        r.info.rank = m.rank;
        r.info.status = PluginStatus::Available;
      } catch (const Error& e) {
        reject(r, e.what());
        return &r;
      }
      if (!check_identity(r)) return &r;
      AXLE_LOG(LogLevel::Debug, "plugin '", r.info.name, "' available from manifest ", manifest.string());
      return &r;
    }
    load(r);  // bare .so: load it to learn who it is
    return &r;
  }

  // backends.allow / backends.deny: shell globs on plugin names. Why the plugin
  // is kept out, or "".
  static std::string backend_filter_reason(const Config& cfg, const std::string& name) {
    auto matches = [&](const std::vector<std::string>& globs, std::string* which) {
      for (const auto& g : globs)
        if (fnmatch(g.c_str(), name.c_str(), 0) == 0) {
          *which = g;
          return true;
        }
      return false;
    };
    std::string glob;
    if (cfg.backends_deny && matches(*cfg.backends_deny, &glob))
      return "denied by configuration (backends.deny has '" + glob + "')";
    if (cfg.backends_allow && !matches(*cfg.backends_allow, &glob))
      return "not in the configuration's backends.allow list";
    return "";
  }

  // Name validity, duplicates, config enable/rank. False when the plugin is out.
  bool check_identity(PluginRecord& r) {
    if (!valid_plugin_name(r.info.name)) {
      reject(r, detail::concat("invalid plugin name '", r.info.name, "' (expected [a-z0-9_]+)"));
      return false;
    }
    if (const PluginRecord* other = find_named(r.info.name, &r)) {
      reject(r, detail::concat("duplicate plugin name '", r.info.name, "': already provided by ", other->info.path));
      return false;
    }
    const Config& cfg = effective_config();
    if (const std::string why = backend_filter_reason(cfg, r.info.name); !why.empty()) {
      r.info.status = PluginStatus::Disabled;
      r.info.reason = why;
      return false;
    }
    auto it = cfg.plugins.find(r.info.name);
    if (it != cfg.plugins.end()) {
      if (it->second.rank) r.info.rank = *it->second.rank;
      if (it->second.enabled && !*it->second.enabled) {
        r.info.status = PluginStatus::Disabled;
        r.info.reason = "disabled by configuration (plugins." + r.info.name + ".enabled = false)";
        return false;
      }
    }
    return true;
  }

  void load(PluginRecord& r) {
    if (r.info.status == PluginStatus::Loaded || r.info.status == PluginStatus::Rejected ||
        r.info.status == PluginStatus::Disabled)
      return;
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

  bool validate_descriptor(PluginRecord& r, const axle_plugin_descriptor* d) {
    if (!d) {
      reject(r, AXLE_PLUGIN_ENTRY_SYMBOL "() returned NULL");
      return false;
    }
    if (d->struct_size < sizeof(axle_plugin_descriptor)) {
      reject(r, detail::concat("descriptor struct_size ", d->struct_size, " is smaller than ABI 1.0's ",
                               sizeof(axle_plugin_descriptor)));
      return false;
    }
    if (std::string why = abi_incompatibility(d->abi_major, d->abi_minor, AXLE_ABI_MAJOR, AXLE_ABI_MINOR); !why.empty()) {
      reject(r, why);
      return false;
    }
    if (!d->register_plugin || !d->name || (d->num_device_types > 0 && !d->device_types) || d->num_device_types < 0) {
      reject(r, "descriptor lacks name, device types or register function");
      return false;
    }
    std::vector<std::string> types;
    for (int i = 0; i < d->num_device_types; ++i) {
      if (!d->device_types[i]) {
        reject(r, "descriptor has a NULL device type");
        return false;
      }
      types.emplace_back(d->device_types[i]);
    }
    const std::string version = d->version ? d->version : "";
    if (r.info.has_manifest) {
      std::string diff;
      auto cmp = [&](const char* field, const std::string& m, const std::string& l) {
        if (m != l && diff.empty()) diff = detail::concat(field, ": manifest says '", m, "', library says '", l, "'");
      };
      cmp("name", r.info.name, d->name);
      cmp("version", r.info.version, version);
      cmp("abi", detail::concat(r.info.abi_major, ".", r.info.abi_minor), detail::concat(d->abi_major, ".", d->abi_minor));
      std::string mt, lt;
      for (auto& t : r.info.device_types) mt += t + ",";
      for (auto& t : types) lt += t + ",";
      cmp("device_types", mt, lt);
      if (!diff.empty()) {
        reject(r, "manifest " + r.manifest_path + " does not match the library (" + diff + ")");
        return false;
      }
    } else {
      r.info.name = d->name;
      r.info.version = version;
      r.info.abi_major = d->abi_major;
      r.info.abi_minor = d->abi_minor;
      r.info.device_types = types;
      r.info.rank = d->default_rank;
      r.info.status = PluginStatus::Available;
      if (!check_identity(r)) return false;
    }
    return true;
  }

  void register_plugin(PluginRecord& r, const axle_plugin_descriptor* d) {
    RegistrationContext ctx;
    ctx.plugin = r.info.name;
    ctx.rank = r.info.rank;
    ctx.device_types = r.info.device_types;
    const axle_registrar registrar = {sizeof(axle_registrar), &ctx, host_api(), &reg_device_type, &reg_kernel,
                                      &reg_fallback};
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
    AXLE_LOG(LogLevel::Info, "loaded plugin '", r.info.name, "' ", r.info.version, " (rank ", r.info.rank, ") from ",
             r.info.path);
  }
};

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
