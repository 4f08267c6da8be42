// The backward ops of softmax and layer_norm (what training runs instead of
// their composites' chains of pointwise ops and reductions):
// _softmax_backward_data / _log_softmax_backward_data on oneDNN's softmax_v2
// backward primitive (float32 and bfloat16, one dtype throughout), and
// native_layer_norm_backward on our own loops (float32, contiguous rows):
// oneDNN's layer normalization backward takes the variance, not the rstd torch's
// schema passes, and needs a forward-training hint; ours computes the row
// statistics (when not given) and the input gradient in one pass over each row,
// and the weight and bias gradients in a second pass over column ranges
// (deterministic: each column is summed by one thread in row order).
#include "kernels.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace axle::cpu {

namespace {

// Row loops, vectorized by the compiler (target_clones): float partial sums in
// kLanes lanes (each sums n / kLanes terms), added up in double.
constexpr int kLanes = 16;
#define AXLE_ROW_LOOP __attribute__((target_clones("avx512f", "avx2", "default")))

AXLE_ROW_LOOP double row_sum(const float* __restrict x, int64_t n) {
  float acc[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
#pragma omp simd
    for (int l = 0; l < kLanes; ++l) acc[l] += x[j + l];
  double s = 0;
  for (float a : acc) s += a;
  for (; j < n; ++j) s += x[j];
  return s;
}

AXLE_ROW_LOOP double row_squares(const float* __restrict x, int64_t n, float m) {
  float acc[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
#pragma omp simd
    for (int l = 0; l < kLanes; ++l) {
      const float d = x[j + l] - m;
      acc[l] += d * d;
    }
  double s = 0;
  for (float a : acc) s += a;
  for (; j < n; ++j) s += static_cast<double>(x[j] - m) * (x[j] - m);
  return s;
}

}  // namespace

void channel_statistics(const float* x, int64_t n, int64_t ch, int64_t plane, int64_t k, double eps, float* mean,
                        float* invstd, double* var) {
  const double count = static_cast<double>(n * plane);
  double sum = 0, sq = 0;
  for (int64_t i = 0; i < n; ++i) sum += row_sum(x + (i * ch + k) * plane, plane);
  const float m = static_cast<float>(sum / count);
  for (int64_t i = 0; i < n; ++i) sq += row_squares(x + (i * ch + k) * plane, plane, m);
  *mean = m;
  *invstd = static_cast<float>(1.0 / std::sqrt(sq / count + eps));
  if (var) *var = sq / count;
}

namespace {

using plugin::arg_double;
using plugin::arg_int;
using plugin::arg_is_none;
using plugin::arg_tensor;

// _softmax_backward_data / _log_softmax_backward_data(grad_output, output, dim, input_dtype)
axle_status softmax_backward_impl(const axle_kernel_call* c, dnnl::algorithm alg) {
  Shape gy = Shape::of(arg_tensor(c, 0)), y = Shape::of(arg_tensor(c, 1)), gx = Shape::of(c->outputs[0]);
  if (y.ndim() == 0 || y.numel() == 0 || !is_f32_or_bf16(y.dtype) || gy.dtype != y.dtype || gx.dtype != y.dtype ||
      y.has_zero_stride() || gy.has_zero_stride())
    return AXLE_DECLINED;
  int64_t dim = arg_int(c, 2);
  if (dim < 0) dim += y.ndim();
  Key key(alg == dnnl::algorithm::softmax_log ? "log_softmax_backward" : "softmax_backward");
  key.add(gy).add(y).add(gx).add(dim);
  auto p = cache().get(key.str(), [&]() -> std::shared_ptr<Primitive> {
    dnnl::memory::desc gymd, ymd, gxmd;
    if (!describe(gy, &gymd) || !describe(y, &ymd) || !describe(gx, &gxmd))
      return declined("dtype or rank oneDNN lacks");
    const int axis = static_cast<int>(dim);
    const dnnl::softmax_v2_forward::desc fd(dnnl::prop_kind::forward_training, alg, gxmd, ymd, axis);
    const dnnl::softmax_v2_forward::primitive_desc hint(fd, default_attr(), engine());
    const dnnl::softmax_v2_backward::desc d(alg, gxmd, gymd, ymd, axis);
    const dnnl::softmax_v2_backward::primitive_desc pd(d, default_attr(), engine(), hint);
    return make_primitive<dnnl::softmax_v2_backward::primitive_desc, dnnl::softmax_v2_backward>(
        pd, {DNNL_ARG_DST, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_SRC}, {ymd, gymd, gxmd});
  });
  if (!p->declined.empty()) return plugin::decline(c, p->declined);
  execute(*p, {y.data, gy.data, gx.data});
  return AXLE_OK;
}

axle_status softmax_backward(void*, const axle_kernel_call* c) {
  return guarded(c, [&] { return softmax_backward_impl(c, dnnl::algorithm::softmax_accurate); });
}
axle_status log_softmax_backward(void*, const axle_kernel_call* c) {
  return guarded(c, [&] { return softmax_backward_impl(c, dnnl::algorithm::softmax_log); });
}

bool f32_out(const axle_tensor_view& v, int64_t n) {
  return !v.data || (v.dtype == AXLE_DTYPE_FLOAT32 && plugin::numel(v) == n && plugin::is_contiguous(v));
}

// *a = sum(g * w), *b = sum(g * w * xhat), xhat = (x - m) * r.
AXLE_ROW_LOOP void row_grad_sums(const float* __restrict g, const float* __restrict w, const float* __restrict x,
                                 float m, float r, int64_t n, double* a, double* b) {
  float sa[kLanes] = {}, sb[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
#pragma omp simd
    for (int l = 0; l < kLanes; ++l) {
      const float gh = g[j + l] * w[j + l];
      sa[l] += gh;
      sb[l] += gh * ((x[j + l] - m) * r);
    }
  double da = 0, db = 0;
  for (int l = 0; l < kLanes; ++l) da += sa[l], db += sb[l];
  for (; j < n; ++j) {
    const float gh = g[j] * w[j];
    da += gh;
    db += static_cast<double>(gh) * ((x[j] - m) * r);
  }
  *a = da, *b = db;
}

// out = r * (g * w - am - xhat * bm).
AXLE_ROW_LOOP void row_grad(const float* __restrict g, const float* __restrict w, const float* __restrict x, float m,
                            float r, float am, float bm, int64_t n, float* __restrict out) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) out[j] = r * (g[j] * w[j] - am - (x[j] - m) * r * bm);
}

// sw += g * xhat, sb += g over one row's columns.
AXLE_ROW_LOOP void column_sums(const float* __restrict g, const float* __restrict x, float m, float r, int64_t n,
                               float* __restrict sw, float* __restrict sb) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) {
    sw[j] += g[j] * ((x[j] - m) * r);
    sb[j] += g[j];
  }
}

// native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd,
// weight, bias, output_mask, eps) -> (grad_input, grad_weight, grad_bias): float32,
// contiguous input; grad_out contiguous or one value expanded (the gradient of
// sum()). The outputs output_mask leaves out arrive unallocated and stay so.
axle_status layer_norm_backward(void*, const axle_kernel_call* c) {
  const axle_tensor_view &gv = arg_tensor(c, 0), &xv = arg_tensor(c, 1);
  const axle_tensor_view &gx_v = c->outputs[0], &gw_v = c->outputs[1], &gb_v = c->outputs[2];
  const int64_t total = plugin::numel(xv);
  int64_t inner = 1;
  const axle_value& ns = c->args[2];
  for (int64_t i = 0; i < ns.u.ints.count; ++i) inner *= ns.u.ints.items[i];
  const bool g_dense = plugin::is_contiguous(gv);
  if (xv.dtype != AXLE_DTYPE_FLOAT32 || gv.dtype != xv.dtype || !plugin::is_contiguous(xv) ||
      !(g_dense || one_element(gv)) || total == 0 || inner == 0)
    return AXLE_DECLINED;
  const int64_t rows = total / inner;
  void *mean_arg, *rstd_arg, *w_arg, *unused_bias;
  if (!param(c, 3, rows, &mean_arg) || !param(c, 4, rows, &rstd_arg) || !param(c, 5, inner, &w_arg) ||
      !param(c, 6, inner, &unused_bias) || !f32_out(gx_v, total) || !f32_out(gw_v, inner) || !f32_out(gb_v, inner))
    return AXLE_DECLINED;
  const auto *given_mean = static_cast<const float*>(mean_arg), *given_rstd = static_cast<const float*>(rstd_arg);
  const auto* w = static_cast<const float*>(w_arg);
  const double eps = arg_double(c, 8);
  const auto* x = static_cast<const float*>(xv.data);
  auto* gx = static_cast<float*>(gx_v.data);
  auto* gw = static_cast<float*>(gw_v.data);
  auto* gb = static_cast<float*>(gb_v.data);
  // grad_out's row r; one expanded value is one constant row.
  std::vector<float> g_const, ones;
  if (!g_dense) g_const.assign(static_cast<size_t>(inner), *static_cast<const float*>(gv.data));
  const float* g = g_dense ? static_cast<const float*>(gv.data) : g_const.data();
  const int64_t g_step = g_dense ? inner : 0;
  if (!w) {
    ones.assign(static_cast<size_t>(inner), 1.0f);
    w = ones.data();
  }
  std::vector<float> mean(static_cast<size_t>(rows)), rstd(static_cast<size_t>(rows));
  const int threads = rows * inner >= (int64_t{1} << 14) ? thread_count() : 1;
  const double n = static_cast<double>(inner);
  // Pass 1, over rows: the statistics, then the input gradient
  // rstd * (g*w - mean(g*w) - xhat * mean(g*w * xhat)).
  parallel_ranges(rows, threads, 1, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const float* xr = x + r * inner;
      const float m = given_mean ? given_mean[r] : static_cast<float>(row_sum(xr, inner) / n);
      const float s =
          given_rstd ? given_rstd[r] : static_cast<float>(1.0 / std::sqrt(row_squares(xr, inner, m) / n + eps));
      mean[static_cast<size_t>(r)] = m;
      rstd[static_cast<size_t>(r)] = s;
      if (!gx) continue;
      double a = 0, b = 0;
      row_grad_sums(g + r * g_step, w, xr, m, s, inner, &a, &b);
      row_grad(g + r * g_step, w, xr, m, s, static_cast<float>(a / n), static_cast<float>(b / n), inner,
               gx + r * inner);
    }
  });
  if (!gw && !gb) return AXLE_OK;
  // Pass 2, over column ranges: the sums over rows of g * xhat and of g, in
  // float over blocks of kBlock rows, the blocks added in double.
  constexpr int64_t kBlock = 64;
  parallel_ranges(inner, inner >= 256 ? threads : 1, 16, [&](int64_t j0, int64_t j1) {
    const int64_t width = j1 - j0;
    std::vector<double> dw(static_cast<size_t>(width)), db(static_cast<size_t>(width));
    std::vector<float> fw(static_cast<size_t>(width)), fb(static_cast<size_t>(width));
    for (int64_t r0 = 0; r0 < rows; r0 += kBlock) {
      std::fill(fw.begin(), fw.end(), 0.0f);
      std::fill(fb.begin(), fb.end(), 0.0f);
      for (int64_t r = r0; r < std::min(rows, r0 + kBlock); ++r)
        column_sums(g + r * g_step + j0, x + r * inner + j0, mean[static_cast<size_t>(r)], rstd[static_cast<size_t>(r)],
                    width, fw.data(), fb.data());
      for (int64_t j = 0; j < width; ++j)
        dw[static_cast<size_t>(j)] += fw[static_cast<size_t>(j)],
            db[static_cast<size_t>(j)] += fb[static_cast<size_t>(j)];
    }
    for (int64_t j = 0; j < width; ++j) {
      if (gw) gw[j0 + j] = static_cast<float>(dw[static_cast<size_t>(j)]);
      if (gb) gb[j0 + j] = static_cast<float>(db[static_cast<size_t>(j)]);
    }
  });
  return AXLE_OK;
}

// native_batch_norm_backward(grad_out, input, weight, running_mean, running_var,
// save_mean, save_invstd, train, eps, output_mask) in training: float32,
// contiguous (N, C, ...) input and grad_out; an output that arrives without
// memory is skipped.
// *a += sum(g), *b += sum(g * (x - m)) over n floats (float lanes, then double).
AXLE_ROW_LOOP void plane_sums(const float* __restrict g, const float* __restrict x, float m, int64_t n, double* a,
                              double* b) {
  float sa[kLanes] = {}, sb[kLanes] = {};
  int64_t j = 0;
  for (; j + kLanes <= n; j += kLanes)
#pragma omp simd
    for (int l = 0; l < kLanes; ++l) {
      sa[l] += g[j + l];
      sb[l] += g[j + l] * (x[j + l] - m);
    }
  double ta = 0, tb = 0;
  for (int l = 0; l < kLanes; ++l) ta += sa[l], tb += sb[l];
  for (; j < n; ++j) ta += g[j], tb += static_cast<double>(g[j]) * (x[j] - m);
  *a += ta;
  *b += tb;
}

// out = (g - gm - (x - m) * proj) * scale over n floats.
AXLE_ROW_LOOP void plane_grad(const float* __restrict g, const float* __restrict x, float m, float gm, float proj,
                              float scale, int64_t n, float* __restrict out) {
  for (int64_t j = 0; j < n; ++j) out[j] = (g[j] - gm - (x[j] - m) * proj) * scale;
}
#undef AXLE_ROW_LOOP

// native_batch_norm_backward in training, torch's formula on our own loops, two
// passes per channel (channels split across threads): sum(g) and sum(g (x -
// mean)), then grad_input = (g - sum(g) / N - (x - mean) invstd^2 sum(g (x -
// mean)) / N) invstd w; grad_weight = sum(g (x - mean)) invstd, grad_bias =
// sum(g). oneDNN's primitive took 2.5 ms for ResNet-18's twenty at batch 4,
// 64x64 (mostly per call), these loops ~1 ms. The statistics are the saved
// ones (or computed from the input when not given).
axle_status batch_norm_backward(void*, const axle_kernel_call* c) {
  const axle_tensor_view &gv = arg_tensor(c, 0), &xv = arg_tensor(c, 1);
  const axle_tensor_view &gx_v = c->outputs[0], &gw_v = c->outputs[1], &gb_v = c->outputs[2];
  if (!plugin::arg_bool(c, 7) || xv.ndim < 2 || xv.dtype != AXLE_DTYPE_FLOAT32 || gv.dtype != AXLE_DTYPE_FLOAT32 ||
      !plugin::is_contiguous(xv) || !plugin::is_contiguous(gv) || plugin::numel(gv) != plugin::numel(xv))
    return plugin::decline(c, "inference, or not float32 contiguous");
  const int64_t n = xv.sizes[0], ch = xv.sizes[1], total = plugin::numel(xv);
  if (n == 0 || ch == 0 || total == 0) return AXLE_DECLINED;
  const int64_t plane = total / (n * ch);
  void *w_arg, *mean_arg, *invstd_arg;  // the running statistics (args 3, 4) are not read in training
  if (!param(c, 2, ch, &w_arg) || !param(c, 5, ch, &mean_arg) || !param(c, 6, ch, &invstd_arg) ||
      !f32_out(gx_v, total) || !f32_out(gw_v, ch) || !f32_out(gb_v, ch))
    return plugin::decline(c, "statistics / outputs not float32 contiguous");
  const auto* w = static_cast<const float*>(w_arg);
  const auto *given_mean = static_cast<const float*>(mean_arg), *given_invstd = static_cast<const float*>(invstd_arg);
  const double eps = arg_double(c, 8);
  const auto* x = static_cast<const float*>(xv.data);
  const auto* g = static_cast<const float*>(gv.data);
  auto* gx = static_cast<float*>(gx_v.data);
  auto* gw = static_cast<float*>(gw_v.data);
  auto* gb = static_cast<float*>(gb_v.data);
  const double count = static_cast<double>(n * plane);
  parallel_ranges(ch, total >= (int64_t{1} << 15) ? thread_count() : 1, 1, [&](int64_t k0, int64_t k1) {
    for (int64_t k = k0; k < k1; ++k) {
      float m, r;
      if (given_mean && given_invstd)
        m = given_mean[k], r = given_invstd[k];
      else
        channel_statistics(x, n, ch, plane, k, eps, &m, &r);
      double sum_g = 0, dot = 0;
      for (int64_t b = 0; b < n; ++b) {
        const int64_t at = (b * ch + k) * plane;
        plane_sums(g + at, x + at, m, plane, &sum_g, &dot);
      }
      if (gb) gb[k] = static_cast<float>(sum_g);
      if (gw) gw[k] = static_cast<float>(dot * r);
      if (!gx) continue;
      const float gm = static_cast<float>(sum_g / count);
      const float proj = static_cast<float>(dot / count * r * r);
      const float scale = r * (w ? w[k] : 1.0f);
      for (int64_t b = 0; b < n; ++b) {
        const int64_t at = (b * ch + k) * plane;
        plane_grad(g + at, x + at, m, gm, proj, scale, plane, gx + at);
      }
    }
  });
  return AXLE_OK;
}

const KernelEntry kKernels[] = {
    {"native_batch_norm_backward", &batch_norm_backward, AXLE_HERE},
    {"_softmax_backward_data", &softmax_backward, AXLE_HERE},
    {"_log_softmax_backward_data", &log_softmax_backward, AXLE_HERE},
    {"native_layer_norm_backward", &layer_norm_backward, AXLE_HERE},
};

}  // namespace

axle_status register_nn_backward(const axle_registrar* r) { return plugin::register_kernels(r, "cpu", kKernels); }

}  // namespace axle::cpu
