// Internal: the operator registry, registration records, and the dispatch table.
//
// Note [Dispatch resolution]
// The table has one row per operator and one slot per device type (backend id =
// the DeviceType's interned id). A slot holds the ordered chain of candidates:
//   1. kernels for (op, device type), highest plugin rank first (application
//      kernels bound with Library::impl rank above plugins by default);
//   2. the op's composite kernel, if declared (device-agnostic, uses other ops);
//   3. boxed fallbacks registered for the device type, highest rank first;
//   4. the host fallback (copy in, run on "cpu", copy back) for non-host devices,
//      subject to the fallback policy at call time.
// A kernel returning DECLINED passes the call to the next candidate. An empty
// chain is a NotImplementedError naming the op, the device and the devices that
// do have a kernel. Tables are immutable once published: every registration
// batch (one plugin's register step, one Library::def/impl) builds a new table
// and swaps it in with one atomic store, so calls never lock. Old tables are
// kept alive (plugins are never unloaded, so they are few).
#pragma once

#include <axle/config.h>
#include <axle/device_runtime.h>
#include <axle/dispatcher.h>
#include <axle/plugin/axle_plugin.h>

#include <array>
#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace axle {

class OpEntry {
 public:
  FunctionSchema schema;
  OpDecl decl;
  std::string name;                    // schema.full_name()
  size_t index = 0;                    // row in the table
  const OpEntry* kernel_entry = this;  // whose kernels serve this op
  bool data_dependent = false;
  bool builtin = true;
  // The Tensor(a!) arguments the call path refuses with internal overlap (an
  // expanded view): all but fill_'s, zero_'s, masked_fill_'s and index_put_'s, as torch.
  std::vector<size_t> overlap_checked;
  // Every Tensor(a!) argument: the call path bumps their storage's version.
  std::vector<size_t> written;
  // The written Tensor arguments besides self that no return aliases: state the
  // op updates as a side effect (batch norm's running statistics), not out=
  // arguments.
  std::vector<size_t> side_effects;
  // Whether a written argument besides self is no side effect (an out= form:
  // autograd refuses it).
  bool writes_out_args = false;
  // The derivative autograd uses: the declaration's, or for an in-place variant
  // that declares none its kernel op's.
  const Derivative* derivative = &decl.derivative;
};

enum class CandidateKind { Kernel, AppKernel, Composite, BoxedFallback, HostFallback };

// Declines of one (op, device type, plugin) since start (call_stats.cpp).
struct DeclineRecord {
  std::atomic<uint64_t> count{0};
  std::mutex mutex;  // guards last_reason
  std::string last_reason;
  void add(const std::string& reason);
};

struct Candidate {
  CandidateKind kind = CandidateKind::Kernel;
  axle_kernel_fn fn = nullptr;
  void* user_data = nullptr;
  std::shared_ptr<const CppKernel> app;
  std::string plugin;
  std::string provenance;
  int rank = 0;
  uint32_t flags = 0;  // AXLE_KERNEL_* of the registration
  // Kernels and boxed fallbacks: how often this candidate declined a call on
  // this (op, device type) and why, last; a record that outlives table rebuilds.
  DeclineRecord* declines = nullptr;
};

// The host fallback policy of `op` on device type `type` (host_fallback.cpp).
FallbackPolicy fallback_policy(const Config& cfg, const OpEntry& op, DeviceType type);

// The decline record of (op, device type, plugin), created on first request
// (table builds) and never freed (call_stats.cpp; read by decline_stats()).
DeclineRecord* decline_counter(const std::string& op, const std::string& device_type, const std::string& plugin);

struct Slot {
  std::vector<Candidate> chain;
};

struct Table {
  std::vector<std::vector<Slot>> rows;  // [op index][device type id]
  const Slot* slot(size_t op, uint16_t type) const {
    if (op >= rows.size() || type >= rows[op].size()) return nullptr;
    return &rows[op][type];
  }
};

struct KernelRecord {
  std::string op;
  std::string device_type;
  axle_kernel_fn fn = nullptr;
  void* user_data = nullptr;
  std::shared_ptr<const CppKernel> app;  // set for application kernels
  std::string plugin;
  int rank = 0;
  std::string provenance;
  uint32_t flags = 0;  // AXLE_KERNEL_*
};

class Registry {
 public:
  static Registry& get();

  const OpEntry* find(std::string_view name) const;  // nullptr when unknown
  const OpEntry& at(size_t index) const { return ops_[index]; }
  size_t op_count() const;
  // Declares an op; throws SchemaError (malformed) or ValueError (duplicate).
  const OpEntry& define(const OpDecl& decl, bool builtin);

  const Table& table() const { return *table_.load(std::memory_order_acquire); }

  // Adds records and publishes a new table (one atomic swap).
  void add_kernels(std::vector<KernelRecord> kernels, std::vector<KernelRecord> fallbacks);
  // A device runtime offered by a plugin of `rank`; the highest rank wins.
  void add_runtime(DeviceType type, std::unique_ptr<DeviceRuntime> runtime, const std::string& plugin, int rank);
  DeviceRuntime* runtime(DeviceType type, std::string* provider = nullptr) const;
  std::vector<DeviceType> runtime_types() const;
  // Device types having at least one kernel for the op.
  std::vector<std::string> devices_with_kernel(const OpEntry& op) const;

 private:
  Registry();
  void publish_locked();
  Slot build_slot(const OpEntry& op, DeviceType type) const;

  mutable std::shared_mutex ops_mutex_;
  std::deque<OpEntry> ops_;
  std::unordered_map<std::string, OpEntry*> by_name_;

  mutable std::mutex records_mutex_;
  std::vector<KernelRecord> kernels_;
  std::vector<KernelRecord> fallbacks_;
  struct RuntimeRecord {
    std::unique_ptr<DeviceRuntime> runtime;
    std::string plugin;
    int rank = 0;
  };
  std::unordered_map<uint16_t, std::vector<RuntimeRecord>> runtimes_;
  std::vector<std::unique_ptr<const Table>> tables_;  // every table ever published
  std::atomic<const Table*> table_{nullptr};
};

// Plugin discovery and loading (plugin_loader.cpp).
class PluginManager {
 public:
  static PluginManager& get();
  // Loads every not-yet-loaded plugin that serves `type` (lazy loading).
  void ensure_device_type(DeviceType type);
  bool is_device_type_ready(DeviceType type) const {
    return type.id() < ready_.size() && ready_[type.id()].load(std::memory_order_acquire);
  }
  PluginInfo load_file(const std::string& path);
  void load_all();
  std::vector<PluginInfo> infos() const;
  std::vector<std::string> search_path() const;
  // Device types some discovered plugin serves (loaded or not).
  std::vector<std::string> known_device_types() const;

 private:
  PluginManager();
  struct Impl;
  Impl* impl_;
  std::array<std::atomic<bool>, 1024> ready_{};
};

// The host API handed to plugins (plugin_runtime.cpp).
const axle_host_api* host_api();
std::unique_ptr<DeviceRuntime> make_plugin_runtime(const axle_device_interface& iface, const std::string& plugin);

// Common base of the contexts passed as `call_context` / registrar context, so
// set_error can record a message for either.
struct ErrorSink {
  std::string message;         // set_error
  std::string decline_reason;  // set_decline_reason (ABI 1.4)
  virtual ~ErrorSink() = default;
};

// Maps a plugin status to the typed exception.
[[noreturn]] void throw_status(axle_status status, const std::string& message);

}  // namespace axle
