// A planted bug for the parity finder's test: a "cpu" plugin ranked above the
// others whose prelu is subtly wrong. It applies the first channel's slope to
// every channel, so it is right whenever there is one slope (or no negative
// input) and wrong otherwise, like the PReLU that made two engines disagree.
// Serves contiguous float32 only; declines the rest.
#include <axle/plugin/helpers.hpp>

namespace {
using namespace axle::plugin;

axle_status prelu_first_slope(void*, const axle_kernel_call* c) {
  const axle_tensor_view& x = arg_tensor(c, 0);
  const axle_tensor_view& w = arg_tensor(c, 1);
  const axle_tensor_view& out = c->outputs[0];
  if (x.dtype != AXLE_DTYPE_FLOAT32 || w.dtype != AXLE_DTYPE_FLOAT32 || !is_contiguous(x) || !is_contiguous(w) ||
      !is_contiguous(out) || numel(w) == 0)
    return AXLE_DECLINED;
  const float* px = static_cast<const float*>(x.data);
  const float slope = *static_cast<const float*>(w.data);  // the bug: channel 0's slope for all
  float* po = static_cast<float*>(out.data);
  for (int64_t i = 0, n = numel(x); i < n; ++i) po[i] = px[i] >= 0 ? px[i] : slope * px[i];
  return AXLE_OK;
}

const KernelEntry kKernels[] = {{"prelu", &prelu_first_slope, AXLE_HERE}};
axle_status register_plugin(const axle_registrar* r) { return register_kernels(r, "cpu", kKernels); }
const char* const kTypes[] = {"cpu"};
const axle_plugin_descriptor kDescriptor = [] {
  auto d = plugin_descriptor();
  d.name = "wrong_prelu";
  d.version = "1.0.0";
  d.device_types = kTypes;
  d.num_device_types = 1;
  d.default_rank = 200;
  d.register_plugin = &register_plugin;
  return d;
}();
}  // namespace

extern "C" AXLE_PLUGIN_EXPORT const axle_plugin_descriptor* axle_plugin_get_descriptor(void) { return &kDescriptor; }
