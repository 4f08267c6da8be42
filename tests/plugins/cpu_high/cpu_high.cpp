// A second "cpu" plugin ranked above the reference one: serves add.Tensor for
// float32 only (declines the rest) and counts its calls; no mul kernel, so mul
// falls through to the reference plugin on the same device. Also a boxed fallback.
// It is an ABI 1.3 plugin (tests that older plugins load into a newer core): its
// descriptor has 1.3's size and minor version, and it registers through 1.3's
// register_kernel, not register_kernel_entry.
#include <axle/plugin/helpers.hpp>

#include <atomic>
#include <cstring>

namespace {
using namespace axle::plugin;

std::atomic<int64_t> g_calls{0};

axle_status add_f32(void*, const axle_kernel_call* c) {
  if (c->outputs[0].dtype != AXLE_DTYPE_FLOAT32) return AXLE_DECLINED;
  const double alpha = arg_double(c, 2);
  map_elements<double, 2>(c->outputs[0], {&arg_tensor(c, 0), &arg_tensor(c, 1)},
                          [alpha](double x, double y) { return x + alpha * y; });
  g_calls.fetch_add(1);
  return AXLE_OK;
}

// A boxed fallback: receives every cpu op without a kernel, by name and schema.
// It serves the test op "boxtest::twice" and declines everything else.
axle_status boxed(void*, const axle_kernel_call* c) {
  if (std::strcmp(c->op_name, "boxtest::twice") != 0 || std::strstr(c->schema, "twice(Tensor x)") == nullptr)
    return AXLE_DECLINED;
  map_elements<double, 1>(c->outputs[0], {&arg_tensor(c, 0)}, [](double v) { return 2 * v; });
  return AXLE_OK;
}

axle_status register_plugin(const axle_registrar* r) {
  if (axle_status s = r->register_fallback(r->context, "cpu", &boxed, nullptr, AXLE_HERE)) return s;
  return r->register_kernel(r->context, "add.Tensor", "cpu", &add_f32, nullptr, AXLE_HERE);
}
const char* const kTypes[] = {"cpu"};
const axle_plugin_descriptor kDescriptor = [] {
  auto d = plugin_descriptor();
  d.struct_size = AXLE_PLUGIN_DESCRIPTOR_SIZE_V1_3;  // as built against the 1.3 header
  d.abi_minor = 3;
  d.name = "cpu_high";
  d.version = "1.0.0";
  d.device_types = kTypes;
  d.num_device_types = 1;
  d.default_rank = 100;
  d.register_plugin = &register_plugin;
  d.description = "not read: beyond a 1.3 descriptor's struct_size";
  return d;
}();
}  // namespace

extern "C" AXLE_PLUGIN_EXPORT const axle_plugin_descriptor* axle_plugin_get_descriptor(void) { return &kDescriptor; }
extern "C" AXLE_PLUGIN_EXPORT int64_t cpu_high_add_calls(void) { return g_calls.load(); }
