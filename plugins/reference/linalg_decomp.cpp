// Orthogonal decompositions of batched float matrices, computed in double:
// linalg_qr (Householder reflections, with LAPACK's sign convention: R's
// diagonal is -sign(a) * |column|, so Q and R equal torch's), _linalg_eigh
// (cyclic Jacobi rotations on the symmetric matrix of one triangle;
// eigenvalues ascending) and _linalg_svd (one-sided Jacobi; singular values
// descending). Eigenvectors and singular vectors are determined up to sign
// only: each is scaled so that its entry of largest magnitude (the first of
// equal ones) is positive; a left singular vector carries the sign, its right
// one follows.
#include "linalg_matrix.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace axle::reference {

using namespace axle::plugin;
using namespace axle::reference::linalg;

namespace {

// ---- QR

// In place: a (m x n) becomes R (on and above the diagonal); q (m x qc) gets
// the first qc columns of Q = H_1 ... H_k (qc = 0: no Q).
void householder_qr(Dense& a, int64_t m, int64_t n, Dense& q, int64_t qc) {
  const int64_t k = std::min(m, n);
  auto A = [&](int64_t i, int64_t j) -> double& { return a[static_cast<size_t>(i * n + j)]; };
  std::vector<Dense> vs(static_cast<size_t>(k));
  std::vector<double> taus(static_cast<size_t>(k), 0.0);
  for (int64_t j = 0; j < k; ++j) {
    Dense v(static_cast<size_t>(m), 0.0);
    double xnorm = 0;
    for (int64_t i = j + 1; i < m; ++i) xnorm = std::hypot(xnorm, A(i, j));
    const double alpha = A(j, j);
    if (xnorm == 0) {  // H = I
      vs[static_cast<size_t>(j)] = std::move(v);
      continue;
    }
    const double beta = -std::copysign(std::hypot(alpha, xnorm), alpha);
    const double tau = (beta - alpha) / beta;
    v[static_cast<size_t>(j)] = 1;
    for (int64_t i = j + 1; i < m; ++i) {
      v[static_cast<size_t>(i)] = A(i, j) / (alpha - beta);
      A(i, j) = 0;
    }
    A(j, j) = beta;
    for (int64_t l = j + 1; l < n; ++l) {  // the other columns: x - tau v (v^T x)
      double w = 0;
      for (int64_t i = j; i < m; ++i) w += v[static_cast<size_t>(i)] * A(i, l);
      w *= tau;
      for (int64_t i = j; i < m; ++i) A(i, l) -= w * v[static_cast<size_t>(i)];
    }
    vs[static_cast<size_t>(j)] = std::move(v);
    taus[static_cast<size_t>(j)] = tau;
  }
  if (qc == 0) return;
  q.assign(static_cast<size_t>(m * qc), 0.0);
  for (int64_t i = 0; i < std::min(m, qc); ++i) q[static_cast<size_t>(i * qc + i)] = 1;
  for (int64_t j = k - 1; j >= 0; --j) {
    const Dense& v = vs[static_cast<size_t>(j)];
    const double tau = taus[static_cast<size_t>(j)];
    if (tau == 0) continue;
    for (int64_t l = 0; l < qc; ++l) {
      double w = 0;
      for (int64_t i = j; i < m; ++i) w += v[static_cast<size_t>(i)] * q[static_cast<size_t>(i * qc + l)];
      w *= tau;
      for (int64_t i = j; i < m; ++i) q[static_cast<size_t>(i * qc + l)] -= w * v[static_cast<size_t>(i)];
    }
  }
}

// linalg_qr(Tensor A, str mode="reduced") -> (Tensor Q, Tensor R)
axle_status qr(void*, const axle_kernel_call* c) {
  const axle_tensor_view& A = arg_tensor(c, 0);
  const std::string mode = c->args[1].u.str;
  const axle_tensor_view &Q = c->outputs[0], &R = c->outputs[1];
  const int64_t m = A.sizes[A.ndim - 2], n = A.sizes[A.ndim - 1], k = std::min(m, n);
  const int64_t qc = mode == "r" ? 0 : mode == "complete" ? m : k;
  const int64_t rr = mode == "complete" ? m : k;
  const std::vector<int64_t> batch = batch_of(A, 2);
  const auto ia = batch_offsets(A, 2, batch), ir = batch_offsets(R, 2, batch);
  const auto iq = qc ? batch_offsets(Q, 2, batch) : std::vector<int64_t>{};
  Dense q;
  for (size_t b = 0; b < ia.size(); ++b) {
    Dense a = load_matrix(A, ia[b]);
    householder_qr(a, m, n, q, qc);
    a.resize(static_cast<size_t>(rr * n));  // R's rows
    store_matrix(R, ir[b], a);
    if (qc) store_matrix(Q, iq[b], q);
  }
  return AXLE_OK;
}

// ---- shared by eigh and svd

// Scales columns c0.. of v (rows x cols) by -1 where the entry of largest
// magnitude (the first of equal ones) is negative; w's column of the same
// index (w: wrows x wcols, when given and j < wcols) follows.
void fix_signs(Dense& v, int64_t rows, int64_t cols, Dense* w = nullptr, int64_t wrows = 0, int64_t wcols = 0,
               int64_t c0 = 0) {
  if (rows == 0) return;
  for (int64_t j = c0; j < cols; ++j) {
    int64_t best = 0;
    for (int64_t i = 1; i < rows; ++i)
      if (std::fabs(v[static_cast<size_t>(i * cols + j)]) > std::fabs(v[static_cast<size_t>(best * cols + j)]))
        best = i;
    if (v[static_cast<size_t>(best * cols + j)] >= 0) continue;
    for (int64_t i = 0; i < rows; ++i) v[static_cast<size_t>(i * cols + j)] *= -1;
    if (w && j < wcols)
      for (int64_t i = 0; i < wrows; ++i) (*w)[static_cast<size_t>(i * wcols + j)] *= -1;
  }
}

// The columns of x (rows x cols) in the order `order`.
Dense reorder_columns(const Dense& x, int64_t rows, int64_t cols, const std::vector<int64_t>& order) {
  Dense out(x.size());
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      out[static_cast<size_t>(i * cols + j)] = x[static_cast<size_t>(i * cols + order[static_cast<size_t>(j)])];
  return out;
}

// ---- eigh

// Columns p and q of the row-major x (rows x cols) rotated by (cs, sn):
// x_p <- cs x_p - sn x_q, x_q <- sn x_p + cs x_q.
void rotate_columns(Dense& x, int64_t rows, int64_t cols, int64_t p, int64_t q, double cs, double sn) {
  for (int64_t l = 0; l < rows; ++l) {
    double& a = x[static_cast<size_t>(l * cols + p)];
    double& b = x[static_cast<size_t>(l * cols + q)];
    const double xa = a, xb = b;
    a = cs * xa - sn * xb;
    b = sn * xa + cs * xb;
  }
}

Dense identity(int64_t n) {
  Dense v(static_cast<size_t>(n * n), 0.0);
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i * n + i)] = 1;
  return v;
}

// Eigenvalues (ascending) and, when `vectors`, eigenvectors (columns of v) of
// the symmetric a (n x n) by cyclic Jacobi rotations.
void jacobi_eigh(Dense a, int64_t n, std::vector<double>& w, Dense& v, bool vectors) {
  auto A = [&](int64_t i, int64_t j) -> double& { return a[static_cast<size_t>(i * n + j)]; };
  if (vectors) v = identity(n);
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0, total = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) (i == j ? total : off) += A(i, j) * A(i, j);
    if (off <= 1e-32 * (total + off) || off == 0) break;
    for (int64_t p = 0; p < n; ++p)
      for (int64_t q = p + 1; q < n; ++q) {
        const double apq = A(p, q);
        if (apq == 0) continue;
        const double theta = (A(q, q) - A(p, p)) / (2 * apq);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1));
        const double cs = 1 / std::sqrt(t * t + 1), sn = t * cs;
        rotate_columns(a, n, n, p, q, cs, sn);  // A <- A J (columns p, q)
        for (int64_t l = 0; l < n; ++l) {       // A <- J^T A (rows p, q)
          const double x = A(p, l), y = A(q, l);
          A(p, l) = cs * x - sn * y;
          A(q, l) = sn * x + cs * y;
        }
        A(p, q) = A(q, p) = 0;
        if (vectors) rotate_columns(v, n, n, p, q, cs, sn);
      }
  }
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return A(x, x) < A(y, y); });
  w.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    w[static_cast<size_t>(i)] = A(order[static_cast<size_t>(i)], order[static_cast<size_t>(i)]);
  if (!vectors) return;
  v = reorder_columns(v, n, n, order);
  fix_signs(v, n, n);
}

// _linalg_eigh(Tensor A, str UPLO="L", bool compute_v=True) -> (Tensor eigenvalues, Tensor eigenvectors)
axle_status eigh(void*, const axle_kernel_call* c) {
  const axle_tensor_view& A = arg_tensor(c, 0);
  const bool lower = std::strcmp(c->args[1].u.str, "L") == 0 || std::strcmp(c->args[1].u.str, "l") == 0;
  const bool vectors = arg_bool(c, 2);
  const axle_tensor_view &W = c->outputs[0], &V = c->outputs[1];
  const int64_t n = A.sizes[A.ndim - 1];
  const std::vector<int64_t> batch = batch_of(A, 2);
  const auto ia = batch_offsets(A, 2, batch), iw = batch_offsets(W, 1, batch);
  const auto iv = vectors ? batch_offsets(V, 2, batch) : std::vector<int64_t>{};
  std::vector<double> w;
  Dense v;
  for (size_t b = 0; b < ia.size(); ++b) {
    Dense a = load_matrix(A, ia[b]);
    for (int64_t i = 0; i < n; ++i)  // the symmetric matrix of the triangle read
      for (int64_t j = i + 1; j < n; ++j) {
        const size_t lo = static_cast<size_t>(j * n + i), up = static_cast<size_t>(i * n + j);
        if (lower)
          a[up] = a[lo];
        else
          a[lo] = a[up];
      }
    jacobi_eigh(std::move(a), n, w, v, vectors);
    for (int64_t i = 0; i < n; ++i) store_entry(W, iw[b], i, w[static_cast<size_t>(i)]);
    if (vectors) store_matrix(V, iv[b], v);
  }
  return AXLE_OK;
}

// ---- svd

// Completes the orthonormal columns of u (rows x cols) where `have[j]` is
// false, from the unit vectors, by Gram-Schmidt (twice) against the others.
void complete_basis(Dense& u, int64_t rows, int64_t cols, std::vector<bool> have) {
  int64_t next = 0;
  for (int64_t j = 0; j < cols; ++j) {
    if (have[static_cast<size_t>(j)]) continue;
    while (next < rows) {
      Dense x(static_cast<size_t>(rows), 0.0);
      x[static_cast<size_t>(next++)] = 1;
      for (int pass = 0; pass < 2; ++pass)
        for (int64_t l = 0; l < cols; ++l) {
          if (!have[static_cast<size_t>(l)]) continue;
          double d = 0;
          for (int64_t i = 0; i < rows; ++i) d += u[static_cast<size_t>(i * cols + l)] * x[static_cast<size_t>(i)];
          for (int64_t i = 0; i < rows; ++i) x[static_cast<size_t>(i)] -= d * u[static_cast<size_t>(i * cols + l)];
        }
      double norm = 0;
      for (double e : x) norm = std::hypot(norm, e);
      if (norm < 1e-3) continue;  // (nearly) in the span already
      for (int64_t i = 0; i < rows; ++i) u[static_cast<size_t>(i * cols + j)] = x[static_cast<size_t>(i)] / norm;
      have[static_cast<size_t>(j)] = true;
      break;
    }
  }
}

// A (m x n, m >= n) = U S V^T by one-sided Jacobi rotations: s (n,
// descending) and, when `vectors`, u (m x uc, uc = n or m) and v (n x n).
void jacobi_svd(const Dense& a, int64_t m, int64_t n, int64_t uc, Dense& u, std::vector<double>& s, Dense& v,
                bool vectors) {
  Dense x = a;  // columns rotated until orthogonal: x = U S
  auto X = [&](int64_t i, int64_t j) -> double& { return x[static_cast<size_t>(i * n + j)]; };
  if (vectors) v = identity(n);
  for (int sweep = 0; sweep < 100; ++sweep) {
    bool rotated = false;
    for (int64_t p = 0; p < n; ++p)
      for (int64_t q = p + 1; q < n; ++q) {
        double alpha = 0, beta = 0, gamma = 0;
        for (int64_t i = 0; i < m; ++i) {
          alpha += X(i, p) * X(i, p);
          beta += X(i, q) * X(i, q);
          gamma += X(i, p) * X(i, q);
        }
        if (gamma == 0 || std::fabs(gamma) <= 1e-15 * std::sqrt(alpha * beta)) continue;
        rotated = true;
        const double zeta = (beta - alpha) / (2 * gamma);
        const double t = (zeta >= 0 ? 1.0 : -1.0) / (std::fabs(zeta) + std::sqrt(1 + zeta * zeta));
        const double cs = 1 / std::sqrt(1 + t * t), sn = cs * t;
        rotate_columns(x, m, n, p, q, cs, sn);
        if (vectors) rotate_columns(v, n, n, p, q, cs, sn);
      }
    if (!rotated) break;
  }
  std::vector<double> norms(static_cast<size_t>(n), 0.0);
  for (int64_t j = 0; j < n; ++j)
    for (int64_t i = 0; i < m; ++i) norms[static_cast<size_t>(j)] = std::hypot(norms[static_cast<size_t>(j)], X(i, j));
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t i, int64_t j) { return norms[i] > norms[j]; });
  s.resize(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) s[static_cast<size_t>(j)] = norms[static_cast<size_t>(order[static_cast<size_t>(j)])];
  if (!vectors) return;
  x = reorder_columns(x, m, n, order);
  v = reorder_columns(v, n, n, order);
  const double big = n ? norms[static_cast<size_t>(order[0])] : 0.0;
  u.assign(static_cast<size_t>(m * uc), 0.0);
  std::vector<bool> have(static_cast<size_t>(uc), false);
  for (int64_t j = 0; j < n; ++j) {
    const double sj = s[static_cast<size_t>(j)];
    if (sj == 0 || sj <= 1e-14 * big) continue;  // no direction: completed below
    for (int64_t i = 0; i < m; ++i) u[static_cast<size_t>(i * uc + j)] = X(i, j) / sj;
    have[static_cast<size_t>(j)] = true;
  }
  complete_basis(u, m, uc, have);
}

// _linalg_svd(Tensor A, bool full_matrices=False, bool compute_uv=True, *, str? driver=None) -> (U, S, Vh)
axle_status svd(void*, const axle_kernel_call* c) {
  const axle_tensor_view& A = arg_tensor(c, 0);
  const bool full = arg_bool(c, 1), uv = arg_bool(c, 2);
  const axle_tensor_view &U = c->outputs[0], &S = c->outputs[1], &Vh = c->outputs[2];
  const int64_t m = A.sizes[A.ndim - 2], n = A.sizes[A.ndim - 1], k = std::min(m, n);
  const bool wide = m < n;
  const int64_t rows = wide ? n : m;  // the tall problem's shape: rows x k
  const std::vector<int64_t> batch = batch_of(A, 2);
  const auto ia = batch_offsets(A, 2, batch), is = batch_offsets(S, 1, batch);
  const auto iu = uv ? batch_offsets(U, 2, batch) : std::vector<int64_t>{};
  const auto ivh = uv ? batch_offsets(Vh, 2, batch) : std::vector<int64_t>{};
  Dense u, v;
  std::vector<double> s;
  for (size_t b = 0; b < ia.size(); ++b) {
    Dense a = load_matrix(A, ia[b]);
    if (wide) a = transposed(a, m, n);  // A^T = U' S V'^T: A = V' S U'^T
    const int64_t uc = full ? rows : k;
    jacobi_svd(a, rows, k, uc, u, s, v, uv);
    for (int64_t i = 0; i < k; ++i) store_entry(S, is[b], i, s[static_cast<size_t>(i)]);
    if (!uv) continue;
    if (wide) {  // the signs are U's (here v's), Vh's extra rows (u's extra columns) their own
      fix_signs(v, k, k, &u, rows, uc);
      fix_signs(u, rows, uc, nullptr, 0, 0, k);
    } else {
      fix_signs(u, rows, uc, &v, k, k);
    }
    // Tall: U = u (m x uc), Vh = v^T (k x k). Wide: U = v (m x m), Vh = u^T (uc x n).
    const Dense& left = wide ? v : u;
    const Dense& right = wide ? u : v;
    const int64_t rc = wide ? uc : k;  // right's columns
    const int64_t rrows = wide ? n : k;
    store_matrix(U, iu[b], left);
    store_matrix(Vh, ivh[b], transposed(right, rrows, rc));
  }
  return AXLE_OK;
}

const KernelEntry kDecompKernels[] = {
    {"linalg_qr", &qr, AXLE_HERE},
    {"_linalg_eigh", &eigh, AXLE_HERE},
    {"_linalg_svd", &svd, AXLE_HERE},
};

}  // namespace

axle_status register_linalg_decomp(const axle_registrar* r) { return register_kernels(r, "cpu", kDecompKernels); }

}  // namespace axle::reference
