// The cpu plugin's descriptor and registration. It serves kernels for the host
// device type "cpu" whose runtime (allocator, copies) the reference plugin
// provides, at rank 50 (the reference plugin has 0).
#include "kernels.h"

#include <cstdlib>
#include <string>

namespace axle::cpu {
namespace {

const char* const kDeviceTypes[] = {"cpu"};

// Options: threads (plugins.cpu.options.threads, else the global cpu.threads,
// else every core) and dnnl_min_elements (see dnnl_util.h).
void configure(const axle_host_api* host) {
  const char* threads = plugin::option(host, "cpu", "threads");
  if (!threads) threads = plugin::option(host, nullptr, "cpu.threads");
  set_thread_count(threads ? std::atoi(threads) : 0);
  const char* min_elements = plugin::option(host, "cpu", "dnnl_min_elements");
  if (min_elements) set_dnnl_min_elements(std::atoll(min_elements));
}

axle_status register_plugin(const axle_registrar* r) {
  if (!r || r->struct_size < sizeof(axle_registrar)) return AXLE_ERROR_INVALID_ARGUMENT;
  configure(r->host);
  axle_status (*const families[])(const axle_registrar*) = {
      &register_blas,      &register_nn,   &register_pointwise_unary, &register_pointwise_binary,
      &register_conv_pool, &register_copy, &register_reduction,
  };
  for (auto family : families)
    if (axle_status s = family(r)) return s;
  return AXLE_OK;
}

const axle_plugin_descriptor kDescriptor = {
    sizeof(axle_plugin_descriptor),
    AXLE_ABI_MAJOR,
    AXLE_ABI_MINOR,
    0,
    "cpu",
    "0.1.0",
    kDeviceTypes,
    1,
    50,
    &register_plugin,
};

}  // namespace
}  // namespace axle::cpu

extern "C" AXLE_PLUGIN_EXPORT const axle_plugin_descriptor* axle_plugin_get_descriptor(void) {
  return &axle::cpu::kDescriptor;
}
