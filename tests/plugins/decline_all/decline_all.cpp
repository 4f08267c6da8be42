// A "cpu" plugin ranked above the reference one whose kernels decline every
// call (each with a reason through plugin::decline): `axle check` must report
// that they served none of their cases, and fail under --strict
// (tests/tools/test_check.sh). The results themselves are right: the reference
// plugin below runs every declined call.
#include <axle/plugin/helpers.hpp>

namespace {
using namespace axle::plugin;

axle_status decline_every_call(void*, const axle_kernel_call* c) {
  return decline(c, "decline_all declines every call");
}

const KernelEntry kKernels[] = {
    {"add.Tensor", &decline_every_call, AXLE_HERE},
    {"mul.Tensor", &decline_every_call, AXLE_HERE},
    {"neg", &decline_every_call, AXLE_HERE},
};

axle_status register_plugin(const axle_registrar* r) { return register_kernels(r, "cpu", kKernels); }

const char* const kTypes[] = {"cpu"};
const axle_plugin_descriptor kDescriptor = [] {
  auto d = plugin_descriptor();
  d.name = "decline_all";
  d.version = "1.0.0";
  d.device_types = kTypes;
  d.num_device_types = 1;
  d.default_rank = 100;
  d.register_plugin = &register_plugin;
  d.description = "declines every call (a test of axle check)";
  return d;
}();
}  // namespace

extern "C" AXLE_PLUGIN_EXPORT const axle_plugin_descriptor* axle_plugin_get_descriptor(void) { return &kDescriptor; }
