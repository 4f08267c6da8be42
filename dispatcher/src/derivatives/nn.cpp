// Formulas of the nn and indexing families (dispatcher/src/ops/nn.cpp,
// indexing.cpp).
#include "derivatives.h"

#include <limits>

namespace axle::derivatives {

namespace {
const Tensor& g(VjpContext& c) { return c.grad(0); }
// The last `k` dims of an n-dim tensor.
IntList last_dims(int64_t n, size_t k) {
  IntList dims;
  for (int64_t d = n - static_cast<int64_t>(k); d < n; ++d) dims.push_back(d);
  return dims;
}
// index_select's gradient with dim moved first: one row per index entry.
IntList moved_index_shape(const Tensor& gm, const Tensor& index) {
  IntList shape = gm.sizes();
  shape[0] = index.numel();
  return shape;
}
}  // namespace

void softmax(VjpContext& c) {
  const Tensor& y = c.result(0);
  const int64_t dim = wrap_dim(c.arg(1).to_int(), std::max<int64_t>(y.dim(), 1));
  const Tensor gy = g(c) * y;
  c.set(0, gy - y * sum(gy, {dim}, true));
}

void log_softmax(VjpContext& c) {
  const Tensor& y = c.result(0);
  const int64_t dim = wrap_dim(c.arg(1).to_int(), std::max<int64_t>(y.dim(), 1));
  c.set(0, g(c) - exp(y) * sum(g(c), {dim}, true));
}

void layer_norm(VjpContext& c) {
  // y = (x - mean) * rstd * w + b over the last len(normalized_shape) dims.
  const Tensor& x = c.input(0);
  const IntList dims = last_dims(x.dim(), c.arg(1).int_list().size());
  const double eps = c.arg(4).to_double();
  const Tensor centered = x - mean(x, dims, true);
  const Tensor rstd = call(AXLE_OP("rsqrt"), mean(centered * centered, dims, true) + scalar(eps));
  const Tensor xhat = centered * rstd;
  const bool has_w = c.has_tensor(2);
  if (c.needs(0)) {
    const Tensor gxhat = has_w ? g(c) * c.input(2) : g(c);
    c.set(0, rstd * (gxhat - mean(gxhat, dims, true) - xhat * mean(gxhat * xhat, dims, true)));
  }
  if (has_w && c.needs(2)) c.set(2, g(c) * xhat);
  if (c.has_tensor(3) && c.needs(3)) c.set(3, g(c));
}

void rms_norm(VjpContext& c) {
  // y = x * r * w, r = 1 / sqrt(mean(x^2) + eps) over the normalized dims.
  const Tensor& x = c.input(0);
  const IntList dims = last_dims(x.dim(), c.arg(1).int_list().size());
  const double eps = c.arg(3).is_none()
                         ? static_cast<double>(x.dtype() == kFloat64 ? std::numeric_limits<double>::epsilon()
                                                                     : std::numeric_limits<float>::epsilon())
                         : c.arg(3).to_double();
  const Tensor r = call(AXLE_OP("rsqrt"), mean(x * x, dims, true) + scalar(eps));
  const bool has_w = c.has_tensor(2);
  if (c.needs(0)) {
    const Tensor gxhat = has_w ? g(c) * c.input(2) : g(c);
    c.set(0, r * (gxhat - x * r * r * mean(gxhat * x, dims, true)));
  }
  if (has_w && c.needs(2)) c.set(2, g(c) * x * r);
}

void where(VjpContext& c) {
  const Tensor& cond = c.input(0);
  if (c.needs(1)) c.set(1, axle::where(cond, g(c), scalar(0.0)));
  if (c.needs(2)) c.set(2, axle::where(cond, scalar(0.0), g(c)));
}

void masked_fill(VjpContext& c) { c.set(0, axle::masked_fill(g(c), c.input(1), Scalar(0.0))); }

void masked_fill_tensor(VjpContext& c) {
  const Tensor& mask = c.input(1);
  if (c.needs(0)) c.set(0, axle::masked_fill(g(c), mask, Scalar(0.0)));
  if (c.needs(2)) c.set(2, sum(axle::where(mask, g(c), scalar(0.0))));
}

void index_select(VjpContext& c) {
  const IntList& sizes = c.sizes(0);
  if (sizes.empty()) return c.set(0, sum(g(c)));  // a 0-d self: every index is 0
  const int64_t dim = wrap_dim(c.arg(1).to_int(), static_cast<int64_t>(sizes.size()));
  // Accumulated into zeros with dim moved first (index_put_ indexes dim 0).
  IntList moved = sizes;
  if (!moved.empty()) {
    moved.erase(moved.begin() + dim);
    moved.insert(moved.begin(), sizes[dim]);
  }
  Tensor acc = zeros(moved, TensorOptions().dtype(g(c).dtype()).device(g(c).device()));
  const Tensor gm = sizes.empty() ? g(c) : movedim(g(c), dim, 0);
  index_put_(acc, {std::optional<Tensor>(reshape(c.input(2), {-1}).to(kInt64))},
             sizes.empty() ? gm : reshape(gm, moved_index_shape(gm, c.input(2))), true);
  c.set(0, sizes.empty() ? acc : movedim(acc, 0, dim));
}

void gather(VjpContext& c) {
  const IntList& sizes = c.sizes(0);
  const int64_t dim = sizes.empty() ? 0 : wrap_dim(c.arg(1).to_int(), static_cast<int64_t>(sizes.size()));
  c.set(0, scatter_add(zeros(sizes, TensorOptions().dtype(g(c).dtype()).device(g(c).device())), dim, c.input(2), g(c)));
}

// The gradient of scatter's src: gathered where the index reads it, zero in
// the rest of a src larger than the index.
Tensor src_gradient(VjpContext& c, const Tensor& gathered) {
  const IntList& src = c.sizes(3);
  if (gathered.sizes() == src) return gathered;
  Tensor out = zeros_for(c, 3);
  Tensor corner = out;
  for (int64_t d = 0; d < gathered.dim(); ++d) corner = narrow(corner, d, 0, gathered.size(d));
  corner.copy_(gathered);
  return out;
}

void scatter_src(VjpContext& c) {
  const int64_t dim = c.arg(1).to_int();
  const Tensor& index = c.input(2);
  if (c.needs(0)) c.set(0, axle::scatter(g(c), dim, index, Scalar(0.0)));
  if (c.needs(3)) c.set(3, src_gradient(c, axle::gather(g(c), dim, index)));
}

void scatter_value(VjpContext& c) { c.set(0, axle::scatter(g(c), c.arg(1).to_int(), c.input(2), Scalar(0.0))); }

void scatter_add(VjpContext& c) {
  if (c.needs(0)) c.set(0, g(c));
  if (c.needs(3)) c.set(3, src_gradient(c, axle::gather(g(c), c.arg(1).to_int(), c.input(2))));
}

void index(VjpContext& c) {
  std::vector<std::optional<Tensor>> indices;
  for (size_t k = 0; k < c.list_size(1); ++k)
    indices.push_back(c.has_tensor(1, k) ? std::optional<Tensor>(c.input(1, k)) : std::nullopt);
  Tensor acc = zeros(c.sizes(0), TensorOptions().dtype(g(c).dtype()).device(g(c).device()));
  index_put_(acc, indices, g(c), true);
  c.set(0, acc);
}

void index_put(VjpContext& c) {
  std::vector<std::optional<Tensor>> indices;
  for (size_t k = 0; k < c.list_size(1); ++k)
    indices.push_back(c.has_tensor(1, k) ? std::optional<Tensor>(c.input(1, k)) : std::nullopt);
  const bool accumulate = c.arg(3).to_bool();
  if (c.needs(0)) {
    if (accumulate) {
      c.set(0, g(c));
    } else {
      Tensor gs = axle::clone(g(c));
      index_put_(gs, indices, zeros({}, TensorOptions().dtype(gs.dtype()).device(gs.device())), false);
      c.set(0, gs);
    }
  }
  if (c.needs(2)) c.set(2, axle::index(g(c), indices));
}

void embedding(VjpContext& c) {
  // weight[num, dim]; gradient rows accumulate per index; padding_idx's row gets none.
  const Tensor& indices = c.input(1);
  const IntList& wsizes = c.sizes(0);
  const int64_t padding_idx = c.arg(2).to_int();
  if (g(c).numel() == 0) return c.set(0, zeros_for(c, 0));
  AXLE_CHECK(!c.arg(3).to_bool(), NotImplementedError,
             "embedding: the gradient with scale_grad_by_freq=True is not implemented yet");
  Tensor gr = axle::reshape(g(c), {-1, wsizes[1]});
  const Tensor idx = axle::reshape(indices, {-1}).to(kInt64);
  if (padding_idx >= 0) gr = axle::masked_fill(gr, unsqueeze(eq(idx, scalar(padding_idx)), 1), Scalar(0.0));
  Tensor acc = zeros(wsizes, TensorOptions().dtype(gr.dtype()).device(gr.device()));
  index_put_(acc, {std::optional<Tensor>(idx)}, gr, true);
  c.set(0, acc);
}

}  // namespace axle::derivatives
