/* The plugin ABI (1.0 and every later minor), frozen: the size and the offset of every field of every
 * struct that crosses the boundary, on LP64 targets (x86-64, AArch64). A change
 * here breaks plugins built against earlier headers: append fields instead and
 * bump AXLE_ABI_MINOR (plugin-sdk/CHANGELOG.md), then extend this table. */
#include <axle/plugin/axle_plugin.h>

#include <stddef.h>

#if defined(__LP64__)
_Static_assert(sizeof(axle_tensor_view) == 48, "ABI 1.0: sizeof(axle_tensor_view)");
_Static_assert(offsetof(axle_tensor_view, struct_size) == 0, "ABI 1.0: axle_tensor_view.struct_size");
_Static_assert(offsetof(axle_tensor_view, data) == 8, "ABI 1.0: axle_tensor_view.data");
_Static_assert(offsetof(axle_tensor_view, dtype) == 16, "ABI 1.0: axle_tensor_view.dtype");
_Static_assert(offsetof(axle_tensor_view, ndim) == 20, "ABI 1.0: axle_tensor_view.ndim");
_Static_assert(offsetof(axle_tensor_view, sizes) == 24, "ABI 1.0: axle_tensor_view.sizes");
_Static_assert(offsetof(axle_tensor_view, strides) == 32, "ABI 1.0: axle_tensor_view.strides");
_Static_assert(offsetof(axle_tensor_view, device_index) == 40, "ABI 1.0: axle_tensor_view.device_index");
_Static_assert(offsetof(axle_tensor_view, flags) == 44, "ABI 1.0: axle_tensor_view.reserved0, flags since 1.4");
_Static_assert(sizeof(axle_value) == 24, "ABI 1.0: sizeof(axle_value)");
_Static_assert(offsetof(axle_value, tag) == 0, "ABI 1.0: axle_value.tag");
_Static_assert(offsetof(axle_value, reserved0) == 4, "ABI 1.0: axle_value.reserved0");
_Static_assert(offsetof(axle_value, u) == 8, "ABI 1.0: axle_value.u");
_Static_assert(sizeof(axle_kernel_call) == 72, "ABI 1.0: sizeof(axle_kernel_call)");
_Static_assert(offsetof(axle_kernel_call, struct_size) == 0, "ABI 1.0: axle_kernel_call.struct_size");
_Static_assert(offsetof(axle_kernel_call, op_name) == 8, "ABI 1.0: axle_kernel_call.op_name");
_Static_assert(offsetof(axle_kernel_call, schema) == 16, "ABI 1.0: axle_kernel_call.schema");
_Static_assert(offsetof(axle_kernel_call, args) == 24, "ABI 1.0: axle_kernel_call.args");
_Static_assert(offsetof(axle_kernel_call, num_args) == 32, "ABI 1.0: axle_kernel_call.num_args");
_Static_assert(offsetof(axle_kernel_call, num_outputs) == 36, "ABI 1.0: axle_kernel_call.num_outputs");
_Static_assert(offsetof(axle_kernel_call, outputs) == 40, "ABI 1.0: axle_kernel_call.outputs");
_Static_assert(offsetof(axle_kernel_call, stream) == 48, "ABI 1.0: axle_kernel_call.stream");
_Static_assert(offsetof(axle_kernel_call, host) == 56, "ABI 1.0: axle_kernel_call.host");
_Static_assert(offsetof(axle_kernel_call, call_context) == 64, "ABI 1.0: axle_kernel_call.call_context");
_Static_assert(AXLE_HOST_API_SIZE_V1_3 == 48, "ABI 1.0-1.3: sizeof(axle_host_api)");
_Static_assert(sizeof(axle_host_api) == 56, "ABI 1.4: sizeof(axle_host_api)");
_Static_assert(offsetof(axle_host_api, set_decline_reason) == 48, "ABI 1.4: axle_host_api.set_decline_reason");
_Static_assert(offsetof(axle_host_api, struct_size) == 0, "ABI 1.0: axle_host_api.struct_size");
_Static_assert(offsetof(axle_host_api, abi_major) == 8, "ABI 1.0: axle_host_api.abi_major");
_Static_assert(offsetof(axle_host_api, abi_minor) == 10, "ABI 1.0: axle_host_api.abi_minor");
_Static_assert(offsetof(axle_host_api, reserved0) == 12, "ABI 1.0: axle_host_api.reserved0");
_Static_assert(offsetof(axle_host_api, log) == 16, "ABI 1.0: axle_host_api.log");
_Static_assert(offsetof(axle_host_api, set_error) == 24, "ABI 1.0: axle_host_api.set_error");
_Static_assert(offsetof(axle_host_api, allocate_output) == 32, "ABI 1.0: axle_host_api.allocate_output");
_Static_assert(offsetof(axle_host_api, get_option) == 40, "ABI 1.0: axle_host_api.get_option");
_Static_assert(sizeof(axle_device_properties) == 152, "ABI 1.0: sizeof(axle_device_properties)");
_Static_assert(offsetof(axle_device_properties, struct_size) == 0, "ABI 1.0: axle_device_properties.struct_size");
_Static_assert(offsetof(axle_device_properties, name) == 8, "ABI 1.0: axle_device_properties.name");
_Static_assert(offsetof(axle_device_properties, total_memory) == 136, "ABI 1.0: axle_device_properties.total_memory");
_Static_assert(offsetof(axle_device_properties, host_accessible) == 144,
               "ABI 1.0: axle_device_properties.host_accessible");
_Static_assert(offsetof(axle_device_properties, reserved0) == 148, "ABI 1.0: axle_device_properties.reserved0");
_Static_assert(sizeof(axle_allocator_stats) == 48, "ABI 1.0: sizeof(axle_allocator_stats)");
_Static_assert(offsetof(axle_allocator_stats, struct_size) == 0, "ABI 1.0: axle_allocator_stats.struct_size");
_Static_assert(offsetof(axle_allocator_stats, allocated_bytes) == 8, "ABI 1.0: axle_allocator_stats.allocated_bytes");
_Static_assert(offsetof(axle_allocator_stats, reserved_bytes) == 16, "ABI 1.0: axle_allocator_stats.reserved_bytes");
_Static_assert(offsetof(axle_allocator_stats, peak_allocated_bytes) == 24,
               "ABI 1.0: axle_allocator_stats.peak_allocated_bytes");
_Static_assert(offsetof(axle_allocator_stats, num_allocs) == 32, "ABI 1.0: axle_allocator_stats.num_allocs");
_Static_assert(offsetof(axle_allocator_stats, num_frees) == 40, "ABI 1.0: axle_allocator_stats.num_frees");
_Static_assert(AXLE_DEVICE_INTERFACE_SIZE_V1_0 == 160, "ABI 1.0: sizeof(axle_device_interface)");
_Static_assert(AXLE_DEVICE_INTERFACE_SIZE_V1_1 == 176, "ABI 1.1: sizeof(axle_device_interface)");
_Static_assert(AXLE_DEVICE_INTERFACE_SIZE_V1_2 == 192, "ABI 1.2: sizeof(axle_device_interface)");
_Static_assert(sizeof(axle_device_interface) == 200, "ABI 1.3: sizeof(axle_device_interface)");
_Static_assert(offsetof(axle_device_interface, copy_peer) == 192, "ABI 1.3: axle_device_interface.copy_peer");
_Static_assert(offsetof(axle_device_interface, allocate_on_stream) == 176,
               "ABI 1.2: axle_device_interface.allocate_on_stream");
_Static_assert(offsetof(axle_device_interface, record_stream) == 184, "ABI 1.2: axle_device_interface.record_stream");
_Static_assert(offsetof(axle_device_interface, host_alloc) == 160, "ABI 1.1: axle_device_interface.host_alloc");
_Static_assert(offsetof(axle_device_interface, host_free) == 168, "ABI 1.1: axle_device_interface.host_free");
_Static_assert(offsetof(axle_device_interface, struct_size) == 0, "ABI 1.0: axle_device_interface.struct_size");
_Static_assert(offsetof(axle_device_interface, type_name) == 8, "ABI 1.0: axle_device_interface.type_name");
_Static_assert(offsetof(axle_device_interface, self) == 16, "ABI 1.0: axle_device_interface.self");
_Static_assert(offsetof(axle_device_interface, device_count) == 24, "ABI 1.0: axle_device_interface.device_count");
_Static_assert(offsetof(axle_device_interface, get_properties) == 32, "ABI 1.0: axle_device_interface.get_properties");
_Static_assert(offsetof(axle_device_interface, allocate) == 40, "ABI 1.0: axle_device_interface.allocate");
_Static_assert(offsetof(axle_device_interface, deallocate) == 48, "ABI 1.0: axle_device_interface.deallocate");
_Static_assert(offsetof(axle_device_interface, copy) == 56, "ABI 1.0: axle_device_interface.copy");
_Static_assert(offsetof(axle_device_interface, synchronize) == 64, "ABI 1.0: axle_device_interface.synchronize");
_Static_assert(offsetof(axle_device_interface, stream_create) == 72, "ABI 1.0: axle_device_interface.stream_create");
_Static_assert(offsetof(axle_device_interface, stream_destroy) == 80, "ABI 1.0: axle_device_interface.stream_destroy");
_Static_assert(offsetof(axle_device_interface, stream_synchronize) == 88,
               "ABI 1.0: axle_device_interface.stream_synchronize");
_Static_assert(offsetof(axle_device_interface, event_create) == 96, "ABI 1.0: axle_device_interface.event_create");
_Static_assert(offsetof(axle_device_interface, event_destroy) == 104, "ABI 1.0: axle_device_interface.event_destroy");
_Static_assert(offsetof(axle_device_interface, event_record) == 112, "ABI 1.0: axle_device_interface.event_record");
_Static_assert(offsetof(axle_device_interface, event_synchronize) == 120,
               "ABI 1.0: axle_device_interface.event_synchronize");
_Static_assert(offsetof(axle_device_interface, stream_wait_event) == 128,
               "ABI 1.0: axle_device_interface.stream_wait_event");
_Static_assert(offsetof(axle_device_interface, allocator_stats) == 136,
               "ABI 1.0: axle_device_interface.allocator_stats");
_Static_assert(offsetof(axle_device_interface, empty_cache) == 144, "ABI 1.0: axle_device_interface.empty_cache");
_Static_assert(offsetof(axle_device_interface, last_error) == 152, "ABI 1.0: axle_device_interface.last_error");
_Static_assert(AXLE_REGISTRAR_SIZE_V1_3 == 48, "ABI 1.0-1.3: sizeof(axle_registrar)");
_Static_assert(sizeof(axle_registrar) == 56, "ABI 1.4: sizeof(axle_registrar)");
_Static_assert(offsetof(axle_registrar, register_kernel_entry) == 48, "ABI 1.4: axle_registrar.register_kernel_entry");
_Static_assert(sizeof(axle_kernel_entry) == 56, "ABI 1.4: sizeof(axle_kernel_entry)");
_Static_assert(offsetof(axle_kernel_entry, struct_size) == 0, "ABI 1.4: axle_kernel_entry.struct_size");
_Static_assert(offsetof(axle_kernel_entry, op_name) == 8, "ABI 1.4: axle_kernel_entry.op_name");
_Static_assert(offsetof(axle_kernel_entry, device_type) == 16, "ABI 1.4: axle_kernel_entry.device_type");
_Static_assert(offsetof(axle_kernel_entry, fn) == 24, "ABI 1.4: axle_kernel_entry.fn");
_Static_assert(offsetof(axle_kernel_entry, user_data) == 32, "ABI 1.4: axle_kernel_entry.user_data");
_Static_assert(offsetof(axle_kernel_entry, provenance) == 40, "ABI 1.4: axle_kernel_entry.provenance");
_Static_assert(offsetof(axle_kernel_entry, flags) == 48, "ABI 1.4: axle_kernel_entry.flags");
_Static_assert(offsetof(axle_registrar, struct_size) == 0, "ABI 1.0: axle_registrar.struct_size");
_Static_assert(offsetof(axle_registrar, context) == 8, "ABI 1.0: axle_registrar.context");
_Static_assert(offsetof(axle_registrar, host) == 16, "ABI 1.0: axle_registrar.host");
_Static_assert(offsetof(axle_registrar, register_device_type) == 24, "ABI 1.0: axle_registrar.register_device_type");
_Static_assert(offsetof(axle_registrar, register_kernel) == 32, "ABI 1.0: axle_registrar.register_kernel");
_Static_assert(offsetof(axle_registrar, register_fallback) == 40, "ABI 1.0: axle_registrar.register_fallback");
_Static_assert(AXLE_PLUGIN_DESCRIPTOR_SIZE_V1_3 == 56, "ABI 1.0-1.3: sizeof(axle_plugin_descriptor)");
_Static_assert(sizeof(axle_plugin_descriptor) == 64, "ABI 1.4: sizeof(axle_plugin_descriptor)");
_Static_assert(offsetof(axle_plugin_descriptor, description) == 56, "ABI 1.4: axle_plugin_descriptor.description");
_Static_assert(offsetof(axle_plugin_descriptor, struct_size) == 0, "ABI 1.0: axle_plugin_descriptor.struct_size");
_Static_assert(offsetof(axle_plugin_descriptor, abi_major) == 8, "ABI 1.0: axle_plugin_descriptor.abi_major");
_Static_assert(offsetof(axle_plugin_descriptor, abi_minor) == 10, "ABI 1.0: axle_plugin_descriptor.abi_minor");
_Static_assert(offsetof(axle_plugin_descriptor, reserved0) == 12, "ABI 1.0: axle_plugin_descriptor.reserved0");
_Static_assert(offsetof(axle_plugin_descriptor, name) == 16, "ABI 1.0: axle_plugin_descriptor.name");
_Static_assert(offsetof(axle_plugin_descriptor, version) == 24, "ABI 1.0: axle_plugin_descriptor.version");
_Static_assert(offsetof(axle_plugin_descriptor, device_types) == 32, "ABI 1.0: axle_plugin_descriptor.device_types");
_Static_assert(offsetof(axle_plugin_descriptor, num_device_types) == 40,
               "ABI 1.0: axle_plugin_descriptor.num_device_types");
_Static_assert(offsetof(axle_plugin_descriptor, default_rank) == 44, "ABI 1.0: axle_plugin_descriptor.default_rank");
_Static_assert(offsetof(axle_plugin_descriptor, register_plugin) == 48,
               "ABI 1.0: axle_plugin_descriptor.register_plugin");
#endif

_Static_assert(AXLE_ABI_MAJOR == 1, "this table is ABI 1");
_Static_assert(AXLE_VALUE_DEVICE == 9 && AXLE_DTYPE_COUNT_V1 == 10 && AXLE_ERROR_INTERNAL == 9,
               "enumerator values are ABI");
_Static_assert(AXLE_VIEW_HOST_SCALAR == 1 && AXLE_KERNEL_HOST_SCALARS == 1, "ABI 1.4 flag values");

int main(void) { return 0; }
