// The orthogonal decompositions of the linalg family: linalg_qr, _linalg_eigh
// and _linalg_svd (kernels, with their formulas) and the composites over
// them: qr, linalg_eigh / linalg_eigvalsh, linalg_svd / linalg_svdvals / svd,
// and the functions of singular values (pinv, matrix_rank, nuclear_norm, cond)
// in linalg_spectral.cpp. Eigenvectors and singular vectors are unique up to
// sign only; the kernels make each one's entry of largest magnitude positive.
#include "../derivatives/derivatives.h"
#include "linalg_util.h"

namespace axle::shape {
namespace {

using linalg::batch_sizes;
using linalg::check_at_least_2d;
using linalg::check_square;
using linalg::mT;

IntList with_core(const Tensor& a, std::initializer_list<int64_t> core) {
  IntList s = batch_sizes(a);
  s.insert(s.end(), core);
  return s;
}

void qr_shape(ShapeContext& c) {
  const Tensor& a = c.arg(0).tensor();
  const std::string& mode = c.arg(1).str();
  check_at_least_2d("linalg.qr", a);
  linalg::check_float("linalg.qr", a);
  AXLE_CHECK(mode == "reduced" || mode == "complete" || mode == "r", ValueError, c.op,
             ": qr received unrecognized mode '", mode,
             "' but expected one of 'reduced' (default), 'r', or 'complete'");
  const int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n);
  const IntList q = mode == "r" ? IntList{0} : with_core(a, {m, mode == "complete" ? m : k});
  c.outputs = {{q, a.dtype()}, {with_core(a, {mode == "complete" ? m : k, n}), a.dtype()}};
}

void eigh_shape(ShapeContext& c) {
  const Tensor& a = c.arg(0).tensor();
  const std::string& uplo = c.arg(1).str();
  check_square("linalg.eigh", a);
  linalg::check_lapack_dtype("linalg.eigh", "linalg_eigh_cpu", a.dtype());
  AXLE_CHECK(uplo == "L" || uplo == "U" || uplo == "l" || uplo == "u", ValueError, c.op,
             ": Expected UPLO argument to be 'L' or 'U', but got ", uplo);
  const int64_t n = a.size(-1);
  c.outputs = {{with_core(a, {n}), a.dtype()}, {c.arg(2).to_bool() ? a.sizes() : IntList{0}, a.dtype()}};
}

void check_no_driver(const Value& driver) {
  AXLE_CHECK(driver.is_none(), ValueError,
             "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend.");
}

void svd_shape(ShapeContext& c) {
  const Tensor& a = c.arg(0).tensor();
  check_at_least_2d("linalg.svd", a);
  linalg::check_float("linalg.svd", a);
  check_no_driver(c.arg(3));
  const bool full = c.arg(1).to_bool(), uv = c.arg(2).to_bool();
  const int64_t m = a.size(-2), n = a.size(-1), k = std::min(m, n);
  c.outputs = {{uv ? with_core(a, {m, full ? m : k}) : IntList{0}, a.dtype()},
               {with_core(a, {k}), a.dtype()},
               {uv ? with_core(a, {full ? n : k, n}) : IntList{0}, a.dtype()}};
}

Stack svd_of(const Value& a, bool full, const Value& driver = Value(), bool uv = true) {
  return call_op(AXLE_OP("_linalg_svd"), {a, full, uv, driver});
}

// torch.svd: (U, S, V) with V = Vh^T; compute_uv=False gives zero U (m x m) and V (n x n).
Stack old_svd_composite(const Stack& s) {
  const Tensor& a = s[0].tensor();
  const bool some = s[1].to_bool(), uv = s[2].to_bool();
  if (!uv) {
    const Stack r = call_op(AXLE_OP("_linalg_svd"), {a, false, false, Value()});
    const TensorOptions o = TensorOptions().dtype(a.dtype()).device(a.device());
    return {zeros(with_core(a, {a.size(-2), a.size(-2)}), o), r[1], zeros(with_core(a, {a.size(-1), a.size(-1)}), o)};
  }
  const Stack r = svd_of(a, !some);
  return {r[0], r[1], mT(r[2].tensor())};
}

}  // namespace

std::vector<OpDecl> linalg_decomp_ops() {
  const Derivative decomposes = {.decomposes = true};
  return {
      {.schema = "linalg_qr(Tensor A, str mode=\"reduced\") -> (Tensor Q, Tensor R)",
       .shape = &qr_shape,
       .doc = "A = Q R by Householder reflections: Q with orthonormal columns (m x k; 'complete': m x m; 'r': "
              "empty), R upper triangular (k x n; 'complete': m x n), with R's diagonal signs as LAPACK's.",
       .derivative = {.vjp = &derivatives::linalg_qr, .saves = save_output(0) | save_output(1)}},
      {.schema = "qr(Tensor self, bool some=True) -> (Tensor Q, Tensor R)",
       .composite =
           [](const Stack& s) {
             return call_op(AXLE_OP("linalg_qr"), {s[0], s[1].to_bool() ? "reduced" : "complete"});
           },
       .doc = "linalg_qr with mode 'reduced' (some) or 'complete'.",
       .derivative = decomposes},
      {.schema = "_linalg_eigh(Tensor A, str UPLO=\"L\", bool compute_v=True) -> (Tensor eigenvalues, Tensor "
                 "eigenvectors)",
       .shape = &eigh_shape,
       .doc = "Eigenvalues (ascending) and orthonormal eigenvectors (columns) of the symmetric matrix of A's lower "
              "(UPLO 'L') or upper triangle, by Jacobi rotations; compute_v=False: no eigenvectors (empty).",
       .derivative = {.vjp = &derivatives::linalg_eigh, .saves = save_output(0) | save_output(1)}},
      {.schema = "linalg_eigh(Tensor self, str UPLO=\"L\") -> (Tensor eigenvalues, Tensor eigenvectors)",
       .composite =
           [](const Stack& s) {
             return call_op(AXLE_OP("_linalg_eigh"), {s[0], s[1], true});
           },
       .doc = "Eigenvalues (ascending) and eigenvectors of a symmetric matrix (one triangle read).",
       .derivative = decomposes},
      {.schema = "linalg_eigvalsh(Tensor self, str UPLO=\"L\") -> Tensor",
       .composite = [](const Stack& s) -> Stack {
         // The eigenvectors only when a gradient will need them (torch's rule).
         return {call_op(AXLE_OP("_linalg_eigh"), {s[0], s[1], s[0].tensor().requires_grad()})[0]};
       },
       .doc = "The eigenvalues (ascending) of a symmetric matrix.",
       .derivative = decomposes},
      {.schema = "_linalg_svd(Tensor A, bool full_matrices=False, bool compute_uv=True, *, str? driver=None) -> "
                 "(Tensor U, Tensor S, Tensor Vh)",
       .shape = &svd_shape,
       .doc = "A = U diag(S) Vh by one-sided Jacobi rotations: S descending; U m x k and Vh k x n (full_matrices: "
              "m x m and n x n); compute_uv=False: U and Vh empty.",
       .derivative = {.vjp = &derivatives::linalg_svd, .saves = save_output(0) | save_output(1) | save_output(2)}},
      {.schema = "linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) -> (Tensor U, Tensor S, Tensor "
                 "Vh)",
       .composite = [](const Stack& s) { return svd_of(s[0], s[1].to_bool(), s[2]); },
       .doc = "The singular value decomposition A = U diag(S) Vh.",
       .derivative = decomposes},
      {.schema = "linalg_svdvals(Tensor A, *, str? driver=None) -> Tensor",
       .composite = [](const Stack& s) -> Stack {
         // U and Vh only when a gradient will need them (torch's rule).
         return {svd_of(s[0], false, s[1], s[0].tensor().requires_grad())[1]};
       },
       .doc = "The singular values, descending.",
       .derivative = decomposes},
      {.schema = "svd(Tensor self, bool some=True, bool compute_uv=True) -> (Tensor U, Tensor S, Tensor V)",
       .composite = &old_svd_composite,
       .doc = "torch.svd: U, S and V (not Vh); some=False: full matrices.",
       .derivative = decomposes},
  };
}

}  // namespace axle::shape
