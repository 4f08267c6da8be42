// Formulas of the nn and indexing families (dispatcher/src/ops/nn.cpp,
// indexing.cpp). The norms and resampling ops call their declared backward ops
// (ops/nn_backward.cpp) through the dispatcher.
#include "derivatives.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

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
  c.set(0, call(AXLE_OP("_softmax_backward_data"), g(c), c.result(0), c.arg(1), c.dtype(0)));
}

void log_softmax(VjpContext& c) {
  c.set(0, call(AXLE_OP("_log_softmax_backward_data"), g(c), c.result(0), c.arg(1), c.dtype(0)));
}

void layer_norm(VjpContext& c) {
  // layer_norm(input, normalized_shape, weight, bias, eps, cudnn_enable): the
  // declared backward op recomputes the row statistics (layer_norm returns none).
  const bool has_w = c.has_tensor(2), has_b = c.has_tensor(3);
  const IntList mask{c.needs(0) ? 1 : 0, has_w && c.needs(2) ? 1 : 0, has_b && c.needs(3) ? 1 : 0};
  const Value w = has_w ? Value(c.input(2)) : Value();
  // Only the bias's presence matters to the gradients (it is not saved).
  Stack r = detail::call(AXLE_OP("native_layer_norm_backward"), g(c), c.input(0), c.arg(1), Value(), Value(), w,
                         Value(), mask, c.arg(4));
  if (mask[0]) c.set(0, r[0].tensor());
  if (mask[1]) c.set(2, r[1].tensor());
  if (mask[2]) c.set(3, r[2].tensor());
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

void fused_lstm_cell(VjpContext& c) {
  // (input_gates, hidden_gates, cx, input_bias, hidden_bias) -> (hy, cy, workspace):
  // the declared backward op from the saved cx, cy and workspace (the activated
  // gates i, f, g, o); both gate inputs get the gates' gradient, both biases its
  // batch sum. A gradient into the workspace itself (torch declares it not
  // differentiable; axle's gradient checks reach it) goes through the
  // activations' derivatives.
  const bool has_bias = c.has_tensor(3) || c.has_tensor(4);
  const Tensor& ws = c.result(2);
  Stack r = detail::call(AXLE_OP("_thnn_fused_lstm_cell_backward_impl"), c.has_grad(0) ? Value(c.grad(0)) : Value(),
                         c.has_grad(1) ? Value(c.grad(1)) : Value(), c.input(2), c.result(1), ws, has_bias);
  Tensor gates = r[0].tensor();
  Tensor bias = has_bias ? r[2].tensor() : Tensor();
  if (c.has_grad(2)) {
    const int64_t h = ws.size(1) / 4;
    const Tensor one = scalar(1.0);
    const Tensor i = axle::narrow(ws, 1, 0, h), f = axle::narrow(ws, 1, h, h), g = axle::narrow(ws, 1, 2 * h, h),
                 o = axle::narrow(ws, 1, 3 * h, h);
    const Tensor extra = c.grad(2) * axle::cat({i * (one - i), f * (one - f), one - g * g, o * (one - o)}, 1);
    gates = gates + extra;
    if (has_bias) bias = bias + axle::sum(extra, IntList{0});
  }
  for (size_t k : {0, 1})
    if (c.needs(k)) c.set(k, gates);
  if (c.needs(2)) c.set(2, r[1].tensor());
  for (size_t k : {3, 4})
    if (c.has_tensor(k) && c.needs(k)) c.set(k, bias);
}

void fused_gru_cell(VjpContext& c) {
  // (input_gates, hidden_gates, hx, input_bias, hidden_bias) -> (hy, workspace):
  // the declared backward op from the saved workspace (r, z, n, h_n, hx). A
  // gradient into the workspace itself (torch declares it not differentiable;
  // axle's gradient checks reach it) goes through the gates' derivatives.
  const bool has_bias = c.has_tensor(3) || c.has_tensor(4);
  const Tensor& ws = c.result(1);
  const int64_t h = ws.size(1) / 5;
  const Tensor gy =
      c.has_grad(0) ? c.grad(0) : zeros({ws.size(0), h}, TensorOptions().dtype(ws.dtype()).device(ws.device()));
  Stack r = detail::call(AXLE_OP("_thnn_fused_gru_cell_backward"), gy, ws, has_bias);
  Tensor gi = r[0].tensor(), gh = r[1].tensor(), ghx = r[2].tensor();
  Tensor bi = has_bias ? r[3].tensor() : Tensor(), bh = has_bias ? r[4].tensor() : Tensor();
  if (c.has_grad(1)) {
    auto part = [&](const Tensor& t, int64_t k) { return axle::narrow(t, 1, k * h, h); };
    const Tensor& gw = c.grad(1);
    const Tensor one = scalar(1.0);
    const Tensor rg = part(ws, 0), z = part(ws, 1), n = part(ws, 2), hn = part(ws, 3);
    const Tensor dan = part(gw, 2) * (one - n * n);
    const Tensor dar = (part(gw, 0) + dan * hn) * rg * (one - rg);
    const Tensor daz = part(gw, 1) * z * (one - z);
    const Tensor xi = axle::cat({dar, daz, dan}, 1), xh = axle::cat({dar, daz, dan * rg + part(gw, 3)}, 1);
    gi = gi + xi;
    gh = gh + xh;
    ghx = ghx + part(gw, 4);
    if (has_bias) {
      bi = bi + axle::sum(xi, IntList{0});
      bh = bh + axle::sum(xh, IntList{0});
    }
  }
  if (c.needs(0)) c.set(0, gi);
  if (c.needs(1)) c.set(1, gh);
  if (c.needs(2)) c.set(2, ghx);
  if (c.has_tensor(3) && c.needs(3)) c.set(3, bi);
  if (c.has_tensor(4) && c.needs(4)) c.set(4, bh);
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
  // Into fresh zeros in place: the out-of-place form would copy the zeros first.
  Tensor acc = zeros(sizes, TensorOptions().dtype(g(c).dtype()).device(g(c).device()));
  call(AXLE_OP("scatter_add_"), acc, dim, c.input(2), g(c));
  c.set(0, acc);
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

namespace {
// The batch-statistics forms' formula, eps being argument eps_arg.
void batch_stats_norm(VjpContext& c, size_t eps_arg) {
  const Tensor& x = c.input(0);
  const double eps = c.arg(eps_arg).to_double();
  const Tensor &mu = c.result(1), &invstd = c.result(2);
  const IntList mask{c.needs(0) ? 1 : 0, c.has_tensor(1) && c.needs(1) ? 1 : 0, c.has_tensor(2) && c.needs(2) ? 1 : 0};
  Tensor gx;
  if (c.has_grad(0) && (mask[0] || mask[1] || mask[2])) {
    Stack r =
        detail::call(AXLE_OP("native_batch_norm_backward"), c.grad(0), x, c.has_tensor(1) ? Value(c.input(1)) : Value(),
                     Value(), Value(), mu, invstd, true, eps, mask);
    if (mask[0]) gx = r[0].tensor();
    for (size_t i : {1, 2})
      if (mask[i]) c.set(i, r[i].tensor());
  }
  if (c.needs(0) && (c.has_grad(1) || c.has_grad(2))) {
    IntList bshape(static_cast<size_t>(x.dim()), 1);
    bshape[1] = x.size(1);
    const Tensor n = scalar(static_cast<double>(x.size(1) ? x.numel() / x.size(1) : 1));
    Tensor extra = reshape(c.grad(1), bshape) / n;
    if (c.has_grad(2)) {
      const Tensor r = reshape(invstd, bshape);
      extra = extra - reshape(c.grad(2), bshape) * r * r * r * (x - reshape(mu, bshape)) / n;
    }
    gx = gx.defined() ? gx + extra : extra + zeros(x.sizes(), TensorOptions().dtype(x.dtype()).device(x.device()));
  }
  if (gx.defined()) c.set(0, gx);
}
}  // namespace

void batch_norm_no_stats(VjpContext& c) {
  // (input, weight, bias, training, momentum, eps) -> (out, save_mean, save_invstd):
  // the declared backward op from the saved statistics; gradients into the
  // statistics themselves (torch declares them not differentiable; axle's
  // gradient checks reach them) go through mean and (var + eps)^-1/2.
  batch_stats_norm(c, 5);
}

void batch_norm_legit(VjpContext& c) {
  // (input, weight, bias, running_mean!, running_var!, training, momentum, eps):
  // training as batch_norm_no_stats (the running statistics get no gradient);
  // evaluation as batch_norm with the running statistics.
  if (c.arg(5).to_bool()) {
    batch_stats_norm(c, 7);
    return;
  }
  const IntList mask{c.needs(0) ? 1 : 0, c.has_tensor(1) && c.needs(1) ? 1 : 0, c.has_tensor(2) && c.needs(2) ? 1 : 0};
  if (!c.has_grad(0) || !(mask[0] || mask[1] || mask[2])) return;
  Stack r = detail::call(AXLE_OP("native_batch_norm_backward"), c.grad(0), c.input(0),
                         c.has_tensor(1) ? Value(c.input(1)) : Value(), c.input(3), c.input(4), Value(), Value(), false,
                         c.arg(7).to_double(), mask);
  for (size_t i = 0; i < 3; ++i)
    if (mask[i]) c.set(i, r[i].tensor());
}

void batch_norm(VjpContext& c) {
  // batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled)
  const Tensor& x = c.input(0);
  const bool train = c.arg(5).to_bool();
  const double eps = c.arg(7).to_double();
  const int64_t nd = x.dim();
  IntList dims{0};
  for (int64_t d = 2; d < nd; ++d) dims.push_back(d);
  const Value w = c.has_tensor(1) ? Value(c.input(1)) : Value();
  const Value rm = c.has_tensor(3) ? Value(c.input(3)) : Value();
  const Value rv = c.has_tensor(4) ? Value(c.input(4)) : Value();
  Value save_mean, save_invstd;
  if (train) {  // the batch statistics torch's native_batch_norm would have returned
    const Tensor mu = mean(x, dims, true);
    const Tensor centered = x - mu;
    save_mean = reshape(mu, {-1});
    save_invstd = reshape(call(AXLE_OP("rsqrt"), mean(centered * centered, dims, true) + scalar(eps)), {-1});
  }
  const IntList mask{c.needs(0) ? 1 : 0, c.has_tensor(1) && c.needs(1) ? 1 : 0, c.has_tensor(2) && c.needs(2) ? 1 : 0};
  if (mask[0] || mask[1] || mask[2]) {
    Stack r = detail::call(AXLE_OP("native_batch_norm_backward"), c.grad(0), x, w, rm, rv, save_mean, save_invstd,
                           train, eps, mask);
    for (size_t i = 0; i < 3; ++i)
      if (mask[i]) c.set(i, r[i].tensor());
  }
  // Evaluation mode reads the running statistics: y = (x - rm) * (rv + eps)^-1/2 * w + b.
  if (!train && (c.needs(3) || c.needs(4))) {
    IntList bshape(static_cast<size_t>(nd), 1);
    bshape[1] = x.size(1);
    const Tensor invstd = reshape(call(AXLE_OP("rsqrt"), c.input(4) + scalar(eps)), bshape);
    const Tensor gw = c.has_tensor(1) ? c.grad(0) * reshape(c.input(1), bshape) : c.grad(0);
    if (c.needs(3)) c.set(3, neg(sum(gw * invstd, dims)));
    if (c.needs(4)) {
      const Tensor cube = invstd * invstd * invstd;
      c.set(4, sum(gw * (x - reshape(c.input(3), bshape)) * cube, dims) * scalar(-0.5));
    }
  }
}

void group_norm(VjpContext& c) {
  // group_norm(input, num_groups, weight, bias, eps, cudnn_enabled)
  const Tensor x = c.input(0).contiguous();
  const int64_t groups = c.arg(1).to_int(), n = x.size(0), ch = x.size(1);
  const int64_t hxw = n * ch == 0 ? 0 : x.numel() / (n * ch);
  Tensor mu, rstd;
  if (x.numel() == 0) {
    mu = zeros({n, groups}, TensorOptions().dtype(x.dtype()).device(x.device()));
    rstd = mu;
  } else {
    const Tensor xr = reshape(x, {n, groups, -1});
    const Tensor m = mean(xr, {2}, true);
    const Tensor centered = xr - m;
    mu = reshape(m, {n, groups});
    rstd = reshape(call(AXLE_OP("rsqrt"), mean(centered * centered, {2}, true) + scalar(c.arg(4).to_double())),
                   {n, groups});
  }
  const IntList mask{c.needs(0) ? 1 : 0, c.has_tensor(2) && c.needs(2) ? 1 : 0, c.has_tensor(3) && c.needs(3) ? 1 : 0};
  const Value w = c.has_tensor(2) ? Value(c.input(2)) : Value();
  Stack r = detail::call(AXLE_OP("native_group_norm_backward"), c.grad(0), x, mu, rstd, w, n, ch, hxw, groups, mask);
  if (mask[0]) c.set(0, r[0].tensor());
  if (mask[1]) c.set(2, r[1].tensor());
  if (mask[2]) c.set(3, r[2].tensor());
}

void upsample_nearest2d(VjpContext& c) {
  c.set(0, call(AXLE_OP("upsample_nearest2d_backward"), c.grad(0), c.arg(1), c.sizes(0), c.arg(2), c.arg(3)));
}

void upsample_bilinear2d(VjpContext& c) {
  c.set(0,
        call(AXLE_OP("upsample_bilinear2d_backward"), c.grad(0), c.arg(1), c.sizes(0), c.arg(2), c.arg(3), c.arg(4)));
}

void pad(VjpContext& c) {
  // pad(self, pad, mode, value): constant mode is undone by the opposite padding
  // (cropped parts get zeros); the others read input elements at computed
  // indices per padded dim, whose gradients accumulate there.
  const IntList& p = c.arg(1).int_list();
  const std::string& mode = c.arg(2).str();
  IntList neg_pad;
  for (int64_t v : p) neg_pad.push_back(-v);
  if (mode == "constant") return c.set(0, call(AXLE_OP("pad"), c.grad(0), neg_pad, std::string("constant"), Value()));
  const IntList& sizes = c.sizes(0);
  const int64_t nd = static_cast<int64_t>(sizes.size());
  Tensor gr = c.grad(0);
  for (size_t i = 0; i < p.size() / 2; ++i) {
    const int64_t d = nd - 1 - static_cast<int64_t>(i), lo = p[2 * i], size = sizes[d], out = gr.size(d);
    Tensor idx = zeros({out}, TensorOptions().dtype(kInt64));
    int64_t* ip = idx.data_ptr<int64_t>();
    for (int64_t j = 0; j < out; ++j) {
      int64_t s = j - lo;
      if (mode == "reflect") {
        if (s < 0) s = -s;
        if (s >= size) s = 2 * (size - 1) - s;
      } else if (mode == "replicate") {
        s = std::min(std::max<int64_t>(s, 0), size - 1);
      } else {
        s = ((s % size) + size) % size;
      }
      ip[j] = s;
    }
    IntList moved = gr.sizes();
    moved.erase(moved.begin() + d);
    moved.insert(moved.begin(), size);
    Tensor acc = zeros(moved, TensorOptions().dtype(gr.dtype()).device(gr.device()));
    index_put_(acc, {std::optional<Tensor>(idx.to(gr.device()))}, movedim(gr, d, 0), true);
    gr = movedim(acc, 0, d);
  }
  c.set(0, gr);
}

}  // namespace axle::derivatives
