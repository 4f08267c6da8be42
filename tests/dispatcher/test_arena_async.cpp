// The arena test device in asynchronous mode (tests/plugins/arena/async.json:
// plugins.arena.options.async with a 2 ms kernel_delay_us): kernels return once
// their work is queued on the call's stream (the device's default queue for the
// null stream), so results are right only if the null stream's semantics hold
// for the core: a null-stream copy waits for the queued kernels, synchronize
// waits for every queue, events order the default queue with other streams,
// and memory freed while kernels are queued outlives them.
// Run with AXLE_PLUGIN_PATH = the arena plugin folder and AXLE_CONFIG = async.json.
#include <axle/axle.h>

#include <doctest/doctest.h>

#include <dlfcn.h>
#include <chrono>
#include <future>
#include <string>
#include <vector>

using namespace axle;

namespace {
const TensorOptions kArena = TensorOptions().device("arena");
constexpr double kDelay = 0.002;  // async.json's kernel_delay_us, in seconds

std::vector<double> values(const Tensor& t) {
  Tensor h = t.to(Device("cpu"), kFloat64).contiguous();
  return std::vector<double>(h.data_ptr<double>(), h.data_ptr<double>() + h.numel());
}
double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}
// The arena plugin's exported test hook `name` (the plugin is loaded by then).
template <typename F>
F* arena_hook(const char* name) {
  void* h = dlopen((std::string(AXLE_TEST_ARENA_DIR) + "/axle_arena.so").c_str(), RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(h != nullptr);
  void* f = dlsym(h, name);
  REQUIRE(f != nullptr);
  return reinterpret_cast<F*>(f);
}
}  // namespace

TEST_CASE("async arena: kernels return once queued; synchronize waits for their work") {
  const Device dev("arena:0");
  const Tensor a = ones({256}, kArena);
  REQUIRE(arena_hook<int()>("arena_async")() == 1);
  synchronize(dev);
  constexpr int kCalls = 10;
  const auto t0 = std::chrono::steady_clock::now();
  Tensor r = a;
  for (int i = 0; i < kCalls; ++i) r = add(r, a);
  const double enqueued = seconds_since(t0);
  synchronize(dev);
  const double done = seconds_since(t0);
  CHECK(done >= kCalls * kDelay);
  CHECK(enqueued < done / 2);  // the calls returned long before their work was done
  CHECK(values(r) == std::vector<double>(256, kCalls + 1.0));
}

TEST_CASE("async arena: add, mul, fill, copies to and from the host are right without a synchronize") {
  const Tensor z = zeros({3, 4}, kArena);  // fill_ kernels, queued
  const Tensor o = ones({3, 4}, kArena);
  const Tensor f = full({3, 4}, 2.5, kArena);
  CHECK(values(z) == std::vector<double>(12, 0.0));  // the null-stream copy waits for the queued fill
  const Tensor host = arange(0, 12, 1, TensorOptions().dtype(kFloat32)).reshape({3, 4});
  const Tensor d = host.to(Device("arena:0"));
  const Tensor sum = add(add(d, o), f, 2.0);  // d + 1 + 2 * 2.5
  const Tensor prod = mul(sum, d);
  std::vector<double> want_sum, want_prod;
  for (int i = 0; i < 12; ++i) {
    want_sum.push_back(i + 6.0);
    want_prod.push_back((i + 6.0) * i);
  }
  CHECK(values(sum) == want_sum);
  CHECK(values(prod) == want_prod);
  // Strided views (copy_ kernel into a dense tensor) and the second device.
  CHECK(values(prod.t().contiguous()) == values(host.t().contiguous() * (host.t().contiguous() + 6.0)));
  const Tensor other = prod.to(Device("arena:1"));
  CHECK(values(add(other, other)) == values(prod * 2.0));
  // A chain of queued kernels whose temporaries are freed while queued.
  Tensor r = o;
  for (int i = 0; i < 20; ++i) r = add(r, o) * 1.0;
  CHECK(values(r) == std::vector<double>(12, 21.0));
  // In-place ops run on the queued results.
  Tensor acc = zeros({4}, kArena);
  for (int i = 0; i < 5; ++i) acc.add_(ones({4}, kArena));
  CHECK(values(acc) == std::vector<double>(4, 5.0));
}

TEST_CASE("async arena: work on a created stream, ordered with the default queue by events") {
  const Device dev("arena:0");
  const int64_t n = 1 << 12;
  const Tensor a = full({n}, 3.0, kArena);
  const Stream s = Stream::create(dev);
  Tensor b;
  {
    StreamGuard guard(s);
    b = a;
    for (int i = 0; i < 5; ++i) b = add(b, a);  // queued on s: 3 * 6
    b.record_stream(s);
  }
  // The default queue waits for s through an event, then uses b.
  Event e(dev);
  e.record(s);
  e.block(Stream::default_stream(dev));
  const Tensor c = mul(b, a);  // 18 * 3, on the default queue
  CHECK(values(c) == std::vector<double>(n, 54.0));
  // A non-blocking copy to the host on s is ordered after s's kernels.
  Tensor back = empty({n});
  {
    StreamGuard guard(s);
    const Tensor d = add(b, b);  // 36
    back.copy_(d, /*non_blocking=*/true);
  }
  s.synchronize();
  CHECK(std::vector<float>(back.data_ptr<float>(), back.data_ptr<float>() + n) == std::vector<float>(n, 36.0f));
  // An upload queued on s, used by a kernel on s, read back on the null stream.
  Tensor up;
  {
    StreamGuard guard(s);
    up = full({n}, 7.0).to(dev, /*non_blocking=*/true);
    up = add(up, up);
  }
  synchronize(dev);
  CHECK(values(up) == std::vector<double>(n, 14.0));
}

TEST_CASE("async arena: x * 2.0 is queued without waiting for the queue: the scalar goes by value, not uploaded") {
  const Device dev("arena:0");
  const Tensor x = full({64}, 3.0, kArena);
  synchronize(dev);
  auto hold = arena_hook<void(int)>("arena_hold_streams");
  hold(1);  // queued work waits: a blocking upload of 2.0 (ordered after it) could not return
  const Tensor queued = add(x, x);
  auto scalar_op = std::async(std::launch::async, [&] { return queued * 2.0; });
  const bool returned = scalar_op.wait_for(std::chrono::seconds(2)) == std::future_status::ready;
  hold(0);
  CHECK(returned);
  const Tensor y = scalar_op.get();
  CHECK(values(y) == std::vector<double>(64, 12.0));
}
