// Streams and events (torch.cuda.Stream / Event, for any device type): a stream
// is a device queue; operators enqueue on the calling thread's current stream of
// their device and may return before the work is done. The default stream
// (handle NULL) is the one a plugin uses when no other is current: its work
// completes in call order with every other default-stream call. Host work is
// synchronous, so on "cpu" every stream behaves as the default one.
#pragma once

#include <axle/device.h>
#include <axle/export.h>

#include <memory>
#include <vector>

namespace axle {

class AXLE_API Stream {
 public:
  // The default stream of `device`.
  static Stream default_stream(const Device& device);
  // A new stream on `device` (its runtime's stream_create); destroyed when the
  // last handle to it goes away.
  static Stream create(const Device& device);

  const Device& device() const { return device_; }
  void* handle() const;  // the runtime's stream; nullptr for the default stream
  bool is_default() const { return impl_ == nullptr; }
  // Waits until everything enqueued on this stream is done.
  void synchronize() const;
  bool operator==(const Stream& o) const { return device_ == o.device_ && handle() == o.handle(); }
  bool operator!=(const Stream& o) const { return !(*this == o); }

 private:
  struct Impl;
  Stream(const Device& device, std::shared_ptr<Impl> impl) : device_(device), impl_(std::move(impl)) {}
  Device device_;
  std::shared_ptr<Impl> impl_;
};

class AXLE_API Event {
 public:
  explicit Event(const Device& device);
  // Marks the point `stream` has reached.
  void record(const Stream& stream);
  // Waits on the host until the recorded point is done.
  void synchronize() const;
  // Makes `stream` wait (on the device) for the recorded point.
  void block(const Stream& stream) const;
  const Device& device() const { return device_; }

 private:
  struct Impl;
  Device device_;
  std::shared_ptr<Impl> impl_;
};

// The calling thread's current stream on `device` (the default stream unless set).
AXLE_API Stream current_stream(const Device& device);
// Makes `stream` current on its device for the calling thread.
AXLE_API void set_current_stream(const Stream& stream);
// `stream` current while the guard lives; the previous one restored after.
class AXLE_API StreamGuard {
 public:
  explicit StreamGuard(const Stream& stream);
  ~StreamGuard();
  StreamGuard(const StreamGuard&) = delete;
  StreamGuard& operator=(const StreamGuard&) = delete;

 private:
  Stream previous_;
};
// Waits until all work on `device` (every stream) is done, then releases the
// memory that asynchronous copies were keeping alive.
AXLE_API void synchronize(const Device& device);

namespace detail {
// The dispatcher's view: the current stream's handle for `device`, nullptr when
// it is the default one (one relaxed atomic load when no thread set a stream).
AXLE_API void* current_stream_handle(const Device& device);
// Keeps `owners` (tensors, as shared pointers) alive until the work enqueued so
// far on (device, stream) is done: released at the next synchronize of that
// stream or device, or when more than 64 such groups are pending (the oldest is
// waited for).
AXLE_API void keep_alive_until_done(const Device& device, void* stream, std::vector<std::shared_ptr<void>> owners);
}  // namespace detail

}  // namespace axle
