// Plugin validation: whether a plugin may join: its ABI version, its
// descriptor, the agreement of descriptor and manifest, its name (valid, not a
// duplicate) and the configuration (backends.allow / backends.deny,
// plugins.<name>.enabled and .rank). Every refusal is recorded with its reason.
#include "plugin_loader.h"

#include <axle/config.h>
#include <axle/logging.h>

#include <fnmatch.h>

#include <algorithm>

namespace axle {

std::string abi_incompatibility(int plugin_major, int plugin_minor, int core_major, int core_minor) {
  if (plugin_major != core_major)
    return detail::concat("plugin ABI ", plugin_major, ".", plugin_minor, " does not match the core's major ",
                          core_major, " (core ABI ", core_major, ".", core_minor, ")");
  if (plugin_minor > core_minor)
    return detail::concat("plugin ABI ", plugin_major, ".", plugin_minor, " is newer than the core's ", core_major, ".",
                          core_minor, "; upgrade axle");
  return {};  // same major, older or equal minor: fields are append-only
}

namespace {

bool valid_plugin_name(std::string_view n) {
  if (n.empty() || n.size() > 64) return false;
  return std::all_of(n.begin(), n.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

// backends.allow / backends.deny: shell globs on plugin names. Why the plugin
// is kept out, or "".
std::string backend_filter_reason(const Config& cfg, const std::string& name) {
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

// Why a plugin's descriptor cannot be used, or "".
std::string descriptor_problem(const axle_plugin_descriptor* d) {
  if (!d) return AXLE_PLUGIN_ENTRY_SYMBOL "() returned NULL";
  // ABI 1.0-1.3's descriptor ends at register_plugin; later fields are read
  // only where struct_size covers them.
  if (d->struct_size < AXLE_PLUGIN_DESCRIPTOR_SIZE_V1_3)
    return detail::concat("descriptor struct_size ", d->struct_size, " is smaller than ABI 1.0's ",
                          AXLE_PLUGIN_DESCRIPTOR_SIZE_V1_3);
  if (std::string why = abi_incompatibility(d->abi_major, d->abi_minor, AXLE_ABI_MAJOR, AXLE_ABI_MINOR); !why.empty())
    return why;
  if (!d->register_plugin || !d->name || (d->num_device_types > 0 && !d->device_types) || d->num_device_types < 0)
    return "descriptor lacks name, device types or register function";
  for (int i = 0; i < d->num_device_types; ++i)
    if (!d->device_types[i]) return "descriptor has a NULL device type";
  return {};
}

// The first field on which a plugin's manifest (`info`) and its library's
// descriptor disagree, or "".
std::string manifest_mismatch(const PluginInfo& info, const axle_plugin_descriptor* d, const std::string& version,
                              const std::vector<std::string>& types) {
  std::string diff;
  auto cmp = [&](const char* field, const std::string& m, const std::string& l) {
    if (m != l && diff.empty()) diff = detail::concat(field, ": manifest says '", m, "', library says '", l, "'");
  };
  cmp("name", info.name, d->name);
  cmp("version", info.version, version);
  cmp("abi", detail::concat(info.abi_major, ".", info.abi_minor), detail::concat(d->abi_major, ".", d->abi_minor));
  std::string mt, lt;
  for (auto& t : info.device_types) mt += t + ",";
  for (auto& t : types) lt += t + ",";
  cmp("device_types", mt, lt);
  return diff;
}

}  // namespace

void PluginManager::Impl::reject(PluginRecord& r, const std::string& why) {
  r.info.status = PluginStatus::Rejected;
  r.info.reason = why;
  AXLE_LOG(LogLevel::Warn, "plugin ", r.info.path, " rejected: ", why);
}

PluginRecord* PluginManager::Impl::find_named(const std::string& name, const PluginRecord* except) const {
  // A loaded plugin first: it holds the name whatever claims come before it.
  PluginRecord* available = nullptr;
  for (const auto& r : records)
    if (r.get() != except && r->info.name == name) {
      if (r->info.status == PluginStatus::Loaded) return r.get();
      if (r->info.status == PluginStatus::Available && !available) available = r.get();
    }
  return available;
}

bool PluginManager::Impl::check_identity(PluginRecord& r) {
  if (!valid_plugin_name(r.info.name)) {
    reject(r, detail::concat("invalid plugin name '", r.info.name, "' (expected [a-z0-9_]+)"));
    return false;
  }
  // The configuration first: a plugin kept out is never loaded, not even to
  // settle whose a name is.
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
  // Duplicates. A manifest's name is a claim until its library confirms it
  // (load), so a claim never pushes out another plugin: two claims of a name
  // both wait, and the first (in search order) whose library agrees with its
  // manifest takes the name; the others are then refused without being loaded
  // (register_plugin). A bare library's name is its own descriptor's: an
  // earlier claim of that name is settled first, by loading it.
  PluginRecord* other = find_named(r.info.name, &r);
  while (other && other->info.status == PluginStatus::Available && other->info.has_manifest) {
    if (r.info.has_manifest) return true;
    load(*other);                                                // leaves it loaded or rejected
    if (r.info.status != PluginStatus::Available) return false;  // the claim held: r was refused as its duplicate
    other = find_named(r.info.name, &r);
  }
  if (other) {
    reject(r, detail::concat("duplicate plugin name '", r.info.name, "': already provided by ", other->info.path));
    return false;
  }
  return true;
}

bool PluginManager::Impl::keep_out_unidentified(PluginRecord& r, const std::filesystem::path& path) {
  const Config& cfg = effective_config();
  bool disables = false;
  for (const auto& [name, settings] : cfg.plugins) disables |= settings.enabled && !*settings.enabled;
  if (!disables && !cfg.backends_deny && !cfg.backends_allow) return false;
  // Its file name is all that is known of it without running its code.
  std::string stem = path.stem().string();
  if (stem.rfind("axle_", 0) == 0) stem.erase(0, 5);
  std::string why = backend_filter_reason(cfg, stem);
  if (auto it = cfg.plugins.find(stem);
      why.empty() && it != cfg.plugins.end() && it->second.enabled && !*it->second.enabled)
    why = "disabled by configuration (plugins." + stem + ".enabled = false)";
  r.info.status = PluginStatus::Disabled;
  r.info.reason = why.empty() ? std::string(
                                    "not loaded: it has no manifest, and the configuration keeps plugins out by "
                                    "name (backends.allow, backends.deny or plugins.<name>.enabled), which "
                                    "cannot be checked without running its code; give it a manifest "
                                    "(axle-plugin-manifest)")
                              : why + " (by its file name: it has no manifest)";
  AXLE_LOG(LogLevel::Info, "plugin ", r.info.path, " ", r.info.reason);
  return true;
}

bool PluginManager::Impl::validate_descriptor(PluginRecord& r, const axle_plugin_descriptor* d) {
  if (const std::string why = descriptor_problem(d); !why.empty()) {
    reject(r, why);
    return false;
  }
  std::vector<std::string> types;
  for (int i = 0; i < d->num_device_types; ++i) types.emplace_back(d->device_types[i]);
  const std::string version = d->version ? d->version : "";
  if (r.info.has_manifest) {
    if (const std::string diff = manifest_mismatch(r.info, d, version, types); !diff.empty()) {
      reject(r, "manifest " + r.manifest_path + " does not match the library (" + diff + ")");
      return false;
    }
    return true;
  }
  r.info.name = d->name;
  r.info.version = version;
  r.info.abi_major = d->abi_major;
  r.info.abi_minor = d->abi_minor;
  r.info.device_types = types;
  r.info.rank = d->default_rank;
  r.info.status = PluginStatus::Available;
  return check_identity(r);
}

}  // namespace axle
