// Internal to libaxle: the state behind PluginManager and the steps of a
// plugin's way in (Note [Plugin discovery] in plugin_loader.cpp), by file:
//   plugin_discovery.cpp   the search path, the folders' candidates, manifests;
//   plugin_validation.cpp  identity (name, duplicates, configuration), the
//                          descriptor and its agreement with the manifest;
//   plugin_loader.cpp      loading a library, its register step, and
//                          PluginManager's public functions.
#pragma once

#include "registry.h"

#include <boost/dll/shared_library.hpp>
#include <vector>  // before boost/dll (header bug in 1.74)

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

namespace axle {

struct PluginRecord {
  PluginInfo info;
  std::string manifest_path;
  boost::dll::shared_library library;
};

// Every member function runs with `mutex` held (PluginManager's functions take it).
struct PluginManager::Impl {
  std::recursive_mutex mutex;
  bool discovered = false;
  std::vector<std::string> search_path;
  std::vector<std::unique_ptr<PluginRecord>> records;

  // ---- plugin_discovery.cpp
  // Fills search_path and adds every folder's candidates (once).
  void discover();
  void compute_search_path();
  // The record of the library at `path`, added (and its identity learned, from
  // its manifest or by loading it) if new.
  PluginRecord* add_candidate(const std::filesystem::path& path);
  // The identity of `r` from its manifest; false when it is rejected or kept out.
  bool read_identity(PluginRecord& r, const std::filesystem::path& path, const std::filesystem::path& manifest);

  // ---- plugin_validation.cpp
  void reject(PluginRecord& r, const std::string& why);
  // A plugin other than `except` named `name`: the loaded one, else the first
  // available one (a manifest's claim, or a bare library being registered).
  PluginRecord* find_named(const std::string& name, const PluginRecord* except) const;
  // Name validity, config enable/rank, duplicates. False when the plugin is out.
  bool check_identity(PluginRecord& r);
  // A library without a manifest at `path` while the configuration filters
  // plugins by name: disabled without loading it (true), since its name is not
  // known without running its code.
  bool keep_out_unidentified(PluginRecord& r, const std::filesystem::path& path);
  // The descriptor's fields, and their agreement with the manifest (or the
  // identity they give a plugin without one). False when the plugin is out.
  bool validate_descriptor(PluginRecord& r, const axle_plugin_descriptor* d);

  // ---- plugin_loader.cpp
  // Loads an available plugin's library and runs its register step.
  void load(PluginRecord& r);
  void register_plugin(PluginRecord& r, const axle_plugin_descriptor* d);
};

}  // namespace axle
