// matmul with every torch.matmul case: dot, matrix-vector, vector-matrix,
// matrix-matrix, and batched with broadcast batch dimensions.
#include "shape_util.h"

#include <axle/ops.h>

namespace axle::shape {
namespace {

std::string mat_str(const IntList& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) out += (i ? "x" : "") + std::to_string(s[i]);
  return out;
}

void matmul_shape(ShapeContext& c) {
  const Tensor& a = c.arg(0).tensor();
  const Tensor& b = c.arg(1).tensor();
  const int64_t da = a.dim(), db = b.dim();
  AXLE_CHECK(da >= 1 && db >= 1, ShapeError, c.op, ": both arguments to matmul need to be at least 1D, but they are ",
             da, "D and ", db, "D");
  AXLE_CHECK(a.dtype() == b.dtype(), DTypeError, c.op, ": expected both arguments to have the same dtype, but got ",
             dtype_name(a.dtype()), " and ", dtype_name(b.dtype()));
  AXLE_CHECK(a.dtype() != kBool, DTypeError, c.op, ": bool tensors are not supported by matmul");
  if (da == 1 && db == 1) {
    AXLE_CHECK(a.sizes()[0] == b.sizes()[0], ShapeError, c.op, ": inconsistent tensor size, expected tensor [",
               a.sizes()[0], "] and src [", b.sizes()[0],
               "] to have the same number of elements, but got ", a.sizes()[0], " and ", b.sizes()[0],
               " elements respectively");
    c.outputs = {{{}, a.dtype()}};
    return;
  }
  const int64_t k_a = a.sizes()[da - 1];
  const int64_t k_b = db >= 2 ? b.sizes()[db - 2] : b.sizes()[0];
  AXLE_CHECK(k_a == k_b, ShapeError, c.op, ": mat1 and mat2 shapes cannot be multiplied (",
             da >= 2 ? mat_str({a.sizes()[da - 2], k_a}) : mat_str({1, k_a}), " and ",
             db >= 2 ? mat_str({k_b, b.sizes()[db - 1]}) : mat_str({k_b, 1}), ")");
  const IntList batch_a(a.sizes().begin(), a.sizes().end() - std::min<int64_t>(da, 2));
  const IntList batch_b(b.sizes().begin(), b.sizes().end() - std::min<int64_t>(db, 2));
  IntList out = broadcast(batch_a, batch_b);
  if (da >= 2) out.push_back(a.sizes()[da - 2]);
  if (db >= 2) out.push_back(b.sizes()[db - 1]);
  checked_numel(out);
  c.outputs = {{out, a.dtype()}};
}

}  // namespace

std::vector<OpDecl> linalg_ops() {
  return {
      {.schema = "matmul(Tensor self, Tensor other) -> Tensor",
       .shape = &matmul_shape,
       .doc = "Matrix product with torch.matmul's broadcasting rules."},
  };
}

}  // namespace axle::shape
