// The reference plugin: the host device "cpu" and a portable kernel for every
// op, lowest rank. The oracle other backends are compared with.
#include "kernels.h"

namespace axle::reference {
namespace {

const char* const kDeviceTypes[] = {"cpu"};

axle_status register_plugin(const axle_registrar* r) {
  if (!r || r->struct_size < sizeof(axle_registrar)) return AXLE_ERROR_INVALID_ARGUMENT;
  const axle_status s = r->register_device_type(r->context, host_device());
  if (s != AXLE_OK) return s;
  // Every family registers its own kernels (one register_<family>[_piece] per
  // file, see kernels.h); no two of them serve the same op.
  axle_status (*const families[])(const axle_registrar*) = {
      &register_creation,
      &register_copy,
      &register_pointwise_binary,
      &register_pointwise_comparison,
      &register_pointwise_unary,
      &register_pointwise_unary_math,
      &register_pointwise_binary_math,
      &register_pointwise_special,
      &register_reduction,
      &register_blas,
      &register_blas_matmul,
      &register_indexing,
      &register_indexing_nonzero,
      &register_random,
      &register_views,
      &register_activations,
      &register_nn,
      &register_conv_pool,
      &register_conv_pool3d,
      &register_conv_pool_grid_sample,
      &register_linalg,
      &register_linalg_decomp,
  };
  for (auto family : families)
    if (axle_status f = family(r)) return f;
  return AXLE_OK;
}

const axle_plugin_descriptor kDescriptor = [] {
  auto d = plugin::plugin_descriptor();
  d.name = "reference";
  d.version = "0.1.0";
  d.device_types = kDeviceTypes;
  d.num_device_types = 1;
  d.default_rank = 0;
  d.register_plugin = &register_plugin;
  d.description = "portable C++ kernels for every op (the oracle of axle check)";
  return d;
}();

}  // namespace
}  // namespace axle::reference

extern "C" AXLE_PLUGIN_EXPORT const axle_plugin_descriptor* axle_plugin_get_descriptor(void) {
  return &axle::reference::kDescriptor;
}
