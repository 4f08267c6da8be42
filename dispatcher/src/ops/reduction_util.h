// Shared by the reduction shape functions (reduction.cpp):
// normalizing a dim list and the sizes a reduction over it produces.
#pragma once

#include "shape_util.h"

#include <algorithm>

namespace axle::shape {

// Normalizes a reduction's dim argument (None or int[]) into sorted unique
// wrapped dims: None or an empty list means every dim; a 0-d input reduces
// nothing (its dims, 0 or -1, are checked, then dropped). Repeats raise ValueError.
inline IntList normalize_reduce_dims(const Tensor& t, const Value& dim, const char* op) {
  const int64_t n = t.dim();
  IntList dims;
  if (!dim.is_none()) {
    for (int64_t d : dim.int_list()) {
      const int64_t w = wrap_dim(d, n, op);
      AXLE_CHECK(std::find(dims.begin(), dims.end(), w) == dims.end(), ValueError, op, ": dim ", w,
                 " appears multiple times in the list of dims");
      dims.push_back(w);
    }
  }
  if (n == 0) {
    dims.clear();
  } else if (dims.empty()) {
    for (int64_t d = 0; d < n; ++d) dims.push_back(d);
  }
  std::sort(dims.begin(), dims.end());
  return dims;
}

// The output sizes of reducing `sizes` over the sorted `dims`.
inline IntList reduced_sizes(const IntList& sizes, const IntList& dims, bool keepdim) {
  IntList out;
  for (int64_t d = 0; d < static_cast<int64_t>(sizes.size()); ++d) {
    if (!std::binary_search(dims.begin(), dims.end(), d))
      out.push_back(sizes[d]);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

}  // namespace axle::shape
