// Host side of indexing.cu: index_select (and through it embedding, a composite)
// and gather on contiguous tensors with int64 / int32 indices; scatter.src,
// scatter.value and scatter_add (and through them their in-place forms) into a
// contiguous output from a contiguous index, any self / src strides; index_put_
// with one index tensor on dim 0 (the gradient of embedding, index_select and
// x[idx]) as a scatter along dim 0. The indices
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

// AXLE_OK when every index is in [0, size), or [-size, size) when negatives
// wrap (index_put_; *has_negative then says whether one is there);
// AXLE_ERROR_INDEX naming the offending extreme otherwise.
axle_status check_range(const axle_kernel_call* c, const char* op, const axle_tensor_view& index, int64_t dim,
                        int64_t size, bool* has_negative = nullptr) {
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
  const long long low = has_negative ? -size : 0;
  if (has_negative) *has_negative = range[0] < 0;
  const long long bad = range[1] >= size ? range[1] : range[0] < low ? range[0] : 0;
  if (range[1] >= size || range[0] < low)
    return plugin::fail(c, AXLE_ERROR_INDEX, plugin::index_out_of_bounds(op, bad, dim, size));
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
  if (n > 0) {
    int64_t contiguous = 1;  // the index is contiguous
    for (int32_t d = nd - 1; d >= 0; --d) {
      shape.index_sizes[d] = index.ndim == 0 ? 1 : index.sizes[d];
      shape.index_strides[d] = contiguous;
      contiguous *= shape.index_sizes[d];
      shape.out_strides[d] = out.ndim == 0 ? 0 : out.strides[d];
      shape.src_strides[d] = !src || src->ndim == 0 ? 0 : src->strides[d];
    }
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

// index_put_(self, indices, values, accumulate) with one int64 / int32 index
// tensor on dim 0 (later entries None) of a contiguous self: a scatter along
// dim 0 over [N, self.shape[1:]] (N the index's element count) whose index is
// broadcast over each row: duplicate indices give the reference's result (the
// last one wins) or, accumulating, atomicAdd (declined for floating dtypes in
// deterministic mode, as scatter_add). Values broadcast to the indexing result
// [index.shape, self.shape[1:]] as long as their index dims fold into one.
// Boolean masks, several index tensors and other layouts are declined.
axle_status index_put(void*, const axle_kernel_call* c) {
  const axle_tensor_view& self = arg_tensor(c, 0);
  const axle_value& list = c->args[1];
  const axle_tensor_view& values = arg_tensor(c, 2);
  const bool accumulate = plugin::arg_bool(c, 3);
  const axle_tensor_view& out = c->outputs[0];  // self, in place
  if (list.u.tensors.count < 1 || self.ndim < 1 || self.ndim > kMaxDims || !plugin::same_view(out, self) ||
      !plugin::is_contiguous(out))
    return AXLE_DECLINED;
  const axle_tensor_view& index = list.u.tensors.items[0];
  if (index.ndim > kMaxDims) return AXLE_DECLINED;  // the result's dims below hold 2 * kMaxDims
  for (int64_t k = 1; k < list.u.tensors.count; ++k)
    if (list.u.tensors.items[k].ndim >= 0) return AXLE_DECLINED;
  if (index.ndim < 0 || !index_dtype(index.dtype) || !plugin::is_contiguous(index) ||
      index.device_index != out.device_index || values.dtype != out.dtype || values.device_index != out.device_index)
    return AXLE_DECLINED;
  if (accumulate && (!atomic_add_dtype(out.dtype) ||
                     (plugin::is_floating(out.dtype) && plugin::option_is(c, "deterministic", "true"))))
    return AXLE_DECLINED;
  using plugin::views_overlap;
  if (views_overlap(out, index) || views_overlap(out, values)) return AXLE_DECLINED;
  // The indexing result's shape [index.shape, self.shape[1:]] and values'
  // strides broadcast to it (0 where values has size 1 or no dim).
  const int32_t rn = index.ndim + self.ndim - 1;
  if (values.ndim > rn) return AXLE_DECLINED;
  int64_t result[2 * kMaxDims], vstride[2 * kMaxDims];
  for (int32_t d = 0; d < rn; ++d) {
    result[d] = d < index.ndim ? index.sizes[d] : self.sizes[d - index.ndim + 1];
    const int32_t vd = d - (rn - values.ndim);
    if (vd < 0 || values.sizes[vd] == 1) {
      vstride[d] = 0;
    } else if (values.sizes[vd] == result[d]) {
      vstride[d] = values.strides[vd];
    } else {
      return AXLE_DECLINED;  // not broadcastable: the reference names the shapes
    }
  }
  // values' index dims must fold into one dim of N elements with one stride.
  int64_t n_index = 1, fold = -1;
  for (int32_t d = index.ndim - 1; d >= 0; --d) {
    if (result[d] == 1) continue;
    if (fold < 0)
      fold = vstride[d];
    else if (vstride[d] != fold * n_index)
      return AXLE_DECLINED;
    n_index *= result[d];
  }
  const int64_t n = plugin::numel(index) * (plugin::numel(out) / std::max<int64_t>(self.sizes[0], 1));

  ScatterShape shape;
  shape.ndim = self.ndim;
  shape.dim = 0;
  shape.out_dim_size = self.sizes[0];
  shape.index_sizes[0] = plugin::numel(index);
  shape.index_strides[0] = 1;
  shape.out_strides[0] = out.strides[0];
  shape.src_strides[0] = fold < 0 ? 0 : fold;
  for (int32_t d = 1; d < self.ndim; ++d) {
    shape.index_sizes[d] = self.sizes[d];
    shape.index_strides[d] = 0;
    shape.out_strides[d] = out.strides[d];
    shape.src_strides[d] = vstride[index.ndim + d - 1];
  }

  // Nothing to write: no index is read (the reference checks none either).
  if (n == 0) return AXLE_OK;
  DeviceGuard guard(out.device_index);
  if (axle_status s = guard.status(c)) return s;
  bool negative = false;
  if (axle_status s = check_range(c, "index_put_", index, 0, self.sizes[0], &negative)) return s;
  if (negative) return AXLE_DECLINED;  // negative indices count from the end: the reference wraps them
  const bool i32 = index.dtype == AXLE_DTYPE_INT32;
  int e = 0;
  if (accumulate) {
    e = launch_scatter_add(out.dtype, index.data, i32, values.data, out.data, shape, n, c->stream);
  } else {
    Scratch scratch;
    if (axle_status s = scratch.allocate(out.device_index, scatter_src_scratch_bytes(shape), c)) return s;
    e = launch_scatter_src(plugin::dtype_size(out.dtype), index.data, i32, values.data, out.data, shape, n, scratch.ptr,
                           c->stream);
  }
  return check(static_cast<cudaError_t>(e), c->op_name, c);
}

const KernelEntry kKernels[] = {
    {"index_select", &index_select, AXLE_HERE},
    {"gather", &gather, AXLE_HERE},
    {"scatter.src", &scatter<ScatterMode::Src>, AXLE_HERE},
    {"scatter.value", &scatter<ScatterMode::Value>, AXLE_HERE},
    {"scatter_add", &scatter<ScatterMode::Add>, AXLE_HERE},
    {"index_put_", &index_put, AXLE_HERE},
};

}  // namespace

axle_status register_indexing(const axle_registrar* r) { return plugin::register_kernels(r, "cuda", kKernels); }

}  // namespace axle::cuda
