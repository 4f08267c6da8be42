/* The plugin ABI header compiles as standalone C11 and its structs start with struct_size. */
#include <axle/plugin/axle_plugin.h>

#include <stddef.h>

_Static_assert(offsetof(axle_plugin_descriptor, struct_size) == 0, "struct_size first");
_Static_assert(offsetof(axle_device_interface, struct_size) == 0, "struct_size first");
_Static_assert(offsetof(axle_kernel_call, struct_size) == 0, "struct_size first");
_Static_assert(offsetof(axle_tensor_view, struct_size) == 0, "struct_size first");
_Static_assert(offsetof(axle_registrar, struct_size) == 0, "struct_size first");
_Static_assert(offsetof(axle_host_api, struct_size) == 0, "struct_size first");
_Static_assert(AXLE_DTYPE_BOOL == 9, "dtype numbering is ABI");

int main(void) {
  axle_plugin_descriptor d = {0};
  d.struct_size = sizeof d;
  d.abi_major = AXLE_ABI_MAJOR;
  return d.abi_major == 1 ? 0 : 1;
}
