// The conformance kit: sample inputs for every declared operator (PyTorch's
// OpInfo idea) and an engine that runs them on any device against the
// reference results. Installed as libaxle-conformance; `axle check` and the
// Python differential suite use the same samples.
//
// A sample generator is a plain function: given a context (device, dtype under
// test, seeded tensor factory) it returns calls, each either expected to succeed
// or to raise a named error class. Generators are deterministic: the same seed
// gives the same values on every device, so results can be compared.
#pragma once

#include <axle/axle.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace axle::conformance {

// How a sample tensor is laid out in memory. Every layout holds the same
// logical values for the same seed; only strides and offset differ.
enum class Layout {
  Contiguous,
  Transposed,    // last two dims stored swapped (a .transpose(-1, -2) view)
  Stepped,       // every other element of a twice-as-long buffer (a [..., ::2] view)
  Expanded,      // stride 0 along dim 0 (one row broadcast with expand)
  ChannelsLast,  // 4-d only: NHWC memory order viewed as NCHW
  Offset,        // a view starting 3 elements into its storage
};
const char* layout_name(Layout l);

struct Sample {
  Stack args;                 // in schema order; trailing defaulted arguments may be left out
  std::string note;           // what this case covers: "broadcast [3, 1] x [4]", "transposed", ...
  std::string error;          // non-empty: the call must raise this class ("ShapeError", "IndexError", ...)
  double rtol = 0, atol = 0;  // > 0: override the dtype's default tolerance for this case
};

class SampleContext {
 public:
  SampleContext(Device device, DType dtype, uint64_t seed) : device_(device), dtype_(dtype), seed_(seed) {}
  const Device& device() const { return device_; }
  DType dtype() const { return dtype_; }
  // A deterministic tensor of the dtype under test (or `dtype`): values drawn
  // uniformly in [low, high) (integers: whole numbers; bool: ~50% true), laid
  // out as `layout`, on the device under test. Each call draws new values.
  Tensor make(const IntList& sizes, Layout layout = Layout::Contiguous, std::optional<DType> dtype = {},
              double low = -5, double high = 5);
  // A host (CPU) tensor of int64 indices in [0, bound) for index arguments.
  Tensor indices(const IntList& sizes, int64_t bound, std::optional<Device> device = {});
  // The usual variety for one operand: contiguous, 0-d, zero-size, transposed,
  // stepped, expanded, offset (each with a note) — for ops whose only tensor is self.
  std::vector<std::pair<Tensor, std::string>> unary_variety(const IntList& sizes = {3, 4});

 private:
  uint64_t next_seed();
  Device device_;
  DType dtype_;
  uint64_t seed_;
  uint64_t counter_ = 0;
};

using SampleFn = std::vector<Sample> (*)(SampleContext&);

struct OpSamples {
  const char* op;  // "add.Tensor"
  SampleFn samples;
  std::vector<DType> dtypes = {};  // dtypes the op is run with; empty: kEveryDType
  double rtol_scale = 1;           // reductions and transcendental chains: loosen the dtype tolerance
  bool values = true;              // false: only shapes and dtypes are compared (empty, random ops)
  // Outputs are long sums of products (convolution): the absolute tolerance
  // also grows to the dtype's epsilon times the output's largest finite
  // magnitude. A bfloat16 convolution on a GPU rounds partial sums (cuDNN's
  // split reductions, transforms) at that scale, so a small output built by
  // cancellation of large terms differs by that much from a once-rounded sum.
  bool accumulates = false;
};

// All dtypes, and the common subsets generators use.
extern const std::vector<DType> kEveryDType;  // the 10 dtypes
extern const std::vector<DType> kFloating;    // float32, float64, float16, bfloat16
extern const std::vector<DType> kNumeric;     // all but bool

// The generators of every built-in operator.
const std::vector<OpSamples>& all_samples();
const OpSamples* find_samples(std::string_view op);

// Default tolerances (rtol, atol) by dtype, as torch.testing.assert_close.
std::pair<double, double> default_tolerance(DType d);
// The absolute tolerance of an accumulating op's output `want` (OpSamples::accumulates):
// machine epsilon of its dtype times its largest finite magnitude (0 for integers).
double accumulation_atol(const Tensor& want);

// Compares two results (any devices): same sizes and dtype, values within
// tolerance (NaN equals NaN, infinities equal). Returns "" or what differs.
std::string compare(const Tensor& got, const Tensor& want, double rtol, double atol);
// The class name of an axle exception ("ShapeError"), "Error" for the base, or
// the std::exception's type for others.
std::string error_class(const std::exception& e);

// ---- the engine
struct CaseFailure {
  std::string op, dtype, note, message;
};
struct OpReport {
  std::string op;
  int passed = 0, failed = 0, skipped = 0;
  std::string skip_reason;  // when every case was skipped
  std::vector<CaseFailure> failures;
  // With RunOptions::plugin: the cases that plugin's kernel served (it ran
  // the call), the cases it declined (the reference below it ran them), and
  // the declined cases by reason. The rest never reached it (e.g. bad inputs
  // the core rejects first). The reason is "" (not given) until the
  // dispatcher passes the kernels' decline messages on.
  int served = 0, declined = 0;
  std::map<std::string, int> decline_reasons = {};
  // With RunOptions::gradients: the float32/float64 cases whose gradients
  // (autograd through the op on the device) were compared with the reference's.
  int grad_passed = 0, grad_failed = 0;
};
struct RunOptions {
  std::vector<std::string> ops;  // empty: every op with samples
  uint64_t seed = 1234;
  // Ops to skip on this device, each with its reason (printed).
  std::vector<std::pair<std::string, std::string>> skip;
  // The plugin under test: its kernels (with the reference plugin below it for
  // what it declines; other plugins of the type kept out) are compared with the
  // reference plugin's alone. Empty on "cpu": the reference plugin checks the
  // samples themselves.
  std::string plugin;
  // Also backward: for each float32/float64 case of a differentiable op that
  // writes no argument, the gradients of sum(output * v) for a fixed v with
  // respect to every floating tensor argument, on the device and on the host
  // reference (failures have the note "gradient: ...").
  bool gradients = false;
};
// Runs every sample on `device` and compares outputs with the same sample run on
// the host reference ("cpu"). Expected errors must be raised with that class on
// both. The oracle runs with the reference plugin's kernels only
// (PluginFilterGuard). A device equal to "cpu" without `options.plugin` checks the
// samples themselves: expected errors, output shapes and dtypes against the shape
// functions, determinism.
std::vector<OpReport> run(const Device& device, const RunOptions& options = {});
// A table: op, passed, failed, skipped (reason); then the failures.
std::string format_report(const std::vector<OpReport>& reports);

// ---- checking a plugin file (`axle check PLUGIN.so`)
struct CheckResult {
  std::string name;    // "load", "device contract", "concurrency", or an op
  std::string device;  // device type ("" for the whole plugin)
  // "pass" | "fail" | "skip" | "warn" (an op whose results are right but whose
  // kernel served none of its cases: everything ran on the reference below it)
  std::string status;
  std::string detail;  // counts, the first failures, or the skip reason
  // An op's row: its cases, how many the plugin's kernel served and declined,
  // and the declined ones by reason ("": no reason given). cases < 0: not an op row.
  int cases = -1, served = 0, declined = 0;
  std::map<std::string, int> decline_reasons = {};
};
struct CheckReport {
  std::string plugin, path;
  std::vector<CheckResult> results;
  bool ok() const;  // no "fail"
  // The op rows whose kernel served none of its cases (status "warn", or
  // "fail" under CheckOptions::strict).
  std::vector<std::string> serving_none() const;
};
struct CheckOptions {
  std::vector<std::string> ops;  // empty: every op the plugin has a kernel for
  int threads = 4;               // concurrent callers in the concurrency check
  uint64_t seed = 1234;
  bool strict = false;  // a registered kernel that serves none of its op's cases fails the check
};
// Loads the plugin (ABI, descriptor, manifest checks: a rejection is a "load"
// failure with the reason), then for each device type it serves: the device
// contract (allocate / copy round trips host<->device and device<->device at
// 0, 1, odd and large sizes, synchronize), every op it registers a kernel for
// against the reference plugin over the op's samples (dtypes, layouts, bad
// inputs and their error classes), and the same ops called from several
// threads at once. A device type with zero devices is skipped with the reason.
// Each op's row counts the cases the plugin's kernel served and declined; a
// kernel that serves none is a "warn" row ("fail" with options.strict).
CheckReport check_plugin(const std::string& path, const CheckOptions& options = {});
std::string format_check(const CheckReport& report);
// Declined cases by reason as one line: "3 x float64 is not served; 2 x (no reason given)".
std::string format_decline_reasons(const std::map<std::string, int>& reasons);

}  // namespace axle::conformance
