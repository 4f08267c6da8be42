// Indexing ops. nonzero's output shape depends on the data: its kernel
// allocates the output through the host (axle_host_api.allocate_output).
#include "shape_util.h"

namespace axle::shape {
namespace {

void nonzero_shape(ShapeContext& c) {
  OutputSpec o;
  o.dtype = kInt64;
  o.data_dependent = true;
  c.outputs = {o};
}

}  // namespace

std::vector<OpDecl> indexing_ops() {
  return {
      {.schema = "nonzero(Tensor self) -> Tensor",
       .shape = &nonzero_shape,
       .doc = "Indices of non-zero elements, shape (count, ndim); data-dependent output."},
  };
}

}  // namespace axle::shape
