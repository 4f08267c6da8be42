// index_select and index_put_ on whole rows: what embedding (index_select along
// dim 0) and its gradient (an accumulating index_put_ with one index tensor)
// run. The reference's element-by-element loops took 150 and 180 us for a word
// LM's 700 x 32 rows; here rows are memcpy'd, or added as float / double rows
// in the index's order (the reference's order and rounding: a float sum of two
// floats equals the double sum rounded). Every index is checked before anything
// is written, with the reference's messages. Contiguous tensors, int64 / int32
// indices; the rest is declined (the reference serves it).
#include "kernels.h"

#include <cstring>
#include <string>

namespace axle::cpu {
namespace {

using plugin::arg_int;
using plugin::arg_tensor;

bool index_dtype(axle_dtype d) { return d == AXLE_DTYPE_INT64 || d == AXLE_DTYPE_INT32; }

int64_t index_at(const axle_tensor_view& index, int64_t i) {
  return index.dtype == AXLE_DTYPE_INT64 ? static_cast<const int64_t*>(index.data)[i]
                                         : static_cast<const int32_t*>(index.data)[i];
}

// AXLE_OK when every index is in [0, size), or [-size, size) when negatives
// wrap; else the first offending one named as the reference names it.
axle_status check_range(const axle_kernel_call* c, const char* op, const axle_tensor_view& index, int64_t dim,
                        int64_t size, bool negatives) {
  const int64_t n = plugin::numel(index);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t v = index_at(index, i);
    if (v >= size || v < (negatives ? -size : 0))
      return plugin::fail(c, AXLE_ERROR_INDEX, plugin::index_out_of_bounds(op, v, dim, size));
  }
  return AXLE_OK;
}

// index_select(self, dim, index): out[outer, i, inner] = self[outer, index[i], inner].
axle_status index_select(void*, const axle_kernel_call* c) {
  const axle_tensor_view& self = arg_tensor(c, 0);
  const axle_tensor_view& index = arg_tensor(c, 2);
  const axle_tensor_view& out = c->outputs[0];
  if (self.ndim < 1 || index.ndim > 1 || !index_dtype(index.dtype) || !plugin::is_contiguous(self) ||
      !plugin::is_contiguous(index) || !plugin::is_contiguous(out) || self.dtype != out.dtype)
    return plugin::decline(c, "a strided tensor, a 0-d self or an index not int64 / int32");
  int64_t dim = arg_int(c, 1);
  if (dim < 0) dim += self.ndim;
  if (axle_status s = check_range(c, "index_select()", index, dim, self.sizes[dim], false)) return s;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= self.sizes[d];
  for (int64_t d = dim + 1; d < self.ndim; ++d) inner *= self.sizes[d];
  const int64_t n = plugin::numel(index), rows = self.sizes[dim];
  const size_t row_bytes = static_cast<size_t>(inner) * plugin::dtype_size(self.dtype);
  const auto* src = static_cast<const char*>(self.data);
  auto* dst = static_cast<char*>(out.data);
  const int threads = static_cast<int64_t>(row_bytes) * n * outer >= (int64_t{1} << 21) ? thread_count() : 1;
  parallel_ranges(outer * n, threads, 1, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) {
      const int64_t o = k / n, i = k % n;
      std::memcpy(dst + static_cast<size_t>(k) * row_bytes,
                  src + static_cast<size_t>(o * rows + index_at(index, i)) * row_bytes, row_bytes);
    }
  });
  return AXLE_OK;
}

template <typename T>
void add_row(T* __restrict dst, const T* __restrict src, int64_t n) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) dst[j] += src[j];
}

// index_put_(self!, indices, values, accumulate) with one index tensor (on dim
// 0) and values of exactly the indexing result's shape [index.shape,
// self.shape[1:]]: row index[i] of self gets (or gains) row i of values, in
// order (a repeated index: the last row wins, or all are added). Negative
// indices wrap.
axle_status index_put(void*, const axle_kernel_call* c) {
  const axle_tensor_view& self = c->outputs[0];  // argument 0, in place
  const axle_value& list = c->args[1];
  const axle_tensor_view& values = arg_tensor(c, 2);
  const bool accumulate = plugin::arg_bool(c, 3);
  if (list.u.tensors.count < 1 || self.ndim < 1 || !plugin::is_contiguous(self) || !plugin::is_contiguous(values) ||
      values.dtype != self.dtype)
    return plugin::decline(c, "a strided or 0-d self, strided values or values of another dtype");
  const axle_tensor_view& index = list.u.tensors.items[0];
  for (int64_t k = 1; k < list.u.tensors.count; ++k)
    if (list.u.tensors.items[k].ndim >= 0) return plugin::decline(c, "more than one index tensor");
  if (index.ndim < 0 || !index_dtype(index.dtype) || !plugin::is_contiguous(index))
    return plugin::decline(c, "an index not int64 / int32 (a mask) or strided");
  if (accumulate && self.dtype != AXLE_DTYPE_FLOAT32 && self.dtype != AXLE_DTYPE_FLOAT64)
    return plugin::decline(c, "accumulating into a dtype other than float32 / float64");
  // values of exactly [index.shape, self.shape[1:]] (broadcasting ones are declined).
  if (values.ndim != index.ndim + self.ndim - 1) return plugin::decline(c, "values broadcast to the result");
  for (int32_t d = 0; d < values.ndim; ++d)
    if (values.sizes[d] != (d < index.ndim ? index.sizes[d] : self.sizes[d - index.ndim + 1]))
      return plugin::decline(c, "values broadcast to the result");
  if (plugin::views_overlap(self, index) || plugin::views_overlap(self, values))
    return plugin::decline(c, "self overlapping index or values");
  const int64_t n = plugin::numel(index), rows = self.sizes[0];
  const int64_t inner = rows > 0 ? plugin::numel(self) / rows : 0;
  if (n == 0 || inner == 0) return AXLE_OK;
  if (axle_status s = check_range(c, "index_put_", index, 0, rows, true)) return s;
  const size_t es = plugin::dtype_size(self.dtype);
  auto* dst = static_cast<char*>(self.data);
  const auto* src = static_cast<const char*>(values.data);
  for (int64_t i = 0; i < n; ++i) {
    int64_t r = index_at(index, i);
    if (r < 0) r += rows;
    char* d = dst + static_cast<size_t>(r * inner) * es;
    const char* s = src + static_cast<size_t>(i * inner) * es;
    if (!accumulate)
      std::memcpy(d, s, static_cast<size_t>(inner) * es);
    else if (self.dtype == AXLE_DTYPE_FLOAT32)
      add_row(reinterpret_cast<float*>(d), reinterpret_cast<const float*>(s), inner);
    else
      add_row(reinterpret_cast<double*>(d), reinterpret_cast<const double*>(s), inner);
  }
  return AXLE_OK;
}

const KernelEntry kKernels[] = {
    {"index_select", &index_select, AXLE_HERE},
    {"index_put_", &index_put, AXLE_HERE},
};

}  // namespace

axle_status register_indexing(const axle_registrar* r) { return plugin::register_kernels(r, "cpu", kKernels); }

}  // namespace axle::cpu
