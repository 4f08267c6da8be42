// Formulas of the blas family (dispatcher/src/ops/blas.cpp).
#include "derivatives.h"

namespace axle::derivatives {

namespace {
const Tensor& g(VjpContext& c) { return c.grad(0); }
Tensor mT(const Tensor& t) { return transpose(t, -2, -1); }
}  // namespace

void mm(VjpContext& c) {
  if (c.needs(0)) c.set(0, axle::mm(g(c), t(c.input(1))));
  if (c.needs(1)) c.set(1, axle::mm(t(c.input(0)), g(c)));
}

void bmm(VjpContext& c) {
  if (c.needs(0)) c.set(0, axle::bmm(g(c), mT(c.input(1))));
  if (c.needs(1)) c.set(1, axle::bmm(mT(c.input(0)), g(c)));
}

void matmul(VjpContext& c) {
  // Both sides at least 2-d (a vector is a row on the left, a column on the
  // right, as matmul reads it), the gradient likewise; the engine reduces
  // broadcast batch dims.
  const Tensor& a = c.input(0);
  const Tensor& b = c.input(1);
  const bool a_vec = a.dim() == 1, b_vec = b.dim() == 1;
  const Tensor a2 = a_vec ? unsqueeze(a, 0) : a;
  const Tensor b2 = b_vec ? unsqueeze(b, -1) : b;
  Tensor g2 = g(c);
  if (a_vec) g2 = unsqueeze(g2, b_vec ? 0 : -2);
  if (b_vec) g2 = unsqueeze(g2, -1);
  if (c.needs(0)) {
    Tensor ga = sum_to(axle::matmul(g2, mT(b2)), a2.dim() >= 2 && !a_vec ? a.sizes() : a2.sizes());
    c.set(0, a_vec ? reshape(ga, a.sizes()) : ga);
  }
  if (c.needs(1)) {
    Tensor gb = axle::matmul(mT(a2), g2);
    gb = sum_to(gb, b2.sizes());
    c.set(1, b_vec ? reshape(gb, b.sizes()) : gb);
  }
}

void addmm(VjpContext& c) {
  const Scalar beta = c.arg(3).scalar(), alpha = c.arg(4).scalar();
  if (c.needs(0)) c.set(0, g(c) * scalar(beta));
  if (c.needs(1)) c.set(1, axle::mm(g(c), t(c.input(2))) * scalar(alpha));
  if (c.needs(2)) c.set(2, axle::mm(t(c.input(1)), g(c)) * scalar(alpha));
}

void baddbmm(VjpContext& c) {
  const Scalar beta = c.arg(3).scalar(), alpha = c.arg(4).scalar();
  if (c.needs(0)) c.set(0, g(c) * scalar(beta));
  if (c.needs(1)) c.set(1, axle::bmm(g(c), mT(c.input(2))) * scalar(alpha));
  if (c.needs(2)) c.set(2, axle::bmm(mT(c.input(1)), g(c)) * scalar(alpha));
}

void dot(VjpContext& c) {
  if (c.needs(0)) c.set(0, g(c) * c.input(1));
  if (c.needs(1)) c.set(1, g(c) * c.input(0));
}

void linear(VjpContext& c) {
  // out = x w^T + b
  const Tensor& x = c.input(0);
  const Tensor& w = c.input(1);
  if (w.dim() == 1) {  // out = x @ w: one output feature, dropped
    if (c.needs(0)) c.set(0, unsqueeze(g(c), -1) * w);
    if (c.needs(1)) c.set(1, reshape(axle::matmul(reshape(g(c), {1, -1}), reshape(x, {-1, w.size(0)})), w.sizes()));
    if (c.has_tensor(2) && c.needs(2)) c.set(2, g(c));
    return;
  }
  // One linear_backward call (a plugin may read grad_output once for all
  // three); a bias of another shape than [out_features] gets grad_output,
  // which the engine sums to the bias's shape.
  const bool bias = c.has_tensor(2) && c.needs(2);
  const bool flat_bias = bias && c.sizes(2).size() == 1 && c.sizes(2)[0] == w.size(0);
  if (!c.needs(0) && !c.needs(1) && !flat_bias) {
    if (bias) c.set(2, g(c));
    return;
  }
  const IntList mask{c.needs(0) ? 1 : 0, c.needs(1) ? 1 : 0, flat_bias ? 1 : 0};
  Stack r = detail::call(AXLE_OP("linear_backward"), x, g(c), w, mask);
  if (c.needs(0)) c.set(0, r[0].tensor());
  if (c.needs(1)) c.set(1, r[1].tensor());
  if (bias) c.set(2, flat_bias ? r[2].tensor() : g(c));
}

}  // namespace axle::derivatives
