// The "arena" test device: two devices whose memory lives in a private arena.
// Device pointers are fake addresses the host must never dereference; the
// plugin translates them (and rejects addresses outside live allocations).
// Streams are worker threads, so stream-ordered copies really are asynchronous.
// Kernels: fill_, copy_, add (declines float64), mul (reads host scalars by
// value, ABI 1.4). Everything else reaches it
// through the core's host fallback.
//
// Options (configuration `plugins.arena.options.<key>`, read at registration):
//   async            true: a GPU-like device. Every kernel is queued on its
//                    stream and returns at once; the null stream has one
//                    default queue per device ordered with the created
//                    streams as CUDA's legacy default stream is with blocking
//                    streams, and a null-stream copy waits for every queue of
//                    the device first. Default false: kernels run on the
//                    calling thread after the work queued on their stream.
//   kernel_delay_us  every kernel takes at least this long (either mode), so
//                    a test tells an enqueue rate from the work's.
#include <axle/plugin/helpers.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace {

using namespace axle::plugin;

constexpr int kDevices = 2;
constexpr uint64_t kBase = 0xA1E0000000000000ull;

struct Allocation {
  std::unique_ptr<std::byte[]> bytes;
  size_t size;
  void* stream = nullptr;   // allocate_on_stream's stream (ABI 1.2)
  std::vector<void*> uses;  // record_stream's streams
  bool freed = false;       // deallocated, released once its stream's work is done
};

struct Device {
  std::mutex mutex;
  uint64_t next = 0x1000;
  std::map<uint64_t, Allocation> allocations;  // device address -> memory
  axle_allocator_stats stats{sizeof(axle_allocator_stats), 0, 0, 0, 0, 0};
};
Device g_devices[kDevices];
thread_local std::string t_error;

axle_status error(axle_status s, std::string msg) {
  t_error = std::move(msg);
  return s;
}

// Translates [addr, addr + n) to host memory, or nullptr.
std::byte* translate(int index, const void* addr, size_t n) {
  Device& d = g_devices[index];
  const uint64_t a = reinterpret_cast<uint64_t>(addr);
  std::lock_guard lock(d.mutex);
  auto it = d.allocations.upper_bound(a);
  if (it == d.allocations.begin()) return nullptr;
  --it;
  const uint64_t off = a - it->first;
  if (a < it->first || off + n > std::max<size_t>(it->second.size, 1) || it->second.freed) return nullptr;
  return it->second.bytes.get() + off;
}

// ---------------------------------------------------------------- streams
// arena_hold_streams(1) keeps every stream's queued work from starting until
// arena_hold_streams(0): a test can then act while an asynchronous copy is
// certainly still queued (nothing may synchronize a stream meanwhile).
std::mutex g_hold_mutex;
std::condition_variable g_hold_cv;
bool g_hold = false;

void wait_while_held() {
  std::unique_lock lock(g_hold_mutex);
  g_hold_cv.wait(lock, [] { return !g_hold; });
}

struct Stream {
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<std::function<void()>> queue;
  bool busy = false, stop = false;
  uint64_t enqueued = 0, completed = 0;  // jobs so far: ticket n is done once completed >= n
  std::thread worker;
  Stream() : worker([this] { run(); }) {}
  ~Stream() {
    {
      std::lock_guard lock(mutex);
      stop = true;
    }
    cv.notify_all();
    worker.join();
  }
  void run() {
    std::unique_lock lock(mutex);
    for (;;) {
      cv.wait(lock, [&] { return stop || !queue.empty(); });
      if (queue.empty()) return;
      auto job = std::move(queue.front());
      queue.pop_front();
      busy = true;
      lock.unlock();
      wait_while_held();
      job();
      lock.lock();
      busy = false;
      ++completed;
      cv.notify_all();
    }
  }
  void enqueue(std::function<void()> job) {
    {
      std::lock_guard lock(mutex);
      queue.push_back(std::move(job));
      ++enqueued;
    }
    cv.notify_all();
  }
  uint64_t ticket() {
    std::lock_guard lock(mutex);
    return enqueued;
  }
  void wait_for(uint64_t ticket) {
    std::unique_lock lock(mutex);
    cv.wait(lock, [&] { return completed >= ticket; });
  }
  void drain() {
    std::unique_lock lock(mutex);
    cv.wait(lock, [&] { return queue.empty() && !busy; });
  }
};

// An event handle is a heap box holding a shared state: work queued on a stream
// (marks, waits) holds the state too, so destroying the handle while a stream
// still waits on it is safe, as cudaEventDestroy is.
struct Event {
  std::mutex mutex;
  std::condition_variable cv;
  uint64_t recorded = 0, completed = 0;
  void wait() {
    std::unique_lock lock(mutex);
    cv.wait(lock, [&] { return completed >= recorded; });
  }
};

std::mutex g_streams_mutex;
std::vector<Stream*> g_streams[kDevices];

// Asynchronous mode (the `async` option): the null stream's work goes on a
// per-device default queue, created at registration.
bool g_async = false;
int64_t g_kernel_delay_us = 0;
Stream* g_default_queues[kDevices] = {};

// Waits for everything queued on device `index`: its default queue and streams.
void drain_device(int index) {
  if (Stream* q = g_default_queues[index]) q->drain();
  std::lock_guard lock(g_streams_mutex);
  for (Stream* s : g_streams[index]) s->drain();
}
// Where null-stream work goes: the default queue in asynchronous mode, else
// nowhere (nullptr: it runs now).
Stream* null_stream_queue(int index) { return g_async ? g_default_queues[index] : nullptr; }

// Queues `job` on `q`, a queue of device `index`. Asynchronous mode orders the
// created streams with the default queue as CUDA's legacy default stream does
// with blocking streams (the CUDA plugin's kind): work on a created stream
// starts after the default queue's work queued before it, and default-queue
// work after every stream's work queued before it.
void enqueue_on(int index, Stream* q, std::function<void()> job) {
  if (!g_async) {
    q->enqueue(std::move(job));
    return;
  }
  std::vector<std::pair<Stream*, uint64_t>> after;
  if (q == g_default_queues[index]) {
    std::lock_guard lock(g_streams_mutex);
    for (Stream* s : g_streams[index]) after.emplace_back(s, s->ticket());
  } else {
    after.emplace_back(g_default_queues[index], g_default_queues[index]->ticket());
  }
  q->enqueue([after = std::move(after), job = std::move(job)] {
    for (const auto& [s, ticket] : after) s->wait_for(ticket);
    job();
  });
}

axle_status check(int32_t index) {
  return index >= 0 && index < kDevices ? AXLE_OK : error(AXLE_ERROR_DEVICE, "arena has devices 0 and 1");
}

axle_status device_count(void*, int32_t* n) {
  *n = kDevices;
  return AXLE_OK;
}
axle_status properties(void*, int32_t index, axle_device_properties* p) {
  if (axle_status s = check(index)) return s;
  std::snprintf(p->name, sizeof p->name, "arena test device %d", index);
  p->total_memory = 1ull << 30;
  p->host_accessible = 0;
  return AXLE_OK;
}
axle_status allocate(void*, int32_t index, size_t nbytes, void** ptr) {
  if (axle_status s = check(index)) return s;
  if (nbytes > (1ull << 30)) return error(AXLE_ERROR_OUT_OF_MEMORY, "arena: allocation larger than 1 GiB");
  Device& d = g_devices[index];
  std::lock_guard lock(d.mutex);
  const uint64_t addr = kBase + (static_cast<uint64_t>(index) << 40) + d.next;
  d.next += (nbytes + 64 + 63) & ~63ull;  // a gap between allocations catches overruns
  d.allocations[addr] = {std::make_unique<std::byte[]>(std::max<size_t>(nbytes, 1)), nbytes, nullptr, {}, false};
  d.stats.allocated_bytes += nbytes;
  d.stats.reserved_bytes += nbytes;
  d.stats.peak_allocated_bytes = std::max(d.stats.peak_allocated_bytes, d.stats.allocated_bytes);
  ++d.stats.num_allocs;
  *ptr = reinterpret_cast<void*>(addr);
  return AXLE_OK;
}
// ABI 1.2: the arena hands out fresh memory either way; it remembers the
// stream and the recorded uses (tests read them), and releases memory freed
// while work may still use it in stream order, as cudaFreeAsync does.
axle_status allocate_on_stream(void* self, int32_t index, size_t nbytes, axle_stream stream, void** ptr) {
  if (axle_status s = allocate(self, index, nbytes, ptr)) return s;
  Device& d = g_devices[index];
  std::lock_guard lock(d.mutex);
  d.allocations.at(reinterpret_cast<uint64_t>(*ptr)).stream = stream;
  return AXLE_OK;
}
// The live allocation starting at `ptr` (d.mutex held), or end().
auto live_allocation(Device& d, void* ptr) {
  auto it = d.allocations.find(reinterpret_cast<uint64_t>(ptr));
  return it != d.allocations.end() && it->second.freed ? d.allocations.end() : it;
}
axle_status record_stream(void*, int32_t index, void* ptr, axle_stream stream) {
  if (axle_status s = check(index)) return s;
  Device& d = g_devices[index];
  std::lock_guard lock(d.mutex);
  auto it = live_allocation(d, ptr);
  if (it == d.allocations.end())
    return error(AXLE_ERROR_INVALID_ARGUMENT, "arena: record_stream of an unknown address");
  it->second.uses.push_back(stream);
  return AXLE_OK;
}
axle_status deallocate(void*, int32_t index, void* ptr, size_t) {
  if (axle_status s = check(index)) return s;
  Device& d = g_devices[index];
  std::unique_lock lock(d.mutex);
  auto it = live_allocation(d, ptr);
  if (it == d.allocations.end()) return error(AXLE_ERROR_DEVICE, "arena: deallocate of an unknown address");
  d.stats.allocated_bytes -= it->second.size;
  d.stats.reserved_bytes -= it->second.size;
  ++d.stats.num_frees;
  auto* stream = static_cast<Stream*>(it->second.stream);
  if (!stream) stream = null_stream_queue(index);  // asynchronous: after the queued null-stream work
  const std::vector<void*> uses = std::move(it->second.uses);
  if (!stream && uses.empty()) {
    d.allocations.erase(it);
    return AXLE_OK;
  }
  // Work queued on the streams that used it may still read or write it: the
  // recorded ones are waited for now, the memory goes after its own stream's work.
  it->second.freed = true;
  const uint64_t addr = it->first;
  lock.unlock();
  for (void* u : uses)
    if (u) static_cast<Stream*>(u)->drain();
  auto release = [index, addr] {
    Device& dev = g_devices[index];
    std::lock_guard l(dev.mutex);
    dev.allocations.erase(addr);
  };
  if (stream)
    enqueue_on(index, stream, release);
  else
    release();
  return AXLE_OK;
}

// The byte copy of copy and copy_peer: now, or queued on `stream`. A
// null-stream copy completes before returning; in asynchronous mode it first
// waits for the work queued on the devices it touches.
axle_status move_bytes(std::byte* to, const std::byte* from, size_t n, axle_stream stream, int stream_index,
                       std::initializer_list<int> devices) {
  if (!stream) {
    if (g_async)
      for (int index : devices) drain_device(index);
    if (n) std::memmove(to, from, n);
    return AXLE_OK;
  }
  enqueue_on(stream_index, static_cast<Stream*>(stream), [to, from, n] { std::memmove(to, from, n); });
  return AXLE_OK;
}

// Host-to-device copies, counted: a host scalar given to a kernel by value
// (AXLE_KERNEL_HOST_SCALARS) must not cause one.
std::atomic<int64_t> g_host_to_device_copies{0};
axle_status copy(void*, axle_copy_kind kind, int32_t index, void* dst, const void* src, size_t n, axle_stream stream) {
  if (axle_status s = check(index)) return s;
  if (kind == AXLE_COPY_HOST_TO_DEVICE) g_host_to_device_copies.fetch_add(1);
  std::byte* to = kind == AXLE_COPY_DEVICE_TO_HOST ? static_cast<std::byte*>(dst) : translate(index, dst, n);
  const std::byte* from =
      kind == AXLE_COPY_HOST_TO_DEVICE ? static_cast<const std::byte*>(src) : translate(index, src, n);
  if (!to || !from) return error(AXLE_ERROR_DEVICE, "arena: copy touches an address outside arena allocations");
  return move_bytes(to, from, n, stream, index, {index});
}

// ABI 1.3: arena:i -> arena:j without the host, counted for the tests.
std::atomic<int64_t> g_peer_copies{0};
axle_status copy_peer(void*, int32_t dst_index, void* dst, int32_t src_index, const void* src, size_t n,
                      axle_stream stream) {
  if (axle_status s = check(dst_index)) return s;
  if (axle_status s = check(src_index)) return s;
  std::byte* to = translate(dst_index, dst, n);
  const std::byte* from = translate(src_index, src, n);
  if (!to || !from) return error(AXLE_ERROR_DEVICE, "arena: copy_peer touches an address outside arena allocations");
  g_peer_copies.fetch_add(1);
  return move_bytes(to, from, n, stream, dst_index, {src_index, dst_index});
}

axle_status stream_create(void*, int32_t index, axle_stream* out) {
  if (axle_status s = check(index)) return s;
  auto* st = new Stream;
  std::lock_guard lock(g_streams_mutex);
  g_streams[index].push_back(st);
  *out = st;
  return AXLE_OK;
}
axle_status stream_destroy(void*, int32_t index, axle_stream s) {
  if (axle_status e = check(index)) return e;
  auto* st = static_cast<Stream*>(s);
  {
    std::lock_guard lock(g_streams_mutex);
    auto& v = g_streams[index];
    v.erase(std::remove(v.begin(), v.end(), st), v.end());
  }
  st->drain();
  if (Stream* q = null_stream_queue(index)) q->drain();  // default-queue work may wait for it
  {  // allocations made for it or used on it outlive it: they forget it
    Device& d = g_devices[index];
    std::lock_guard lock(d.mutex);
    for (auto& [addr, a] : d.allocations) {
      if (a.stream == s) a.stream = nullptr;
      a.uses.erase(std::remove(a.uses.begin(), a.uses.end(), s), a.uses.end());
    }
  }
  delete st;
  return AXLE_OK;
}
axle_status stream_sync(void*, int32_t index, axle_stream s) {
  if (axle_status e = check(index)) return e;
  if (Stream* q = s ? static_cast<Stream*>(s) : null_stream_queue(index)) q->drain();
  return AXLE_OK;
}
axle_status synchronize(void*, int32_t index) {
  if (axle_status e = check(index)) return e;
  drain_device(index);
  return AXLE_OK;
}
axle_status event_create(void*, int32_t index, axle_event* e) {
  *e = new std::shared_ptr<Event>(std::make_shared<Event>());
  return check(index);
}
std::shared_ptr<Event> event_of(axle_event e) { return *static_cast<std::shared_ptr<Event>*>(e); }
axle_status event_destroy(void*, int32_t, axle_event e) {
  delete static_cast<std::shared_ptr<Event>*>(e);
  return AXLE_OK;
}
axle_status event_record(void*, int32_t index, axle_event e, axle_stream s) {
  if (axle_status st = check(index)) return st;
  std::shared_ptr<Event> ev = event_of(e);
  uint64_t ticket;
  {
    std::lock_guard lock(ev->mutex);
    ticket = ++ev->recorded;
  }
  auto mark = [ev, ticket] {
    std::lock_guard lock(ev->mutex);
    ev->completed = std::max(ev->completed, ticket);
    ev->cv.notify_all();
  };
  if (Stream* q = s ? static_cast<Stream*>(s) : null_stream_queue(index))
    enqueue_on(index, q, mark);
  else
    mark();
  return AXLE_OK;
}
axle_status event_sync(void*, int32_t index, axle_event e) {
  event_of(e)->wait();
  return check(index);
}
axle_status stream_wait_event(void*, int32_t index, axle_stream s, axle_event e) {
  if (axle_status st = check(index)) return st;
  std::shared_ptr<Event> ev = event_of(e);
  if (Stream* q = s ? static_cast<Stream*>(s) : null_stream_queue(index))
    enqueue_on(index, q, [ev] { ev->wait(); });
  else
    ev->wait();
  return AXLE_OK;
}
axle_status stats(void*, int32_t index, axle_allocator_stats* out) {
  if (axle_status s = check(index)) return s;
  std::lock_guard lock(g_devices[index].mutex);
  *out = g_devices[index].stats;
  return AXLE_OK;
}
axle_status empty_cache(void*, int32_t index) { return check(index); }
const char* last_error(void*) { return t_error.c_str(); }

// ABI 1.1 pinned host memory: plain host memory here, counted so that tests see
// it allocated and freed through the plugin.
std::atomic<int64_t> g_pinned_live{0};
axle_status host_alloc(void*, size_t nbytes, void** ptr) {
  *ptr = std::malloc(std::max<size_t>(nbytes, 1));
  if (!*ptr) return error(AXLE_ERROR_OUT_OF_MEMORY, "arena: host_alloc failed");
  g_pinned_live.fetch_add(1);
  return AXLE_OK;
}
axle_status host_free(void*, void* ptr) {
  std::free(ptr);
  g_pinned_live.fetch_sub(1);
  return AXLE_OK;
}

const axle_device_interface kArena = [] {
  auto d = abi_struct<axle_device_interface>();
  d.type_name = "arena";
  d.device_count = &device_count;
  d.get_properties = &properties;
  d.allocate = &allocate;
  d.deallocate = &deallocate;
  d.copy = &copy;
  d.synchronize = &synchronize;
  d.stream_create = &stream_create;
  d.stream_destroy = &stream_destroy;
  d.stream_synchronize = &stream_sync;
  d.event_create = &event_create;
  d.event_destroy = &event_destroy;
  d.event_record = &event_record;
  d.event_synchronize = &event_sync;
  d.stream_wait_event = &stream_wait_event;
  d.allocator_stats = &stats;
  d.empty_cache = &empty_cache;
  d.last_error = &last_error;
  d.host_alloc = &host_alloc;
  d.host_free = &host_free;
  d.allocate_on_stream = &allocate_on_stream;
  d.record_stream = &record_stream;
  d.copy_peer = &copy_peer;
  return d;
}();

// ---------------------------------------------------------------- kernels
// Synchronous mode: kernels run on the calling thread; called on a stream (the
// caller's current one), they first wait for the work already queued there, so
// they stay in stream order. Asynchronous mode: the work is queued on the
// call's stream (the device's default queue for the null stream) and the
// kernel returns at once. Stream calls are counted so tests see that the
// current stream reached them.
std::atomic<int64_t> g_stream_kernel_calls{0};

// Tensor views that own their sizes and strides: a kernel's arguments are valid
// only during the call, so queued work keeps its own copy (with the data
// pointers already translated to host memory; a host scalar's element copied).
struct OwnedViews {
  std::vector<axle_tensor_view> views;
  std::vector<std::vector<int64_t>> dims;             // sizes, strides of each view
  std::vector<std::array<unsigned char, 8>> scalars;  // the elements of host scalars
  explicit OwnedViews(std::initializer_list<axle_tensor_view> vs) : views(vs) {
    dims.reserve(2 * views.size());
    scalars.reserve(views.size());
    for (axle_tensor_view& v : views) {
      v.sizes = dims.emplace_back(v.sizes, v.sizes + v.ndim).data();
      v.strides = dims.emplace_back(v.strides, v.strides + v.ndim).data();
      if (is_host_scalar(v)) {
        std::memcpy(scalars.emplace_back().data(), v.data, dtype_size(v.dtype));
        v.data = scalars.back().data();
      }
    }
  }
  OwnedViews(const OwnedViews&) = delete;
  OwnedViews& operator=(const OwnedViews&) = delete;
};

// Runs `work` (which owns everything it reads) for kernel call `c` on device
// `index`: now in stream order, or queued in asynchronous mode.
axle_status launch(const axle_kernel_call* c, int index, std::function<void()> work) {
  if (c->stream) g_stream_kernel_calls.fetch_add(1);
  auto run = [work = std::move(work)] {
    if (g_kernel_delay_us > 0) std::this_thread::sleep_for(std::chrono::microseconds(g_kernel_delay_us));
    work();
  };
  if (Stream* q = c->stream ? static_cast<Stream*>(c->stream) : null_stream_queue(index); q && g_async) {
    enqueue_on(index, q, std::move(run));
    return AXLE_OK;
  }
  if (c->stream) static_cast<Stream*>(c->stream)->drain();
  run();
  return AXLE_OK;
}

// A view with its data pointer translated to host memory (a host scalar's is
// host memory already).
bool host_view(const axle_kernel_call* c, const axle_tensor_view& v, axle_tensor_view& out) {
  out = v;
  if (is_host_scalar(v)) return true;
  int64_t extent = 1;
  for (int32_t d = 0; d < v.ndim; ++d) extent += (v.sizes[d] - 1) * v.strides[d];
  if (numel(v) == 0) extent = 0;
  out.data = translate(v.device_index, v.data, static_cast<size_t>(extent) * dtype_size(v.dtype));
  if (!out.data && extent > 0) {
    fail(c, AXLE_ERROR_DEVICE, "arena kernel: a tensor's data is not arena memory");
    return false;
  }
  return true;
}

axle_status fill_kernel(void*, const axle_kernel_call* c) {
  axle_tensor_view out;
  if (!host_view(c, c->outputs[0], out)) return AXLE_ERROR_DEVICE;
  const bool is_float = arg_scalar_is_floating(c, 1);
  const double d = arg_double(c, 1);
  const int64_t i = arg_int(c, 1);
  auto v = std::make_shared<OwnedViews>(std::initializer_list<axle_tensor_view>{out});
  return launch(c, out.device_index, [v, is_float, d, i] {
    axle_tensor_view& o = v->views[0];
    for_each_element<1>(o.ndim, o.sizes, {&o}, [&](char** p) {
      if (is_float)
        store_from<double>(p[0], o.dtype, d);
      else
        store_from<int64_t>(p[0], o.dtype, i);
    });
  });
}

axle_status copy_kernel(void*, const axle_kernel_call* c) {
  axle_tensor_view out, src;
  if (!host_view(c, c->outputs[0], out) || !host_view(c, arg_tensor(c, 1), src)) return AXLE_ERROR_DEVICE;
  auto v = std::make_shared<OwnedViews>(std::initializer_list<axle_tensor_view>{out, src});
  return launch(c, out.device_index, [v] {
    const axle_tensor_view& o = v->views[0];
    const axle_tensor_view& s = v->views[1];
    if (is_floating(s.dtype))
      map_elements<double, 1>(o, {&s}, [](double x) { return x; });
    else
      map_elements<int64_t, 1>(o, {&s}, [](int64_t x) { return x; });
  });
}

template <typename F>
axle_status binary(const axle_kernel_call* c, F f) {
  axle_tensor_view out, a, b;
  if (!host_view(c, c->outputs[0], out) || !host_view(c, arg_tensor(c, 0), a) || !host_view(c, arg_tensor(c, 1), b))
    return AXLE_ERROR_DEVICE;
  auto v = std::make_shared<OwnedViews>(std::initializer_list<axle_tensor_view>{out, a, b});
  return launch(c, out.device_index, [v, f] {
    const axle_tensor_view& o = v->views[0];
    if (is_floating(o.dtype))
      map_elements<double, 2>(o, {&v->views[1], &v->views[2]}, f);
    else
      map_elements<int64_t, 2>(o, {&v->views[1], &v->views[2]}, f);
  });
}

axle_status add_kernel(void*, const axle_kernel_call* c) {
  if (c->outputs[0].dtype == AXLE_DTYPE_FLOAT64) return decline(c, "arena add does not serve float64");
  if (c->outputs[0].dtype == AXLE_DTYPE_BOOL) return decline(c, "arena add does not serve bool");
  const double alpha = arg_double(c, 2);
  return binary(c, [alpha](auto x, auto y) { return static_cast<decltype(x)>(x + alpha * y); });
}

axle_status mul_kernel(void*, const axle_kernel_call* c) {
  if (c->outputs[0].dtype == AXLE_DTYPE_BOOL) return decline(c, "arena mul does not serve bool");
  return binary(c, [](auto x, auto y) { return x * y; });
}

const KernelEntry kKernels[] = {
    {"fill_.Scalar", &fill_kernel, AXLE_HERE},
    {"copy_", &copy_kernel, AXLE_HERE},
    {"add.Tensor", &add_kernel, AXLE_HERE},
    // mul reads host scalars (x * 2.0) by value; add leaves them to the core's
    // upload (tests/dispatcher/test_device_seam.cpp sees both).
    {"mul.Tensor", &mul_kernel, AXLE_HERE, AXLE_KERNEL_HOST_SCALARS},
};

// "arena2": a second device type over the same arena, with no kernels at all
// (every op reaches it through the host fallback; tests point fallback.target
// at it to see a fallback whose target lacks the op too) and no stream-ordered
// allocation, and no peer copies.
const axle_device_interface kArena2 = [] {
  axle_device_interface d = kArena;
  d.type_name = "arena2";
  d.allocate_on_stream = nullptr;  // the core's plain allocate path (a 1.1 plugin's)
  d.record_stream = nullptr;
  d.copy_peer = nullptr;  // copies between its devices stage through the host
  return d;
}();

axle_status register_plugin(const axle_registrar* r) {
  const char* async = option(r->host, "arena", "async");
  g_async = async && (std::strcmp(async, "true") == 0 || std::strcmp(async, "1") == 0);
  if (const char* delay = option(r->host, "arena", "kernel_delay_us"))
    g_kernel_delay_us = std::max<int64_t>(0, std::strtoll(delay, nullptr, 10));
  if (g_async) {
    for (Stream*& q : g_default_queues) q = new Stream;  // lives as long as the process
    // Queued work (kernels, releases of freed memory) must not run into the
    // static teardown of the arena's tables: wait for it at exit.
    std::atexit([] {
      for (int i = 0; i < kDevices; ++i) drain_device(i);
    });
  }
  if (axle_status s = r->register_device_type(r->context, &kArena)) return s;
  if (axle_status s = r->register_device_type(r->context, &kArena2)) return s;
  return register_kernels(r, "arena", kKernels);
}

const char* const kTypes[] = {"arena", "arena2"};
const axle_plugin_descriptor kDescriptor = [] {
  auto d = plugin_descriptor();
  d.name = "arena";
  d.version = "1.0.0";
  d.device_types = kTypes;
  d.num_device_types = 2;
  d.default_rank = 10;
  d.register_plugin = &register_plugin;
  d.description = "arena test device: two devices over a private arena, streams on worker threads";
  return d;
}();

}  // namespace

extern "C" AXLE_PLUGIN_EXPORT const axle_plugin_descriptor* axle_plugin_get_descriptor(void) { return &kDescriptor; }
extern "C" AXLE_PLUGIN_EXPORT int64_t arena_stream_kernel_calls(void) { return g_stream_kernel_calls.load(); }
// 1 when the `async` option made kernels asynchronous.
extern "C" AXLE_PLUGIN_EXPORT int arena_async(void) { return g_async ? 1 : 0; }
extern "C" AXLE_PLUGIN_EXPORT int64_t arena_pinned_live(void) { return g_pinned_live.load(); }
extern "C" AXLE_PLUGIN_EXPORT int64_t arena_peer_copies(void) { return g_peer_copies.load(); }
extern "C" AXLE_PLUGIN_EXPORT int64_t arena_host_to_device_copies(void) { return g_host_to_device_copies.load(); }
extern "C" AXLE_PLUGIN_EXPORT void arena_hold_streams(int hold) {
  {
    std::lock_guard lock(g_hold_mutex);
    g_hold = hold != 0;
  }
  g_hold_cv.notify_all();
}
// The stream an allocation was made for and how many record_stream calls it
// got; -1 for an address that is not a live allocation's start.
extern "C" AXLE_PLUGIN_EXPORT int arena_allocation_streams(const void* ptr, void** stream) {
  for (Device& d : g_devices) {
    std::lock_guard lock(d.mutex);
    auto it = d.allocations.find(reinterpret_cast<uint64_t>(ptr));
    if (it == d.allocations.end() || it->second.freed) continue;
    *stream = it->second.stream;
    return static_cast<int>(it->second.uses.size());
  }
  return -1;
}
