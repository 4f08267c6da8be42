// The reference plugin: the host device "cpu" and a portable kernel for every
// op, lowest rank. The oracle other backends are compared with.
#include "kernels.h"

namespace axle::reference {
namespace {

const char* const kDeviceTypes[] = {"cpu"};

const KernelEntry kKernels[] = {
    {"fill_.Scalar", &fill, AXLE_HERE},
    {"arange.start_step", &arange, AXLE_HERE},
    {"linspace", &linspace, AXLE_HERE},
    {"copy_", &copy, AXLE_HERE},
    {"cat", &cat, AXLE_HERE},
    {"add.Tensor", &add, AXLE_HERE},
    {"sub.Tensor", &sub, AXLE_HERE},
    {"mul.Tensor", &mul, AXLE_HERE},
    {"div.Tensor", &div, AXLE_HERE},
    {"eq.Tensor", &compare<Comparison::Eq>, AXLE_HERE},
    {"ne.Tensor", &compare<Comparison::Ne>, AXLE_HERE},
    {"lt.Tensor", &compare<Comparison::Lt>, AXLE_HERE},
    {"le.Tensor", &compare<Comparison::Le>, AXLE_HERE},
    {"gt.Tensor", &compare<Comparison::Gt>, AXLE_HERE},
    {"ge.Tensor", &compare<Comparison::Ge>, AXLE_HERE},
    {"neg", &neg, AXLE_HERE},
    {"exp", &exp, AXLE_HERE},
    {"relu", &relu, AXLE_HERE},
    {"sum.dim_IntList", &sum, AXLE_HERE},
    {"mean.dim", &mean, AXLE_HERE},
    {"matmul", &matmul, AXLE_HERE},
    {"nonzero", &nonzero, AXLE_HERE},
};

axle_status register_plugin(const axle_registrar* r) {
  if (!r || r->struct_size < sizeof(axle_registrar)) return AXLE_ERROR_INVALID_ARGUMENT;
  const axle_status s = r->register_device_type(r->context, host_device());
  if (s != AXLE_OK) return s;
  if (axle_status k = plugin::register_kernels(r, "cpu", kKernels)) return k;
  // Families that register their own kernels (one per line; see kernels.h).
  axle_status (*const families[])(const axle_registrar*) = {
      &register_unary_math,
      &register_binary_math,
      &register_random,
      &register_views,
      &register_activations,
      &register_nn,
      &register_blas,
      &register_conv_pool,
      &register_gather_scatter,
      &register_reduce_ops,
  };
  for (auto family : families)
    if (axle_status f = family(r)) return f;
  return AXLE_OK;
}

const axle_plugin_descriptor kDescriptor = {
    sizeof(axle_plugin_descriptor), AXLE_ABI_MAJOR, AXLE_ABI_MINOR, 0, "reference", "0.1.0", kDeviceTypes, 1, 0,
    &register_plugin,
};

}  // namespace
}  // namespace axle::reference

extern "C" AXLE_PLUGIN_EXPORT const axle_plugin_descriptor* axle_plugin_get_descriptor(void) {
  return &axle::reference::kDescriptor;
}
