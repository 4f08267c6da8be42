// The cross-device copy engine: copy_ between devices, which dispatch_impl
// hands here (copy_across_devices) instead of dispatching it.
//
// Every device-side step is a runtime byte copy, so a device without a copy_
// kernel (its copy_ runs through the host fallback, which lands here) never
// recurses. Between two devices of one type with peer copies (peer_copy), that
// type's copy_ kernel does what is not dense; otherwise strided and converting
// work happens on the host: a strided destination on a device is read, updated
// on the host and written back over its span.
//
// non_blocking: a dense copy with nothing to convert is enqueued on the current
// stream of the device side and may return before it is done (torch's
// non_blocking=True); the tensors whose memory it reads or writes are kept
// alive until that stream is synchronized. Everything else is synchronous.
#include "call_internal.h"
#include "registry.h"

#include <axle/stream.h>

#include <algorithm>

namespace axle {

namespace {

// The bytes a view can reach, from its first element (strides are never negative).
size_t span_bytes(const Tensor& t) {
  if (t.numel() == 0) return 0;
  int64_t last = 0;
  for (size_t d = 0; d < t.sizes().size(); ++d) last += (t.sizes()[d] - 1) * t.strides()[d];
  return static_cast<size_t>(last + 1) * element_size(t.dtype());
}

// One runtime byte copy between the host and `device`, complete on return and
// ordered after the work queued on the device's current stream (a kernel still
// writing the source): enqueued on that stream, which is then waited for (the
// default stream's copies are synchronous by the runtime contract).
void blocking_copy(const Device& device, CopyKind kind, void* dst, const void* src, size_t n) {
  if (n == 0) return;
  DeviceRuntime& rt = device_runtime(device.type());
  void* stream = detail::current_stream_handle(device);
  rt.copy(kind, device.index(), dst, src, n, stream);
  if (stream) rt.stream_synchronize(device.index(), stream);
}

// Same dtype and sizes, both dense: one byte copy does it.
bool dense_pair(const Tensor& dst, const Tensor& src) {
  return src.dtype() == dst.dtype() && src.sizes() == dst.sizes() && src.is_contiguous() && dst.is_contiguous();
}

// A device tensor brought to the host without any op on its device (which may
// lack copy_): the bytes of its span copied by the runtime, the view rebuilt.
Tensor raw_to_host(const Tensor& t) {
  const size_t bytes = span_bytes(t);
  const int64_t esize = static_cast<int64_t>(element_size(t.dtype()));
  Tensor span = make_empty({static_cast<int64_t>(bytes) / esize}, t.dtype(), Device("cpu"));
  blocking_copy(t.device(), CopyKind::DeviceToHost, span.data_ptr(), t.data_ptr(), bytes);
  return make_view(span, t.sizes(), t.strides(), 0);
}

// A non_blocking copy: a dense pair between the host and a device with a
// non-default current stream, enqueued there. False (nothing done) otherwise.
bool async_copy(Tensor& dst, const Tensor& src) {
  const bool src_host = src.device().is_cpu(), dst_host = dst.device().is_cpu();
  if (src_host == dst_host || !dense_pair(dst, src)) return false;
  const Device device = src_host ? dst.device() : src.device();
  void* stream = detail::current_stream_handle(device);
  if (!stream) return false;  // the default stream: synchronous, as the runtime contract says
  if (const size_t n = dst.nbytes()) {
    device_runtime(device.type())
        .copy(src_host ? CopyKind::HostToDevice : CopyKind::DeviceToHost, device.index(), dst.data_ptr(),
              src.data_ptr(), n, stream);
    detail::keep_alive_until_done(device, stream, {dst.storage(), src.storage()});
  }
  return true;
}

// Whether `type` has a copy_ kernel of its own (not only a composite or the
// host fallback).
bool has_copy_kernel(DeviceType type) {
  const Slot* slot = Registry::get().table().slot(copy_op()->index, type.id());
  if (!slot) return false;
  return std::any_of(slot->chain.begin(), slot->chain.end(),
                     [](const Candidate& c) { return c.kind == CandidateKind::Kernel; });
}

// `n` dense bytes from src's device to dst's (another of the same type), after
// the work queued on the source's current stream (the default one too: on CUDA
// default-stream kernels are asynchronous as well), on the destination's
// current stream, complete on return.
void peer_bytes(DeviceRuntime& rt, const Tensor& dst, const Tensor& src, size_t n) {
  if (n == 0) return;
  const Device& to = dst.device();
  const Device& from = src.device();
  rt.stream_synchronize(from.index(), detail::current_stream_handle(from));
  void* stream = detail::current_stream_handle(to);
  rt.copy_peer(to.index(), dst.data_ptr(), from.index(), src.data_ptr(), n, stream);
  if (stream) rt.stream_synchronize(to.index(), stream);
}

// copy_ between two devices of one type whose runtime copies between its
// devices (ABI 1.3), as torch's copy between GPUs: a dense pair is one peer
// copy; otherwise, where the type has a copy_ kernel, the source is
// broadcast, converted to the destination's dtype and made dense on its own
// device, moved by one peer copy, and written into a strided destination by
// the destination device's copy_. False (nothing done) otherwise: the host
// stages, below.
bool peer_copy(Tensor& dst, const Tensor& src) {
  const Device& to = dst.device();
  const Device& from = src.device();
  if (to.type() != from.type()) return false;
  DeviceRuntime& rt = device_runtime(to.type());
  if (!rt.supports_peer_copy()) return false;
  if (dense_pair(dst, src)) {
    peer_bytes(rt, dst, src, dst.nbytes());
    return true;
  }
  if (!has_copy_kernel(to.type())) return false;
  Tensor dense = src;
  if (dense.sizes() != dst.sizes()) dense = dense.expand(dst.sizes());
  if (dense.dtype() != dst.dtype()) dense = dense.to(dst.dtype());
  if (!dense.is_contiguous()) dense = dense.contiguous();
  if (dst.is_contiguous()) {
    peer_bytes(rt, dst, dense, dst.nbytes());
    return true;
  }
  Tensor staging = make_empty(dense.sizes(), dense.dtype(), to);
  peer_bytes(rt, staging, dense, staging.nbytes());
  dst.copy_(staging);
  return true;
}

void cross_device_copy(Tensor& dst, const Tensor& src) {
  const bool src_host = src.device().is_cpu(), dst_host = dst.device().is_cpu();
  if (!src_host && !dst_host && peer_copy(dst, src)) return;
  if (!src_host && dst_host && dense_pair(dst, src)) {  // .cpu(), .numpy(): straight into dst, no staging
    blocking_copy(src.device(), CopyKind::DeviceToHost, dst.data_ptr(), src.data_ptr(), dst.nbytes());
    return;
  }
  if (!src_host) {
    const Tensor h = raw_to_host(src);
    if (dst_host) {
      dst.copy_(h);
    } else {
      cross_device_copy(dst, h);
    }
    return;
  }
  if (dst.is_contiguous()) {
    const Tensor s = src.expand(dst.sizes()).to(dst.dtype()).contiguous();
    blocking_copy(dst.device(), CopyKind::HostToDevice, dst.data_ptr(), s.data_ptr(), dst.nbytes());
    return;
  }
  Tensor span = raw_to_host(dst);
  span.copy_(src);
  blocking_copy(dst.device(), CopyKind::HostToDevice, dst.data_ptr(), span.data_ptr(), span_bytes(dst));
}

}  // namespace

void copy_across_devices(Tensor& dst, const Tensor& src, bool non_blocking) {
  if (!non_blocking || !async_copy(dst, src)) cross_device_copy(dst, src);
}

}  // namespace axle
