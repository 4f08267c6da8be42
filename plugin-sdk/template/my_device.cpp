// A skeleton axle device plugin: it builds as-is, registers a device type
// "my_device" and one kernel, and every entry answers "unimplemented" with a
// note saying what to write there. Copy this folder, rename (see README.md),
// then fill the entries in. The ABI rules are in axle/plugin/axle_plugin.h and
// the plugin author's guide, installed as share/doc/axle/plugin-sdk/plugin-abi.md
// under axle's prefix; share/axle/examples/sim_plugin is a complete device.
#include <axle/plugin/helpers.hpp>

#include <string>

namespace {

using namespace axle::plugin;

thread_local std::string t_error;

// Every runtime entry until it is written: an error status and a note the core
// shows (axle info, the exception a user gets).
axle_status unimplemented(const char* entry) {
  t_error = std::string("my_device: ") + entry + " is not implemented yet (plugin template)";
  return AXLE_ERROR_NOT_IMPLEMENTED;
}

// ---- the device runtime (see axle_device_interface in axle_plugin.h)
// Return the number of devices; with none, set t_error to why (the core shows it).
axle_status device_count(void*, int32_t* count) {
  *count = 0;
  t_error = "my_device: device enumeration is not implemented yet (plugin template)";
  return AXLE_OK;
}
axle_status get_properties(void*, int32_t, axle_device_properties*) { return unimplemented("get_properties"); }
// Allocate nbytes of device memory (any size; 0 too, with a non-NULL address: the
// core takes NULL for out of memory); OUT_OF_MEMORY when it cannot. The core adds
// byte offsets to the address (views, copies): a handle-based device hands out
// addresses from HandleAddressSpace (axle/plugin/address_space.hpp).
axle_status allocate(void*, int32_t, size_t, void**) { return unimplemented("allocate"); }
axle_status deallocate(void*, int32_t, void*, size_t) { return unimplemented("deallocate"); }
// Move contiguous bytes host<->device or device<->device; a NULL stream completes before returning.
axle_status copy(void*, axle_copy_kind, int32_t, void*, const void*, size_t, axle_stream) {
  return unimplemented("copy");
}
axle_status synchronize(void*, int32_t) { return unimplemented("synchronize"); }
axle_status stream_create(void*, int32_t, axle_stream*) { return unimplemented("stream_create"); }
axle_status stream_destroy(void*, int32_t, axle_stream) { return unimplemented("stream_destroy"); }
axle_status stream_synchronize(void*, int32_t, axle_stream) { return unimplemented("stream_synchronize"); }
axle_status event_create(void*, int32_t, axle_event*) { return unimplemented("event_create"); }
axle_status event_destroy(void*, int32_t, axle_event) { return unimplemented("event_destroy"); }
axle_status event_record(void*, int32_t, axle_event, axle_stream) { return unimplemented("event_record"); }
axle_status event_synchronize(void*, int32_t, axle_event) { return unimplemented("event_synchronize"); }
axle_status stream_wait_event(void*, int32_t, axle_stream, axle_event) { return unimplemented("stream_wait_event"); }
axle_status allocator_stats(void*, int32_t, axle_allocator_stats*) { return unimplemented("allocator_stats"); }
axle_status empty_cache(void*, int32_t) { return unimplemented("empty_cache"); }
const char* last_error(void*) { return t_error.empty() ? nullptr : t_error.c_str(); }

// Fields by name; those left unset stay NULL ("unsupported" for the optional ones).
const axle_device_interface kDevice = [] {
  auto d = abi_struct<axle_device_interface>();
  d.type_name = "my_device";
  d.device_count = &device_count;
  d.get_properties = &get_properties;
  d.allocate = &allocate;
  d.deallocate = &deallocate;
  d.copy = &copy;
  d.synchronize = &synchronize;
  d.stream_create = &stream_create;
  d.stream_destroy = &stream_destroy;
  d.stream_synchronize = &stream_synchronize;
  d.event_create = &event_create;
  d.event_destroy = &event_destroy;
  d.event_record = &event_record;
  d.event_synchronize = &event_synchronize;
  d.stream_wait_event = &stream_wait_event;
  d.allocator_stats = &allocator_stats;
  d.empty_cache = &empty_cache;
  d.last_error = &last_error;
  // Optional: host_alloc / host_free (ABI 1.1, pinned host memory),
  // allocate_on_stream / record_stream (ABI 1.2, a stream-ordered caching
  // allocator: axle/plugin/caching_allocator.hpp implements the contract),
  // copy_peer (ABI 1.3, copies between two of its devices without the host).
  return d;
}();

// ---- kernels: arguments in schema order (`axle explain add.Tensor`), outputs
// already allocated on the device. For a case you do not serve, return
// decline(call, "why") before writing anything: the next candidate (finally
// the host fallback) runs it, and the reason shows in `axle explain`, trace
// mode and `axle check`. Kernels run on several threads at once; add_ reaches
// this kernel with outputs[0] aliasing args[0].
axle_status add(void*, const axle_kernel_call* call) {
  return fail(call, AXLE_ERROR_NOT_IMPLEMENTED, "my_device: add.Tensor is not implemented yet (plugin template)");
}

// AXLE_KERNEL_HOST_SCALARS: `x + 2.0` then reaches the kernel with 2.0 as a
// host view (is_host_scalar / host_scalar<double>) instead of a device upload.
const KernelEntry kKernels[] = {
    {"add.Tensor", &add, AXLE_HERE, AXLE_KERNEL_HOST_SCALARS},
};

const char* const kDeviceTypes[] = {"my_device"};

axle_status register_plugin(const axle_registrar* r) {
  if (!r || r->struct_size < sizeof(axle_registrar)) return AXLE_ERROR_INVALID_ARGUMENT;
  if (axle_status s = r->register_device_type(r->context, &kDevice)) return s;
  return register_kernels(r, "my_device", kKernels);
}

const axle_plugin_descriptor kDescriptor = [] {
  auto d = plugin_descriptor();  // this header's ABI version
  d.name = "my_device";
  d.version = "0.1.0";
  d.description = "my_device: what is behind it (driver and library versions)";
  d.device_types = kDeviceTypes;
  d.num_device_types = 1;
  d.default_rank = 10;
  d.register_plugin = &register_plugin;
  return d;
}();

}  // namespace

extern "C" AXLE_PLUGIN_EXPORT const axle_plugin_descriptor* axle_plugin_get_descriptor(void) { return &kDescriptor; }
