// `axle bench`: axle's own figures on one device, through the public C++ API
// (allocating outputs, as a user calls ops). Comparisons with PyTorch and raw
// oneDNN live in scripts/bench; this measures axle alone, wherever it is
// installed. Medians of repeated timing loops (each >= ~50 ms), every loop
// ending with a synchronize of the device; a case stops sampling after about
// 1.5 s (0.3 s with --quick) however slow its calls.
#include "bench.h"

#include <axle/axle.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace axle::cli {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Seconds per call of `f` on `device`: the median of timing loops (each about
// 50 ms, 20 ms with --quick). An asynchronous device returns from a kernel once
// the work is queued, so every timed stretch ends with synchronize(device) and
// includes it, or the figure would be the enqueue rate. `first` is the time of
// one call already made (warm-up, synchronized). A case stops sampling once
// it has used `budget` seconds (at least one timed loop after the warm-up), so
// slow calls are timed fewer times instead of running for minutes.
double median_seconds(const std::function<void()>& f, const Device& device, double first, double budget, bool quick) {
  const auto start = std::chrono::steady_clock::now();
  double once = first;
  if (first < budget / 4) {  // a second warm-up and the calibration, when calls are cheap
    f();
    synchronize(device);
    const auto t0 = std::chrono::steady_clock::now();
    f();
    synchronize(device);
    once = seconds_since(t0);
  }
  auto iterations = [&] { return std::max(1, static_cast<int>((quick ? 0.02 : 0.05) / std::max(once, 1e-9))); };
  int iters = iterations();
  std::vector<double> samples;
  for (int r = 0; r < (quick ? 3 : 7); ++r) {
    if (r > 0 && first + seconds_since(start) + once * iters > budget) break;
    const auto s = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) f();
    synchronize(device);
    samples.push_back(seconds_since(s) / iters);
    if (r == 0 && once == first) {  // sized by the warm-up call alone, which may carry one-time costs
      once = samples.back();
      iters = iterations();
    }
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

Tensor uniform(const IntList& sizes, DType dtype, const Device& device) {
  return call_op("rand", {Value(sizes)})[0].tensor().to(dtype).to(device);
}

// What actually ran `op` in one traced call of `fn` (a kernel may decline and
// pass the call on, so the first kernel of the chain is not necessarily it):
// "plugin (file:line)", or the kind for core paths.
// The events of that call are the ones added after `before` (a user's own trace,
// AXLE_TRACE_FILE, is kept). The call is the case's first (warm-up) call:
// `seconds` gets its time, synchronize(device) included.
std::string served_by(const std::string& op, const std::function<void()>& fn, const Device& device, double& seconds) {
  const size_t before = trace_event_count();
  {
    TraceScope scope;
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    synchronize(device);
    seconds = seconds_since(t0);
  }
  const std::vector<TraceEvent> events = trace_events();
  for (size_t i = before; i < events.size(); ++i)
    if (const TraceEvent& e = events[i]; e.op == op) {
      std::string file = e.provenance.substr(e.provenance.find_last_of('/') + 1);
      return (e.plugin.empty() ? e.kind : e.plugin) + (file.empty() ? "" : " (" + file + ")");
    }
  return "?";
}

struct Case {
  std::string name, op, unit;
  double work;  // units of work per call (bytes, flops, or 1 for per-call time)
  std::function<std::function<void()>(const Device&)> setup;
};

}  // namespace

int cmd_bench(const BenchOptions& o) {
  const Device device(o.device);
  const std::vector<Case> cases = {
      {"add, 1 element", "add.Tensor", "ns/call", 1,
       [](const Device& d) {
         Tensor a = uniform({1}, kFloat32, d), b = uniform({1}, kFloat32, d);
         return std::function<void()>([a, b] { add(a, b); });
       }},
      {"add 16M f32", "add.Tensor", "GB/s", 3.0 * 4 * (16 << 20),
       [](const Device& d) {
         Tensor a = uniform({16 << 20}, kFloat32, d), b = uniform({16 << 20}, kFloat32, d);
         return std::function<void()>([a, b] { add(a, b); });
       }},
      {"softmax 4096x1024 f32", "softmax.int", "GB/s", 2.0 * 4 * 4096 * 1024,
       [](const Device& d) {
         Tensor x = uniform({4096, 1024}, kFloat32, d);
         return std::function<void()>([x] { softmax(x, 1); });
       }},
      {"layer_norm 4096x1024 f32", "layer_norm", "GB/s", 2.0 * 4 * 4096 * 1024,
       [](const Device& d) {
         Tensor x = uniform({4096, 1024}, kFloat32, d), w = uniform({1024}, kFloat32, d);
         return std::function<void()>([x, w] { layer_norm(x, IntList{1024}, w, w); });
       }},
      {"matmul 1024 f32", "mm", "GFLOP/s", 2.0 * 1024 * 1024 * 1024,
       [](const Device& d) {
         Tensor a = uniform({1024, 1024}, kFloat32, d);
         return std::function<void()>([a] { mm(a, a); });
       }},
      {"matmul 1024 bf16", "mm", "GFLOP/s", 2.0 * 1024 * 1024 * 1024,
       [](const Device& d) {
         Tensor a = uniform({1024, 1024}, kBFloat16, d);
         return std::function<void()>([a] { mm(a, a); });
       }},
      {"conv2d 8x64x56x56 3x3 f32", "convolution.out", "GFLOP/s", 2.0 * 8 * 64 * 64 * 56 * 56 * 9,
       [](const Device& d) {
         Tensor x = uniform({8, 64, 56, 56}, kFloat32, d), w = uniform({64, 64, 3, 3}, kFloat32, d);
         return std::function<void()>([x, w] { conv2d(x, w, std::nullopt, IntList{1, 1}, IntList{1, 1}); });
       }},
  };
  nlohmann::json rows = nlohmann::json::array();
  if (!o.json)
    std::printf("axle bench on %s (medians)\n%-28s %12s %-8s  %s\n", device.str().c_str(), "case", "value", "unit",
                "served by");
  for (const Case& c : cases) {
    if (!o.only.empty() && c.name.rfind(o.only, 0) != 0) continue;
    const std::function<void()> fn = c.setup(device);
    synchronize(device);  // the setup's own work is not timed
    double first = 0;
    const std::string by = served_by(c.op, fn, device, first);
    const double s = median_seconds(fn, device, first, o.quick ? 0.3 : 1.5, o.quick);
    const double value = c.unit == "ns/call" ? s * 1e9 : c.work / s / 1e9;
    if (o.json)
      rows.push_back({{"case", c.name}, {"unit", c.unit}, {"value", value}, {"served_by", by}});
    else
      std::printf("%-28s %12.1f %-8s  %s\n", c.name.c_str(), value, c.unit.c_str(), by.c_str());
  }
  if (o.json) std::printf("%s\n", nlohmann::json{{"device", device.str()}, {"cases", rows}}.dump(1).c_str());
  return 0;
}

}  // namespace axle::cli
