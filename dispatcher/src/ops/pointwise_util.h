// What the pointwise family's declaration files (pointwise.cpp,
// pointwise_special.cpp) share.
#pragma once

#include "../api/op_handle.h"
#include "shape_util.h"

#include <axle/ops.h>

namespace axle::shape {

// Float results: integer and bool inputs give the default float dtype.
inline DType float_or_default(DType d) { return is_floating_point(d) ? d : get_default_dtype(); }

// Unary float ops (argument 0): float_or_default of the input's dtype.
void float_unary_shape(ShapeContext& c);

// The Scalar overloads of a binary op: the number as a wrapped 0-d tensor on the
// other argument's device, then the Tensor overload `Op` (its promotion rules).
template <const char* Op>
Stack scalar_other(const Stack& a) {
  const Tensor& self = a[0].tensor();
  return detail::call(AXLE_OP(Op), self, scalar_to_tensor(a[1].scalar(), self.device()));
}
template <const char* Op>
Stack scalar_self(const Stack& a) {
  const Tensor& other = a[1].tensor();
  return detail::call(AXLE_OP(Op), scalar_to_tensor(a[0].scalar(), other.device()), other);
}

}  // namespace axle::shape
