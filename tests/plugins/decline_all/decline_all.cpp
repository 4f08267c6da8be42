// A "cpu" plugin ranked above the reference one whose kernels decline every
// call (each with a reason through host->set_error): `axle check` must report
// that they served none of their cases, and fail under --strict
// (tests/tools/test_check.sh). The results themselves are right: the reference
// plugin below runs every declined call.
#include <axle/plugin/helpers.hpp>

namespace {
using namespace axle::plugin;

axle_status decline(void*, const axle_kernel_call* c) {
  fail(c, AXLE_DECLINED, "decline_all declines every call");
  return AXLE_DECLINED;
}

const KernelEntry kKernels[] = {
    {"add.Tensor", &decline, AXLE_HERE},
    {"mul.Tensor", &decline, AXLE_HERE},
    {"neg", &decline, AXLE_HERE},
};

axle_status register_plugin(const axle_registrar* r) { return register_kernels(r, "cpu", kKernels); }

const char* const kTypes[] = {"cpu"};
const axle_plugin_descriptor kDescriptor = {
    sizeof(axle_plugin_descriptor),
    AXLE_ABI_MAJOR,
    AXLE_ABI_MINOR,
    0,
    "decline_all",
    "1.0.0",
    kTypes,
    1,
    100,
    &register_plugin,
};
}  // namespace

extern "C" AXLE_PLUGIN_EXPORT const axle_plugin_descriptor* axle_plugin_get_descriptor(void) { return &kDescriptor; }
