/* One source, many deliberately broken plugins: the variant is chosen by
 * BROKEN_<KIND> at compile time (see meson.build). Each must be rejected by the
 * loader with its reason, and never stop the good plugins. */
#include <axle/plugin/axle_plugin.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#if defined(ABI10_DEVICE)
/* Not broken: an ABI 1.0 device plugin as a binary built against the 1.0 header
 * presents itself (minor 0, a device interface of 1.0's size). The 1.1 fields
 * (1.2 and 1.3 too) hold garbage on purpose: the core must not read past struct_size. */
static const char* const kCpu[] = {"old10"};
static axle_status d_count(void* self, int32_t* n) {
  (void)self;
  *n = 1;
  return AXLE_OK;
}
static axle_status d_props(void* self, int32_t index, axle_device_properties* p) {
  (void)self;
  (void)index;
  strcpy(p->name, "ABI 1.0 test device");
  p->host_accessible = 1;
  return AXLE_OK;
}
static axle_status d_alloc(void* self, int32_t index, size_t n, void** ptr) {
  (void)self;
  (void)index;
  *ptr = malloc(n ? n : 1);
  return *ptr ? AXLE_OK : AXLE_ERROR_OUT_OF_MEMORY;
}
static axle_status d_free(void* self, int32_t index, void* ptr, size_t n) {
  (void)self;
  (void)index;
  (void)n;
  free(ptr);
  return AXLE_OK;
}
static axle_status d_copy(void* self, axle_copy_kind k, int32_t index, void* dst, const void* src, size_t n,
                          axle_stream s) {
  (void)self;
  (void)k;
  (void)index;
  (void)s;
  memmove(dst, src, n);
  return AXLE_OK;
}
static axle_status d_ok(void* self, int32_t index) {
  (void)self;
  (void)index;
  return AXLE_OK;
}
static axle_status d_handle(void* self, int32_t index, void** h) {
  (void)self;
  (void)index;
  *h = NULL;
  return AXLE_OK;
}
static axle_status d_handle_op(void* self, int32_t index, void* h) {
  (void)self;
  (void)index;
  (void)h;
  return AXLE_OK;
}
static axle_status d_pair(void* self, int32_t index, void* a, void* b) {
  (void)self;
  (void)index;
  (void)a;
  (void)b;
  return AXLE_OK;
}
static axle_status d_stats(void* self, int32_t index, axle_allocator_stats* st) {
  (void)self;
  (void)index;
  (void)st;
  return AXLE_OK;
}
static const char* d_error(void* self) {
  (void)self;
  return "";
}
static const axle_device_interface kOld = {
    AXLE_DEVICE_INTERFACE_SIZE_V1_0,
    "old10",
    NULL,
    &d_count,
    &d_props,
    &d_alloc,
    &d_free,
    &d_copy,
    &d_ok,
    &d_handle,
    &d_handle_op,
    &d_handle_op,
    &d_handle,
    &d_handle_op,
    &d_pair,
    &d_handle_op,
    &d_pair,
    &d_stats,
    &d_ok,
    &d_error,
    (axle_status(*)(void*, size_t, void**))(uintptr_t)1,
    (axle_status(*)(void*, void*))(uintptr_t)1,
    (axle_status(*)(void*, int32_t, size_t, axle_stream, void**))(uintptr_t)1,
    (axle_status(*)(void*, int32_t, void*, axle_stream))(uintptr_t)1,
    (axle_status(*)(void*, int32_t, void*, int32_t, const void*, size_t, axle_stream))(uintptr_t)1};
#else
static const char* const kCpu[] = {"cpu"};
#endif

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
#if defined(ABI10_DEVICE)
  return r->register_device_type(r->context, &kOld);
#endif
#if defined(BROKEN_SHAPELESS)
  /* `sum` over every dim is composite-only (no shape function): a kernel in
   * front of its composite would break every cpu sum. */
  return r->register_kernel(r->context, "sum", "cpu", &neg_f32, NULL, "tests/plugins/broken/broken.c:neg_f32");
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
    .struct_size = STRUCT_SIZE,
    .abi_major = ABI_MAJOR,
    .abi_minor = ABI_MINOR,
    .name = PLUGIN_NAME,
    .version = "1.0.0",
    .device_types = kCpu,
    .num_device_types = 1,
    .default_rank = RANK,
    .register_plugin = &register_plugin,
};

#if defined(BROKEN_NO_ENTRY)
AXLE_PLUGIN_EXPORT const axle_plugin_descriptor* some_other_function(void) { return &kDescriptor; }
#else
AXLE_PLUGIN_EXPORT const axle_plugin_descriptor* axle_plugin_get_descriptor(void) { return &kDescriptor; }
#endif
