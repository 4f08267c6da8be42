// Factorizations and triangular solves of batched float matrices: LU with
// partial pivoting (linalg_lu_factor_ex, lu_unpack), Cholesky
// (linalg_cholesky_ex) and linalg_solve_triangular. The shape functions
// (dispatcher/src/ops/linalg.cpp) checked sizes and dtypes; these compute in
// double, one matrix at a time.
#include "linalg_matrix.h"

#include <cmath>
#include <numeric>
#include <string>
#include <utility>

namespace axle::reference {

using namespace axle::plugin;
using namespace axle::reference::linalg;

namespace {

// In place: a (m x n) becomes L (strictly below the diagonal, unit diagonal
// implied) and U (on and above it) of P A = L U with partial pivoting (the
// largest magnitude in the column, the first of equal ones). piv[j] is the
// 1-based row swapped with row j. Returns 0, or the 1-based index of the first
// zero pivot (the factorization still completes, as LAPACK's).
int64_t lu_in_place(Dense& a, int64_t m, int64_t n, std::vector<int64_t>& piv) {
  const int64_t k = std::min(m, n);
  int64_t info = 0;
  piv.assign(static_cast<size_t>(k), 0);
  auto A = [&](int64_t i, int64_t j) -> double& { return a[static_cast<size_t>(i * n + j)]; };
  for (int64_t j = 0; j < k; ++j) {
    int64_t p = j;
    double best = std::fabs(A(j, j));
    for (int64_t i = j + 1; i < m; ++i)
      if (std::fabs(A(i, j)) > best) {
        best = std::fabs(A(i, j));
        p = i;
      }
    piv[static_cast<size_t>(j)] = p + 1;
    if (p != j)
      for (int64_t l = 0; l < n; ++l) std::swap(A(j, l), A(p, l));
    const double d = A(j, j);
    if (d == 0) {
      if (info == 0) info = j + 1;
      continue;  // the column below is zero too: nothing to eliminate
    }
    for (int64_t i = j + 1; i < m; ++i) {
      const double f = A(i, j) / d;
      A(i, j) = f;
      if (f != 0)
        for (int64_t l = j + 1; l < n; ++l) A(i, l) -= f * A(j, l);
    }
  }
  return info;
}

// linalg_lu_factor_ex(Tensor A, *, bool pivot=True, bool check_errors=False) -> (LU, pivots, info)
axle_status lu_factor_ex(void*, const axle_kernel_call* c) {
  // check_errors (arg 2) is the op's (its `after` check reads info), not the kernel's.
  const axle_tensor_view& A = arg_tensor(c, 0);
  const axle_tensor_view &LU = c->outputs[0], &P = c->outputs[1], &I = c->outputs[2];
  const int64_t m = A.sizes[A.ndim - 2], n = A.sizes[A.ndim - 1];
  const std::vector<int64_t> batch = batch_of(A, 2);
  const auto ia = batch_offsets(A, 2, batch), il = batch_offsets(LU, 2, batch), ip = batch_offsets(P, 1, batch),
             ii = batch_offsets(I, 0, batch);
  std::vector<int64_t> piv;
  for (size_t b = 0; b < ia.size(); ++b) {
    Dense a = load_matrix(A, ia[b]);
    const int64_t info = lu_in_place(a, m, n, piv);
    store_matrix(LU, il[b], a);
    for (size_t j = 0; j < piv.size(); ++j) store_entry(P, ip[b], static_cast<int64_t>(j), static_cast<double>(piv[j]));
    store_from<int64_t>(at(I, ii[b]), I.dtype, info);
  }
  return AXLE_OK;
}

// lu_unpack(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, bool unpack_pivots=True) -> (P, L, U)
axle_status lu_unpack(void*, const axle_kernel_call* c) {
  const axle_tensor_view& LU = arg_tensor(c, 0);
  const axle_tensor_view& piv = arg_tensor(c, 1);
  const bool data = arg_bool(c, 2), pivots = arg_bool(c, 3);
  const axle_tensor_view &P = c->outputs[0], &L = c->outputs[1], &U = c->outputs[2];
  const int64_t m = LU.sizes[LU.ndim - 2], n = LU.sizes[LU.ndim - 1], k = std::min(m, n);
  const std::vector<int64_t> batch = batch_of(LU, 2);
  const auto ilu = batch_offsets(LU, 2, batch), ipv = batch_offsets(piv, 1, batch);
  const auto ip = pivots ? batch_offsets(P, 2, batch) : std::vector<int64_t>{};
  const auto il = data ? batch_offsets(L, 2, batch) : std::vector<int64_t>{};
  const auto iu = data ? batch_offsets(U, 2, batch) : std::vector<int64_t>{};
  for (size_t b = 0; b < ilu.size(); ++b) {
    if (data) {
      const Dense a = load_matrix(LU, ilu[b]);
      Dense l(static_cast<size_t>(m * k), 0.0), u(static_cast<size_t>(k * n), 0.0);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < k; ++j)
          l[static_cast<size_t>(i * k + j)] = i == j ? 1.0 : i > j ? a[static_cast<size_t>(i * n + j)] : 0.0;
      for (int64_t i = 0; i < k; ++i)
        for (int64_t j = i; j < n; ++j) u[static_cast<size_t>(i * n + j)] = a[static_cast<size_t>(i * n + j)];
      store_matrix(L, il[b], l);
      store_matrix(U, iu[b], u);
    }
    if (pivots) {
      // Row i of L U is row perm[i] of A: A = P L U with P[perm[i], i] = 1.
      std::vector<int64_t> perm(static_cast<size_t>(m));
      std::iota(perm.begin(), perm.end(), 0);
      for (int64_t i = 0; i < k; ++i) {
        const int64_t p = load_index(piv, ipv[b], i) - 1;
        if (p < 0 || p >= m)
          return fail(c, AXLE_ERROR_INDEX,
                      "lu_unpack: pivot " + std::to_string(p + 1) + " is out of range [1, " + std::to_string(m) + "]");
        std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(p)]);
      }
      Dense pm(static_cast<size_t>(m * m), 0.0);
      for (int64_t i = 0; i < m; ++i) pm[static_cast<size_t>(perm[static_cast<size_t>(i)] * m + i)] = 1.0;
      store_matrix(P, ip[b], pm);
    }
  }
  return AXLE_OK;
}

// Solves a X = b in place for X (a: n x n triangular, b: n x k), reading only
// a's `upper` or lower triangle; `unit`: the diagonal is taken as ones.
void triangular_solve_in_place(const Dense& a, Dense& x, int64_t n, int64_t k, bool upper, bool unit) {
  auto A = [&](int64_t i, int64_t j) { return a[static_cast<size_t>(i * n + j)]; };
  for (int64_t col = 0; col < k; ++col) {
    auto X = [&](int64_t i) -> double& { return x[static_cast<size_t>(i * k + col)]; };
    if (upper) {
      for (int64_t i = n - 1; i >= 0; --i) {
        double s = X(i);
        for (int64_t j = i + 1; j < n; ++j) s -= A(i, j) * X(j);
        X(i) = unit ? s : s / A(i, i);
      }
    } else {
      for (int64_t i = 0; i < n; ++i) {
        double s = X(i);
        for (int64_t j = 0; j < i; ++j) s -= A(i, j) * X(j);
        X(i) = unit ? s : s / A(i, i);
      }
    }
  }
}

// linalg_solve_triangular(Tensor self, Tensor B, *, bool upper, bool left=True, bool unitriangular=False)
axle_status solve_triangular(void*, const axle_kernel_call* c) {
  const axle_tensor_view& A = arg_tensor(c, 0);
  const axle_tensor_view& B = arg_tensor(c, 1);
  const bool upper = arg_bool(c, 2), left = arg_bool(c, 3), unit = arg_bool(c, 4);
  const axle_tensor_view& X = c->outputs[0];
  const int64_t n = A.sizes[A.ndim - 1];
  const int64_t r = B.sizes[B.ndim - 2], k = B.sizes[B.ndim - 1];
  const std::vector<int64_t> batch = batch_of(X, 2);
  const auto ia = batch_offsets(A, 2, batch), ib = batch_offsets(B, 2, batch), ix = batch_offsets(X, 2, batch);
  for (size_t b = 0; b < ix.size(); ++b) {
    const Dense a = load_matrix(A, ia[b]);
    Dense x = load_matrix(B, ib[b]);
    if (left) {
      triangular_solve_in_place(a, x, n, k, upper, unit);
    } else {  // X A = B  <=>  A^T X^T = B^T
      Dense xt = transposed(x, r, k);
      triangular_solve_in_place(transposed(a, n, n), xt, n, r, !upper, unit);
      x = transposed(xt, k, r);
    }
    store_matrix(X, ix[b], x);
  }
  return AXLE_OK;
}

// In place: the lower triangle of a (n x n) becomes L of A = L L^T, read from
// a's lower triangle. Returns 0, or the order of the first leading minor that
// is not positive-definite (its diagonal entry keeps the failed value, the
// columns after it keep A's, as LAPACK's unblocked factorization leaves them).
int64_t cholesky_in_place(Dense& a, int64_t n) {
  auto A = [&](int64_t i, int64_t j) -> double& { return a[static_cast<size_t>(i * n + j)]; };
  for (int64_t j = 0; j < n; ++j) {
    double d = A(j, j);
    for (int64_t l = 0; l < j; ++l) d -= A(j, l) * A(j, l);
    if (!(d > 0)) {
      A(j, j) = d;
      return j + 1;
    }
    d = std::sqrt(d);
    A(j, j) = d;
    for (int64_t i = j + 1; i < n; ++i) {
      double s = A(i, j);
      for (int64_t l = 0; l < j; ++l) s -= A(i, l) * A(j, l);
      A(i, j) = s / d;
    }
  }
  return 0;
}

// linalg_cholesky_ex(Tensor self, *, bool upper=False, bool check_errors=False) -> (Tensor L, Tensor info)
axle_status cholesky_ex(void*, const axle_kernel_call* c) {
  const axle_tensor_view& A = arg_tensor(c, 0);
  const bool upper = arg_bool(c, 1);  // check_errors (arg 2): the op's `after` check
  const axle_tensor_view &L = c->outputs[0], &I = c->outputs[1];
  const int64_t n = A.sizes[A.ndim - 1];
  const std::vector<int64_t> batch = batch_of(A, 2);
  const auto ia = batch_offsets(A, 2, batch), il = batch_offsets(L, 2, batch), ii = batch_offsets(I, 0, batch);
  for (size_t b = 0; b < ia.size(); ++b) {
    Dense a = load_matrix(A, ia[b]);
    if (upper) a = transposed(a, n, n);  // the upper triangle, read as the lower one of A^T
    const int64_t info = cholesky_in_place(a, n);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = i + 1; j < n; ++j) a[static_cast<size_t>(i * n + j)] = 0.0;
    store_matrix(L, il[b], upper ? transposed(a, n, n) : a);
    store_from<int64_t>(at(I, ii[b]), I.dtype, info);
  }
  return AXLE_OK;
}

const KernelEntry kLinalgKernels[] = {
    {"linalg_lu_factor_ex", &lu_factor_ex, AXLE_HERE},
    {"lu_unpack", &lu_unpack, AXLE_HERE},
    {"linalg_solve_triangular", &solve_triangular, AXLE_HERE},
    {"linalg_cholesky_ex", &cholesky_ex, AXLE_HERE},
};

}  // namespace

axle_status register_linalg(const axle_registrar* r) { return register_kernels(r, "cpu", kLinalgKernels); }

}  // namespace axle::reference
