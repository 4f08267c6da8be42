// Launchers of the scatter kernels in indexing.cu (host functions, used by
// indexing.cpp; each returns 0 or a cudaError_t). A scatter runs over the
// coordinates of an int64 / int32 index tensor (strided: index_put_ of one row
// index is a scatter along dim 0 with the index broadcast over each row): for
// the index element at coord, out[coord with coord[dim] = index[coord]] receives
// src[coord] (scatter.src, index_put_), a value (scatter.value) or += src[coord]
// (scatter_add, index_put_ accumulating). Indices are checked by the caller
// first (launch_index_min_max).
#pragma once

#include "kernels.h"

#include <cstddef>
#include <cstdint>

namespace axle::cuda {

// A 0-d tensor is seen as 1-d of size 1 (torch's ensure_nonempty).
struct ScatterShape {
  int32_t ndim = 0;
  int32_t dim = 0;
  int64_t index_sizes[kMaxDims] = {};
  int64_t index_strides[kMaxDims] = {};  // in elements; 0 along a broadcast dim
  int64_t out_strides[kMaxDims] = {};    // in elements
  int64_t src_strides[kMaxDims] = {};    // in elements (scatter.src, scatter_add)
  int64_t out_dim_size = 0;              // out's size along dim: indices are in [0, out_dim_size)
};

// Scratch bytes launch_scatter_src needs to settle duplicate indices as the
// reference does (the last index element in row-major order wins): one winner
// per (line of the index along dim, destination along dim). 0 when each line
// has one element: no destination can be written twice.
inline size_t scatter_src_scratch_bytes(const ScatterShape& s) {
  const int64_t k = s.index_sizes[s.dim];
  if (k <= 1) return 0;
  int64_t lines = 1;
  for (int32_t d = 0; d < s.ndim; ++d)
    if (d != s.dim) lines *= s.index_sizes[d];
  return static_cast<size_t>(lines) * static_cast<size_t>(s.out_dim_size) *
         (k < int64_t{UINT32_MAX} ? sizeof(uint32_t) : sizeof(uint64_t));
}

// out (contiguous, n elements) = a byte-exact copy of the strided view `self` of
// the same shape (strides in elements).
int launch_strided_copy(size_t esize, const void* self, int32_t ndim, const int64_t* sizes, const int64_t* strides,
                        void* out, int64_t n, void* stream);

// scatter.value: `value` holds one element of `esize` bytes in out's dtype; n
// is the index's element count. Duplicate indices write the same bytes.
int launch_scatter_value(size_t esize, const void* idx, bool i32, void* out, const ScatterShape& s, int64_t n,
                         const void* value, void* stream);

// scatter.src: deterministic, the reference's result for duplicate indices.
// `scratch` holds scatter_src_scratch_bytes(s) bytes (may be NULL when that is 0).
int launch_scatter_src(size_t esize, const void* idx, bool i32, const void* src, void* out, const ScatterShape& s,
                       int64_t n, void* scratch, void* stream);

// scatter_add with atomicAdd: float32 / float64 / float16 / bfloat16 (the order
// of the additions to one element varies between runs), int32 and int64
// (wrap-around, exact in any order). Other dtypes: cudaErrorInvalidValue.
int launch_scatter_add(axle_dtype dt, const void* idx, bool i32, const void* src, void* out, const ScatterShape& s,
                       int64_t n, void* stream);

}  // namespace axle::cuda
