// Host-side index planning of the pointwise launcher (pointwise.cu):
// collapse_dims, which drops size-1 dims and merges dims whose strides allow it
// for every operand. No CUDA calls, so tests compile this file alone
// (tests/cuda/test_cuda_pointwise_dims.cpp checks it against a naive indexer).
#include "kernels.h"

#include <cstdint>

namespace axle::cuda {

// ---------------------------------------------------------------- dim collapsing
void collapse_dims(Indexing* ix, int noperands) {
  int32_t order[kMaxDims];
  int32_t n = 0;
  for (int32_t d = 0; d < ix->ndim; ++d) {
    if (ix->sizes[d] == 0) return;  // nothing runs: keep the dims as given
    if (ix->sizes[d] != 1) order[n++] = d;
  }
  // Larger output strides outermost (a stable insertion sort: ties keep their order).
  for (int32_t a = 1; a < n; ++a) {
    const int32_t d = order[a];
    int32_t b = a;
    for (; b > 0 && ix->strides[0][order[b - 1]] < ix->strides[0][d]; --b) order[b] = order[b - 1];
    order[b] = d;
  }
  Indexing r;
  // Built from the innermost dim outwards into the tail of r, then moved to the front.
  int32_t top = kMaxDims;
  for (int32_t a = n - 1; a >= 0; --a) {
    const int32_t d = order[a];
    bool merge = top < kMaxDims;
    for (int k = 0; merge && k < noperands; ++k) merge = ix->strides[k][d] == r.strides[k][top] * r.sizes[top];
    if (merge) {
      r.sizes[top] *= ix->sizes[d];
      continue;
    }
    --top;
    r.sizes[top] = ix->sizes[d];
    for (int k = 0; k < kMaxOperands; ++k) r.strides[k][top] = k < noperands ? ix->strides[k][d] : 0;
  }
  Indexing out;
  out.ndim = kMaxDims - top;
  for (int32_t d = 0; d < out.ndim; ++d) {
    out.sizes[d] = r.sizes[top + d];
    for (int k = 0; k < kMaxOperands; ++k) out.strides[k][d] = r.strides[k][top + d];
  }
  *ix = out;
}

}  // namespace axle::cuda
