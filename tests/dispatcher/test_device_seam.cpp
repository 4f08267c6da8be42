// The device seam of plugin ABI 1.4 on the arena test device (its memory is not
// host-addressable): host scalars passed to kernels by value, decline reasons,
// factory ops on a device without a round trip through the host fallback, and
// the plugin's description. Run with AXLE_PLUGIN_PATH = the arena plugin folder.
#include <axle/axle.h>

#include <doctest/doctest.h>

#include <dlfcn.h>
#include <algorithm>
#include <string>
#include <vector>

using namespace axle;

namespace {
const TensorOptions kArena = TensorOptions().device("arena");
std::vector<double> values(const Tensor& t) {
  Tensor h = t.to(Device("cpu"), kFloat64).contiguous();
  return std::vector<double>(h.data_ptr<double>(), h.data_ptr<double>() + h.numel());
}
// A counter the arena plugin exports (tests/plugins/arena/arena.cpp).
int64_t arena_counter(const char* name) {
  const auto infos = plugins();
  auto it = std::find_if(infos.begin(), infos.end(), [](const PluginInfo& p) { return p.name == "arena"; });
  REQUIRE(it != infos.end());
  void* handle = dlopen(it->path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(handle != nullptr);
  auto fn = reinterpret_cast<int64_t (*)()>(dlsym(handle, name));
  REQUIRE(reinterpret_cast<void*>(fn) != nullptr);
  const int64_t n = fn();
  dlclose(handle);
  return n;
}
uint64_t fallback_count(const std::string& op, const std::string& device) {
  for (const auto& f : fallback_stats())
    if (f.op == op && f.device == device) return f.count;
  return 0;
}
const CandidateInfo* arena_kernel(const std::string& op) {
  static std::vector<ExplainRow> rows;
  rows = explain(op);
  for (const ExplainRow& r : rows)
    if (r.device_type == "arena" && !r.chain.empty() && r.chain[0].plugin == "arena") return &r.chain[0];
  return nullptr;
}
}  // namespace

TEST_CASE("host scalars reach a kernel registered with AXLE_KERNEL_HOST_SCALARS by value, without an upload") {
  const Tensor x = full({4}, 3.0, kArena);
  const Tensor i = full({4}, 3, kArena.dtype(kInt64));
  const int64_t before = arena_counter("arena_host_to_device_copies");
  const Tensor y = x * 2.0;            // a Python number: a wrapped 0-dim float64 CPU tensor
  const Tensor z = x * full({}, 0.5);  // a 0-dim float32 CPU tensor
  const Tensor w = i * 2.5;            // promotion as on the CPU: the wrapped double gives the default float dtype
  CHECK(arena_counter("arena_host_to_device_copies") == before);
  CHECK(y.device() == Device("arena:0"));
  CHECK(values(y) == std::vector<double>(4, 6.0));
  CHECK(values(z) == std::vector<double>(4, 1.5));
  CHECK(w.dtype() == kFloat32);
  CHECK(values(w) == std::vector<double>(4, 7.5));
  const CandidateInfo* mul = arena_kernel("mul.Tensor");
  REQUIRE(mul != nullptr);
  CHECK(mul->host_scalars);

  // add.Tensor's arena kernel does not take host scalars: the core uploads the
  // scalar for it (one copy), keeping the wrapped-number promotion.
  const int64_t before_add = arena_counter("arena_host_to_device_copies");
  const Tensor a = i + 0.5;
  CHECK(arena_counter("arena_host_to_device_copies") == before_add + 1);
  CHECK(a.dtype() == kFloat32);
  CHECK(values(a) == std::vector<double>(4, 3.5));
  const CandidateInfo* add = arena_kernel("add.Tensor");
  REQUIRE(add != nullptr);
  CHECK_FALSE(add->host_scalars);
}

TEST_CASE("decline reasons reach trace events, explain and the error when every candidate declined") {
  const Tensor d = ones({2}, kArena.dtype(kFloat64));
  {
    TraceScope trace;
    const size_t first = trace_event_count();
    CHECK(values(d + d) == std::vector<double>(2, 2.0));  // arena declines float64; the host fallback runs
    const std::vector<TraceEvent> events = trace_events();
    auto it = std::find_if(events.begin() + static_cast<std::ptrdiff_t>(first), events.end(),
                           [](const TraceEvent& e) { return e.op == "add.Tensor" && e.device == "arena:0"; });
    REQUIRE(it != events.end());
    CHECK(it->declined == std::vector<std::string>{"arena"});
    REQUIRE(it->decline_reasons.size() == 1);
    CHECK(it->decline_reasons[0].find("float64") != std::string::npos);
    CHECK(format_trace_event(*it).find("float64") != std::string::npos);
  }
  const CandidateInfo* add = arena_kernel("add.Tensor");
  REQUIRE(add != nullptr);
  CHECK(add->declines >= 1);
  CHECK(add->decline_reason.find("float64") != std::string::npos);
  bool counted = false;
  for (const DeclineCount& c : decline_stats())
    if (c.op == "add.Tensor" && c.plugin == "arena") counted = c.last_reason.find("float64") != std::string::npos;
  CHECK(counted);

  Config strict;
  strict.fallback_by_device["arena"] = FallbackPolicy::Error;
  configure(strict);
  CHECK_THROWS_WITH_AS((void)(d + d),
                       doctest::Contains("only kernels that declined this call (plugin 'arena' (tests/plugins/arena"),
                       NotImplementedError);
  CHECK_THROWS_WITH_AS((void)(d + d), doctest::Contains("float64"), NotImplementedError);
  configure(Config{});
}

TEST_CASE("factory ops fill on the device when it has fill_, else on the host with one upload") {
  Config strict;
  strict.fallback_by_device["arena"] = FallbackPolicy::Error;
  strict.fallback_by_device["arena2"] = FallbackPolicy::Error;
  configure(strict);
  // arena has fill_: filled there, nothing falls back (the policy would raise).
  CHECK(values(zeros({3}, kArena)) == std::vector<double>(3, 0.0));
  CHECK(values(ones({2}, kArena)) == std::vector<double>(2, 1.0));
  CHECK(values(full({2}, 7, kArena.dtype(kInt32))) == std::vector<double>(2, 7.0));
  // arena2 has no kernel at all: filled on the host and copied once.
  const TensorOptions arena2 = TensorOptions().device("arena2");
  const uint64_t fills = fallback_count("fill_.Scalar", "arena2");
  const Tensor z = zeros({2, 3}, arena2);
  CHECK(z.device() == Device("arena2:0"));
  CHECK(values(z) == std::vector<double>(6, 0.0));
  CHECK(values(call_op("ones_like", {z})[0].tensor()) == std::vector<double>(6, 1.0));
  CHECK(values(full({2}, 2.5, arena2)) == std::vector<double>(2, 2.5));
  CHECK(values(call_op("eye", {int64_t{2}, Value(), Device("arena2")})[0].tensor()) == std::vector<double>{1, 0, 0, 1});
  CHECK(fallback_count("fill_.Scalar", "arena2") == fills);
  configure(Config{});
}

TEST_CASE("a plugin's description (ABI 1.4) is shown with its identity") {
  const auto infos = plugins();
  auto it = std::find_if(infos.begin(), infos.end(), [](const PluginInfo& p) { return p.name == "arena"; });
  REQUIRE(it != infos.end());
  CHECK(it->description.find("arena") != std::string::npos);
}
