// Formulas of the activations family (dispatcher/src/ops/activations.cpp).
#include "derivatives.h"

#include <cmath>
#include <numbers>

namespace axle::derivatives {

namespace {
const Tensor& g(VjpContext& c) { return c.grad(0); }
Tensor both(const Tensor& a, const Tensor& b) { return call(AXLE_OP("logical_and"), a, b); }
Tensor negate(const Tensor& a) { return call(AXLE_OP("logical_not"), a); }
Tensor maximum_(const Tensor& a, const Tensor& b) { return call(AXLE_OP("maximum"), a, b); }
Tensor between(const Tensor& x, double lo, double hi) {  // lo < x < hi, as 0/1
  return both(gt(x, scalar(lo)), lt(x, scalar(hi)));
}
}  // namespace

void relu6(VjpContext& c) { c.set(0, g(c) * between(c.input(0), 0.0, 6.0)); }

void leaky_relu(VjpContext& c) {
  const Tensor& x = c.input(0);
  // g * slope in g's dtype (a where of two Python numbers would round the slope to the default dtype).
  c.set(0, axle::where(gt(x, scalar(0)), g(c), g(c) * scalar(c.arg(1).scalar())));
}

namespace {
Tensor elu_grad(const Tensor& g, const Tensor& x, double alpha, double scale, double input_scale) {
  const Tensor negative = exp(x * scalar(input_scale)) * scalar(alpha * scale * input_scale);
  return g * axle::where(gt(x, scalar(0)), scalar(scale), negative);
}
}  // namespace

void elu(VjpContext& c) {
  c.set(0, elu_grad(g(c), c.input(0), c.arg(1).to_double(), c.arg(2).to_double(), c.arg(3).to_double()));
}
void selu(VjpContext& c) {
  c.set(0, elu_grad(g(c), c.input(0), 1.6732632423543772848170429916717, 1.0507009873554804934193349852946, 1.0));
}
void celu(VjpContext& c) {
  const double alpha = c.arg(1).to_double();
  c.set(0, elu_grad(g(c), c.input(0), alpha, 1.0, 1.0 / alpha));
}

void gelu(VjpContext& c) { c.set(0, call(AXLE_OP("gelu_backward"), g(c), c.input(0), c.arg(1).str())); }

void silu(VjpContext& c) {
  const Tensor& x = c.input(0);
  const Tensor s = call(AXLE_OP("sigmoid"), x);
  c.set(0, g(c) * s * (x * (scalar(1.0) - s) + scalar(1.0)));
}

void mish(VjpContext& c) {
  const Tensor& x = c.input(0);
  const Tensor t = call(AXLE_OP("tanh"), axle::softplus(x));
  const Tensor s = call(AXLE_OP("sigmoid"), x);
  c.set(0, g(c) * (t + x * s * (scalar(1.0) - t * t)));
}

void hardtanh(VjpContext& c) { c.set(0, g(c) * between(c.input(0), c.arg(1).to_double(), c.arg(2).to_double())); }

void hardsigmoid(VjpContext& c) { c.set(0, g(c) * between(c.input(0), -3.0, 3.0) * scalar(1.0 / 6.0)); }

void hardswish(VjpContext& c) {
  const Tensor& x = c.input(0);
  const Tensor middle = x * scalar(1.0 / 3.0) + scalar(0.5);
  const Tensor d = axle::where(lt(x, scalar(-3.0)), scalar(0.0), axle::where(le(x, scalar(3.0)), middle, scalar(1.0)));
  c.set(0, g(c) * d);
}

void softplus(VjpContext& c) {
  const Tensor& x = c.input(0);
  const double beta = c.arg(1).to_double(), threshold = c.arg(2).to_double();
  const Tensor xb = x * scalar(beta);
  c.set(0, g(c) * axle::where(gt(xb, scalar(threshold)), scalar(1.0), call(AXLE_OP("sigmoid"), xb)));
}

void prelu(VjpContext& c) {
  // weight: one value, or one per channel (dim 1 of self).
  const Tensor& x = c.input(0);
  const Tensor& w = c.input(1);
  Tensor wb = w;
  IntList shape(static_cast<size_t>(x.dim()), 1);
  if (w.numel() != 1 && x.dim() >= 2) {
    shape[1] = w.numel();
    wb = reshape(w, shape);
  }
  const Tensor positive = gt(x, scalar(0));
  if (c.needs(0)) c.set(0, g(c) * axle::where(positive, scalar(1.0), wb));
  if (c.needs(1)) {
    const Tensor gw = g(c) * x * negate(positive);
    if (w.numel() == 1 || x.dim() < 2) {
      c.set(1, reshape(sum(gw), w.sizes()));
    } else {
      IntList dims;
      for (int64_t d = 0; d < x.dim(); ++d)
        if (d != 1) dims.push_back(d);
      c.set(1, reshape(sum(gw, dims), w.sizes()));
    }
  }
}

void glu(VjpContext& c) {
  const Tensor& x = c.input(0);
  const int64_t dim = wrap_dim(c.arg(1).to_int(), x.dim());
  const std::vector<Tensor> halves = chunk(x, 2, dim);
  const Tensor s = call(AXLE_OP("sigmoid"), halves[1]);
  const Tensor ga = g(c) * s;
  const Tensor gb = g(c) * halves[0] * s * (scalar(1.0) - s);
  c.set(0, axle::cat({ga, gb}, dim));
}

void threshold(VjpContext& c) { c.set(0, call(AXLE_OP("threshold_backward"), g(c), c.input(0), c.arg(1).scalar())); }
// Linear in grad_output; piecewise constant in self.
void threshold_backward(VjpContext& c) {
  if (c.needs(0)) c.set(0, call(AXLE_OP("threshold_backward"), g(c), c.input(1), c.arg(2).scalar()));
  if (c.needs(1)) c.set(1, zeros_for(c, 1));
}

void clamp(VjpContext& c) {
  const Tensor& x = c.input(0);
  Tensor keep = negate(call(AXLE_OP("isnan"), x));
  if (!c.arg(1).is_none()) keep = both(keep, ge(x, scalar(c.arg(1).scalar())));
  if (!c.arg(2).is_none()) keep = both(keep, le(x, scalar(c.arg(2).scalar())));
  c.set(0, g(c) * keep);
}

void clamp_tensor(VjpContext& c) {
  const Tensor& x = c.input(0);
  const bool has_lo = c.has_tensor(1), has_hi = c.has_tensor(2);
  Tensor keep = negate(call(AXLE_OP("isnan"), x));
  Tensor low = x;  // max(x, min): what max is compared with
  if (has_lo) {
    const Tensor& lo = c.input(1);
    keep = both(keep, ge(x, lo));
    if (c.needs(1)) c.set(1, g(c) * (has_hi ? both(lt(x, lo), le(lo, c.input(2))) : lt(x, lo)));
    low = maximum_(x, lo);
  }
  if (has_hi) {
    const Tensor& hi = c.input(2);
    keep = both(keep, le(x, hi));
    if (c.needs(2)) c.set(2, g(c) * gt(low, hi));
  }
  if (c.needs(0)) c.set(0, g(c) * keep);
}

void nan_to_num(VjpContext& c) { c.set(0, g(c) * call(AXLE_OP("isfinite"), c.input(0))); }

}  // namespace axle::derivatives
