// Streams, events, the current stream per thread and device, and the memory
// kept alive for asynchronous copies (axle/stream.h).
#include <axle/device_runtime.h>
#include <axle/error.h>
#include <axle/stream.h>
#include <axle/tensor.h>

#include <atomic>
#include <deque>
#include <mutex>

namespace axle {

namespace {

// ---------------------------------------------------------------- kept-alive memory
struct Pending {
  Device device;
  void* stream;
  void* event;
  std::vector<std::shared_ptr<void>> owners;
};
struct PendingList {
  std::mutex mutex;
  std::deque<Pending> items;
};
PendingList& pending() {
  static auto* p = new PendingList;  // never destroyed: frees may come during static teardown
  return *p;
}
constexpr size_t kMaxPending = 64;

void wait_and_release(Pending& p) {
  DeviceRuntime& rt = device_runtime(p.device.type());
  rt.event_synchronize(p.device.index(), p.event);
  rt.event_destroy(p.device.index(), p.event);
  p.owners.clear();
}

// Releases the groups on `device` (and `stream`, unless all_streams): the
// caller has just waited for that work.
void release_done(const Device& device, void* stream, bool all_streams) {
  std::deque<Pending> done;
  {
    PendingList& l = pending();
    std::lock_guard lock(l.mutex);
    for (auto it = l.items.begin(); it != l.items.end();) {
      if (it->device == device && (all_streams || it->stream == stream)) {
        done.push_back(std::move(*it));
        it = l.items.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (Pending& p : done) wait_and_release(p);  // already complete: returns at once
}

}  // namespace

struct Stream::Impl {
  Device device;
  void* handle;
  Impl(const Device& d, void* h) : device(d), handle(h) {}
  ~Impl() {
    try {
      DeviceRuntime& rt = device_runtime(device.type());
      rt.stream_synchronize(device.index(), handle);
      release_done(device, handle, false);  // what non_blocking copies kept alive on it
      rt.stream_destroy(device.index(), handle);
    } catch (...) {  // destructors do not throw; the runtime logged the failure
    }
  }
};

Stream Stream::default_stream(const Device& device) { return Stream(device.resolved(), nullptr); }

Stream Stream::create(const Device& device) {
  const Device d = device.resolved();
  DeviceRuntime& rt = checked_runtime(d);
  return Stream(d, std::make_shared<Impl>(d, rt.stream_create(d.index())));
}

void* Stream::handle() const { return impl_ ? impl_->handle : nullptr; }

namespace {

// ---------------------------------------------------------------- current streams
std::atomic<int> g_streams_set{0};  // threads x devices with a non-default current stream

struct CurrentStreams {
  std::vector<Stream> streams;  // at most one per device
  ~CurrentStreams() {
    for (const Stream& s : streams)
      if (!s.is_default()) g_streams_set.fetch_sub(1);
  }
};
thread_local CurrentStreams t_current;

}  // namespace

void Stream::synchronize() const {
  checked_runtime(device_).stream_synchronize(device_.index(), handle());
  release_done(device_, handle(), false);
}

struct Event::Impl {
  Device device;
  void* handle;
  Impl(const Device& d, void* h) : device(d), handle(h) {}
  ~Impl() {
    try {
      device_runtime(device.type()).event_destroy(device.index(), handle);
    } catch (...) {
    }
  }
};

Event::Event(const Device& device) : device_(device.resolved()) {
  DeviceRuntime& rt = checked_runtime(device_);
  impl_ = std::make_shared<Impl>(device_, rt.event_create(device_.index()));
}
void Event::record(const Stream& stream) {
  AXLE_CHECK(stream.device() == device_, DeviceError, "Event::record: the event is on ", device_,
             " but the stream is on ", stream.device());
  device_runtime(device_.type()).event_record(device_.index(), impl_->handle, stream.handle());
}
void Event::synchronize() const { device_runtime(device_.type()).event_synchronize(device_.index(), impl_->handle); }
void Event::block(const Stream& stream) const {
  AXLE_CHECK(stream.device() == device_, DeviceError, "Event::block: the event is on ", device_,
             " but the stream is on ", stream.device());
  device_runtime(device_.type()).stream_wait_event(device_.index(), stream.handle(), impl_->handle);
}

Stream current_stream(const Device& device) {
  const Device d = device.resolved();
  for (const Stream& s : t_current.streams)
    if (s.device() == d) return s;
  return Stream::default_stream(d);
}

void set_current_stream(const Stream& stream) {
  auto& v = t_current.streams;
  for (Stream& s : v)
    if (s.device() == stream.device()) {
      g_streams_set.fetch_add((stream.is_default() ? 0 : 1) - (s.is_default() ? 0 : 1));
      s = stream;
      return;
    }
  if (!stream.is_default()) g_streams_set.fetch_add(1);
  v.push_back(stream);
}

StreamGuard::StreamGuard(const Stream& stream) : previous_(current_stream(stream.device())) {
  set_current_stream(stream);
}
StreamGuard::~StreamGuard() { set_current_stream(previous_); }

void synchronize(const Device& device) {
  const Device d = device.resolved();
  checked_runtime(d).synchronize(d.index());
  release_done(d, nullptr, true);
}

namespace detail {

void* current_stream_handle(const Device& device) {
  if (g_streams_set.load(std::memory_order_relaxed) == 0) return nullptr;
  for (const Stream& s : t_current.streams)
    if (s.device() == device) return s.handle();
  return nullptr;
}

void keep_alive_until_done(const Device& device, void* stream, std::vector<std::shared_ptr<void>> owners) {
  const Device d = device.resolved();
  DeviceRuntime& rt = device_runtime(d.type());
  void* event = rt.event_create(d.index());
  rt.event_record(d.index(), event, stream);
  Pending oldest;
  bool wait_oldest = false;
  {
    PendingList& l = pending();
    std::lock_guard lock(l.mutex);
    l.items.push_back(Pending{d, stream, event, std::move(owners)});
    if (l.items.size() > kMaxPending) {
      oldest = std::move(l.items.front());
      l.items.pop_front();
      wait_oldest = true;
    }
  }
  if (wait_oldest) wait_and_release(oldest);
}

}  // namespace detail

void Tensor::record_stream(const Stream& stream) const {
  AXLE_CHECK(defined(), ValueError, "record_stream: the tensor is undefined");
  AXLE_CHECK(stream.device() == device(), DeviceError, "record_stream: the tensor is on ", device(),
             " but the stream is on ", stream.device());
  axle::record_stream(*storage(), stream.handle());
}

}  // namespace axle
