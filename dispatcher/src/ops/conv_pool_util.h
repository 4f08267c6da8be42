// Pieces shared by the conv_pool family's declaration files (conv_pool.cpp,
// conv_pool3d.cpp, conv_pool_backward.cpp, conv_pool3d_backward.cpp): torch's
// pooling output size, the unbatched-input rule, and the pieces of the 2-d and
// 3-d pooling backward composites.
#pragma once

#include "shape_util.h"

namespace axle::shape {

// torch's pooling_output_shape (div rounding toward -inf, ceil mode's last window
// must start inside the input or the left padding).
int64_t pool_out(const char* op, int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil);
// `input` with a batch dim of 1 added when it has `spatial` + 1 dims (batched:
// false), as is when it has `spatial` + 2 (batched: true); ShapeError otherwise.
Tensor batchify(const Tensor& input, int64_t spatial, const char* name, bool& batched);
// Max pooling's gradient: each output's gradient added at the flat index (over
// the last `spatial` dims) of its maximum, as max_pool / adaptive_max_pool return them.
Tensor scatter_to_indices(const Tensor& gy, const Tensor& self, const Tensor& indices, int64_t spatial);
// An average pooling window's kernel, stride and padding per spatial dim, as
// torch's avg_pool checks them: positive kernel and stride, 0 <= pad <= kernel / 2.
void check_avg_pool_window(const char* op, const IntList& k, const IntList& s, const IntList& p);
// l[i] of an int list given as one value for every dim or one per dim; fallback when empty.
int64_t one_or(const IntList& l, size_t i, int64_t fallback);
// The adaptive windows of torch's adaptive pooling along one dim as an [out, in]
// matrix of 1 / window size (like_t's dtype and device): the forward is a
// product with it per dim, the gradient one with its transpose.
Tensor adaptive_matrix(int64_t out, int64_t in, const Tensor& like_t);

}  // namespace axle::shape
