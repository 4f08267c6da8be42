// Host side of indexing.cu: index_select (and through it embedding, a composite)
// and gather on contiguous tensors with int64 / int32 indices; scatter.src,
// scatter.value and scatter_add (and through them their in-place forms) into a
// contiguous output from a contiguous index, any self / src strides. The indices
// are checked first: their min and max are computed on the device and read back
// (one stream synchronization), and a value outside [0, size) is an IndexError
// naming it, as the reference's message does, before any kernel reads or writes
// memory through it. Everything else is declined.
#include "allocator.h"
#include "cuda_util.h"
#include "indexing_kernels.h"
#include "kernels.h"

#include <algorithm>
#include <string>

namespace axle::cuda {
namespace {

using plugin::arg_double;
using plugin::arg_int;
using plugin::arg_tensor;

bool index_dtype(axle_dtype d) { return d == AXLE_DTYPE_INT64 || d == AXLE_DTYPE_INT32; }

// AXLE_OK when every index is in [0, size); AXLE_ERROR_INDEX naming the
// offending extreme otherwise.
axle_status check_range(const axle_kernel_call* c, const char* op, const axle_tensor_view& index, int64_t dim,
                        int64_t size) {
  const int64_t n = plugin::numel(index);
  if (n == 0) return AXLE_OK;
  long long range[2] = {0, 0};
  int e = 0;
  {
    Scratch scratch;
    if (axle_status s = scratch.allocate(index.device_index, sizeof range, c)) return s;
    e = launch_index_min_max(index.data, index.dtype == AXLE_DTYPE_INT32, n, static_cast<long long*>(scratch.ptr),
                             c->stream);
    if (e == 0)
      e = static_cast<int>(
          cudaMemcpyAsync(range, scratch.ptr, sizeof range, cudaMemcpyDeviceToHost, to_cuda(c->stream)));
    if (e == 0) e = static_cast<int>(cudaStreamSynchronize(to_cuda(c->stream)));
  }
  if (e != 0) return check(static_cast<cudaError_t>(e), op, c);
  const long long bad = range[1] >= size ? range[1] : range[0] < 0 ? range[0] : 0;
  if (range[1] >= size || range[0] < 0)
    return plugin::fail(c, AXLE_ERROR_INDEX,
                        std::string(op) + ": index " + std::to_string(bad) + " is out of bounds for dimension " +
                            std::to_string(dim) + " with size " + std::to_string(size));
  return AXLE_OK;
}

axle_status index_select(void*, const axle_kernel_call* c) {
  const axle_tensor_view& self = arg_tensor(c, 0);
  const axle_tensor_view& index = arg_tensor(c, 2);
  const axle_tensor_view& out = c->outputs[0];
  if (self.ndim == 0 || index.ndim > 1 || !index_dtype(index.dtype) || !plugin::is_contiguous(self) ||
      !plugin::is_contiguous(index) || !plugin::is_contiguous(out) || self.dtype != out.dtype ||
      self.device_index != out.device_index || index.device_index != out.device_index)
    return AXLE_DECLINED;
  int64_t dim = arg_int(c, 1);
  if (dim < 0) dim += self.ndim;
  DeviceGuard guard(out.device_index);
  if (axle_status s = guard.status(c)) return s;
  if (axle_status s = check_range(c, "index_select()", index, dim, self.sizes[dim])) return s;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= self.sizes[d];
  for (int64_t d = dim + 1; d < self.ndim; ++d) inner *= self.sizes[d];
  const int64_t n_idx = plugin::numel(index);
  if (outer * n_idx * inner == 0) return AXLE_OK;
  const int e =
      launch_index_select(plugin::dtype_size(self.dtype), self.data, index.data, index.dtype == AXLE_DTYPE_INT32,
                          out.data, outer, self.sizes[dim], n_idx, inner, c->stream);
  return check(static_cast<cudaError_t>(e), c->op_name, c);
}

axle_status gather(void*, const axle_kernel_call* c) {
  const axle_tensor_view& self = arg_tensor(c, 0);
  const axle_tensor_view& index = arg_tensor(c, 2);
  const axle_tensor_view& out = c->outputs[0];
  if (self.ndim == 0 || self.ndim > kMaxDims || index.ndim != self.ndim || !index_dtype(index.dtype) ||
      !plugin::is_contiguous(self) || !plugin::is_contiguous(index) || !plugin::is_contiguous(out) ||
      self.dtype != out.dtype || self.device_index != out.device_index || index.device_index != out.device_index)
    return AXLE_DECLINED;
  int64_t dim = arg_int(c, 1);
  if (dim < 0) dim += self.ndim;
  DeviceGuard guard(out.device_index);
  if (axle_status s = guard.status(c)) return s;
  if (axle_status s = check_range(c, "gather()", index, dim, self.sizes[dim])) return s;
  GatherShape shape;
  shape.ndim = self.ndim;
  shape.dim = static_cast<int32_t>(dim);
  for (int32_t d = 0; d < self.ndim; ++d) {
    shape.index_sizes[d] = index.sizes[d];
    shape.self_strides[d] = self.strides[d];
  }
  const int64_t n = plugin::numel(index);
  if (n == 0) return AXLE_OK;
  const int e = launch_gather(plugin::dtype_size(self.dtype), self.data, index.data, index.dtype == AXLE_DTYPE_INT32,
                              out.data, shape, n, c->stream);
  return check(static_cast<cudaError_t>(e), c->op_name, c);
}

// ---------------------------------------------------------------- scatter

bool atomic_add_dtype(axle_dtype d) { return plugin::is_floating(d) || d == AXLE_DTYPE_INT32 || d == AXLE_DTYPE_INT64; }

// out = self, byte for byte (same shape and dtype; out contiguous, not overlapping self).
axle_status copy_self(const axle_kernel_call* c, const axle_tensor_view& self, const axle_tensor_view& out) {
  const int64_t n = plugin::numel(out);
  if (n == 0) return AXLE_OK;
  const size_t es = plugin::dtype_size(out.dtype);
  if (plugin::is_contiguous(self))
    return check(
        cudaMemcpyAsync(out.data, self.data, static_cast<size_t>(n) * es, cudaMemcpyDeviceToDevice, to_cuda(c->stream)),
        c->op_name, c);
  const int e = launch_strided_copy(es, self.data, self.ndim, self.sizes, self.strides, out.data, n, c->stream);
  return check(static_cast<cudaError_t>(e), c->op_name, c);
}

enum class ScatterMode { Src, Value, Add };

// scatter.src / scatter_add (self, dim, index, src) and scatter.value (self, dim,
// index, value): out = a copy of self (the same tensor in place), then the
// scatter, as the reference.
template <ScatterMode M>
axle_status scatter(void*, const axle_kernel_call* c) {
  const axle_tensor_view& self = arg_tensor(c, 0);
  const axle_tensor_view& index = arg_tensor(c, 2);
  const axle_tensor_view* src = M == ScatterMode::Value ? nullptr : &arg_tensor(c, 3);
  const axle_tensor_view& out = c->outputs[0];
  const bool in_place = plugin::same_view(out, self);
  if (out.ndim > kMaxDims || self.ndim != out.ndim || self.dtype != out.dtype || !index_dtype(index.dtype) ||
      !plugin::is_contiguous(out) || !plugin::is_contiguous(index) || self.device_index != out.device_index ||
      index.device_index != out.device_index ||
      (src && (src->dtype != out.dtype || src->device_index != out.device_index || src->ndim > kMaxDims)))
    return AXLE_DECLINED;
  for (int32_t d = 0; d < out.ndim; ++d)
    if (self.sizes[d] != out.sizes[d]) return AXLE_DECLINED;
  // Kernels read index / src while writing out: they must not share memory.
  using plugin::views_overlap;
  if ((!in_place && views_overlap(out, self)) || views_overlap(out, index) || (src && views_overlap(out, *src)))
    return AXLE_DECLINED;
  if constexpr (M == ScatterMode::Add) {
    if (!atomic_add_dtype(out.dtype)) return AXLE_DECLINED;
    // Floating atomicAdd sums the contributions to one element in an order that
    // changes from run to run, so the rounding does too. In deterministic mode
    // decline: the host fallback adds them in the reference's (row-major) order.
    // Integer sums are exact in any order and stay on the device.
    if (plugin::is_floating(out.dtype) && plugin::option_is(c, "deterministic", "true")) return AXLE_DECLINED;
  }
  const int32_t nd = std::max<int32_t>(out.ndim, 1);  // a 0-d tensor is seen as 1-d of size 1
  const int64_t n = plugin::numel(index);
  if (n > 0 && (std::max<int32_t>(index.ndim, 1) != nd || (src && std::max<int32_t>(src->ndim, 1) != nd)))
    return AXLE_DECLINED;
  int64_t dim = arg_int(c, 1);
  if (dim < 0) dim += nd;
  if (dim < 0 || dim >= nd) return AXLE_DECLINED;
  const int64_t dim_size = out.ndim == 0 ? 1 : out.sizes[dim];

  ScatterShape shape;
  shape.ndim = nd;
  shape.dim = static_cast<int32_t>(dim);
  shape.out_dim_size = dim_size;
  if (n > 0)
    for (int32_t d = 0; d < nd; ++d) {
      shape.index_sizes[d] = index.ndim == 0 ? 1 : index.sizes[d];
      shape.out_strides[d] = out.ndim == 0 ? 0 : out.strides[d];
      shape.src_strides[d] = !src || src->ndim == 0 ? 0 : src->strides[d];
    }

  DeviceGuard guard(out.device_index);
  if (axle_status s = guard.status(c)) return s;
  if (axle_status s = check_range(c, M == ScatterMode::Add ? "scatter_add()" : "scatter()", index, dim, dim_size))
    return s;
  Scratch scratch;
  if (axle_status s =
          scratch.allocate(out.device_index, M == ScatterMode::Src && n > 0 ? scatter_src_scratch_bytes(shape) : 0, c))
    return s;
  if (!in_place)
    if (axle_status s = copy_self(c, self, out)) return s;
  if (n == 0) return AXLE_OK;

  const bool i32 = index.dtype == AXLE_DTYPE_INT32;
  const size_t es = plugin::dtype_size(out.dtype);
  int e = 0;
  if constexpr (M == ScatterMode::Value) {
    // The Scalar stored once in out's dtype, as the reference converts it.
    alignas(8) char value[8] = {};
    if (plugin::arg_scalar_is_floating(c, 3))
      plugin::store_from<double>(value, out.dtype, arg_double(c, 3));
    else
      plugin::store_from<int64_t>(value, out.dtype, arg_int(c, 3));
    e = launch_scatter_value(es, index.data, i32, out.data, shape, n, value, c->stream);
  } else if constexpr (M == ScatterMode::Src) {
    e = launch_scatter_src(es, index.data, i32, src->data, out.data, shape, n, scratch.ptr, c->stream);
  } else {
    e = launch_scatter_add(out.dtype, index.data, i32, src->data, out.data, shape, n, c->stream);
  }
  return check(static_cast<cudaError_t>(e), c->op_name, c);
}

const KernelEntry kKernels[] = {
    {"index_select", &index_select, AXLE_HERE},
    {"gather", &gather, AXLE_HERE},
    {"scatter.src", &scatter<ScatterMode::Src>, AXLE_HERE},
    {"scatter.value", &scatter<ScatterMode::Value>, AXLE_HERE},
    {"scatter_add", &scatter<ScatterMode::Add>, AXLE_HERE},
};

}  // namespace

axle_status register_indexing(const axle_registrar* r) { return plugin::register_kernels(r, "cuda", kKernels); }

}  // namespace axle::cuda
