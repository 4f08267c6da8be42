// Linear algebra on batches of float matrices (leading dims are batch dims),
// with torch 1.13's schemas and errors. Kernels: LU with partial pivoting
// (linalg_lu_factor_ex), lu_unpack, linalg_solve_triangular and Cholesky
// (linalg_cholesky_ex, linalg_cholesky.cpp's family piece); everything else
// here is a composite of them: lu, lu_solve, det / slogdet / logdet, inv,
// solve, matrix_power. A singular (or, for Cholesky, not positive-definite)
// input raises axle.LinAlgError (torch.linalg.LinAlgError, a RuntimeError) with torch's
// message.
#include "../derivatives/derivatives.h"
#include "linalg_util.h"

#include <limits>

namespace axle::shape {
namespace {

using linalg::batch_prefix;
using linalg::batch_sizes;
using linalg::check_at_least_2d;
using linalg::check_float;
using linalg::check_lapack_dtype;
using linalg::check_square;
using linalg::first_failure;
using linalg::mT;
using linalg::vector_rhs;

void lu_factor_ex_shape(ShapeContext& c) {
  const Tensor& a = c.arg(0).tensor();
  AXLE_CHECK(a.dim() >= 2, ShapeError, c.op, ": Expected tensor with 2 or more dimensions. Got size: ", str(a.sizes()),
             " instead");
  AXLE_CHECK(c.arg(1).to_bool(), NotImplementedError, c.op, ": LU without pivoting is not implemented on the CPU");
  check_lapack_dtype(c.op, "lu_cpu", a.dtype());
  IntList piv = batch_sizes(a);
  piv.push_back(std::min(a.size(-2), a.size(-1)));
  c.outputs = {{a.sizes(), a.dtype()}, {piv, kInt32}, {batch_sizes(a), kInt32}};
}

void lu_unpack_shape(ShapeContext& c) {
  const Tensor& lu = c.arg(0).tensor();
  const Tensor& piv = c.arg(1).tensor();
  AXLE_CHECK(lu.dim() >= 2, ShapeError, c.op,
             ": Expected tensor with 2 or more dimensions. Got size: ", str(lu.sizes()), " instead");
  check_lapack_dtype(c.op, "lu_unpack", lu.dtype());
  AXLE_CHECK(piv.dtype() == kInt32, DTypeError, c.op,
             ": LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\nNote: this function is intended "
             "to be used with the output produced by torch.linalg.lu_factor");
  const int64_t m = lu.size(-2), n = lu.size(-1), k = std::min(m, n);
  IntList want = batch_sizes(lu);
  want.push_back(k);
  AXLE_CHECK(piv.sizes() == want, ShapeError, c.op, ": LU_pivots of size ", str(piv.sizes()),
             " does not fit LU_data of size ", str(lu.sizes()), " (expected ", str(want), ")");
  const bool data = c.arg(2).to_bool(), pivots = c.arg(3).to_bool();
  auto with = [&](int64_t r, int64_t cols) {
    IntList s = batch_sizes(lu);
    s.push_back(r);
    s.push_back(cols);
    return s;
  };
  c.outputs = {{pivots ? with(m, m) : IntList{0}, lu.dtype()},
               {data ? with(m, k) : IntList{0}, lu.dtype()},
               {data ? with(k, n) : IntList{0}, lu.dtype()}};
}

// "3x3 and 2x3" for torch's incompatible-shapes messages.
std::string pair_str(const Tensor& a, const Tensor& b) {
  return std::to_string(a.size(-2)) + "x" + std::to_string(a.size(-1)) + " and " + std::to_string(b.size(-2)) + "x" +
         std::to_string(b.size(-1));
}

// A (square) and B of AX = B (left) or XA = B: the batch of the result.
IntList solve_batch(const char* op, const Tensor& a, const Tensor& b, bool left) {
  const bool fits = left ? a.size(-1) == b.size(-2) : a.size(-2) == b.size(-1);
  AXLE_CHECK(fits, ShapeError, op, ": Incompatible shapes of A and B for the equation ", left ? "AX = B" : "XA = B",
             " (", pair_str(a, b), ")");
  IntList out = broadcast(batch_sizes(a), batch_sizes(b));
  out.push_back(b.size(-2));
  out.push_back(b.size(-1));
  return out;
}

void solve_triangular_shape(ShapeContext& c) {
  const Tensor& a = c.arg(0).tensor();
  const Tensor& b = c.arg(1).tensor();
  check_at_least_2d(c.op, a);
  check_at_least_2d(c.op, b, "B");
  check_square(c.op, a);
  check_lapack_dtype(c.op, "triangular_solve_cpu", a.dtype());
  check_lapack_dtype(c.op, "triangular_solve_cpu", b.dtype());
  c.outputs = {{solve_batch(c.op, a, b, c.arg(3).to_bool()), a.dtype()}};
}

// ---- composites

Stack lu_factor_ex(const Tensor& a, bool pivot = true) {
  return call_op(AXLE_OP("linalg_lu_factor_ex"), {a, pivot, false});
}

// A zero on U's diagonal (info > 0) as torch's LinAlgError for `op`.
void check_lu_info(const char* op, const Tensor& a, const Tensor& info_t) {
  const auto [index, info] = first_failure(info_t);
  AXLE_CHECK(index < 0, LinAlgError, op, ": ", batch_prefix(a, index), "U[", info, ",", info,
             "] is zero and using it on lu_solve would result in a division by zero. If you still want to perform "
             "the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)");
}

// linalg_lu_factor_ex's check_errors, for every backend (kernels only compute info).
void lu_factor_ex_after(const Stack& args, const Stack& outputs) {
  if (args[2].to_bool()) check_lu_info("torch.linalg.lu_factor_ex", args[0].tensor(), outputs[2].tensor());
}

Stack lu_factor_composite(const Stack& s) {
  Stack r = call_op(AXLE_OP("linalg_lu_factor_ex"), {s[0], s[1], false});
  check_lu_info("torch.linalg.lu_factor", s[0].tensor(), r[2].tensor());
  return {r[0], r[1]};
}

Stack lu_composite(const Stack& s) {
  Stack f = lu_factor_ex(s[0].tensor(), s[1].to_bool());
  return call_op(AXLE_OP("lu_unpack"), {f[0], f[1], true, true});
}

// X of A X = B (left) or X A = B, A = P L U given as lu_factor's LU and pivots;
// adjoint: A^T in place of A.
Tensor lu_solve(const Tensor& lu, const Tensor& piv, const Tensor& b, bool left, bool adjoint) {
  if (!left) return mT(lu_solve(lu, piv, mT(b), true, !adjoint));
  const Stack plu = call_op(AXLE_OP("lu_unpack"), {lu, piv, true, true});
  const Tensor &p = plu[0].tensor(), &l = plu[1].tensor(), &u = plu[2].tensor();
  auto tri = [](const Tensor& a, const Tensor& rhs, bool upper, bool unit) {
    return detail::call_one(AXLE_OP("linalg_solve_triangular"), a, rhs, upper, true, unit);
  };
  if (!adjoint) return tri(u, tri(l, matmul(mT(p), b), false, true), true, false);
  // A^T = U^T L^T P^T: X = P L^-T U^-T B.
  return matmul(p, tri(mT(l), tri(mT(u), b, false, false), true, true));
}

Stack lu_solve_composite(const Stack& s) {
  const char* op = "linalg.lu_solve";
  const Tensor& lu = s[0].tensor();
  const Tensor& piv = s[1].tensor();
  const Tensor& b = s[2].tensor();
  const bool left = s[3].to_bool(), adjoint = s[4].to_bool();
  check_at_least_2d(op, lu, "LU");
  check_at_least_2d(op, b, "B");
  check_square(op, lu, "LU");
  AXLE_CHECK(lu.dtype() == b.dtype(), DTypeError, op,
             ": Expected LU and B to have the same dtype, but found LU of type ", torch_type_name(lu.dtype()),
             " and B of type ", torch_type_name(b.dtype()), " instead");
  AXLE_CHECK(piv.dtype() == kInt32, DTypeError, op, ": pivots should be a Tensor of scalar type Int");
  AXLE_CHECK(piv.dim() == lu.dim() - 1 && piv.size(-1) == lu.size(-1), ShapeError, op,
             ": Number of pivots per batch should be same as the dimension of the matrix");
  solve_batch(op, lu, b, left);
  return {lu_solve(lu, piv, b, left, adjoint)};
}

// sign(det(P)) of lu_factor's pivots: -1 for an odd number of swaps.
Tensor permutation_sign(const Tensor& piv, DType dtype) {
  const int64_t k = piv.size(-1);
  const Tensor rows = arange(1, k + 1, 1, TensorOptions().dtype(kInt32).device(piv.device()));
  const Tensor swapped = ne(piv, rows).to(dtype);  // each swap flips the sign
  return prod(swapped * -2 + 1, -1);
}

Tensor det_of(const char* op, const Tensor& a) {
  check_square(op, a);
  check_float(op, a);
  const Stack f = lu_factor_ex(a);
  const Tensor d = linalg::diagonal(f[0].tensor());
  return prod(d, -1) * permutation_sign(f[1].tensor(), a.dtype());
}

Stack slogdet_of(const char* op, const Tensor& a) {
  check_square(op, a);
  check_float(op, a);
  const Stack f = lu_factor_ex(a);
  const Tensor d = linalg::diagonal(f[0].tensor());
  const Tensor sign = prod(detail::call_one(AXLE_OP("sign"), d), -1) * permutation_sign(f[1].tensor(), a.dtype());
  const Tensor logabs = sum(detail::call_one(AXLE_OP("log"), detail::call_one(AXLE_OP("abs"), d)), {-1});
  return {sign, logabs};
}

Stack logdet_composite(const Stack& s) {
  const Stack r = slogdet_of("logdet", s[0].tensor());
  const TensorOptions options = TensorOptions().dtype(s[0].tensor().dtype()).device(s[0].tensor().device());
  const Tensor nan = full({}, std::numeric_limits<double>::quiet_NaN(), options);
  return {where(r[0].tensor() < zeros({}, options), nan, r[1].tensor())};
}

// The inverse through lu_solve with the identity, and lu_factor's info.
Stack inv_ex(const char* op, const Tensor& a, bool check_errors) {
  check_square(op, a);
  check_float(op, a);
  const Stack f = lu_factor_ex(a);
  if (check_errors) {
    const auto [index, info] = first_failure(f[2].tensor());
    AXLE_CHECK(index < 0, LinAlgError, op, ": ", batch_prefix(a, index), "The diagonal element ", info,
               " is zero, the inversion could not be completed because the input matrix is singular.");
  }
  const Tensor id = expand(linalg::eye_like(a, a.size(-1)), a.sizes());
  return {lu_solve(f[0].tensor(), f[1].tensor(), id, true, false), f[2]};
}

Stack solve_ex(const char* op, const Stack& s, bool check_errors) {
  const Tensor& a = s[0].tensor();
  const Tensor& b0 = s[1].tensor();
  const bool left = s[2].to_bool();
  check_at_least_2d(op, a);
  check_square(op, a);
  check_float(op, a);
  AXLE_CHECK(a.dtype() == b0.dtype(), DTypeError, op, ": Expected A and B to have the same dtype, but found A of type ",
             torch_type_name(a.dtype()), " and B of type ", torch_type_name(b0.dtype()), " instead");
  const bool vec = b0.dim() >= 1 && vector_rhs(a, b0);
  const Tensor b = vec ? unsqueeze(b0, -1) : b0;
  check_at_least_2d(op, b, "B");
  solve_batch(op, a, b, left);
  const Stack f = lu_factor_ex(a);
  if (check_errors) {
    const auto [index, info] = first_failure(f[2].tensor());
    AXLE_CHECK(index < 0, LinAlgError, "torch.", op, ": ", batch_prefix(a, index),
               "The solver failed because the input matrix is singular.");
  }
  const Tensor x = lu_solve(f[0].tensor(), f[1].tensor(), b, left, false);
  return {vec ? squeeze(x, -1) : x, f[2]};
}

Stack matrix_power_of(const Stack& s) {
  const char* op = "linalg.matrix_power";
  Tensor a = s[0].tensor();
  int64_t n = s[1].to_int();
  check_square(op, a);
  if (n == 0) return {expand(linalg::eye_like(a, a.size(-1)), a.sizes()).clone()};
  if (n < 0) {
    a = inv_ex("linalg.inv", a, true)[0].tensor();
    n = -n;
  }
  // Binary powers: a^n = product of a^(2^i) over the set bits of n.
  Tensor result, base = a;
  while (true) {
    if (n & 1) result = result.defined() ? matmul(result, base) : base;
    n >>= 1;
    if (n == 0) break;
    base = matmul(base, base);
  }
  return {result.is_same(s[0].tensor()) ? result.clone() : result};
}

}  // namespace

std::vector<OpDecl> linalg_ops() {
  const Derivative decomposes = {.decomposes = true};
  return {
      {.schema = "linalg_lu_factor_ex(Tensor A, *, bool pivot=True, bool check_errors=False) -> (Tensor LU, Tensor "
                 "pivots, Tensor info)",
       .shape = &lu_factor_ex_shape,
       .doc = "LU with partial pivoting of a batch of m x n matrices, packed (L's unit diagonal implied), with "
              "1-based int32 pivots and info (the first zero pivot, 1-based; 0: none); check_errors raises "
              "LinAlgError for a nonzero info.",
       .derivative = {.vjp = &derivatives::linalg_lu_factor_ex, .saves = save_output(0) | save_output(1)},
       .after = &lu_factor_ex_after},
      {.schema = "linalg_lu_factor(Tensor A, *, bool pivot=True) -> (Tensor LU, Tensor pivots)",
       .composite = &lu_factor_composite,
       .doc = "linalg_lu_factor_ex, raising when U has a zero on its diagonal.",
       .derivative = decomposes},
      {.schema = "lu_unpack(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, bool unpack_pivots=True) -> "
                 "(Tensor P, Tensor L, Tensor U)",
       .shape = &lu_unpack_shape,
       .doc = "P, L, U of A = P L U from lu_factor's packed LU and pivots (outputs not unpacked are empty).",
       .derivative = {.vjp = &derivatives::lu_unpack}},
      {.schema = "linalg_lu(Tensor A, *, bool pivot=True) -> (Tensor P, Tensor L, Tensor U)",
       .composite = &lu_composite,
       .doc = "A = P L U: the LU decomposition with partial pivoting, unpacked.",
       .derivative = decomposes},
      {.schema = "linalg_solve_triangular(Tensor self, Tensor B, *, bool upper, bool left=True, bool "
                 "unitriangular=False) -> Tensor",
       .shape = &solve_triangular_shape,
       .doc = "X of A X = B (left) or X A = B for triangular A (only its upper or lower triangle is read; "
              "unitriangular: its diagonal is taken as ones); batch dims broadcast.",
       .derivative = {.vjp = &derivatives::linalg_solve_triangular, .saves = save_arg(0) | save_output(0)}},
      {.schema = "linalg_lu_solve(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, bool adjoint=False) -> Tensor",
       .composite = &lu_solve_composite,
       .doc = "X of A X = B (left) or X A = B (adjoint: A^T for A) with A given as lu_factor's LU and pivots.",
       .derivative = decomposes},
      {.schema = "linalg_det(Tensor A) -> Tensor",
       .composite = [](const Stack& s) -> Stack { return {det_of("linalg.det", s[0].tensor())}; },
       .doc = "The determinant of each square matrix (from its LU factorization).",
       .derivative = {.vjp = &derivatives::linalg_det, .saves = save_arg(0)}},
      {.schema = "det(Tensor self) -> Tensor",
       .composite = [](const Stack& s) -> Stack { return {det_of("linalg.det", s[0].tensor())}; },
       .doc = "linalg_det.",
       .derivative = {.vjp = &derivatives::linalg_det, .saves = save_arg(0)}},
      {.schema = "linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet)",
       .composite = [](const Stack& s) { return slogdet_of("linalg.slogdet", s[0].tensor()); },
       .doc = "The sign of the determinant and the log of its absolute value (sign 0, -inf for a singular matrix).",
       .derivative = decomposes},
      {.schema = "slogdet(Tensor self) -> (Tensor sign, Tensor logabsdet)",
       .composite = [](const Stack& s) { return slogdet_of("linalg.slogdet", s[0].tensor()); },
       .doc = "linalg_slogdet.",
       .derivative = decomposes},
      {.schema = "logdet(Tensor self) -> Tensor",
       .composite = &logdet_composite,
       .doc = "log(det(A)): NaN where the determinant is negative, -inf where it is zero.",
       .derivative = decomposes},
      {.schema = "linalg_inv_ex(Tensor A, *, bool check_errors=False) -> (Tensor inverse, Tensor info)",
       .composite = [](const Stack& s) { return inv_ex("linalg.inv_ex", s[0].tensor(), s[1].to_bool()); },
       .doc = "The inverse of each square matrix and lu_factor's info (non-zero: singular).",
       .derivative = decomposes},
      {.schema = "linalg_inv(Tensor A) -> Tensor",
       .composite = [](const Stack& s) -> Stack { return {inv_ex("linalg.inv", s[0].tensor(), true)[0]}; },
       .doc = "The inverse of each square matrix; raises for a singular one.",
       .derivative = decomposes},
      {.schema = "inverse(Tensor self) -> Tensor",
       .composite = [](const Stack& s) -> Stack { return {inv_ex("linalg.inv", s[0].tensor(), true)[0]}; },
       .doc = "linalg_inv.",
       .derivative = decomposes},
      {.schema = "linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False) -> (Tensor result, "
                 "Tensor info)",
       .composite = [](const Stack& s) { return solve_ex("linalg.solve_ex", s, s[3].to_bool()); },
       .doc = "linalg_solve and lu_factor's info (non-zero: A is singular).",
       .derivative = decomposes},
      {.schema = "linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor",
       .composite = [](const Stack& s) -> Stack { return {solve_ex("linalg.solve", s, true)[0]}; },
       .doc = "X of A X = B (left) or X A = B for square A; B may be a vector or a batch of them, as torch decides; "
              "batch dims broadcast.",
       .derivative = decomposes},
      {.schema = "linalg_matrix_power(Tensor self, int n) -> Tensor",
       .composite = &matrix_power_of,
       .doc = "The n-th power of each square matrix by repeated squaring (n < 0: of its inverse; 0: the identity).",
       .derivative = decomposes},
      {.schema = "matrix_power(Tensor self, int n) -> Tensor",
       .composite = &matrix_power_of,
       .doc = "linalg_matrix_power.",
       .derivative = decomposes},
  };
}

}  // namespace axle::shape
