// The CUDA plugin. Without a GPU (or driver) it must load, report zero devices
// with the driver's reason, and turn any use of "cuda" into a DeviceError naming
// it: checked here on every machine. With a GPU, the conformance engine runs
// every op's samples on cuda:0 against the reference plugin, plus the device
// contract (allocator statistics, copies, streams). Without one this test exits
// 77, which meson reports as SKIP, after printing the reason.
#include <axle/conformance.h>

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>

using namespace axle;

namespace {
bool cuda_plugin_present() {
  for (const PluginInfo& p : plugins())
    if (p.name == "cuda" && p.status != PluginStatus::Rejected) return true;
  return false;
}
int cuda_devices(std::string* note) {
  for (const DeviceInfo& d : devices()) {
    if (d.type != "cuda") continue;
    *note = d.note;
    return d.count;
  }
  return 0;
}
}  // namespace

TEST_CASE("without a GPU: zero devices, the reason, and DeviceError on use") {
  REQUIRE(cuda_plugin_present());
  std::string note;
  if (cuda_devices(&note) > 0) return;  // covered by the GPU cases
  CHECK(note.find("zero devices") != std::string::npos);
  CHECK(note.find("cuda") != std::string::npos);  // the driver's answer, e.g. cudaGetDeviceCount: ...
  try {
    ones({3}, TensorOptions().device(Device("cuda")));
    FAIL("expected DeviceError");
  } catch (const DeviceError& e) {
    const std::string what = e.what();
    CHECK(what.find("cuda:0") != std::string::npos);
    CHECK(what.find("cudaGetDeviceCount") != std::string::npos);
  }
  CHECK_THROWS_AS(ones({3}).to(Device("cuda:1")), DeviceError);
}

TEST_CASE("the plugin describes what is behind it (ABI 1.4), with or without a GPU") {
  for (const PluginInfo& p : plugins())
    if (p.name == "cuda") {
      CHECK(p.description.find("CUDA runtime") != std::string::npos);
      CHECK(p.description.find("cuDNN") != std::string::npos);
    }
}

TEST_CASE("on a GPU: host scalars reach the pointwise kernels by value (ABI 1.4)") {
  std::string note;
  if (cuda_devices(&note) == 0) return;
  const Device dev("cuda:0");
  const Tensor x = arange(0, 6, 1, TensorOptions().dtype(kFloat32)).to(dev);
  const Tensor i = arange(0, 6, 1, TensorOptions().dtype(kInt64)).to(dev);
  TraceScope trace;
  const size_t first = trace_event_count();
  const Tensor y = x * 2.5;  // a wrapped double: no upload, float32 result
  const Tensor z = i * 2.5;  // promotion as on the CPU: float32
  const Tensor w = where(gt(x, scalar_to_tensor(2.0)), x, scalar_to_tensor(0.5));  // among three operands
  const Tensor q = i + full({}, 3, TensorOptions().dtype(kInt64));                 // a 0-dim CPU tensor
  CHECK(y.dtype() == kFloat32);
  CHECK(z.dtype() == kFloat32);
  CHECK(sum(y.to(Device("cpu"))).item<double>() == 37.5);
  CHECK(sum(z.to(Device("cpu"))).item<double>() == 37.5);
  CHECK(sum(w.to(Device("cpu"))).item<double>() == 3 + 4 + 5 + 3 * 0.5);
  CHECK(sum(q.to(Device("cpu"))).item<double>() == 33);
  const std::vector<TraceEvent> events = trace_events();
  for (size_t k = first; k < events.size(); ++k)  // no host-to-device copy of a 0-dim scalar
    CHECK_FALSE((events[k].op == "copy_" && events[k].device == "cuda:0" && events[k].inputs.size() == 2 &&
                 events[k].inputs[1].sizes.empty()));
  for (const ExplainRow& r : explain("mul.Tensor"))
    if (r.device_type == "cuda") CHECK(r.chain.at(0).host_scalars);
}

TEST_CASE("on a GPU: the device contract") {
  std::string note;
  if (cuda_devices(&note) == 0) return;
  const Device dev("cuda:0");
  const Tensor h = arange(0, 1000, 1, TensorOptions().dtype(kFloat32));
  const Tensor d = h.to(dev);
  CHECK(d.device() == dev);
  CHECK(sum(d.to(Device("cpu"))).item<double>() == 499500.0);
  const Tensor z = zeros({0}, TensorOptions().device(dev));
  CHECK(z.to(Device("cpu")).numel() == 0);
  const Tensor odd = ones({7, 3}, TensorOptions().dtype(kFloat16)).to(dev).t().contiguous();
  CHECK(sum(odd.to(Device("cpu")).to(kFloat32)).item<double>() == 21.0);
}

TEST_CASE("on a GPU: memory pools per stream (ABI 1.2) and record_stream") {
  std::string note;
  if (cuda_devices(&note) == 0) return;
  const Device dev("cuda:0");
  const TensorOptions f32 = TensorOptions().dtype(kFloat32).device(dev);
  const Stream s = Stream::create(dev);
  const Stream other = Stream::create(dev);
  void* first = nullptr;
  {
    StreamGuard g(s);
    Tensor x = ones({1 << 16}, f32);
    first = x.storage()->data;
    x = Tensor();  // back to s's pool at once: later work on s runs after its kernels
    const Tensor again = empty({1 << 16}, f32);
    CHECK(again.storage()->data == first);
  }
  {
    StreamGuard g(other);  // s's blocks are not other's to take
    const Tensor y = empty({1 << 16}, f32);
    CHECK(y.storage()->data != first);
  }
  // A tensor made on s, used on other: record_stream holds it until other's work is done.
  Tensor shared;
  {
    StreamGuard g(s);
    shared = full({1 << 20}, 3.0, f32);
  }
  Tensor total;
  {
    StreamGuard g(other);
    Event ready(dev);
    ready.record(s);
    ready.block(other);
    total = sum(shared * 2);
    shared.record_stream(other);
  }
  shared = Tensor();
  {
    StreamGuard g(s);
    const Tensor overwrite = full({1 << 20}, -1.0, f32);  // must not land in the block other still reads
    s.synchronize();
  }
  other.synchronize();
  CHECK(total.to(Device("cpu")).item<double>() == 6.0 * (1 << 20));
  CHECK_THROWS_AS(ones({2}, f32).record_stream(Stream::create(Device("cpu"))), DeviceError);
}

TEST_CASE("on a GPU: small blocks are carved from one segment (the allocator splits)") {
  std::string note;
  if (cuda_devices(&note) == 0) return;
  const Device dev("cuda:0");
  const Stream s = Stream::create(dev);
  StreamGuard g(s);
  const TensorOptions f32 = TensorOptions().dtype(kFloat32).device(dev);
  const Tensor a = empty({1024}, f32), b = empty({1024}, f32);  // 4 KiB each, from one 2 MiB segment
  const auto pa = reinterpret_cast<uintptr_t>(a.storage()->data), pb = reinterpret_cast<uintptr_t>(b.storage()->data);
  CHECK((pa > pb ? pa - pb : pb - pa) == 4096);
}

TEST_CASE("on two GPUs: peer copies (ABI 1.3) after the source's queued work") {
  std::string note;
  if (cuda_devices(&note) < 2) return;
  const Device d0("cuda:0"), d1("cuda:1");
  const Tensor h = arange(0, 1 << 20, 1, TensorOptions().dtype(kFloat32));
  const Stream s = Stream::create(d0);
  Tensor on0;
  {
    StreamGuard g(s);
    on0 = h.to(d0) * 2;  // queued on s
  }
  const Tensor on1 = on0.to(d1);
  CHECK(on1.device() == d1);
  CHECK(max(abs(on1.to(Device("cpu")) - h * 2)).item<double>() == 0.0);
  Tensor back = empty({1 << 20}, TensorOptions().dtype(kFloat32).device(d0));
  back.copy_(on1);
  CHECK(max(abs(back.to(Device("cpu")) - h * 2)).item<double>() == 0.0);
}

TEST_CASE("on a GPU: every sample matches the reference") {
  std::string note;
  if (cuda_devices(&note) == 0) return;
  const auto reports = conformance::run(Device("cuda:0"));
  int failed = 0, passed = 0;
  for (const auto& r : reports) {
    failed += r.failed;
    passed += r.passed;
  }
  const std::string table = conformance::format_report(reports);
  std::cout << table;
  INFO(table);
  CHECK(failed == 0);
  CHECK(passed > 1000);
}

namespace {
uint64_t fallbacks_of(const std::string& op) {
  uint64_t n = 0;
  for (const FallbackCount& f : fallback_stats())
    if (f.op == op && f.device == "cuda") n += f.count;
  return n;
}
Tensor drawn(const char* op, Stack args, uint64_t seed, DType dtype, const Device& device) {
  Generator g(device);
  g.manual_seed(seed);
  args.push_back(g);
  args.push_back(dtype);
  args.push_back(device);
  return call_op(op, std::move(args))[0].tensor().to(Device("cpu"));
}
double max_abs_diff(const Tensor& a, const Tensor& b) {
  return amax(abs(sub(a.to(kFloat64), b.to(kFloat64)))).item<double>();
}
}  // namespace

TEST_CASE("on a GPU: random ops draw the host's numbers for the same seed, on the GPU") {
  std::string note;
  if (cuda_devices(&note) == 0) return;
  const Device cuda("cuda:0"), cpu("cpu");
  const uint64_t before = fallbacks_of("rand") + fallbacks_of("randn") + fallbacks_of("randint.low");
  for (DType dt : {kFloat32, kFloat64, kFloat16, kBFloat16}) {
    CAPTURE(dtype_name(dt));
    CHECK(max_abs_diff(drawn("rand", {IntList{64, 33}}, 7, dt, cuda), drawn("rand", {IntList{64, 33}}, 7, dt, cpu)) ==
          0.0);  // integer math only: bit-exact
    // Box-Muller uses the device's log/cos: equal up to their last-ulp differences.
    CHECK(max_abs_diff(drawn("randn", {IntList{64, 33}}, 7, dt, cuda), drawn("randn", {IntList{64, 33}}, 7, dt, cpu)) <=
          (dt == kFloat32 || dt == kFloat64 ? 1e-5 : 1e-2));
  }
  CHECK(max_abs_diff(drawn("randint.low", {-5, 1000, IntList{4097}}, 3, kInt64, cuda),
                     drawn("randint.low", {-5, 1000, IntList{4097}}, 3, kInt64, cpu)) == 0.0);
  CHECK(fallbacks_of("rand") + fallbacks_of("randn") + fallbacks_of("randint.low") == before);  // served on the GPU
}

TEST_CASE("on a GPU: scatter checks its indices; deterministic mode sends floating scatter_add to the host") {
  std::string note;
  if (cuda_devices(&note) == 0) return;
  const Device cuda("cuda:0");
  const Tensor self = zeros({3, 4}, TensorOptions().device(cuda));
  const Tensor src = ones({3, 4}, TensorOptions().device(cuda));
  const Tensor bad = full({3, 2}, 4.0, TensorOptions().dtype(kInt64)).to(cuda);
  CHECK_THROWS_WITH_AS((void)scatter_add(self, 1, bad, src), doctest::Contains("index 4 is out of bounds"), IndexError);
  const Tensor index = zeros({3, 2}, TensorOptions().dtype(kInt64)).to(cuda);
  const uint64_t before = fallbacks_of("scatter_add");
  CHECK(sum(scatter_add(self, 1, index, src).to(Device("cpu"))).item<double>() == 6.0);
  CHECK(fallbacks_of("scatter_add") == before);  // atomic adds on the GPU
  use_deterministic_algorithms(true);
  CHECK(sum(scatter_add(self, 1, index, src).to(Device("cpu"))).item<double>() == 6.0);
  CHECK(fallbacks_of("scatter_add") == before + 1);  // declined: the deterministic host fallback ran it
  use_deterministic_algorithms(false);
}

TEST_CASE("on a GPU: index_put_ of one row index is a scatter on the GPU (embedding's gradient)") {
  std::string note;
  if (cuda_devices(&note) == 0) return;
  const Device cuda("cuda:0"), cpu("cpu");
  const TensorOptions i64 = TensorOptions().dtype(kInt64);
  const uint64_t before = fallbacks_of("index_put_");
  // Repeated rows accumulate: rows 1 and 3 receive two and three rows of values.
  int64_t row_data[] = {1, 3, 1, 3, 3, 0};
  const Tensor rows = from_blob(row_data, {6}, i64).to(cuda);
  const Tensor values = arange(0.0, 24.0, 1.0).reshape({6, 4}).to(cuda);
  Tensor acc = zeros({5, 4}, TensorOptions().device(cuda));
  index_put_(acc, {rows}, values, true);
  Tensor want = zeros({5, 4});
  index_put_(want, {rows.to(cpu)}, values.to(cpu), true);
  CHECK(equal(acc.to(cpu), want));
  // Without accumulation the last of repeated indices wins, as on the host;
  // values broadcast over the rows.
  Tensor put = zeros({5, 4}, TensorOptions().device(cuda));
  index_put_(put, {rows}, values, false);
  Tensor want_put = zeros({5, 4});
  index_put_(want_put, {rows.to(cpu)}, values.to(cpu), false);
  CHECK(equal(put.to(cpu), want_put));
  index_put_(put, {rows.reshape({2, 3})}, full({4}, 7.0).to(cuda), false);
  CHECK(sum(eq(put, full({}, 7.0).to(cuda))).item<int64_t>() == 12);
  CHECK(fallbacks_of("index_put_") == before);  // all on the GPU
  // An index out of range is an IndexError naming it; negative indices (which
  // count from the end) and deterministic floating accumulation go to the host.
  CHECK_THROWS_WITH_AS(index_put_(put, {full({2}, 5.0, i64).to(cuda)}, narrow(values, 0, 0, 2), true),
                       doctest::Contains("index 5 is out of bounds"), IndexError);
  index_put_(put, {full({1}, -1.0, i64).to(cuda)}, full({4}, 9.0).to(cuda), false);
  CHECK(sum(eq(narrow(put, 0, 4, 1), full({}, 9.0).to(cuda))).item<int64_t>() == 4);
  CHECK(fallbacks_of("index_put_") == before + 1);
  use_deterministic_algorithms(true);
  index_put_(acc, {rows}, values, true);
  use_deterministic_algorithms(false);
  CHECK(fallbacks_of("index_put_") == before + 2);
  CHECK(equal(acc.to(cpu), add(want, want)));
}

TEST_CASE("on a GPU: linear runs addmm on cuBLAS, the bias added on the GPU") {
  std::string note;
  if (cuda_devices(&note) == 0) return;
  const Device cuda("cuda:0"), cpu("cpu");
  Generator g;
  g.manual_seed(2);
  const Tensor x = call_op("randn", {IntList{5, 7, 16}, g, kFloat32, cpu})[0].tensor();
  const Tensor w = call_op("randn", {IntList{9, 16}, g, kFloat32, cpu})[0].tensor();
  const Tensor b = call_op("randn", {IntList{9}, g, kFloat32, cpu})[0].tensor();
  set_float32_matmul_precision("highest");
  const uint64_t before = fallbacks_of("addmm");
  CHECK(max_abs_diff(linear(x.to(cuda), w.to(cuda), b.to(cuda)).to(cpu), linear(x, w, b)) < 1e-4);
  const Tensor m = x.view({35, 16}), self = call_op("randn", {IntList{35, 1}, g, kFloat32, cpu})[0].tensor();
  CHECK(max_abs_diff(addmm(self.to(cuda), m.to(cuda), w.t().to(cuda), 0.5, -2.0).to(cpu),
                     addmm(self, m, w.t(), 0.5, -2.0)) < 1e-4);
  // beta = 0 ignores self, NaN included, as torch.
  const Tensor nan_self = full({9}, std::nan(""), TensorOptions().device(cuda));
  CHECK(std::isfinite(amax(abs(addmm(nan_self, m.to(cuda), w.t().to(cuda), 0.0))).item<double>()));
  CHECK(fallbacks_of("addmm") == before);
}

TEST_CASE("on a GPU: matmul's batched, broadcast and vector cases and broadcast operands stay on cuBLAS") {
  std::string note;
  if (cuda_devices(&note) == 0) return;
  const Device cuda("cuda:0"), cpu("cpu");
  Generator g;
  g.manual_seed(3);
  auto randn = [&](IntList sizes) { return call_op("randn", {sizes, g, kFloat32, cpu})[0].tensor(); };
  set_float32_matmul_precision("highest");
  const uint64_t before = fallbacks_of("matmul") + fallbacks_of("mm") + fallbacks_of("bmm");
  const std::vector<std::pair<Tensor, Tensor>> cases = {
      {randn({2, 5, 7, 3}), randn({2, 5, 3, 4})},         // 4-D batches (attention scores)
      {randn({3, 6, 8}), randn({8, 5})},                  // batch folded into the rows (linear's backward)
      {randn({3, 6, 8}).transpose(1, 2), randn({6, 5})},  // rows that do not fold: batched
      {randn({4, 1, 6, 8}), randn({3, 8, 2})},            // broadcast batch dims
      {randn({8}), randn({2, 8, 3})},                     // vector @ batch
      {randn({2, 3, 8}), randn({8})},                     // batch @ vector
      {randn({5, 6}).transpose(0, 1), randn({5, 1}).expand({5, 4})},
  };
  for (const auto& [a, b] : cases) {
    INFO(shape_string(a.sizes()), " @ ", shape_string(b.sizes()));
    CHECK(max_abs_diff(matmul(a.to(cuda), b.to(cuda)).to(cpu), matmul(a, b)) < 1e-4);
  }
  // The gradient of sum() is a broadcast (stride 0): mm copies it dense on the GPU.
  const Tensor ones_row = ones({1, 10}, TensorOptions().device(cuda)).expand({6, 10});
  const Tensor w = randn({10, 7});
  CHECK(max_abs_diff(mm(ones_row, w.to(cuda)).to(cpu), mm(ones({6, 10}), w)) < 1e-4);
  CHECK(fallbacks_of("matmul") + fallbacks_of("mm") + fallbacks_of("bmm") == before);
}

TEST_CASE("on a GPU: convolution and average pooling run on cuDNN, max pooling on its own kernel") {
  std::string note;
  if (cuda_devices(&note) == 0) return;
  const Device cuda("cuda:0"), cpu("cpu");
  Generator g;
  g.manual_seed(1);
  const Tensor x = call_op("randn", {IntList{2, 8, 17, 17}, g, kFloat32, cpu})[0].tensor();
  const Tensor w = call_op("randn", {IntList{16, 4, 3, 3}, g, kFloat32, cpu})[0].tensor();
  const Tensor b = call_op("randn", {IntList{16}, g, kFloat32, cpu})[0].tensor();
  const uint64_t before = fallbacks_of("convolution") + fallbacks_of("convolution.out") + fallbacks_of("max_pool2d") +
                          fallbacks_of("avg_pool2d") + fallbacks_of("max_pool2d_with_indices");
  set_float32_matmul_precision("highest");
  const Tensor y = conv2d(x.to(cuda), w.to(cuda), b.to(cuda), {2, 1}, {1, 0}, {1, 2}, 2).to(cpu);
  CHECK(max_abs_diff(y, conv2d(x, w, b, {2, 1}, {1, 0}, {1, 2}, 2)) < 1e-4);
  const Tensor xl = x.contiguous(MemoryFormat::ChannelsLast).to(cuda);
  CHECK(max_abs_diff(max_pool2d(xl, {3, 3}, {2, 2}, {1, 1}).to(cpu), max_pool2d(x, {3, 3}, {2, 2}, {1, 1})) == 0.0);
  CHECK(max_abs_diff(avg_pool2d(x.to(cuda), {2, 2}).to(cpu), avg_pool2d(x, {2, 2})) < 1e-6);
  // A window of -inf is -inf, as on the host (cuDNN may start its running max at -FLT_MAX).
  const Tensor ninf = full({1, 1, 4, 4}, -std::numeric_limits<double>::infinity(), TensorOptions().device(cuda));
  CHECK(std::isinf(amax(max_pool2d(ninf, {2, 2})).item<double>()));
  // With indices, dilation, ceil_mode and a channels-last input, as the host computes them.
  const auto [v, i] = max_pool2d_with_indices(xl, {3, 2}, {2, 2}, {1, 0}, {2, 1}, true);
  const auto [hv, hi] = max_pool2d_with_indices(x, {3, 2}, {2, 2}, {1, 0}, {2, 1}, true);
  CHECK(max_abs_diff(v.to(cpu), hv) == 0.0);
  CHECK(max_abs_diff(i.to(cpu), hi) == 0.0);
  CHECK(fallbacks_of("convolution") + fallbacks_of("convolution.out") + fallbacks_of("max_pool2d") +
            fallbacks_of("avg_pool2d") + fallbacks_of("max_pool2d_with_indices") ==
        before);
}

// The plugin whose kernel served the only top-level call `f` makes ("" for a composite).
template <typename F>
std::string served_by(F&& f) {
  CallOutcomeScope scope;
  f();
  const std::vector<CallOutcome> outcomes = scope.take();
  return outcomes.empty() ? "?" : outcomes.back().kind == "kernel" ? outcomes.back().plugin : outcomes.back().kind;
}

TEST_CASE("on a GPU: convolution_backward runs on cuDNN and max pooling's backward on its own kernel") {
  std::string note;
  if (cuda_devices(&note) == 0) return;
  const Device cuda("cuda:0"), cpu("cpu");
  Generator g;
  g.manual_seed(4);
  auto randn = [&](IntList sizes) { return call_op("randn", {sizes, g, kFloat32, cpu})[0].tensor(); };
  set_float32_matmul_precision("highest");
  struct Case {
    IntList x, w, stride, padding, dilation;
    int64_t groups;
    bool channels_last;
  };
  const std::vector<Case> cases = {
      {{2, 4, 9, 9}, {6, 4, 3, 3}, {1}, {1}, {1}, 1, false},
      {{2, 4, 10, 7}, {6, 2, 3, 2}, {2, 1}, {1, 0}, {1, 2}, 2, false},  // strides, dilation, groups
      {{3, 8, 8, 8}, {8, 8, 3, 3}, {2}, {1}, {1}, 1, true},             // channels_last
      {{2, 3, 17}, {5, 3, 4}, {2}, {1}, {1}, 1, false},                 // 1-d
  };
  for (const Case& k : cases) {
    Tensor x = randn(k.x), w = randn(k.w);
    if (k.channels_last) x = x.contiguous(MemoryFormat::ChannelsLast);
    const Tensor y =
        convolution(x, w, std::nullopt, k.stride, k.padding, k.dilation, false, IntList(k.x.size() - 2, 0), k.groups);
    const MemoryFormat format = k.channels_last ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous;
    for (const bool broadcast : {false, true}) {
      // The gradient of sum() is a broadcast (stride 0), which cuDNN takes as a dense copy;
      // otherwise grad_output has the output's layout, as autograd passes it.
      const Tensor gy = broadcast ? ones({1}).expand(y.sizes()) : randn(y.sizes()).contiguous(format);
      for (const IntList& mask : {IntList{1, 1, 1}, IntList{1, 0, 0}, IntList{0, 1, 1}}) {
        INFO(shape_string(k.x), " * ", shape_string(k.w), " mask ", shape_string(mask), broadcast ? " broadcast" : "");
        auto args = [&](const Device& d) {
          return Stack{gy.to(d),        x.to(d),  w.to(d),
                       IntList{k.w[0]}, k.stride, k.padding,
                       k.dilation,      false,    IntList(k.x.size() - 2, 0),
                       k.groups,        mask};
        };
        const Stack host = call_op("convolution_backward", args(cpu));
        Stack dev;
        const std::string by = served_by([&] { dev = call_op("convolution_backward", args(cuda)); });
        // channels_last: with the gradients allocated NCHW cuDNN declined (the H200, session 12);
        // they are now allocated channels_last, which cuDNN should serve: the next GPU run tells.
        // Either way no host fallback.
        if (k.channels_last)
          CHECK((by == "cuda" || by == "composite"));
        else
          CHECK(by == "cuda");
        for (size_t i = 0; i < 3; ++i) {
          REQUIRE(dev[i].tensor().defined() == host[i].tensor().defined());
          if (host[i].tensor().defined())
            CHECK(max_abs_diff(dev[i].tensor().to(cpu), host[i].tensor()) <
                  1e-4 * (1 + amax(abs(host[i].tensor())).item<double>()));
        }
      }
    }
  }
  // Max pooling's backward: overlapping windows (stride < kernel), dilation, padding, ceil_mode, channels_last.
  for (const bool cl : {false, true}) {
    Tensor x = randn({2, 3, 11, 10});
    if (cl) x = x.contiguous(MemoryFormat::ChannelsLast);
    const auto [v, i] = max_pool2d_with_indices(x, {3, 3}, {2, 1}, {1, 1}, {1, 2}, true);
    const Tensor gy = randn(v.sizes());
    auto args = [&](const Device& d) {
      return Stack{gy.to(d), x.to(d), IntList{3, 3}, IntList{2, 1}, IntList{1, 1}, IntList{1, 2}, true, i.to(d)};
    };
    const Tensor host = call_op("max_pool2d_with_indices_backward", args(cpu))[0].tensor();
    Tensor dev;
    CHECK(served_by([&] { dev = call_op("max_pool2d_with_indices_backward", args(cuda))[0].tensor(); }) == "cuda");
    CHECK(max_abs_diff(dev.to(cpu), host) < 1e-5);
  }
  // An index outside its window (not max_pool2d's): the composite adds it where it points, as on the host.
  const Tensor x = randn({1, 1, 4, 4}), gy = randn({1, 1, 2, 2});
  const Tensor odd = full({1, 1, 2, 2}, 15.0, TensorOptions().dtype(kInt64));
  auto args = [&](const Device& d) {
    return Stack{gy.to(d), x.to(d), IntList{2, 2}, IntList{2, 2}, IntList{0, 0}, IntList{1, 1}, false, odd.to(d)};
  };
  CHECK(max_abs_diff(call_op("max_pool2d_with_indices_backward", args(cuda))[0].tensor().to(cpu),
                     call_op("max_pool2d_with_indices_backward", args(cpu))[0].tensor()) < 1e-5);
}

TEST_CASE("on a GPU: softmax's, log_softmax's and layer_norm's backward ops run on the plugin") {
  std::string note;
  if (cuda_devices(&note) == 0) return;
  const Device cuda("cuda:0"), cpu("cpu");
  Generator g;
  g.manual_seed(5);
  auto randn = [&](IntList sizes, DType dt = kFloat32) { return call_op("randn", {sizes, g, dt, cpu})[0].tensor(); };
  for (const char* op : {"_softmax_backward_data", "_log_softmax_backward_data"})
    for (const int64_t dim : {-1, 1}) {
      const Tensor gy = randn({3, 5, 40}), y = softmax(randn({3, 5, 40}), dim);
      auto args = [&](const Device& d) { return Stack{gy.to(d), y.to(d), dim, kFloat32}; };
      Tensor dev;
      INFO(op, " dim ", dim);
      CHECK(served_by([&] { dev = call_op(op, args(cuda))[0].tensor(); }) == "cuda");
      CHECK(max_abs_diff(dev.to(cpu), call_op(op, args(cpu))[0].tensor()) < 1e-5);
    }
  for (const DType dt : {kFloat32, kFloat64}) {
    const Tensor x = randn({6, 7, 96}, dt), gy = randn({6, 7, 96}, dt), w = randn({96}, dt), b = randn({96}, dt);
    for (const IntList& mask : {IntList{1, 1, 1}, IntList{1, 0, 0}, IntList{0, 1, 1}}) {
      auto args = [&](const Device& d) {
        return Stack{gy.to(d), x.to(d), IntList{96}, Value(), Value(), w.to(d), b.to(d), mask, 1e-5};
      };
      Stack dev;
      INFO(dtype_name(dt), " mask ", shape_string(mask));
      CHECK(served_by([&] { dev = call_op("native_layer_norm_backward", args(cuda)); }) == "cuda");
      const Stack host = call_op("native_layer_norm_backward", args(cpu));
      for (size_t i = 0; i < 3; ++i) {
        REQUIRE(dev[i].tensor().defined() == host[i].tensor().defined());
        if (host[i].tensor().defined()) CHECK(max_abs_diff(dev[i].tensor().to(cpu), host[i].tensor()) < 1e-4);
      }
    }
  }
}
