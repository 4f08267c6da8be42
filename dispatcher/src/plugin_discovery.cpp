// Plugin discovery: the search path (Note [Plugin discovery] in
// plugin_loader.cpp), the `.so` candidates of its folders, the refusal of
// world-writable ones, and the identity a candidate's manifest gives it
// without running its code.
#include "config_internal.h"
#include "plugin_loader.h"

#include <axle/config.h>
#include <axle/logging.h>

#include <dlfcn.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace axle {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

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

std::string libaxle_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&plugin_status_name), &info) == 0 || !info.dli_fname) return {};
  std::error_code ec;
  fs::path p = fs::canonical(info.dli_fname, ec);
  return ec ? std::string() : p.parent_path().string();
}

// Whether `p` exists and anyone may write to it.
bool world_writable(const fs::path& p) {
  std::error_code ec;
  const fs::file_status st = fs::status(p, ec);
  return !ec && st.type() != fs::file_type::not_found &&
         (st.permissions() & fs::perms::others_write) != fs::perms::none;
}
bool allow_world_writable() { return detail::config_snapshot()->allow_world_writable_plugin_paths.value_or(false); }

}  // namespace

void PluginManager::Impl::compute_search_path() {
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

void PluginManager::Impl::discover() {
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

PluginRecord* PluginManager::Impl::add_candidate(const fs::path& path) {
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
      reject(r, f.string() +
                    " is world-writable (set allow_world_writable_plugin_paths to true in the "
                    "configuration to allow it)");
      return &r;
    }
  if (fs::exists(manifest)) {
    if (read_identity(r, path, manifest))
      AXLE_LOG(LogLevel::Debug, "plugin '", r.info.name, "' available from manifest ", manifest.string());
    return &r;
  }
  load(r);  // bare .so: load it to learn who it is
  return &r;
}

bool PluginManager::Impl::read_identity(PluginRecord& r, const fs::path& path, const fs::path& manifest) {
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
    return false;
  }
  return check_identity(r);
}

}  // namespace axle
