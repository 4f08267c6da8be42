/* One source, many deliberately broken plugins: the variant is chosen by
 * BROKEN_<KIND> at compile time (see meson.build). Each must be rejected by the
 * loader with its reason, and never stop the good plugins. */
#include <axle/plugin/axle_plugin.h>

#include <stddef.h>

static const char* const kCpu[] = {"cpu"};

#if defined(BROKEN_UNRESOLVED)
void axle_test_symbol_that_does_not_exist(void);
#endif

static axle_status neg_f32(void* user_data, const axle_kernel_call* call) {
  (void)user_data;
  const axle_tensor_view* in = call->args[0].u.tensor;
  axle_tensor_view* out = &call->outputs[0];
  if (in->dtype != AXLE_DTYPE_FLOAT32 || out->dtype != AXLE_DTYPE_FLOAT32 || in->ndim != 1 || out->ndim != 1)
    return AXLE_DECLINED;
  for (int64_t i = 0; i < out->sizes[0]; ++i)
    ((float*)out->data)[i * out->strides[0]] = -((const float*)in->data)[i * in->strides[0]];
  return AXLE_OK;
}

static axle_status register_plugin(const axle_registrar* r) {
#if defined(BROKEN_UNRESOLVED)
  axle_test_symbol_that_does_not_exist();
#endif
#if defined(BROKEN_REGISTER_FAILS)
  r->host->log(AXLE_LOG_ERROR, PLUGIN_NAME, "register step fails on purpose");
  r->host->set_error(r->context, "the test plugin refuses to register");
  return AXLE_ERROR_INTERNAL;
#endif
#if defined(GOOD_MINIMAL)
  return r->register_kernel(r->context, "neg", "cpu", &neg_f32, NULL, "tests/plugins/broken/broken.c:neg_f32");
#else
  (void)r;
  (void)&neg_f32;
  return AXLE_OK;
#endif
}

#ifndef ABI_MAJOR
#define ABI_MAJOR AXLE_ABI_MAJOR
#endif
#ifndef ABI_MINOR
#define ABI_MINOR AXLE_ABI_MINOR
#endif
#ifndef STRUCT_SIZE
#define STRUCT_SIZE sizeof(axle_plugin_descriptor)
#endif
#ifndef RANK
#define RANK 1
#endif

static const axle_plugin_descriptor kDescriptor = {
    STRUCT_SIZE, ABI_MAJOR, ABI_MINOR, 0, PLUGIN_NAME, "1.0.0", kCpu, 1, RANK, &register_plugin,
};

#if defined(BROKEN_NO_ENTRY)
AXLE_PLUGIN_EXPORT const axle_plugin_descriptor* some_other_function(void) { return &kDescriptor; }
#else
AXLE_PLUGIN_EXPORT const axle_plugin_descriptor* axle_plugin_get_descriptor(void) { return &kDescriptor; }
#endif
