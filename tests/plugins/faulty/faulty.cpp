// Deliberately wrong plugins for `axle check` to catch (tests/tools/test_check.sh).
// A host-memory device "faulty" with add.Tensor (float32) and copy_; compiled
// once per fault:
//   FAULT_OFF_BY_ONE      add writes a wrong last element
//   FAULT_IGNORE_STRIDES  add reads its inputs as if they were contiguous
//   FAULT_DROP_BYTES      the runtime's copy moves one byte less than asked
#include <axle/plugin/helpers.hpp>

#include <cstdlib>
#include <cstring>
#include <string>

#ifndef FAULTY_NAME
#error "FAULTY_NAME must be defined"
#endif

namespace {

using namespace axle::plugin;

axle_status count(void*, int32_t* n) {
  *n = 1;
  return AXLE_OK;
}
axle_status props(void*, int32_t, axle_device_properties* p) {
  std::strncpy(p->name, "faulty test device", sizeof p->name - 1);
  p->host_accessible = 1;
  return AXLE_OK;
}
axle_status allocate(void*, int32_t, size_t n, void** ptr) {
  *ptr = std::malloc(n ? n : 1);
  return *ptr ? AXLE_OK : AXLE_ERROR_OUT_OF_MEMORY;
}
axle_status deallocate(void*, int32_t, void* p, size_t) {
  std::free(p);
  return AXLE_OK;
}
axle_status copy(void*, axle_copy_kind, int32_t, void* dst, const void* src, size_t n, axle_stream) {
#ifdef FAULT_DROP_BYTES
  if (n > 0) --n;
#endif
  if (n) std::memmove(dst, src, n);
  return AXLE_OK;
}
axle_status ok(void*, int32_t) { return AXLE_OK; }
axle_status ok_stream(void*, int32_t, axle_stream) { return AXLE_OK; }
axle_status stream_create(void*, int32_t, axle_stream* s) {
  *s = nullptr;
  return AXLE_OK;
}
axle_status event_create(void*, int32_t, axle_event* e) {
  *e = nullptr;
  return AXLE_OK;
}
axle_status ok_event(void*, int32_t, axle_event) { return AXLE_OK; }
axle_status ok_event_stream(void*, int32_t, axle_event, axle_stream) { return AXLE_OK; }
axle_status ok_stream_event(void*, int32_t, axle_stream, axle_event) { return AXLE_OK; }
axle_status stats(void*, int32_t, axle_allocator_stats*) { return AXLE_OK; }
const char* last_error(void*) { return nullptr; }

const axle_device_interface kDevice = {
    sizeof(axle_device_interface),
    "faulty",
    nullptr,
    &count,
    &props,
    &allocate,
    &deallocate,
    &copy,
    &ok,
    &stream_create,
    &ok_stream,
    &ok_stream,
    &event_create,
    &ok_event,
    &ok_event_stream,
    &ok_event,
    &ok_stream_event,
    &stats,
    &ok,
    &last_error,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
};

axle_status add(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  const axle_tensor_view &a = arg_tensor(c, 0), &b = arg_tensor(c, 1);
  if (out.dtype != AXLE_DTYPE_FLOAT32 || a.dtype != AXLE_DTYPE_FLOAT32 || b.dtype != AXLE_DTYPE_FLOAT32)
    return AXLE_DECLINED;
  const double alpha = arg_double(c, 2);
#ifdef FAULT_IGNORE_STRIDES
  if (numel(a) != numel(out) || numel(b) != numel(out)) return AXLE_DECLINED;
  const int64_t n = numel(out);
  auto* o = static_cast<float*>(out.data);
  for (int64_t i = 0; i < n; ++i)  // wrong for transposed / stepped inputs
    o[i] = static_cast<const float*>(a.data)[i] + static_cast<float>(alpha) * static_cast<const float*>(b.data)[i];
  (void)is_contiguous;
#else
  map_elements<double, 2>(out, {&a, &b}, [alpha](double x, double y) { return x + alpha * y; });
#endif
#ifdef FAULT_OFF_BY_ONE
  if (numel(out) > 0 && is_contiguous(out)) static_cast<float*>(out.data)[numel(out) - 1] += 1.0f;
#endif
  return AXLE_OK;
}

const KernelEntry kKernels[] = {{"add.Tensor", &add, AXLE_HERE}};
const char* const kTypes[] = {"faulty"};

axle_status register_plugin(const axle_registrar* r) {
  if (axle_status s = r->register_device_type(r->context, &kDevice)) return s;
  return register_kernels(r, "faulty", kKernels);
}

const axle_plugin_descriptor kDescriptor = [] {
  auto d = plugin_descriptor();
  d.name = FAULTY_NAME;
  d.version = "0.0.1";
  d.device_types = kTypes;
  d.num_device_types = 1;
  d.default_rank = 10;
  d.register_plugin = &register_plugin;
  return d;
}();

}  // namespace

extern "C" AXLE_PLUGIN_EXPORT const axle_plugin_descriptor* axle_plugin_get_descriptor(void) { return &kDescriptor; }
