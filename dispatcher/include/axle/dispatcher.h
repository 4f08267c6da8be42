// The dispatcher: operator registry, keyed table (op x device type), plugin
// discovery/loading and the call path. See docs/design.md (Note [Dispatch
// resolution] in dispatcher/src/registry.h, Note [Plugin discovery] in
// dispatcher/src/plugin_loader.cpp).
// All functions are thread-safe; calls never lock (the table is published atomically).
#pragma once

#include <axle/config.h>
#include <axle/export.h>
#include <axle/operator.h>
#include <axle/value.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace axle {

class OpEntry;
// A resolved operator; cheap to copy. Obtain once (e.g. in a function-local static).
class AXLE_API OpHandle {
 public:
  explicit OpHandle(const OpEntry* e) : entry_(e) {}
  const FunctionSchema& schema() const;
  const OpEntry* entry() const { return entry_; }

 private:
  const OpEntry* entry_;
};

// Finds a declared op by "name.overload" ("add.Tensor", "myapp::scale"); an op
// with an empty overload can be found by name. Throws NotImplementedError naming it.
AXLE_API OpHandle find_op(std::string_view name);
// Runs an op. `args` in schema order; missing trailing arguments get defaults.
AXLE_API Stack call_op(const OpHandle& op, Stack args);
AXLE_API Stack call_op(std::string_view name, Stack args);
// torch's out= form of any op: writes the op's tensor results into `out` (one per
// tensor output) and returns them. When an out tensor has exactly the result's
// shape, dtype and device and shares no memory with an input, kernels write into
// it directly (no temporary); otherwise the result is computed, cast into out
// (float -> integer and non-bool -> bool are DTypeErrors) and out is resized to
// the result's shape as torch does.
AXLE_API Stack call_op_out(const OpHandle& op, Stack args, std::vector<Tensor> out);

enum class PluginStatus { Loaded, Available, Rejected, Disabled };
AXLE_API const char* plugin_status_name(PluginStatus s);

struct PluginInfo {
  std::string name;  // empty when unknown (rejected before identity was known)
  std::string version;
  std::string description;  // the plugin's own line (ABI 1.4), once loaded: "oneDNN 3.0.0"
  int abi_major = 0, abi_minor = 0;
  std::vector<std::string> device_types;
  int rank = 0;
  std::string path;
  bool has_manifest = false;
  PluginStatus status = PluginStatus::Available;
  std::string reason;  // why rejected / disabled
};

struct DeviceInfo {
  std::string type;
  int count = 0;
  std::string provider;  // plugin providing the runtime
  std::vector<std::string> names;
  std::string note;  // e.g. why zero devices
};

struct FallbackCount {
  std::string op;
  std::string device;
  uint64_t count = 0;
};

// Calls a plugin's kernel declined (it returned AXLE_DECLINED and the next
// candidate ran), per (op, device type, plugin) since start.
struct DeclineCount {
  std::string op;
  std::string device;
  std::string plugin;
  uint64_t count = 0;
  std::string last_reason;  // the kernel's reason (plugin::decline) for the latest decline that gave one
};

struct CandidateInfo {
  std::string kind;        // "kernel", "app kernel", "composite", "boxed fallback", "host fallback"
  std::string plugin;      // providing plugin (empty for core)
  std::string provenance;  // file:line or symbol
  int rank = 0;
  bool host_scalars = false;   // reads 0-dim host tensors by value (AXLE_KERNEL_HOST_SCALARS)
  uint64_t declines = 0;       // calls it declined since start
  std::string decline_reason;  // why, the latest decline that said so
};

struct ExplainRow {
  std::string device_type;
  std::vector<CandidateInfo> chain;  // empty: no kernel
  std::string note;
};

// Why a plugin of ABI plugin_major.plugin_minor cannot load into a core of
// core_major.core_minor ("" when it can: same major, a minor not newer). The
// loader calls it with the core's own AXLE_ABI_MAJOR / AXLE_ABI_MINOR.
AXLE_API std::string abi_incompatibility(int plugin_major, int plugin_minor, int core_major, int core_minor);

// The plugin search path, in order (embedding app, AXLE_PLUGIN_PATH, config, default).
AXLE_API std::vector<std::string> plugin_search_path();
// Every plugin found, with its status. Does not load lazily-loaded plugins.
AXLE_API std::vector<PluginInfo> plugins();
// Device types with a runtime (loads the plugins of known device types if `load_all`).
AXLE_API std::vector<DeviceInfo> devices(bool load_all = true);
// Loads a plugin file now (absolute or relative path). Throws PluginError with the reason.
AXLE_API PluginInfo load_plugin(const std::string& path);
// Loads every available plugin (as `axle explain` and `axle info` do).
AXLE_API void load_all_plugins();
// Host-fallback hits per (op, device) since start.
AXLE_API std::vector<FallbackCount> fallback_stats();
// Declined kernel calls per (op, device type, plugin) since start.
AXLE_API std::vector<DeclineCount> decline_stats();
// For each device type: what would run for `op` and where it came from.
AXLE_API std::vector<ExplainRow> explain(std::string_view op);
// Names of all declared operators.
AXLE_API std::vector<std::string> op_names();

// ---- the coverage matrix (`axle ops`): every operator x every backend
// A backend is one loaded plugin on one device type it serves ("cpu/cpu",
// "reference/cpu", "cuda/cuda").
struct CoverageBackend {
  std::string name;  // "plugin/device type"
  std::string plugin;
  std::string device_type;
  int rank = 0;
  int device_count = 0;  // devices of the type present now (0: it cannot be probed)
};

// How a backend (plugin P on device type D) serves an op, from D's candidate chain:
//   Kernel        P registered a kernel for the op on D;
//   Declines      ... and that kernel declined some calls (only from a probe's
//                 decline counts, see coverage());
//   Composite     P has no kernel; the op's composite covers it on D (no kernel of a
//                 plugin ranked at or below P comes before the composite);
//   FallsThrough  P has no kernel; another plugin's kernel on D serves it (or a
//                 boxed fallback is offered the call);
//   HostFallback  no kernel or composite on D: the host fallback would run it on
//                 "cpu" (where something serves it);
//   Missing       nothing serves it: calling it raises NotImplementedError.
enum class Coverage { Kernel, Declines, Composite, FallsThrough, HostFallback, Missing };
// "kernel", "declines", "composite", "falls through", "host fallback", "missing".
AXLE_API const char* coverage_name(Coverage c);

struct CoverageRow {
  std::string op;
  std::vector<Coverage> cells;  // one per backend, in CoverageMatrix::backends order
};

struct CoverageMatrix {
  std::vector<CoverageBackend> backends;  // grouped by device type, highest rank first
  std::vector<CoverageRow> ops;           // every declared op, in op_names() order
  bool probed = false;                    // declines were given: Declines cells are known
};

// The coverage matrix of every loaded plugin (loads them all first). `declines`:
// the decline counts of a probe (e.g. the difference of two decline_stats()
// taken around conformance runs); a Kernel cell whose (op, device type, plugin)
// has a count there becomes Declines. Without it no cell is Declines.
AXLE_API CoverageMatrix coverage(const std::optional<std::vector<DeclineCount>>& declines = std::nullopt);

// Restricts, on the calling thread and while it lives, which plugins' kernels and
// boxed fallbacks may serve a call (composites, application kernels and the host
// fallback are unaffected). Like PyTorch's ExcludeDispatchKeyGuard: the
// conformance engine runs the reference plugin alone as the oracle on a device
// type that a faster plugin also serves. Guards nest; the innermost one applies.
class AXLE_API PluginFilterGuard {
 public:
  enum class Mode { Only, Exclude };
  PluginFilterGuard(Mode mode, std::vector<std::string> plugins);
  ~PluginFilterGuard();
  PluginFilterGuard(const PluginFilterGuard&) = delete;
  PluginFilterGuard& operator=(const PluginFilterGuard&) = delete;
  bool allows(const std::string& plugin) const;

 private:
  Mode mode_;
  std::vector<std::string> plugins_;
  const PluginFilterGuard* previous_;
};

AXLE_API DType get_default_dtype();
AXLE_API void set_default_dtype(DType d);  // floating dtypes only (ValueError otherwise)
AXLE_API Device get_default_device();
AXLE_API void set_default_device(const Device& d);  // DeviceError for a device type no plugin provides

}  // namespace axle
