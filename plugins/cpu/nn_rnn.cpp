// The fused LSTM and GRU cells (_thnn_fused_lstm_cell, _thnn_fused_gru_cell and
// their backward ops, dispatcher/src/ops/nn_rnn.cpp) on our own loops: one pass
// over each batch row computes the gates' activations, the new states and the
// workspace (the forward), or the gates' and the state's gradients (the
// backward), where the composites run about ten and fifteen ops. float32,
// contiguous tensors; the rest is declined (the composite serves it). exp is a
// polynomial the compiler vectorizes (target_clones; the activation loops have
// no branches), within a few float32 ulps of std::exp; NaN inputs give NaN.
#include "kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <vector>

namespace axle::cpu {
namespace {

using plugin::arg_is_none;
using plugin::arg_tensor;

#define AXLE_CELL_LOOP __attribute__((target_clones("avx512f", "avx2", "default")))

// exp(x) for x in [-87, 88] (clamped; NaN to -87, the callers put NaN back):
// x = n ln2 + r, |r| <= ln2 / 2, exp(r) by its Taylor polynomial to degree 7
// (remainder below 6e-9), times 2^n through the exponent bits. Written so GCC
// vectorizes it: std::floor, fmin and fmax are not vectorized without
// -fno-trapping-math (GCC 12), nor a float read back from memcpy; rint,
// comparisons and bit_cast are.
inline float exp_poly(float x) {
  x = !(x >= -87.0f) ? -87.0f : (x > 88.0f ? 88.0f : x);
  const float n = std::rint(x * 1.44269504088896341f);
  const float r = (x - n * 0.693145751953125f) - n * 1.428606765330187e-06f;
  float p = 1.0f / 5040;
  p = p * r + 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  return p * std::bit_cast<float>((static_cast<int32_t>(n) + 127) << 23);
}

inline float sigmoid_poly(float x) { return 1.0f / (1.0f + exp_poly(-x)); }

// tanh: an odd Taylor polynomial below |x| = 0.3 (remainder below 2e-8
// relative), (1 - e) / (1 + e) with e = exp(-2|x|) above.
inline float tanh_poly(float x) {
  const float a = std::fabs(x), x2 = x * x;
  const float small = x * (1.0f + x2 * (-1.0f / 3 + x2 * (2.0f / 15 + x2 * (-17.0f / 315 + x2 * (62.0f / 2835)))));
  const float e = exp_poly(-2.0f * a);
  const float large = std::copysign((1.0f - e) / (1.0f + e), x);
  return a < 0.3f ? small : large;
}

inline float keep_nan(float in, float out) { return in != in ? in : out; }

// The rows below work on chunks of kChunk columns: the gates' inputs summed
// (and a missing gradient's zeros) go to local arrays first, so the loop
// computing the activations has no branches and vectorizes.
constexpr int64_t kChunk = 128;

// dst[j] = the sum of terms[t][j] over the non-null terms, added in order, for j < n.
inline void sum_terms(float* __restrict dst, int64_t n, std::initializer_list<const float*> terms) {
  bool first = true;
  for (const float* t : terms) {
    if (!t) continue;
    if (first)
      std::memcpy(dst, t, static_cast<size_t>(n) * sizeof(float));
    else
#pragma omp simd
      for (int64_t j = 0; j < n; ++j) dst[j] += t[j];
    first = false;
  }
}

// p + at, or null for an absent p.
inline const float* at_or_null(const float* p, int64_t at) { return p ? p + at : nullptr; }

// A chunk of an optional row: its values, or zeros when absent.
inline const float* or_zeros(const float* p, int64_t j0, int64_t n, float* __restrict zeros) {
  if (p) return p + j0;
  std::memset(zeros, 0, static_cast<size_t>(n) * sizeof(float));
  return zeros;
}

// One batch row of the forward: gates = ig + hg (+ biases), in order i, f, g, o.
AXLE_CELL_LOOP void lstm_row(const float* __restrict ig, const float* __restrict hg, const float* __restrict bi,
                             const float* __restrict bh, const float* __restrict cx, int64_t h, float* __restrict hy,
                             float* __restrict cy, float* __restrict ws) {
  float pre[4][kChunk];
  for (int64_t j0 = 0; j0 < h; j0 += kChunk) {
    const int64_t n = std::min(kChunk, h - j0);
    for (int k = 0; k < 4; ++k) {
      const int64_t at = k * h + j0;
      sum_terms(pre[k], n, {ig + at, hg + at, at_or_null(bi, at), at_or_null(bh, at)});
    }
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) {
      const float i = keep_nan(pre[0][j], sigmoid_poly(pre[0][j])), f = keep_nan(pre[1][j], sigmoid_poly(pre[1][j]));
      const float g = keep_nan(pre[2][j], tanh_poly(pre[2][j])), o = keep_nan(pre[3][j], sigmoid_poly(pre[3][j]));
      const float c = f * cx[j0 + j] + i * g;
      cy[j0 + j] = c;
      hy[j0 + j] = o * keep_nan(c, tanh_poly(c));
      ws[j0 + j] = i;
      ws[h + j0 + j] = f;
      ws[2 * h + j0 + j] = g;
      ws[3 * h + j0 + j] = o;
    }
  }
}

// One batch row of the backward: the gates' gradient and the cell state's.
AXLE_CELL_LOOP void lstm_row_backward(const float* __restrict ghy, const float* __restrict gcy,
                                      const float* __restrict cx, const float* __restrict cy,
                                      const float* __restrict ws, int64_t h, float* __restrict gates,
                                      float* __restrict gcx) {
  float zeros_h[kChunk], zeros_c[kChunk];
  for (int64_t j0 = 0; j0 < h; j0 += kChunk) {
    const int64_t n = std::min(kChunk, h - j0);
    const float* __restrict gh_in = or_zeros(ghy, j0, n, zeros_h);
    const float* __restrict gc_in = or_zeros(gcy, j0, n, zeros_c);
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) {
      const int64_t at = j0 + j;
      const float i = ws[at], f = ws[h + at], g = ws[2 * h + at], o = ws[3 * h + at];
      const float t = keep_nan(cy[at], tanh_poly(cy[at]));
      const float gh = gh_in[j];
      const float gc = gc_in[j] + gh * o * (1.0f - t * t);
      gates[at] = gc * g * i * (1.0f - i);
      gates[h + at] = gc * cx[at] * f * (1.0f - f);
      gates[2 * h + at] = gc * i * (1.0f - g * g);
      gates[3 * h + at] = gh * t * o * (1.0f - o);
      gcx[at] = gc * f;
    }
  }
}

// One batch row of the GRU forward: gates r, z, n; the workspace row holds r,
// z, n, h_n (hidden gate n with its bias) and hx.
AXLE_CELL_LOOP void gru_row(const float* __restrict ig, const float* __restrict hg, const float* __restrict bi,
                            const float* __restrict bh, const float* __restrict hx, int64_t h, float* __restrict hy,
                            float* __restrict ws) {
  float pre[2][kChunk], in_n[kChunk], hid_n[kChunk];
  for (int64_t j0 = 0; j0 < h; j0 += kChunk) {
    const int64_t n = std::min(kChunk, h - j0);
    // r and z: ig (+ bi) + hg (+ bh) in that order, as the composite adds them.
    for (int k = 0; k < 2; ++k) {
      const int64_t at = k * h + j0;
      sum_terms(pre[k], n, {ig + at, at_or_null(bi, at), hg + at, at_or_null(bh, at)});
    }
    const int64_t at_n = 2 * h + j0;
    sum_terms(hid_n, n, {hg + at_n, at_or_null(bh, at_n)});
    sum_terms(in_n, n, {ig + at_n, at_or_null(bi, at_n)});
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) {
      const float ar = pre[0][j], az = pre[1][j], hn = hid_n[j];
      const float r = keep_nan(ar, sigmoid_poly(ar)), z = keep_nan(az, sigmoid_poly(az));
      const float an = in_n[j] + r * hn;
      const float nn = keep_nan(an, tanh_poly(an));
      const int64_t at = j0 + j;
      hy[at] = nn + z * (hx[at] - nn);
      ws[at] = r;
      ws[h + at] = z;
      ws[2 * h + at] = nn;
      ws[3 * h + at] = hn;
      ws[4 * h + at] = hx[at];
    }
  }
}

// One batch row of the GRU backward: both gate inputs' gradients and hx's.
AXLE_CELL_LOOP void gru_row_backward(const float* __restrict ghy, const float* __restrict ws, int64_t h,
                                     float* __restrict gi, float* __restrict gh, float* __restrict ghx) {
#pragma omp simd
  for (int64_t j = 0; j < h; ++j) {
    const float r = ws[j], z = ws[h + j], n = ws[2 * h + j], hn = ws[3 * h + j], hx = ws[4 * h + j];
    const float g = ghy[j];
    const float dan = g * (1.0f - z) * (1.0f - n * n);
    const float dar = dan * hn * r * (1.0f - r);
    const float daz = g * (hx - n) * z * (1.0f - z);
    gi[j] = gh[j] = dar;
    gi[h + j] = gh[h + j] = daz;
    gi[2 * h + j] = dan;
    gh[2 * h + j] = dan * r;
    ghx[j] = g * z;
  }
}

bool f32_dense(const axle_tensor_view& v, int64_t n) {
  return v.data && v.dtype == AXLE_DTYPE_FLOAT32 && plugin::numel(v) == n && plugin::is_contiguous(v);
}

// A float32 contiguous optional argument of n elements (*p null when None).
bool optional_f32(const axle_kernel_call* c, int i, int64_t n, const float** p) {
  void* data = nullptr;
  if (!param(c, i, n, &data)) return false;
  *p = static_cast<const float*>(data);
  return true;
}

// A gradient argument of n elements: None (*p null), dense, or one value
// expanded (what sum() passes back), spread into `buffer`.
bool grad_f32(const axle_kernel_call* c, int i, int64_t n, std::vector<float>& buffer, const float** p) {
  *p = nullptr;
  if (arg_is_none(c, i)) return true;
  const axle_tensor_view& v = arg_tensor(c, i);
  if (v.dtype != AXLE_DTYPE_FLOAT32 || plugin::numel(v) != n) return false;
  if (n > 0 && one_element(v)) {
    buffer.assign(static_cast<size_t>(n), *static_cast<const float*>(v.data));
    *p = buffer.data();
    return true;
  }
  if (!plugin::is_contiguous(v)) return false;
  *p = static_cast<const float*>(v.data);
  return true;
}

int threads_for(int64_t elements) { return elements >= (int64_t{1} << 15) ? thread_count() : 1; }

// _thnn_fused_lstm_cell(input_gates, hidden_gates, cx, input_bias, hidden_bias) -> (hy, cy, workspace)
axle_status lstm_cell(void*, const axle_kernel_call* c) {
  const axle_tensor_view &igv = arg_tensor(c, 0), &hgv = arg_tensor(c, 1), &cxv = arg_tensor(c, 2);
  const int64_t rows = igv.sizes[0], h = igv.sizes[1] / 4;
  const float *bi = nullptr, *bh = nullptr;
  if (!f32_dense(igv, rows * 4 * h) || !f32_dense(hgv, rows * 4 * h) || !f32_dense(cxv, rows * h) ||
      !optional_f32(c, 3, 4 * h, &bi) || !optional_f32(c, 4, 4 * h, &bh) || !f32_dense(c->outputs[0], rows * h) ||
      !f32_dense(c->outputs[1], rows * h) || !f32_dense(c->outputs[2], rows * 4 * h))
    return AXLE_DECLINED;
  const auto* ig = static_cast<const float*>(igv.data);
  const auto* hg = static_cast<const float*>(hgv.data);
  const auto* cx = static_cast<const float*>(cxv.data);
  auto* hy = static_cast<float*>(c->outputs[0].data);
  auto* cy = static_cast<float*>(c->outputs[1].data);
  auto* ws = static_cast<float*>(c->outputs[2].data);
  parallel_ranges(rows, threads_for(rows * 4 * h), 1, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      lstm_row(ig + r * 4 * h, hg + r * 4 * h, bi, bh, cx + r * h, h, hy + r * h, cy + r * h, ws + r * 4 * h);
  });
  return AXLE_OK;
}

// _thnn_fused_lstm_cell_backward_impl(grad_hy, grad_cy, cx, cy, workspace, has_bias) -> (gates, cx, bias)
axle_status lstm_cell_backward(void*, const axle_kernel_call* c) {
  const axle_tensor_view &cxv = arg_tensor(c, 2), &cyv = arg_tensor(c, 3), &wsv = arg_tensor(c, 4);
  const int64_t rows = wsv.sizes[0], h = wsv.sizes[1] / 4;
  const float *ghy = nullptr, *gcy = nullptr;
  std::vector<float> ghy_buffer, gcy_buffer;
  const axle_tensor_view& gb_v = c->outputs[2];
  if (!grad_f32(c, 0, rows * h, ghy_buffer, &ghy) || !grad_f32(c, 1, rows * h, gcy_buffer, &gcy) ||
      !f32_dense(cxv, rows * h) || !f32_dense(cyv, rows * h) || !f32_dense(wsv, rows * 4 * h) ||
      !f32_dense(c->outputs[0], rows * 4 * h) || !f32_dense(c->outputs[1], rows * h) ||
      (gb_v.data && !f32_dense(gb_v, 4 * h)))
    return AXLE_DECLINED;
  const auto* cx = static_cast<const float*>(cxv.data);
  const auto* cy = static_cast<const float*>(cyv.data);
  const auto* ws = static_cast<const float*>(wsv.data);
  auto* gates = static_cast<float*>(c->outputs[0].data);
  auto* gcx = static_cast<float*>(c->outputs[1].data);
  parallel_ranges(rows, threads_for(rows * 4 * h), 1, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      lstm_row_backward(ghy ? ghy + r * h : nullptr, gcy ? gcy + r * h : nullptr, cx + r * h, cy + r * h,
                        ws + r * 4 * h, h, gates + r * 4 * h, gcx + r * h);
  });
  if (gb_v.data) sum_over_rows(gates, rows, 4 * h, static_cast<float*>(gb_v.data));
  return AXLE_OK;
}

// _thnn_fused_gru_cell(input_gates, hidden_gates, hx, input_bias, hidden_bias) -> (hy, workspace)
axle_status gru_cell(void*, const axle_kernel_call* c) {
  const axle_tensor_view &igv = arg_tensor(c, 0), &hgv = arg_tensor(c, 1), &hxv = arg_tensor(c, 2);
  const int64_t rows = igv.sizes[0], h = igv.sizes[1] / 3;
  const float *bi = nullptr, *bh = nullptr;
  if (!f32_dense(igv, rows * 3 * h) || !f32_dense(hgv, rows * 3 * h) || !f32_dense(hxv, rows * h) ||
      !optional_f32(c, 3, 3 * h, &bi) || !optional_f32(c, 4, 3 * h, &bh) || !f32_dense(c->outputs[0], rows * h) ||
      !f32_dense(c->outputs[1], rows * 5 * h))
    return AXLE_DECLINED;
  const auto* ig = static_cast<const float*>(igv.data);
  const auto* hg = static_cast<const float*>(hgv.data);
  const auto* hx = static_cast<const float*>(hxv.data);
  auto* hy = static_cast<float*>(c->outputs[0].data);
  auto* ws = static_cast<float*>(c->outputs[1].data);
  parallel_ranges(rows, threads_for(rows * 3 * h), 1, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      gru_row(ig + r * 3 * h, hg + r * 3 * h, bi, bh, hx + r * h, h, hy + r * h, ws + r * 5 * h);
  });
  return AXLE_OK;
}

// _thnn_fused_gru_cell_backward(grad_hy, workspace, has_bias)
//   -> (grad_input_gates, grad_hidden_gates, grad_hx, grad_input_bias, grad_hidden_bias)
axle_status gru_cell_backward(void*, const axle_kernel_call* c) {
  const axle_tensor_view& wsv = arg_tensor(c, 1);
  const int64_t rows = wsv.sizes[0], h = wsv.sizes[1] / 5;
  const float* ghy = nullptr;
  std::vector<float> ghy_buffer;
  const axle_tensor_view &bi_v = c->outputs[3], &bh_v = c->outputs[4];
  if (!grad_f32(c, 0, rows * h, ghy_buffer, &ghy) || !f32_dense(wsv, rows * 5 * h) ||
      !f32_dense(c->outputs[0], rows * 3 * h) || !f32_dense(c->outputs[1], rows * 3 * h) ||
      !f32_dense(c->outputs[2], rows * h) || (bi_v.data && !f32_dense(bi_v, 3 * h)) ||
      (bh_v.data && !f32_dense(bh_v, 3 * h)))
    return AXLE_DECLINED;
  const auto* ws = static_cast<const float*>(wsv.data);
  auto* gi = static_cast<float*>(c->outputs[0].data);
  auto* gh = static_cast<float*>(c->outputs[1].data);
  auto* ghx = static_cast<float*>(c->outputs[2].data);
  parallel_ranges(rows, threads_for(rows * 3 * h), 1, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r)
      gru_row_backward(ghy + r * h, ws + r * 5 * h, h, gi + r * 3 * h, gh + r * 3 * h, ghx + r * h);
  });
  if (bi_v.data) sum_over_rows(gi, rows, 3 * h, static_cast<float*>(bi_v.data));
  if (bh_v.data) sum_over_rows(gh, rows, 3 * h, static_cast<float*>(bh_v.data));
  return AXLE_OK;
}

const KernelEntry kKernels[] = {
    {"_thnn_fused_lstm_cell", &lstm_cell, AXLE_HERE},
    {"_thnn_fused_lstm_cell_backward_impl", &lstm_cell_backward, AXLE_HERE},
    {"_thnn_fused_gru_cell", &gru_cell, AXLE_HERE},
    {"_thnn_fused_gru_cell_backward", &gru_cell_backward, AXLE_HERE},
};

}  // namespace

axle_status register_nn_rnn(const axle_registrar* r) { return plugin::register_kernels(r, "cpu", kKernels); }

}  // namespace axle::cpu
