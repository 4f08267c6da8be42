// The CUDA plugin's descriptor and registration: device type "cuda" (indices
// 0..N-1), its runtime (runtime.cpp) and kernels; ops without a CUDA kernel run
// through the core's host fallback per the fallback policy. Loaded lazily (its
// manifest names "cuda"): no CUDA call happens before a cuda device is used.
#include "kernels.h"

namespace axle::cuda {
namespace {

const char* const kDeviceTypes[] = {"cuda"};

axle_status register_plugin(const axle_registrar* r) {
  if (!r || r->struct_size < sizeof(axle_registrar)) return AXLE_ERROR_INVALID_ARGUMENT;
  if (axle_status s = r->register_device_type(r->context, device_interface())) return s;
  axle_status (*const families[])(const axle_registrar*) = {
      &register_pointwise, &register_blas,      &register_conv_pool, &register_nn,
      &register_indexing,  &register_reduction, &register_random};
  for (auto family : families)
    if (axle_status s = family(r)) return s;
  return AXLE_OK;
}

const axle_plugin_descriptor kDescriptor = {
    sizeof(axle_plugin_descriptor),
    AXLE_ABI_MAJOR,
    AXLE_ABI_MINOR,
    0,
    "cuda",
    "0.1.0",
    kDeviceTypes,
    1,
    50,
    &register_plugin,
};

}  // namespace
}  // namespace axle::cuda

extern "C" AXLE_PLUGIN_EXPORT const axle_plugin_descriptor* axle_plugin_get_descriptor(void) {
  return &axle::cuda::kDescriptor;
}
