// Pieces shared by the conv_pool family's declaration files (conv_pool.cpp,
// conv_pool3d.cpp): torch's pooling output size and the unbatched-input rule.
#pragma once

#include "shape_util.h"

namespace axle::shape {

// torch's pooling_output_shape (div rounding toward -inf, ceil mode's last window
// must start inside the input or the left padding).
int64_t pool_out(const char* op, int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dil, bool ceil);
// `input` with a batch dim of 1 added when it has `spatial` + 1 dims (batched:
// false), as is when it has `spatial` + 2 (batched: true); ShapeError otherwise.
Tensor batchify(const Tensor& input, int64_t spatial, const char* name, bool& batched);

}  // namespace axle::shape
