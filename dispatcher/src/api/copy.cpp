// C++ API of the copy family (axle/ops/copy.h): each wrapper calls its declared operator.
#include <axle/ops/copy.h>

#include "op_handle.h"

namespace axle {

Tensor clone(const Tensor& t) { return detail::call_one(AXLE_OP("clone"), t); }
Tensor reshape(const Tensor& t, const IntList& shape) { return detail::call_one(AXLE_OP("reshape"), t, shape); }

}  // namespace axle
