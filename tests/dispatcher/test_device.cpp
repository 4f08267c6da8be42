// The in-tree "arena" test device (memory in a separate arena; host pointers are
// never device pointers) through ABI 1.0: copies, streams, events, declines,
// host fallback with its write-back contract, policy and counters.
// Run with AXLE_PLUGIN_PATH = the arena plugin folder.
#include <axle/axle.h>

#include <doctest/doctest.h>

#include <dlfcn.h>
#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

using namespace axle;

namespace {
const TensorOptions kArena = TensorOptions().device("arena");
uint64_t fallback_count(const std::string& op) {
  for (const auto& f : fallback_stats())
    if (f.op == op && f.device == "arena") return f.count;
  return 0;
}
std::vector<double> values(const Tensor& t) {
  Tensor h = t.to(Device("cpu"), kFloat64).contiguous();
  return std::vector<double>(h.data_ptr<double>(), h.data_ptr<double>() + h.numel());
}
}  // namespace

TEST_CASE("arena tensors are created, computed and copied through the plugin") {
  const Tensor a = ones({2, 3}, kArena);
  CHECK(a.device() == Device("arena:0"));
  CHECK_THROWS_AS(a.data_ptr<float>(), DeviceError);  // not host-addressable
  const Tensor b = a + 1;                             // the CPU scalar joins the arena tensor
  CHECK(b.device() == Device("arena:0"));
  CHECK(values(b) == std::vector<double>(6, 2.0));
  CHECK(values(a * b) == std::vector<double>(6, 2.0));
  const Tensor host = arange(0, 6, 1, TensorOptions().dtype(kFloat32)).reshape({2, 3});
  const Tensor dev = host.to(Device("arena:1"));
  CHECK(dev.device() == Device("arena:1"));
  CHECK(values(dev) == values(host));
  CHECK(values(dev.to(Device("arena:0"))) == values(host));         // device to device
  CHECK(values(host.t().to(Device("arena"))) == values(host.t()));  // non-contiguous source
  CHECK(b.select(0, 1).select(0, 2).item<float>() == 2.0f);
  CHECK(sum(ones({1}, kArena)).item<double>() == 1.0);
  CHECK_THROWS_AS(ones({2}, TensorOptions().device("arena:7")), DeviceError);
  CHECK_THROWS_AS(ones({2}) + ones({2}, kArena), DeviceError);
}

TEST_CASE("declined and missing kernels run through the host fallback and are counted") {
  const Tensor d = ones({4}, TensorOptions().dtype(kFloat64).device("arena"));
  const uint64_t add_before = fallback_count("add.Tensor");
  const Tensor s = d + d;  // the arena kernel declines float64
  CHECK(s.device() == Device("arena:0"));
  CHECK(values(s) == std::vector<double>(4, 2.0));
  CHECK(fallback_count("add.Tensor") == add_before + 1);

  const uint64_t exp_before = fallback_count("exp");
  const Tensor e = axle::exp(zeros({3}, kArena));  // no arena kernel at all
  CHECK(e.device() == Device("arena:0"));
  CHECK(values(e) == std::vector<double>(3, 1.0));
  CHECK(fallback_count("exp") == exp_before + 1);

  Tensor t = full({2, 2}, 6.0, kArena);  // in-place through the fallback writes back
  Tensor view = t.select(0, 1);
  call_op("div_.Tensor", {view, full({2}, 2.0, kArena)});
  CHECK(values(t) == std::vector<double>{6, 6, 3, 3});

  const Tensor nz = nonzero(arange(0, 4, 1, kArena.dtype(kInt64)));  // data-dependent output via fallback
  CHECK(nz.device() == Device("arena:0"));
  CHECK(values(nz) == std::vector<double>{1, 2, 3});
  const Tensor mm = matmul(ones({2, 3}, kArena), ones({3, 2}, kArena));
  CHECK(values(mm) == std::vector<double>(4, 3.0));
}

TEST_CASE("fallback policy 'error' raises NotImplementedError naming op and device") {
  Config strict;
  strict.fallback_by_device["arena"] = FallbackPolicy::Error;
  configure(strict);
  try {
    (void)axle::exp(ones({2}, kArena));
    FAIL("expected NotImplementedError");
  } catch (const NotImplementedError& e) {
    const std::string msg = e.what();
    CHECK(msg.find("'exp'") != std::string::npos);
    CHECK(msg.find("arena") != std::string::npos);
    CHECK(msg.find("cpu") != std::string::npos);  // where kernels do exist
  }
  Config relaxed;
  relaxed.fallback_by_device["arena"] = FallbackPolicy::Silent;
  configure(relaxed);
  CHECK(values(axle::exp(zeros({1}, kArena))) == std::vector<double>{1.0});
}

TEST_CASE("fallback.ops: a per-operator policy overrides the device's; fallback.target is checked") {
  Config per_op;
  per_op.fallback_by_op["exp"] = FallbackPolicy::Error;  // by base name
  configure(per_op);
  CHECK(effective_config().fallback_by_op.at("exp") == FallbackPolicy::Error);  // the layer holds it...
  CHECK_THROWS_WITH_AS((void)axle::exp(ones({2}, kArena)), doctest::Contains("policy for it on 'arena' is 'error'"),
                       NotImplementedError);
  CHECK(values(axle::sin(zeros({1}, kArena))) == std::vector<double>{0.0});  // other ops still fall back
  per_op.fallback_by_op["exp"] = FallbackPolicy::Silent;
  configure(per_op);
  CHECK(values(axle::exp(zeros({1}, kArena))) == std::vector<double>{1.0});
  Config bad_target;
  bad_target.fallback_target = "arena";
  configure(bad_target);
  CHECK_THROWS_WITH_AS((void)axle::exp(ones({2}, kArena)), doctest::Contains("fallback.target 'arena:0'"), ConfigError);
  // A target that lacks the op too: the op is missing (NotImplementedError), not a config mistake.
  bad_target.fallback_target = "arena2";
  configure(bad_target);
  CHECK_THROWS_WITH_AS((void)axle::exp(ones({2}, kArena)),
                       doctest::Contains("'exp' has no kernel (not even on the fallback target) for device 'arena2"),
                       NotImplementedError);
  bad_target.fallback_target = "cpu";
  configure(bad_target);
  CHECK(values(axle::exp(zeros({1}, kArena))) == std::vector<double>{1.0});
}

TEST_CASE("streams, events, async copies and allocator statistics") {
  DeviceRuntime& rt = device_runtime(DeviceType("arena"));
  CHECK(rt.device_count() == 2);
  CHECK_FALSE(rt.host_accessible());
  const size_t n = 1 << 16;
  std::vector<float> src(n), dst(n, -1.0f);
  for (size_t i = 0; i < n; ++i) src[i] = static_cast<float>(i);
  void* dev = rt.allocate(0, n * sizeof(float), nullptr);
  void* stream = rt.stream_create(0);
  void* event = rt.event_create(0);
  rt.copy(CopyKind::HostToDevice, 0, dev, src.data(), n * sizeof(float), stream);
  rt.event_record(0, event, stream);
  rt.event_synchronize(0, event);
  void* stream2 = rt.stream_create(0);
  rt.stream_wait_event(0, stream2, event);
  rt.copy(CopyKind::DeviceToHost, 0, dst.data(), dev, n * sizeof(float), stream2);
  rt.stream_synchronize(0, stream2);
  CHECK(std::memcmp(src.data(), dst.data(), n * sizeof(float)) == 0);
  const AllocatorStats st = rt.stats(0);
  CHECK(st.allocated_bytes >= n * sizeof(float));
  CHECK(st.num_allocs >= 1);
  rt.event_destroy(0, event);
  rt.stream_destroy(0, stream);
  rt.stream_destroy(0, stream2);
  rt.deallocate(0, dev, n * sizeof(float));
  rt.synchronize(0);
  CHECK(rt.stats(0).num_frees >= 1);
  // A host pointer is not a device pointer: the plugin rejects it with a typed error.
  CHECK_THROWS_AS(rt.copy(CopyKind::DeviceToHost, 0, dst.data(), src.data(), 16, nullptr), DeviceError);
}

TEST_CASE("streams: the current stream reaches kernels; non_blocking copies are stream-ordered and keep memory alive") {
  const Device arena("arena:0");
  void* h = dlopen((std::string(AXLE_TEST_ARENA_DIR) + "/axle_arena.so").c_str(), RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(h != nullptr);
  auto stream_calls = reinterpret_cast<int64_t (*)()>(dlsym(h, "arena_stream_kernel_calls"));
  REQUIRE(reinterpret_cast<void*>(stream_calls) != nullptr);
  const int64_t n = 1 << 16;
  const Tensor a = ones({n}, kArena);
  CHECK(current_stream(arena).is_default());
  const int64_t before = stream_calls();
  {
    const Stream s = Stream::create(arena);
    CHECK(!s.is_default());
    StreamGuard guard(s);
    CHECK(current_stream(arena) == s);
    CHECK(current_stream(Device("arena:1")).is_default());  // per device
    const Tensor b = add(a, a);
    CHECK(stream_calls() > before);  // the kernel was called on s
    Tensor dev;
    {
      const Tensor host = full({n}, 3.0);
      dev = host.to(arena, /*non_blocking=*/true);  // enqueued on s; `host` goes away at once
    }
    Tensor back = empty({n});
    back.copy_(b, /*non_blocking=*/true);
    s.synchronize();
    CHECK(values(dev) == std::vector<double>(n, 3.0));
    CHECK(std::vector<float>(back.data_ptr<float>(), back.data_ptr<float>() + n) == std::vector<float>(n, 2.0f));
    // A blocking copy is ordered after the stream's queued work: no synchronize here.
    Tensor dev2;
    {
      const Tensor host = full({n}, 5.0);
      dev2 = host.to(arena, /*non_blocking=*/true);  // queued on s
    }
    CHECK(values(dev2.cpu()) == std::vector<double>(n, 5.0));  // .cpu() waits for the upload
    // The source of a queued upload outlives its handle: with the stream held
    // back, a new host tensor of the same size (the host allocator's cache
    // would hand it a block freed too early) is written before the copy runs.
    auto hold = reinterpret_cast<void (*)(int)>(dlsym(h, "arena_hold_streams"));
    REQUIRE(reinterpret_cast<void*>(hold) != nullptr);
    Tensor dev3;
    hold(1);
    {
      const Tensor host = full({n}, 4.0);
      dev3 = host.to(arena, /*non_blocking=*/true);
    }
    const Tensor reuse = full({n}, 9.0);
    hold(0);
    s.synchronize();
    CHECK(values(dev3) == std::vector<double>(n, 4.0));
    CHECK(values(add(dev2, dev2).cpu()) == std::vector<double>(n, 10.0));
    // Events order one stream after another.
    const Stream s2 = Stream::create(arena);
    Event e(arena);
    e.record(s);
    e.block(s2);
    e.synchronize();
  }
  CHECK(current_stream(arena).is_default());
  const int64_t after = stream_calls();
  (void)add(a, a);  // the default stream again: no stream passed
  CHECK(stream_calls() == after);
  synchronize(arena);
  Event other(Device("arena:1"));
  CHECK_THROWS_AS(other.record(Stream::default_stream(arena)), DeviceError);
  CHECK_THROWS_AS(Stream::create(Device("arena:7")), DeviceError);
}

TEST_CASE("pinned host memory (ABI 1.1): allocated and freed through the device type's runtime") {
  void* h = dlopen((std::string(AXLE_TEST_ARENA_DIR) + "/axle_arena.so").c_str(), RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(h != nullptr);
  auto live = reinterpret_cast<int64_t (*)()>(dlsym(h, "arena_pinned_live"));
  REQUIRE(reinterpret_cast<void*>(live) != nullptr);
  const int64_t before = live();
  {
    const Tensor t = arange(0, 6, 1).view({2, 3}).t();  // strided: copied dense
    CHECK(!t.is_pinned());
    const Tensor p = t.pin_memory();  // the only device type with pinned memory here: arena
    CHECK(p.is_pinned());
    CHECK(p.device().is_cpu());
    CHECK(p.is_contiguous());
    CHECK(live() == before + 1);
    CHECK(values(p) == values(t));
    CHECK(p.pin_memory().is_same(p));  // already pinned
    // An asynchronous upload from pinned memory, ordered on a stream.
    const Stream s = Stream::create(Device("arena:0"));
    StreamGuard guard(s);
    const Tensor d = p.to(Device("arena:0"), /*non_blocking=*/true);
    s.synchronize();
    CHECK(values(d) == values(t));
  }
  CHECK(live() == before);                                       // freed through host_free when the last handle went
  CHECK_THROWS_AS(ones({2}, kArena).pin_memory(), DeviceError);  // device tensors cannot be pinned
  CHECK_THROWS_AS(ones({2}).pin_memory(std::string("cpu")), NotImplementedError);  // the host runtime has none
}

TEST_CASE("stream-ordered allocation (ABI 1.2): outputs are allocated on the current stream; record_stream") {
  const Device arena("arena:0");
  const Tensor warm = ones({4}, kArena);  // loads the plugin
  void* h = dlopen((std::string(AXLE_TEST_ARENA_DIR) + "/axle_arena.so").c_str(), RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(h != nullptr);
  auto streams_of = reinterpret_cast<int (*)(const void*, void**)>(dlsym(h, "arena_allocation_streams"));
  REQUIRE(reinterpret_cast<void*>(streams_of) != nullptr);
  void* stream = reinterpret_cast<void*>(1);

  CHECK(streams_of(warm.storage()->data, &stream) == 0);
  CHECK(stream == nullptr);  // the default stream
  const Stream s = Stream::create(arena);
  const Stream other = Stream::create(arena);
  Tensor made_on_s;
  {
    StreamGuard guard(s);
    made_on_s = warm + 1;  // the kernel's output
    const Tensor empty_on_s = empty({3}, kArena);
    CHECK(streams_of(empty_on_s.storage()->data, &stream) == 0);
    CHECK(stream == s.handle());
    // Only the current stream of the output's device counts.
    const Tensor on_one = ones({2}, TensorOptions().device("arena:1"));
    CHECK(streams_of(on_one.storage()->data, &stream) == 0);
    CHECK(stream == nullptr);
  }
  CHECK(streams_of(made_on_s.storage()->data, &stream) == 0);
  CHECK(stream == s.handle());
  CHECK(values(made_on_s) == std::vector<double>(4, 2.0));

  made_on_s.record_stream(other);
  CHECK(streams_of(made_on_s.storage()->data, &stream) == 1);
  made_on_s.slice(0, 1, 3).record_stream(other);  // a view records its storage
  CHECK(streams_of(made_on_s.storage()->data, &stream) == 2);
  const Stream on_one = Stream::create(Device("arena:1"));
  CHECK_THROWS_WITH_AS(made_on_s.record_stream(on_one), doctest::Contains("arena:1"), DeviceError);
  CHECK_THROWS_AS(Tensor().record_stream(other), ValueError);

  // A runtime without stream-ordered allocation (arena2, a 1.1-style table):
  // plain allocate, and record_stream is a no-op.
  const Tensor plain = empty({2}, TensorOptions().device("arena2"));
  CHECK(streams_of(plain.storage()->data, &stream) == 0);
  CHECK(stream == nullptr);
  CHECK_NOTHROW(plain.record_stream(Stream::create(Device("arena2:0"))));
  // Memory the allocator did not hand out (wrapped) is not its business.
  float host[2] = {1, 2};
  const Tensor wrapped = from_blob(host, {2}, TensorOptions().dtype(kFloat32));
  CHECK_NOTHROW(wrapped.record_stream(Stream::default_stream(Device("cpu"))));
}

TEST_CASE("memory_stats and empty_cache: the device allocator's figures through the API") {
  const Device dev("arena:1");
  const AllocatorStats before = memory_stats(dev);
  {
    const Tensor t = empty({1024}, TensorOptions().dtype(kFloat32).device(dev));
    const AllocatorStats during = memory_stats(dev);
    CHECK(during.allocated_bytes >= before.allocated_bytes + 4096);
    CHECK(during.peak_allocated_bytes >= during.allocated_bytes);
    CHECK(during.num_allocs == before.num_allocs + 1);
  }
  const AllocatorStats after = memory_stats(dev);
  CHECK(after.allocated_bytes == before.allocated_bytes);
  CHECK(after.num_frees == before.num_frees + 1);
  empty_cache(dev);
  const Tensor host = empty({4096});  // the host allocator keeps its own figures
  CHECK(memory_stats(Device("cpu")).allocated_bytes >= 4096 * sizeof(float));
  CHECK_THROWS_WITH_AS(memory_stats(Device("arena:7")), doctest::Contains("arena:7"), DeviceError);
  CHECK_THROWS_AS(empty_cache(Device("arena:7")), DeviceError);
}

TEST_CASE("host allocator: large blocks are cached, start at staggered cache lines, and are released") {
  const Device cpu("cpu");
  empty_cache(cpu);
  const AllocatorStats before = memory_stats(cpu);
  const int64_t n = (int64_t{3} << 20) / 4;  // 3 MiB of float32: a large block
  std::vector<uintptr_t> addrs;
  {
    std::vector<Tensor> live;
    for (int i = 0; i < 4; ++i) {
      live.push_back(full({n}, static_cast<double>(i)));
      addrs.push_back(reinterpret_cast<uintptr_t>(live.back().data_ptr()));
    }
    for (int i = 0; i < 4; ++i) {
      CHECK(addrs[i] % 64 == 0);                                               // vector loads stay aligned
      CHECK(values(live[i].slice(0, n - 2, n)) == std::vector<double>(2, i));  // the block's whole length is usable
    }
    // Consecutive new blocks never share an offset within a 4 KiB page (the
    // false store-to-load aliasing that made a softmax 1.45x slower).
    for (int i = 1; i < 4; ++i) CHECK(addrs[i] % 4096 != addrs[i - 1] % 4096);
    CHECK(memory_stats(cpu).reserved_bytes >= before.reserved_bytes + 4 * (uint64_t{4} << 20));
  }
  // Freed blocks are cached with their offsets: the next one of that size reuses one.
  const Tensor again = empty({n});
  const auto p = reinterpret_cast<uintptr_t>(again.data_ptr());
  CHECK(std::find(addrs.begin(), addrs.end(), p) != addrs.end());
  empty_cache(cpu);  // frees the cached mappings (a wrong base pointer fails under ASan)
  CHECK(memory_stats(cpu).reserved_bytes < before.reserved_bytes + 2 * (uint64_t{4} << 20));
}

TEST_CASE("peer copies (ABI 1.3): arena:0 -> arena:1 without the host, after the source's queued work") {
  // (copy_ between arena devices: dense pairs are one peer copy; the rest uses
  // arena's copy_ kernel on the devices around one peer copy.)
  void* h = dlopen((std::string(AXLE_TEST_ARENA_DIR) + "/axle_arena.so").c_str(), RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(h != nullptr);
  auto peer_copies = reinterpret_cast<int64_t (*)()>(dlsym(h, "arena_peer_copies"));
  auto hold = reinterpret_cast<void (*)(int)>(dlsym(h, "arena_hold_streams"));
  REQUIRE(reinterpret_cast<void*>(peer_copies) != nullptr);
  REQUIRE(reinterpret_cast<void*>(hold) != nullptr);
  const Device d0("arena:0"), d1("arena:1");
  CHECK(device_runtime(d0.type()).supports_peer_copy());
  CHECK_FALSE(device_runtime(Device("arena2:0").type()).supports_peer_copy());
  const int64_t n = 1 << 12;
  const Tensor src = arange(0, n, 1).to(kFloat32).to(d0);
  int64_t before = peer_copies();
  const Tensor moved = src.to(d1);
  CHECK(moved.device() == d1);
  CHECK(peer_copies() == before + 1);
  CHECK(values(moved) == values(src));
  // copy_ into an existing tensor on the other device, and back.
  Tensor back = empty({n}, TensorOptions().dtype(kFloat32).device(d0));
  back.copy_(moved * 2.0);
  CHECK(peer_copies() == before + 2);
  CHECK(values(back) == values(src * 2.0));
  // Ordered after the source device's queued work: an upload queued on
  // arena:0's current stream (held back) lands before the peer copy reads it.
  {
    const Stream s = Stream::create(d0);
    StreamGuard guard(s);
    Tensor staged = empty({n}, TensorOptions().dtype(kFloat32).device(d0));
    hold(1);
    staged.copy_(full({n}, 6.0).to(kFloat32), /*non_blocking=*/true);
    std::thread release([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      hold(0);
    });
    const Tensor there = staged.to(d1);  // waits for s, which waits for the release
    release.join();
    CHECK(values(there) == std::vector<double>(n, 6.0));
  }
  // Not dense: arena's copy_ kernel does the rest on the devices, one peer
  // copy moves the bytes (a strided source made dense on arena:0, a
  // conversion, a broadcast source, a strided destination on arena:1).
  before = peer_copies();
  const Tensor strided = src.view({64, 64}).t().to(d1);
  CHECK(strided.is_contiguous());
  CHECK(values(strided) == values(src.view({64, 64}).t().contiguous()));
  const Tensor as_double = src.to(d1, kFloat64);
  CHECK(as_double.dtype() == kFloat64);
  CHECK(values(as_double) == values(src));
  Tensor grid = empty({64, 64}, TensorOptions().dtype(kFloat32).device(d1));
  grid.copy_(src.slice(0, 0, 64));  // a row broadcast over 64 rows
  CHECK(values(grid) == values(src.slice(0, 0, 64).expand({64, 64}).contiguous()));
  Tensor wide = zeros({64, 128}, TensorOptions().dtype(kFloat32).device(d1));
  Tensor every_other = wide.slice(1, 0, 128, 2);  // a strided destination
  every_other.copy_(src.view({64, 64}));
  CHECK(values(every_other) == values(src.view({64, 64})));
  CHECK(values(wide.slice(1, 1, 128, 2)) == std::vector<double>(64 * 64, 0.0));
  CHECK(peer_copies() == before + 4);
  // arena2 has no copy_peer: the host stages, with the same result.
  const Tensor on2 = src.cpu().to(Device("arena2:0"));
  CHECK(values(on2.to(Device("arena2:1"))) == values(src));
  // Zero bytes: nothing to copy, no error.
  CHECK(empty({0}, TensorOptions().device(d0)).to(d1).numel() == 0);
}
