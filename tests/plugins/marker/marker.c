/* A plugin without a manifest whose code announces that it ran: a static
 * constructor (run by dlopen, before any axle code sees the library) creates
 * the file named by AXLE_TEST_MARKER. A plugin kept out by the configuration
 * (backends.deny, plugins.marker.enabled = false) must never be loaded, so the
 * file must not appear (tests/tools/test_plugin_security.sh). */
#include <axle/plugin/axle_plugin.h>

#include <stdio.h>
#include <stdlib.h>

__attribute__((constructor)) static void announce(void) {
  const char* path = getenv("AXLE_TEST_MARKER");
  if (!path || !*path) return;
  FILE* f = fopen(path, "w");
  if (f) {
    fputs("marker plugin code ran\n", f);
    fclose(f);
  }
}

static axle_status register_plugin(const axle_registrar* r) {
  (void)r;
  return AXLE_OK;
}

static const char* const kTypes[] = {"marker_device"};

static const axle_plugin_descriptor kDescriptor = {
    .struct_size = sizeof(axle_plugin_descriptor),
    .abi_major = AXLE_ABI_MAJOR,
    .abi_minor = AXLE_ABI_MINOR,
    .name = "marker",
    .version = "1.0.0",
    .device_types = kTypes,
    .num_device_types = 1,
    .default_rank = 1,
    .register_plugin = &register_plugin,
};

AXLE_PLUGIN_EXPORT const axle_plugin_descriptor* axle_plugin_get_descriptor(void) { return &kDescriptor; }
