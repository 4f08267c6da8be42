// Formulas of the linalg family (dispatcher/src/ops/linalg*.cpp): the
// factorizations' vector-Jacobian products, derived from their differentials
// (dA = dL U + L dU for A = L U, dA = dL L^T + L dL^T for A = L L^T, ...) and
// written with triangular solves, so that they run on any device and are
// differentiable again. <X, Y> below is sum(X * Y).
#include "../ops/linalg_util.h"
#include "derivatives.h"

namespace axle::derivatives {

namespace {

using linalg::mT;

Tensor tri_solve(const Tensor& a, const Tensor& b, bool upper, bool left, bool unit = false) {
  return call(AXLE_OP("linalg_solve_triangular"), a, b, upper, left, unit);
}

Tensor zeros_of(const Tensor& like, IntList sizes) {
  return zeros(sizes, TensorOptions().dtype(like.dtype()).device(like.device()));
}

// `t` with its last two dims `d` changed to `size` (for zero padding).
IntList resized(const Tensor& t, int64_t d, int64_t size) {
  IntList s = t.sizes();
  s[static_cast<size_t>(t.dim() + d)] = size;
  return s;
}

}  // namespace

// P^T A = L U with L (m x k, unit lower) and U (k x n). For square A,
// dL = L tril_{-1}(F) and dU = triu(F) U with F = L^-1 P^T dA U^-1, so
// <gL, dL> + <gU, dU> = <M, F> with M = tril_{-1}(L^T gL) + triu(gU U^T), and
// gA = P L^-T M U^-T. A tall A adds rows A2 = L2 U (dL2 = (dA2 - L2 dU) U^-1),
// a wide one columns A2 = L U2 (dU2 = L^-1 (dA2 - dL U2)): their terms move
// into gU and gL before the square step.
void linalg_lu_factor_ex(VjpContext& c) {
  const Tensor& lu = c.result(0);
  const int64_t m = lu.size(-2), n = lu.size(-1), k = std::min(m, n);
  const Tensor& g = c.grad(0);
  const Stack plu = call_op(AXLE_OP("lu_unpack"), {lu, c.result(1), true, true});
  const Tensor &P = plu[0].tensor(), &L = plu[1].tensor(), &U = plu[2].tensor();
  const Tensor gL = tril(narrow(g, -1, 0, k), -1);
  const Tensor gU = triu(narrow(g, -2, 0, k));
  const Tensor L1 = narrow(L, -2, 0, k), U1 = narrow(U, -1, 0, k);
  Tensor gL1 = narrow(gL, -2, 0, k), gU1 = narrow(gU, -1, 0, k);
  Tensor gA2;
  if (m > n) {
    gA2 = tri_solve(mT(U1), narrow(gL, -2, k, m - k), false, false);  // gL2 U^-T
    gU1 = gU1 - matmul(mT(narrow(L, -2, k, m - k)), gA2);
  } else if (m < n) {
    gA2 = tri_solve(mT(L1), narrow(gU, -1, k, n - k), true, true, true);  // L^-T gU2
    gL1 = gL1 - matmul(gA2, mT(narrow(U, -1, k, n - k)));
  }
  const Tensor M = tril(matmul(mT(L1), gL1), -1) + triu(matmul(gU1, mT(U1)));
  Tensor gA = tri_solve(mT(U1), tri_solve(mT(L1), M, true, true, true), false, false);
  if (m != n) gA = axle::cat({gA, gA2}, m > n ? -2 : -1);
  c.set(0, matmul(P, gA));
}

// L and U are LU_data's lower part (below the diagonal) and upper part.
void lu_unpack(VjpContext& c) {
  const IntList& sizes = c.sizes(0);
  const int64_t m = sizes[sizes.size() - 2], n = sizes.back(), k = std::min(m, n);
  if (!c.arg(2).to_bool()) return c.set(0, zeros_for(c, 0));
  Tensor gl = tril(c.grad(1), -1), gu = triu(c.grad(2));
  if (n > k) gl = axle::cat({gl, zeros_of(gl, resized(gl, -1, n - k))}, -1);
  if (m > k) gu = axle::cat({gu, zeros_of(gu, resized(gu, -2, m - k))}, -2);
  c.set(0, gl + gu);
}

// Left: X = A^-1 B, so gB = A^-T gX and gA = -gB X^T; right: X = B A^-1, so
// gB = gX A^-T and gA = -X^T gB; gA keeps the triangle the solve read.
void linalg_solve_triangular(VjpContext& c) {
  const Tensor& a = c.input(0);
  const bool upper = c.arg(2).to_bool(), left = c.arg(3).to_bool(), unit = c.arg(4).to_bool();
  const Tensor gb = tri_solve(mT(a), c.grad(0), !upper, left, unit);
  if (c.needs(1)) c.set(1, gb);
  if (c.needs(0)) {
    const Tensor& x = c.result(0);
    const Tensor ga = left ? -matmul(gb, mT(x)) : -matmul(mT(x), gb);
    c.set(0, upper ? triu(ga, unit ? 1 : 0) : tril(ga, unit ? -1 : 0));
  }
}

// A = L L^T: L^-1 dA L^-T = X + X^T with X = L^-1 dL lower triangular, so
// dL = L Phi(L^-1 dA L^-T) (Phi: the lower triangle, its diagonal halved) and
// gA = L^-T Phi(L^T gL) L^-1, symmetrized (A is taken as symmetric, as torch).
void linalg_cholesky_ex(VjpContext& c) {
  const bool upper = c.arg(1).to_bool();
  const Tensor L = upper ? mT(c.result(0)) : c.result(0);
  const Tensor gL = upper ? mT(c.grad(0)) : c.grad(0);
  const Tensor phi = tril(matmul(mT(L), gL)) * (1 + linalg::eye_like(L, L.size(-1)) * -0.5);
  const Tensor ga = tri_solve(L, tri_solve(mT(L), phi, true, true), false, false);
  c.set(0, (ga + mT(ga)) * 0.5);
}

namespace {

// 1 / (t_j - t_i) off the diagonal, 0 on it, for t [..., k] (distinct values).
Tensor inverse_gaps(const Tensor& t) {
  const Tensor id = linalg::eye_like(t, t.size(-1));
  const Tensor gaps = unsqueeze(t, -2) - unsqueeze(t, -1);
  return (1 + id * -1) / (gaps + id);
}

// A = Q R, Q m x n with orthonormal columns, R n x n. With C = Q^T dA R^-1,
// Q^T dQ = Omega (antisymmetric: tril_{-1}(C) - its transpose) and
// dR R^-1 = C - Omega, dQ = (I - Q Q^T) dA R^-1 + Q Omega. Collecting the
// terms: gA = (gQ + Q (tril_{-1}(X - X^T) - X)) R^-T, X = Q^T gQ - gR R^T.
Tensor qr_tall(const Tensor& q, const Tensor& r, const Tensor& gq, const Tensor& gr) {
  const Tensor x = matmul(mT(q), gq) - matmul(gr, mT(r));
  const Tensor g = tril(x - mT(x), -1) - x;
  return tri_solve(mT(r), gq + matmul(q, g), false, false);
}

}  // namespace

// Wide A = Q [R1 R2]: Q R1 = qr(A1) and R2 = Q^T A2, so A2's gradient is
// Q gR2 and gR2 adds A2 gR2^T to gQ.
void linalg_qr(VjpContext& c) {
  const std::string& mode = c.arg(1).str();
  const Tensor &q = c.result(0), &r = c.result(1);
  AXLE_CHECK(mode != "r", AutogradError,
             "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
             "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
  const int64_t m = q.size(-2), n = r.size(-1);
  AXLE_CHECK(!(mode == "complete" && m > n), AutogradError,
             "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
  if (m >= n) return c.set(0, qr_tall(q, r, c.grad(0), c.grad(1)));
  const Tensor r2 = narrow(r, -1, m, n - m), gr2 = narrow(c.grad(1), -1, m, n - m);
  const Tensor gq = c.grad(0) + matmul(matmul(q, r2), mT(gr2));
  const Tensor ga1 = qr_tall(q, narrow(r, -1, 0, m), gq, narrow(c.grad(1), -1, 0, m));
  c.set(0, axle::cat({ga1, matmul(q, gr2)}, -1));
}

// A = V diag(w) V^T: dw = diag(V^T dA V) and dV = V (F o V^T dA V) with
// F_ij = 1 / (w_j - w_i), so gA = V (diag(gw) + F o V^T gV) V^T, symmetrized
// (A is taken as symmetric, as torch).
void linalg_eigh(VjpContext& c) {
  AXLE_CHECK(c.arg(2).to_bool(), AutogradError,
             "linalg.eigh: the derivative needs the eigenvectors, which compute_v=False does not compute");
  const Tensor &w = c.result(0), &v = c.result(1);
  const Tensor inner = linalg::diag_embed(c.grad(0)) + matmul(mT(v), c.grad(1)) * inverse_gaps(w);
  const Tensor g = matmul(matmul(v, inner), mT(v));
  c.set(0, (g + mT(g)) * 0.5);
}

// A = U S V^T (U m x k, V n x k): with dP = U^T dA V, J = U^T gU, K = V^T gV
// and F_ij = 1 / (s_j^2 - s_i^2), U^T dU and V^T dV are F o (dP S + S dP^T)
// and F o (S dP + dP^T S), so
// gA = U ((F o (J - J^T)) S + S (F o (K - K^T)) + diag(gS)) V^T
//      + (I - U U^T) gU S^-1 V^T + U S^-1 gV^T (I - V V^T).
// full_matrices: the columns beyond k (not unique) get no gradient, as torch.
void linalg_svd(VjpContext& c) {
  AXLE_CHECK(c.arg(2).to_bool(), AutogradError,
             "torch.linalg.svd: the derivative needs U and Vh, which compute_uv=False does not compute; use "
             "compute_uv=True (torch.svd: compute_uv=True)");
  const Tensor& s = c.result(1);
  const int64_t k = s.size(-1);
  const Tensor u = narrow(c.result(0), -1, 0, k), vh = narrow(c.result(2), -2, 0, k);
  const Tensor gu = narrow(c.grad(0), -1, 0, k), gvh = narrow(c.grad(2), -2, 0, k);
  const int64_t m = u.size(-2), n = vh.size(-1);
  const Tensor j = matmul(mT(u), gu), kk = matmul(vh, mT(gvh));
  const Tensor f = inverse_gaps(s * s);
  const Tensor inner =
      (j - mT(j)) * f * unsqueeze(s, -2) + unsqueeze(s, -1) * ((kk - mT(kk)) * f) + linalg::diag_embed(c.grad(1));
  Tensor ga = matmul(matmul(u, inner), vh);
  const Tensor sinv = call(AXLE_OP("reciprocal"), s);
  if (m > k) ga = ga + matmul((gu - matmul(u, j)) * unsqueeze(sinv, -2), vh);
  if (n > k) ga = ga + matmul(u, unsqueeze(sinv, -1) * (gvh - matmul(mT(kk), vh)));
  c.set(0, ga);
}

namespace {
// prod_{j != i} s_j along the last dim, exact with zeros (exclusive products from both ends).
Tensor products_of_others(const Tensor& s) {
  const int64_t n = s.size(-1);
  const Tensor one = narrow(ones(s.sizes(), TensorOptions().dtype(s.dtype()).device(s.device())), -1, 0, 1);
  auto exclusive = [&](const Tensor& t) { return axle::cat({one, narrow(cumprod(t, -1), -1, 0, n - 1)}, -1); };
  return exclusive(s) * flip(exclusive(flip(s, {-1})), {-1});
}
}  // namespace

// d det(A) = <cof(A), dA>, the cofactor matrix, which the SVD A = U S V^T gives
// for singular matrices too: cof(A) = det(U) det(V) U diag(prod_{j != i} s_j) V^T.
void linalg_det(VjpContext& c) {
  const Tensor& a = c.input(0);
  if (a.numel() == 0) return c.set(0, zeros_for(c, 0));
  const Stack usv = call_op(AXLE_OP("_linalg_svd"), {a, false, true, Value()});
  const Tensor &u = usv[0].tensor(), &s = usv[1].tensor(), &vh = usv[2].tensor();
  const Tensor sign = call(AXLE_OP("linalg_det"), u) * call(AXLE_OP("linalg_det"), vh);
  const Tensor scale = unsqueeze(unsqueeze(c.grad(0) * sign, -1), -1);
  c.set(0, matmul(u * unsqueeze(products_of_others(s), -2), vh) * scale);
}

// X = A^+ (A m x n) as a function of a general matrix, at constant rank:
// dX = -X dA X + X X^T dA^T (I - A X) + (I - X A) dA^T X^T X, so
// gA = -X^T g X^T + (I - A X) g^T X X^T + X^T X g^T (I - X A). The hermitian
// form (from eigh, which reads one triangle) gets the same, as torch.
void linalg_pinv(VjpContext& c) {
  const Tensor& a = c.input(0);
  const Tensor& x = c.result(0);
  const Tensor& g = c.grad(0);
  const Tensor gt = mT(g), xt = mT(x);
  Tensor ga = -matmul(matmul(xt, g), xt);
  ga = ga + matmul(gt - matmul(a, matmul(x, gt)), matmul(x, xt));
  ga = ga + matmul(matmul(xt, x), gt - matmul(matmul(gt, x), a));
  c.set(0, ga);
}

}  // namespace axle::derivatives
