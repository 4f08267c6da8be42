// Plugin discovery: the search path (Note [Plugin discovery] in
// plugin_loader.cpp), the `.so` candidates of its folders, the refusal of
// folders and files others may write to, and the identity a candidate's
// manifest gives it without running its code.
#include "config_internal.h"
#include "plugin_loader.h"
#include "plugin_manifest.h"

#include <axle/config.h>
#include <axle/logging.h>

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace axle {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

Manifest read_manifest(const fs::path& path) {
  std::ifstream in(path);
  AXLE_CHECK(in.good(), PluginError, "cannot read manifest ", path.string());
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_manifest(ss.str(), path.string());
}

std::string libaxle_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&plugin_status_name), &info) == 0 || !info.dli_fname) return {};
  std::error_code ec;
  fs::path p = fs::canonical(info.dli_fname, ec);
  return ec ? std::string() : p.parent_path().string();
}

// Where code is loaded from must be writable only by root or this process's
// user, as the Vulkan loader and sudo require of what they run: a plugin folder
// (and a library's real folder) that is writable by its group or by anyone, or
// owned by another user, or that sits under a folder anyone may write to
// without the sticky bit (/tmp has it), or is reached through one; a library or
// manifest writable by its group or by anyone, or owned by another user.
// Symlinks are followed: the checks apply to the real file and folder and to
// every folder on the way to the link. Why `p` is unsafe, or "".
std::string ownership_problem(const fs::path& p, const struct stat& st, const char* what) {
  if ((st.st_mode & S_IWOTH) != 0) return detail::concat(p.string(), " is world-writable");
  if ((st.st_mode & S_IWGRP) != 0)
    return detail::concat(p.string(), " is writable by its group (", what, " mode 0", std::oct, (st.st_mode & 07777),
                          ")");
  if (st.st_uid != 0 && st.st_uid != geteuid())
    return detail::concat(p.string(), " is owned by uid ", st.st_uid, ", neither root nor this process's user (uid ",
                          geteuid(), ")");
  return {};
}

// Every folder above `p` (not `p` itself): none may be world-writable without
// the sticky bit, or anyone could rename `p` away and put their own in its place.
std::string open_ancestor(const fs::path& p) {
  for (fs::path a = p.parent_path(); !a.empty(); a = a.parent_path()) {
    struct stat st {};
    if (::stat(a.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & S_IWOTH) != 0 &&
        (st.st_mode & S_ISVTX) == 0)
      return detail::concat(p.string(), " is inside ", a.string(),
                            ", which anyone may write to and which lacks the sticky bit");
    if (a == a.root_path()) break;
  }
  return {};
}

// A folder or file (`what`) and the way to it, lexical and real.
std::string insecure_path(const fs::path& p, const char* what) {
  std::error_code ec;
  const fs::path lexical = fs::absolute(p, ec).lexically_normal();
  if (ec) return {};
  if (std::string why = open_ancestor(lexical); !why.empty()) return why;
  const fs::path real = fs::canonical(lexical, ec);
  if (ec) return {};  // vanished: nothing to load
  const std::string via = real == lexical ? std::string() : " (reached through " + lexical.string() + ")";
  struct stat st {};
  if (::stat(real.c_str(), &st) != 0) return {};
  if (std::string why = ownership_problem(real, st, what); !why.empty()) return why + via;
  if (real != lexical)
    if (std::string why = open_ancestor(real); !why.empty()) return why + via;
  return {};
}

std::string insecure_folder(const fs::path& dir) { return insecure_path(dir, "folder"); }

// A library or manifest, and the real folder it lives in when a symlink leads
// elsewhere than the folder it was found in (already checked).
std::string insecure_file(const fs::path& file) {
  if (std::string why = insecure_path(file, "file"); !why.empty()) return why;
  std::error_code ec;
  const fs::path real = fs::canonical(file, ec);
  if (ec) return {};
  const fs::path listed = fs::weakly_canonical(fs::absolute(file, ec).parent_path(), ec);
  if (real.parent_path() != listed) return insecure_folder(real.parent_path());
  return {};
}

bool allow_insecure() { return detail::config_snapshot()->allow_world_writable_plugin_paths.value_or(false); }
const char* const kAllowHint = " (set allow_world_writable_plugin_paths to true in the configuration to allow it)";

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
    // Whoever may write to the folder could drop a library into it, and it
    // would run inside every axle process: refused unless the config allows it.
    if (std::string why = insecure_folder(dir); !why.empty() && !allow_insecure()) {
      AXLE_LOG(LogLevel::Warn, "plugin folder ", dir, ": ", why, ": its plugins are not loaded", kAllowHint);
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
  // A library or manifest that others may write to can be replaced just the
  // same: refused on the same terms as the folder (checked here too for
  // load_plugin's files, and for a symlink leading into another folder).
  std::error_code ec;
  if (!allow_insecure()) {
    std::string why = insecure_folder(path.parent_path());
    for (const fs::path& f : {path, manifest})
      if (why.empty() && fs::exists(fs::symlink_status(f, ec))) why = insecure_file(f);
    if (!why.empty()) {
      reject(r, why + kAllowHint);
      return &r;
    }
  }
  if (fs::exists(manifest)) {
    if (read_identity(r, path, manifest))
      AXLE_LOG(LogLevel::Debug, "plugin '", r.info.name, "' available from manifest ", manifest.string());
    return &r;
  }
  if (keep_out_unidentified(r, path)) return &r;  // name filters cannot be applied to it without running its code
  load(r);                                        // bare .so: load it to learn who it is
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
