// "sim": a simulated accelerator, built out of tree from an installed axle.
// Its memory is handles, as an OpenCL (cl_mem) or Vulkan (VkBuffer) device's
// is: each allocation is a private block, and the addresses the core sees are
// fake ones from the SDK's HandleAddressSpace (never valid host pointers),
// mapped back to (block, byte offset) when a copy or a kernel uses them. Data
// moves only through this plugin's copy function.
// Kernels: fill_, add, mul, relu, matmul (2-D), sum over dims (float32 and
// int64); every other op runs through axle's host fallback.
#include <axle/plugin/address_space.hpp>
#include <axle/plugin/helpers.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <new>
#include <string>

namespace {

using namespace axle::plugin;

// The handle of an allocation: the block of host memory that simulates it (a
// real device's would be its cl_mem or VkBuffer).
HandleAddressSpace<std::byte*> g_space;
std::mutex g_stats_mutex;
axle_allocator_stats g_stats{sizeof(axle_allocator_stats), 0, 0, 0, 0, 0};
thread_local std::string t_error;

axle_status error(axle_status s, std::string m) {
  t_error = std::move(m);
  return s;
}

// [addr, addr + n) inside one live allocation, as host memory; nullptr otherwise.
std::byte* translate(const void* addr, size_t n) {
  HandleAddressSpace<std::byte*>::Resolved r;
  if (!g_space.resolve(addr, n, &r)) return nullptr;
  return r.handle + r.offset;
}

// ---- the device runtime
axle_status count(void*, int32_t* n) {
  *n = 1;
  return AXLE_OK;
}
axle_status check(int32_t index) {
  return index == 0 ? AXLE_OK : error(AXLE_ERROR_DEVICE, "sim has one device, sim:0");
}
axle_status properties(void*, int32_t index, axle_device_properties* p) {
  if (axle_status s = check(index)) return s;
  std::snprintf(p->name, sizeof p->name, "simulated accelerator");
  p->total_memory = 1ull << 32;
  p->host_accessible = 0;
  return AXLE_OK;
}
axle_status allocate(void*, int32_t index, size_t n, void** ptr) {
  if (axle_status s = check(index)) return s;
  if (n > (1ull << 32)) return error(AXLE_ERROR_OUT_OF_MEMORY, "sim: allocation larger than its 4 GiB");
  // 0 bytes too: the core treats a NULL address as out of memory.
  auto* block = new (std::nothrow) std::byte[std::max<size_t>(n, 1)]();
  void* addr = block ? g_space.insert(block, n) : nullptr;
  if (!addr) {
    delete[] block;
    return error(AXLE_ERROR_OUT_OF_MEMORY, "sim: out of memory");
  }
  std::lock_guard lock(g_stats_mutex);
  g_stats.allocated_bytes += n;
  g_stats.reserved_bytes += n;
  g_stats.peak_allocated_bytes = std::max(g_stats.peak_allocated_bytes, g_stats.allocated_bytes);
  ++g_stats.num_allocs;
  *ptr = addr;
  return AXLE_OK;
}
axle_status deallocate(void*, int32_t, void* ptr, size_t) {
  std::byte* block = nullptr;
  size_t n = 0;
  if (!g_space.erase(ptr, &block, &n)) return error(AXLE_ERROR_INVALID_ARGUMENT, "sim: free of an unknown address");
  delete[] block;
  std::lock_guard lock(g_stats_mutex);
  g_stats.allocated_bytes -= n;
  g_stats.reserved_bytes -= n;
  ++g_stats.num_frees;
  return AXLE_OK;
}
axle_status copy(void*, axle_copy_kind kind, int32_t index, void* dst, const void* src, size_t n, axle_stream) {
  if (axle_status s = check(index)) return s;
  if (n == 0) return AXLE_OK;
  void* to = kind == AXLE_COPY_DEVICE_TO_HOST ? dst : translate(dst, n);
  const void* from = kind == AXLE_COPY_HOST_TO_DEVICE ? src : translate(src, n);
  if (!to || !from) return error(AXLE_ERROR_INVALID_ARGUMENT, "sim: copy outside a live allocation");
  std::memmove(to, from, n);
  return AXLE_OK;
}
// Work is synchronous: streams and events are tokens.
axle_status ok(void*, int32_t index) { return check(index); }
axle_status stream_create(void*, int32_t index, axle_stream* s) {
  *s = reinterpret_cast<axle_stream>(uintptr_t{1});
  return check(index);
}
axle_status ok_stream(void*, int32_t index, axle_stream) { return check(index); }
axle_status event_create(void*, int32_t index, axle_event* e) {
  *e = reinterpret_cast<axle_event>(uintptr_t{1});
  return check(index);
}
axle_status ok_event(void*, int32_t index, axle_event) { return check(index); }
axle_status event_record(void*, int32_t index, axle_event, axle_stream) { return check(index); }
axle_status wait_event(void*, int32_t index, axle_stream, axle_event) { return check(index); }
axle_status stats(void*, int32_t index, axle_allocator_stats* s) {
  if (axle_status st = check(index)) return st;
  std::lock_guard lock(g_stats_mutex);
  // The core sets struct_size (its own sizeof) before the call: write only the
  // fields it covers and leave it as it is.
  axle_allocator_stats st = g_stats;
  st.struct_size = s->struct_size;
  std::memcpy(s, &st, std::min(s->struct_size, sizeof st));
  return AXLE_OK;
}
const char* last_error(void*) { return t_error.empty() ? nullptr : t_error.c_str(); }

const axle_device_interface kSim = [] {
  auto d = abi_struct<axle_device_interface>();
  d.type_name = "sim";
  d.device_count = &count;
  d.get_properties = &properties;
  d.allocate = &allocate;
  d.deallocate = &deallocate;
  d.copy = &copy;
  d.synchronize = &ok;
  d.stream_create = &stream_create;
  d.stream_destroy = &ok_stream;
  d.stream_synchronize = &ok_stream;
  d.event_create = &event_create;
  d.event_destroy = &ok_event;
  d.event_record = &event_record;
  d.event_synchronize = &ok_event;
  d.stream_wait_event = &wait_event;
  d.allocator_stats = &stats;
  d.empty_cache = &ok;
  d.last_error = &last_error;
  return d;
}();

// ---- kernels: views translated to host memory, then the SDK's helpers.
bool host_view(const axle_kernel_call* c, const axle_tensor_view& v, axle_tensor_view& out) {
  out = v;
  if (numel(v) == 0) return true;
  int64_t extent = 1;
  for (int32_t d = 0; d < v.ndim; ++d) extent += (v.sizes[d] - 1) * v.strides[d];
  out.data = translate(v.data, static_cast<size_t>(extent) * dtype_size(v.dtype));
  if (!out.data) fail(c, AXLE_ERROR_DEVICE, "sim kernel: a tensor's data is not sim memory");
  return out.data != nullptr;
}
bool served(axle_dtype d) { return d == AXLE_DTYPE_FLOAT32 || d == AXLE_DTYPE_INT64; }

axle_status fill(void*, const axle_kernel_call* c) {
  axle_tensor_view out;
  if (!served(c->outputs[0].dtype)) return decline(c, "sim serves float32 and int64 only");
  if (!host_view(c, c->outputs[0], out)) return AXLE_ERROR_DEVICE;
  const double v = arg_double(c, 1);
  const int64_t i = arg_int(c, 1);
  const bool is_float = arg_scalar_is_floating(c, 1);
  for_each_element<1>(out.ndim, out.sizes, {&out}, [&](char** p) {
    if (is_float)
      store_from<double>(p[0], out.dtype, v);
    else
      store_from<int64_t>(p[0], out.dtype, i);
  });
  return AXLE_OK;
}

template <typename F>
axle_status elementwise2(const axle_kernel_call* c, F f) {
  axle_tensor_view out, a, b;
  if (!served(c->outputs[0].dtype) || arg_tensor(c, 0).dtype != c->outputs[0].dtype ||
      arg_tensor(c, 1).dtype != c->outputs[0].dtype)
    return decline(c, "sim: float32 or int64 operands of the output's dtype only");  // the fallback promotes
  if (!host_view(c, c->outputs[0], out) || !host_view(c, arg_tensor(c, 0), a) || !host_view(c, arg_tensor(c, 1), b))
    return AXLE_ERROR_DEVICE;
  if (out.dtype == AXLE_DTYPE_FLOAT32)
    map_elements<double, 2>(out, {&a, &b}, f);
  else
    map_elements<int64_t, 2>(out, {&a, &b}, f);
  return AXLE_OK;
}
axle_status add(void*, const axle_kernel_call* c) {
  const double alpha = arg_double(c, 2);
  return elementwise2(c, [alpha](auto x, auto y) { return static_cast<decltype(x)>(x + alpha * y); });
}
axle_status mul(void*, const axle_kernel_call* c) {
  return elementwise2(c, [](auto x, auto y) { return x * y; });
}
axle_status relu(void*, const axle_kernel_call* c) {
  axle_tensor_view out, a;
  if (!served(c->outputs[0].dtype) || arg_tensor(c, 0).dtype != c->outputs[0].dtype)
    return decline(c, "sim: float32 or int64, input dtype = output dtype only");
  if (!host_view(c, c->outputs[0], out) || !host_view(c, arg_tensor(c, 0), a)) return AXLE_ERROR_DEVICE;
  map_elements<double, 1>(out, {&a}, [](double x) { return x > 0 || x != x ? x : 0.0; });
  return AXLE_OK;
}
// matmul of two float32 matrices; other forms decline.
axle_status matmul(void*, const axle_kernel_call* c) {
  const axle_tensor_view &a0 = arg_tensor(c, 0), &b0 = arg_tensor(c, 1), &o0 = c->outputs[0];
  if (a0.ndim != 2 || b0.ndim != 2 || o0.dtype != AXLE_DTYPE_FLOAT32 || a0.dtype != o0.dtype || b0.dtype != o0.dtype)
    return decline(c, "sim matmul: two float32 matrices only");
  axle_tensor_view a, b, o;
  if (!host_view(c, o0, o) || !host_view(c, a0, a) || !host_view(c, b0, b)) return AXLE_ERROR_DEVICE;
  const int64_t m = a.sizes[0], k = a.sizes[1], n = b.sizes[1];
  auto at = [](const axle_tensor_view& v, int64_t i, int64_t j) {
    return static_cast<const float*>(v.data)[i * v.strides[0] + j * v.strides[1]];
  };
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double acc = 0;
      for (int64_t p = 0; p < k; ++p) acc += double(at(a, i, p)) * double(at(b, p, j));
      static_cast<float*>(o.data)[i * o.strides[0] + j * o.strides[1]] = static_cast<float>(acc);
    }
  return AXLE_OK;
}
// sum.dim_IntList(self, dim, keepdim, dtype): the whole tensor only (dim None or
// every dim); partial reductions decline.
axle_status sum(void*, const axle_kernel_call* c) {
  const axle_tensor_view& in0 = arg_tensor(c, 0);
  const axle_tensor_view& out0 = c->outputs[0];
  if (!served(in0.dtype) || out0.dtype != in0.dtype || numel(out0) != 1)
    return decline(c, "sim sum: a whole float32 or int64 tensor, same output dtype only");
  const axle_value& dims = c->args[1];
  if (dims.tag == AXLE_VALUE_INT_LIST && dims.u.ints.count != 0 && dims.u.ints.count != in0.ndim)
    return decline(c, "sim sum: partial reductions are not served");
  axle_tensor_view in, out;
  if (!host_view(c, in0, in) || !host_view(c, out0, out)) return AXLE_ERROR_DEVICE;
  double acc = 0;
  int64_t iacc = 0;
  for_each_element<1>(in.ndim, in.sizes, {&in}, [&](char** p) {
    if (in.dtype == AXLE_DTYPE_FLOAT32)
      acc += load_as<double>(p[0], in.dtype);
    else
      iacc += load_as<int64_t>(p[0], in.dtype);
  });
  if (in.dtype == AXLE_DTYPE_FLOAT32)
    store_from<double>(out.data, out.dtype, acc);
  else
    store_from<int64_t>(out.data, out.dtype, iacc);
  return AXLE_OK;
}

const KernelEntry kKernels[] = {
    {"fill_.Scalar", &fill, AXLE_HERE}, {"add.Tensor", &add, AXLE_HERE}, {"mul.Tensor", &mul, AXLE_HERE},
    {"relu", &relu, AXLE_HERE},         {"matmul", &matmul, AXLE_HERE},  {"sum.dim_IntList", &sum, AXLE_HERE},
};
const char* const kTypes[] = {"sim"};

axle_status register_plugin(const axle_registrar* r) {
  if (!r || r->struct_size < sizeof(axle_registrar)) return AXLE_ERROR_INVALID_ARGUMENT;
  if (axle_status s = r->register_device_type(r->context, &kSim)) return s;
  return register_kernels(r, "sim", kKernels);
}

const axle_plugin_descriptor kDescriptor = [] {
  auto d = plugin_descriptor();
  d.name = "sim";
  d.version = "1.0.0";
  d.description = "sim: an example device over a private arena (handle address space), host-side kernels";
  d.device_types = kTypes;
  d.num_device_types = 1;
  d.default_rank = 10;
  d.register_plugin = &register_plugin;
  return d;
}();

}  // namespace

extern "C" AXLE_PLUGIN_EXPORT const axle_plugin_descriptor* axle_plugin_get_descriptor(void) { return &kDescriptor; }
