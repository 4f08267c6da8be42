// The Cholesky piece of the linalg family: linalg_cholesky_ex (a kernel, with
// its formula) and the composites linalg_cholesky / cholesky, cholesky_solve,
// cholesky_inverse and the older triangular_solve (linalg_solve_triangular's
// arguments, reversed, plus a copy of A). A matrix that is not
// positive-definite raises axle.LinAlgError (torch.linalg.LinAlgError)
// naming the failing leading minor, as torch.
#include "../derivatives/derivatives.h"
#include "linalg_util.h"

namespace axle::shape {
namespace {

using linalg::batch_prefix;
using linalg::batch_sizes;
using linalg::check_float;
using linalg::check_square;
using linalg::first_failure;
using linalg::mT;

void cholesky_ex_shape(ShapeContext& c) {
  const Tensor& a = c.arg(0).tensor();
  check_square("linalg.cholesky", a);
  check_float("linalg.cholesky", a);
  c.outputs = {{a.sizes(), a.dtype()}, {batch_sizes(a), kInt32}};
}

// A leading minor that is not positive-definite (info > 0) as torch's LinAlgError for `op`.
void check_cholesky_info(const char* op, const Tensor& a, const Tensor& info) {
  const auto [index, order] = first_failure(info);
  AXLE_CHECK(index < 0, LinAlgError, op, ": ", batch_prefix(a, index),
             "The factorization could not be completed because the input is not positive-definite (the leading minor "
             "of order ",
             order, " is not positive-definite).");
}

// linalg_cholesky_ex's check_errors, for every backend (kernels only compute info).
void cholesky_ex_after(const Stack& args, const Stack& outputs) {
  if (args[2].to_bool()) check_cholesky_info("linalg.cholesky_ex", args[0].tensor(), outputs[1].tensor());
}

Tensor cholesky_checked(const char* op, const Tensor& a, bool upper) {
  const Stack r = call_op(AXLE_OP("linalg_cholesky_ex"), {a, upper, false});
  check_cholesky_info(op, a, r[1].tensor());
  return r[0].tensor();
}

Tensor tri_solve(const Tensor& a, const Tensor& b, bool upper, bool unit = false) {
  return detail::call_one(AXLE_OP("linalg_solve_triangular"), a, b, upper, true, unit);
}

// torch's checks of b (self) and A for cholesky_solve and triangular_solve.
void check_b_and_a(const char* op, const Tensor& b, const Tensor& a) {
  AXLE_CHECK(b.dtype() == a.dtype(), DTypeError, op, ": Expected b and A to have the same dtype, but found b of type ",
             torch_type_name(b.dtype()), " and A of type ", torch_type_name(a.dtype()), " instead.");
  AXLE_CHECK(a.dim() >= 2, ShapeError, op, ": A should have at least 2 dimensions, but has ", a.dim(),
             " dimensions instead");
  check_square(op, a);
  AXLE_CHECK(a.size(-1) == b.size(-2), ShapeError, "Incompatible matrix sizes for ", op, ": each A matrix is ",
             a.size(-1), " by ", a.size(-1), " but each b matrix is ", b.size(-2), " by ", b.size(-1));
}

// X of A X = B with A = L L^T (upper: U^T U) given its factor.
Stack cholesky_solve_composite(const Stack& s) {
  const char* op = "cholesky_solve";
  const Tensor& b = s[0].tensor();
  const Tensor& f = s[1].tensor();
  const bool upper = s[2].to_bool();
  AXLE_CHECK(b.dim() >= 2, ShapeError, op, ": b should have at least 2 dimensions, but has ", b.dim(),
             " dimensions instead");
  check_b_and_a(op, b, f);
  linalg::check_lapack_dtype(op, "cholesky_solve_cpu", b.dtype());
  const Tensor l = upper ? mT(f) : f;  // A = L L^T either way
  return {tri_solve(mT(l), tri_solve(l, b, false), true)};
}

// A^-1 from A's Cholesky factor: L^-T L^-1 (upper: U^-1 U^-T).
Stack cholesky_inverse_composite(const Stack& s) {
  const char* op = "cholesky_inverse";
  const Tensor& f = s[0].tensor();
  const bool upper = s[1].to_bool();
  check_square(op, f);
  linalg::check_lapack_dtype(op, "cholesky_inverse_out_cpu", f.dtype());
  const Tensor l = upper ? mT(f) : f;
  const Tensor id = expand(linalg::eye_like(f, f.size(-1)), f.sizes());
  const Tensor linv = tri_solve(l, id, false);
  return {matmul(mT(linv), linv)};
}

// triangular_solve(b, A, upper, transpose, unitriangular) -> (X of op(A) X = b, A broadcast and copied).
Stack triangular_solve_composite(const Stack& s) {
  const char* op = "triangular_solve";
  const Tensor& b = s[0].tensor();
  const Tensor& a = s[1].tensor();
  const bool upper = s[2].to_bool(), transpose = s[3].to_bool(), unit = s[4].to_bool();
  AXLE_CHECK(b.dim() >= 2, ShapeError, "torch.triangular_solve: Expected b to have at least 2 dimensions, but it has ",
             b.dim(), " dimensions instead");
  check_b_and_a(op, b, a);
  linalg::check_lapack_dtype(op, "triangular_solve_cpu", b.dtype());
  IntList batch = broadcast(batch_sizes(a), batch_sizes(b));
  const Tensor x = tri_solve(transpose ? mT(a) : a, b, transpose ? !upper : upper, unit);
  batch.push_back(a.size(-2));
  batch.push_back(a.size(-1));
  return {x, expand(a, batch).clone()};
}

}  // namespace

std::vector<OpDecl> linalg_cholesky_ops() {
  const Derivative decomposes = {.decomposes = true};
  return {
      {.schema = "linalg_cholesky_ex(Tensor self, *, bool upper=False, bool check_errors=False) -> (Tensor L, Tensor "
                 "info)",
       .shape = &cholesky_ex_shape,
       .doc = "L of A = L L^T (upper: U of A = U^T U) from A's lower (upper) triangle, and info: the order of the "
              "first leading minor that is not positive-definite (0: none); check_errors raises LinAlgError for a "
              "nonzero info.",
       .derivative = {.vjp = &derivatives::linalg_cholesky_ex, .saves = save_output(0)},
       .after = &cholesky_ex_after},
      {.schema = "linalg_cholesky(Tensor self, *, bool upper=False) -> Tensor",
       .composite = [](const Stack& s) -> Stack {
         return {cholesky_checked("linalg.cholesky", s[0].tensor(), s[1].to_bool())};
       },
       .doc = "The Cholesky factor; raises for a matrix that is not positive-definite.",
       .derivative = decomposes},
      {.schema = "cholesky(Tensor self, bool upper=False) -> Tensor",
       .composite = [](const Stack& s) -> Stack {
         return {cholesky_checked("cholesky", s[0].tensor(), s[1].to_bool())};
       },
       .doc = "linalg_cholesky (upper positional).",
       .derivative = decomposes},
      {.schema = "cholesky_solve(Tensor self, Tensor input2, bool upper=False) -> Tensor",
       .composite = &cholesky_solve_composite,
       .doc = "X of A X = self given A's Cholesky factor input2 (two triangular solves); batch dims broadcast.",
       .derivative = decomposes},
      {.schema = "cholesky_inverse(Tensor self, bool upper=False) -> Tensor",
       .composite = &cholesky_inverse_composite,
       .doc = "A^-1 given A's Cholesky factor.",
       .derivative = decomposes},
      {.schema = "triangular_solve(Tensor self, Tensor A, bool upper=True, bool transpose=False, bool "
                 "unitriangular=False) -> (Tensor solution, Tensor cloned_coefficient)",
       .composite = &triangular_solve_composite,
       .doc = "X of A X = self (transpose: A^T X = self) for triangular A, and a copy of A (batch dims broadcast).",
       .derivative = decomposes},
  };
}

}  // namespace axle::shape
