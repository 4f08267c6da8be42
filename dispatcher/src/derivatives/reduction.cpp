// Formulas of the reduction family (dispatcher/src/ops/reduction.cpp).
#include "derivatives.h"

#include <cmath>

namespace axle::derivatives {

namespace {
const Tensor& g(VjpContext& c) { return c.grad(0); }
Tensor exclusive_cumprod(const Tensor& x, int64_t dim, bool reverse) {
  // Products of the elements before (reverse: after) each position along dim.
  const Tensor src = reverse ? flip(x, {dim}) : x;
  const int64_t n = src.size(dim);
  Tensor out = ones(src.sizes(), TensorOptions().dtype(src.dtype()).device(src.device()));
  if (n > 1) {
    const Tensor head = narrow(ones(src.sizes(), TensorOptions().dtype(src.dtype()).device(src.device())), dim, 0, 1);
    out = axle::cat({head, narrow(cumprod(src, dim), dim, 0, n - 1)}, dim);
  }
  return reverse ? flip(out, {dim}) : out;
}
// The product of all other elements along dim, exact with zeros.
Tensor prod_of_others(const Tensor& x, int64_t dim) {
  return exclusive_cumprod(x, dim, false) * exclusive_cumprod(x, dim, true);
}
}  // namespace

void sum_dim(VjpContext& c) {
  c.set(0, unreduce(g(c), c.sizes(0), reduced_dims(c.arg(1), c.sizes(0).size()), c.arg(2).to_bool()));
}

void mean_dim(VjpContext& c) {
  const IntList& sizes = c.sizes(0);
  const IntList dims = reduced_dims(c.arg(1), sizes.size());
  int64_t n = 1;
  if (dims.empty())
    for (int64_t s : sizes) n *= s;
  else
    for (int64_t d : dims) n *= sizes[d];
  c.set(0, unreduce(g(c), sizes, dims, c.arg(2).to_bool()) / scalar(static_cast<double>(n)));
}

void prod(VjpContext& c) {
  const Tensor& x = c.input(0);
  const Tensor flat = reshape(x, {-1});
  c.set(0, reshape(prod_of_others(flat, 0), x.sizes()) * g(c));
}

void prod_dim(VjpContext& c) {
  const Tensor& x = c.input(0);
  if (x.dim() == 0) return c.set(0, g(c));
  const int64_t dim = wrap_dim(c.arg(1).to_int(), x.dim());
  c.set(0, unreduce(g(c), x.sizes(), {dim}, c.arg(2).to_bool()) * prod_of_others(x, dim));
}

namespace {
// The gradient of a max/min over dims, split evenly between ties (torch's
// amax/amin and max()/min()).
// `nan_aware`: a NaN result goes to the NaNs (torch's evenly_distribute_backward,
// max() and min()); amax/amin compare values only, as torch's.
Tensor evenly(const Tensor& g, const Tensor& x, const Tensor& out, const IntList& dims, bool keepdim, bool nan_aware) {
  const Tensor full = unreduce(out, x.sizes(), dims, keepdim);
  Tensor hit = eq(x, full);
  if (nan_aware)
    hit = call(AXLE_OP("logical_or"), hit,
               call(AXLE_OP("logical_and"), call(AXLE_OP("isnan"), x), call(AXLE_OP("isnan"), full)));
  const Tensor count = dims.empty() ? sum(hit) : sum(hit, dims, true);
  return unreduce(g, x.sizes(), dims, keepdim) * hit / (dims.empty() ? count : count);
}
}  // namespace

void amax_amin(VjpContext& c) {
  const Tensor& x = c.input(0);
  const IntList dims = reduced_dims(c.arg(1), x.dim());
  c.set(0, evenly(g(c), x, c.result(0), dims, c.arg(2).to_bool(), false));
}

void max_min_all(VjpContext& c) { c.set(0, evenly(g(c), c.input(0), c.result(0), {}, false, true)); }

void max_min_dim(VjpContext& c) {
  const IntList& sizes = c.sizes(0);
  if (sizes.empty()) return c.set(0, g(c));
  const int64_t dim = wrap_dim(c.arg(1).to_int(), static_cast<int64_t>(sizes.size()));
  const bool keepdim = c.arg(2).to_bool();
  const Tensor index = keepdim ? c.result(1) : unsqueeze(c.result(1), dim);
  const Tensor grad = keepdim ? g(c) : unsqueeze(g(c), dim);
  c.set(0, scatter(zeros_for(c, 0), dim, index, grad));
}

namespace {
// d var / dx = 2 (x - mean) / (N - correction), over dims.
Tensor var_grad(VjpContext& c, const Tensor& x, const IntList& dims, int64_t correction, bool keepdim) {
  int64_t n = 1;
  if (dims.empty())
    n = x.numel();
  else
    for (int64_t d : dims) n *= x.size(d);
  const Tensor centered = x - (dims.empty() ? mean(x) : mean(x, dims, true));
  return unreduce(g(c), x.sizes(), dims, keepdim) * centered * scalar(2.0 / static_cast<double>(n - correction));
}
}  // namespace

void var_correction(VjpContext& c) {
  const Tensor& x = c.input(0);
  const int64_t corr = c.arg(2).is_none() ? 1 : c.arg(2).to_int();
  c.set(0, var_grad(c, x, reduced_dims(c.arg(1), x.dim()), corr, c.arg(3).to_bool()));
}

void std_correction(VjpContext& c) {
  const Tensor& x = c.input(0);
  const IntList dims = reduced_dims(c.arg(1), x.dim());
  const bool keepdim = c.arg(3).to_bool();
  const int64_t corr = c.arg(2).is_none() ? 1 : c.arg(2).to_int();
  // d std = d var / (2 std); 0 where std is 0 (torch masks it).
  const Tensor out = unreduce(c.result(0), x.sizes(), dims, keepdim);
  c.set(0, axle::where(eq(out, scalar(0.0)), scalar(0.0), var_grad(c, x, dims, corr, keepdim) / (out * scalar(2.0))));
}

void norm_dim(VjpContext& c) {
  const Tensor& x = c.input(0);
  const double p = c.arg(1).is_none() ? 2.0 : c.arg(1).to_double();
  const IntList dims = reduced_dims(c.arg(2), x.dim());
  const bool keepdim = c.arg(3).to_bool();
  const Tensor gu = unreduce(g(c), x.sizes(), dims, keepdim);
  const Tensor out = unreduce(c.result(0), x.sizes(), dims, keepdim);
  const Tensor sign = call(AXLE_OP("sign"), x);
  if (p == 0.0) return c.set(0, zeros_for(c, 0));
  if (p == 1.0) return c.set(0, gu * sign);
  if (std::isinf(p)) {
    const Tensor ax = call(AXLE_OP("abs"), x);
    const Tensor hit = eq(ax, out);
    const Tensor count = dims.empty() ? sum(hit) : sum(hit, dims, true);
    return c.set(0, gu * sign * hit / count);
  }
  // x |x|^(p-2) / norm^(p-1); 0 where the norm is 0.
  const Tensor ax = call(AXLE_OP("abs"), x);
  const Tensor num = p == 2.0 ? x : x * pow(ax, Scalar(p - 2.0));
  const Tensor den = p == 2.0 ? out : pow(out, Scalar(p - 1.0));
  c.set(0, axle::where(eq(out, scalar(0.0)), scalar(0.0), gu * num / den));
}

void logsumexp(VjpContext& c) {
  const Tensor& x = c.input(0);
  const IntList dims = reduced_dims(c.arg(1), x.dim());
  const bool keepdim = c.arg(2).to_bool();
  c.set(0, unreduce(g(c), x.sizes(), dims, keepdim) * exp(x - unreduce(c.result(0), x.sizes(), dims, keepdim)));
}

void cumsum(VjpContext& c) {
  if (c.sizes(0).empty()) return c.set(0, g(c));
  const int64_t dim = wrap_dim(c.arg(1).to_int(), static_cast<int64_t>(c.sizes(0).size()));
  c.set(0, flip(axle::cumsum(flip(g(c), {dim}), dim), {dim}));
}

void cumprod(VjpContext& c) {
  // out_j = prod_{i<=j} x_i: d out_j / d x_i = prod_{k<=j, k!=i} x_k. Exact
  // with zeros: sum over j >= i of g_j * (prefix before i) * (x_{i+1..j}).
  const Tensor& x = c.input(0);
  if (x.dim() == 0) return c.set(0, g(c));
  const int64_t dim = wrap_dim(c.arg(1).to_int(), x.dim());
  const int64_t n = x.size(dim);
  if (x.numel() == 0) return c.set(0, zeros_for(c, 0));
  std::vector<Tensor> parts;
  const Tensor before = exclusive_cumprod(x, dim, false);
  for (int64_t i = 0; i < n; ++i) {
    // prod_{i<k<=j} x_k for j >= i: cumprod of the tail with x_i replaced by 1.
    const Tensor tail = narrow(x, dim, i, n - i);
    const Tensor ones_head = ones(narrow(x, dim, 0, 1).sizes(), TensorOptions().dtype(x.dtype()).device(x.device()));
    const Tensor shifted = n - i > 1 ? axle::cat({ones_head, narrow(tail, dim, 1, n - i - 1)}, dim) : ones_head;
    // Terms with a zero gradient contribute nothing, also past a NaN or an infinity.
    const Tensor gi = narrow(g(c), dim, i, n - i);
    const Tensor w = axle::where(ne(gi, scalar(0.0)), axle::cumprod(shifted, dim) * gi, scalar(0.0));
    const Tensor total = sum(w, {dim}, true);
    parts.push_back(axle::where(ne(total, scalar(0.0)), total * narrow(before, dim, i, 1), scalar(0.0)));
  }
  c.set(0, cat(parts, dim));
}

void topk(VjpContext& c) {
  const IntList& sizes = c.sizes(0);
  if (sizes.empty()) return c.set(0, g(c));
  const int64_t dim = wrap_dim(c.arg(2).to_int(), static_cast<int64_t>(sizes.size()));
  c.set(0, scatter(zeros_for(c, 0), dim, c.result(1), g(c)));
}

void sort(VjpContext& c) {
  const IntList& sizes = c.sizes(0);
  if (sizes.empty()) return c.set(0, g(c));
  const int64_t dim = wrap_dim(c.arg(1).to_int(), static_cast<int64_t>(sizes.size()));
  c.set(0, scatter(zeros_for(c, 0), dim, c.result(1), g(c)));
}

}  // namespace axle::derivatives
