// Reductions: sum and mean over all dims (composites) or a dim list.
#include "reduce_util.h"

#include <axle/ops.h>

namespace axle::shape {
namespace {

// Normalizes args[1] (None | int[]) into a sorted list of unique dims (empty for
// a 0-dim input) and computes the output sizes.
IntList reduce_sizes(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  const IntList dims = normalize_reduce_dims(t, c.args[1], c.op);
  c.args[1] = dims;
  return reduced_sizes(t.sizes(), dims, c.args[2].to_bool());
}

void sum_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  const DType dt = !c.args[3].is_none() ? c.args[3].dtype() : is_integral(t.dtype(), true) ? kInt64 : t.dtype();
  c.outputs = {{reduce_sizes(c), dt}};
}

void mean_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  const DType dt = c.args[3].is_none() ? t.dtype() : c.args[3].dtype();
  AXLE_CHECK(is_floating_point(dt), DTypeError, c.op,
             ": mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
             "Got: ",
             dtype_name(dt));
  c.outputs = {{reduce_sizes(c), dt}};
}

}  // namespace

std::vector<OpDecl> reduction_ops() {
  return {
      {.schema = "sum(Tensor self, *, ScalarType? dtype=None) -> Tensor",
       .composite =
           [](const Stack& a) {
             return call_op("sum.dim_IntList", {a[0], Value(), false, a[1]});
           },
       .doc = "Sum of all elements."},
      {.schema = "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
       .shape = &sum_shape,
       .doc = "Sum over dims (integers and bool sum to int64)."},
      {.schema = "mean(Tensor self, *, ScalarType? dtype=None) -> Tensor",
       .composite =
           [](const Stack& a) {
             return call_op("mean.dim", {a[0], Value(), false, a[1]});
           },
       .doc = "Mean of all elements."},
      {.schema = "mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
       .shape = &mean_shape,
       .doc = "Mean over dims (floating dtypes only)."},
  };
}

}  // namespace axle::shape
