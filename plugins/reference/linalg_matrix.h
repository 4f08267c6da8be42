// What the linalg kernels share: batches of strided matrices read into and
// written from dense row-major buffers of doubles (every float dtype computes
// in double and rounds once when stored), with broadcast batch dims.
#pragma once

#include "kernels.h"

#include <vector>

namespace axle::reference::linalg {

using Dense = std::vector<double>;  // rows x cols, row-major

// The number of matrices in `batch` (the leading sizes of a result).
inline int64_t batch_count(const std::vector<int64_t>& batch) {
  int64_t n = 1;
  for (int64_t s : batch) n *= s;
  return n;
}

// The leading dims of `v` (all but its last `core` dims).
inline std::vector<int64_t> batch_of(const axle_tensor_view& v, int core) {
  return std::vector<int64_t>(v.sizes, v.sizes + (v.ndim - core));
}

// Element offsets of each of `batch`'s matrices in `v`, whose leading dims
// (all but its last `core`) broadcast to `batch` (missing or size-1 dims
// repeat their one matrix).
inline std::vector<int64_t> batch_offsets(const axle_tensor_view& v, int core, const std::vector<int64_t>& batch) {
  const int64_t nb = batch_count(batch);
  std::vector<int64_t> out(static_cast<size_t>(nb), 0);
  const int lead = v.ndim - core;
  const int extra = static_cast<int>(batch.size()) - lead;
  std::vector<int64_t> idx(batch.size(), 0);
  for (int64_t b = 0; b < nb; ++b) {
    int64_t off = 0;
    for (int d = 0; d < lead; ++d)
      if (v.sizes[d] != 1) off += idx[static_cast<size_t>(d + extra)] * v.strides[d];
    out[static_cast<size_t>(b)] = off;
    for (int d = static_cast<int>(batch.size()) - 1; d >= 0; --d) {
      if (++idx[static_cast<size_t>(d)] < batch[static_cast<size_t>(d)]) break;
      idx[static_cast<size_t>(d)] = 0;
    }
  }
  return out;
}

inline char* at(const axle_tensor_view& v, int64_t offset) {
  return static_cast<char*>(v.data) + offset * static_cast<int64_t>(plugin::dtype_size(v.dtype));
}

// The matrix of `v` (its last two dims) at element offset `off`.
inline Dense load_matrix(const axle_tensor_view& v, int64_t off) {
  const int64_t r = v.sizes[v.ndim - 2], c = v.sizes[v.ndim - 1];
  const int64_t rs = v.strides[v.ndim - 2], cs = v.strides[v.ndim - 1];
  Dense m(static_cast<size_t>(r * c));
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j)
      m[static_cast<size_t>(i * c + j)] = plugin::load_as<double>(at(v, off + i * rs + j * cs), v.dtype);
  return m;
}

// The c x r transpose of an r x c matrix.
inline Dense transposed(const Dense& a, int64_t r, int64_t c) {
  Dense t(a.size());
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j) t[static_cast<size_t>(j * r + i)] = a[static_cast<size_t>(i * c + j)];
  return t;
}

inline void store_matrix(const axle_tensor_view& v, int64_t off, const Dense& m) {
  const int64_t r = v.sizes[v.ndim - 2], c = v.sizes[v.ndim - 1];
  const int64_t rs = v.strides[v.ndim - 2], cs = v.strides[v.ndim - 1];
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j)
      plugin::store_from<double>(at(v, off + i * rs + j * cs), v.dtype, m[static_cast<size_t>(i * c + j)]);
}

// Element i of the vector of `v` (its last dim) at element offset `off`.
inline void store_entry(const axle_tensor_view& v, int64_t off, int64_t i, double x) {
  plugin::store_from<double>(at(v, off + i * v.strides[v.ndim - 1]), v.dtype, x);
}
inline int64_t load_index(const axle_tensor_view& v, int64_t off, int64_t i) {
  return plugin::load_as<int64_t>(at(v, off + i * v.strides[v.ndim - 1]), v.dtype);
}

}  // namespace axle::reference::linalg
