// 2-d convolutions with few output positions (N * OH * OW, see kGemmPositions:
// the last stages of a ResNet on small images) as single sgemm calls on the
// plain tensors. oneDNN's blocked primitives run below a third of their speed
// there (512 -> 512 channels at 2x2, batch 4, one thread: forward 74-106 GF/s,
// backward_weights 37 GF/s, where the larger layers reach 180) and each call
// pays reorders of the whole weight to and from its blocked layouts (1.7 ms
// for that 9.4 MB weight): the weights dominate these layers. Here the weight
// is read (or the weight gradient written) once, in its own layout:
//   forward:       y [O, N*P] = W [O, I*KH*KW] @ col [I*KH*KW, N*P] (+ bias)
//   input grad:    gcol = W^T @ gy [O, N*P], added back into the windows (col2im)
//   weight grad:   gW = gy [O, N*P] @ col^T, the bias gradient gy's row sums
// with col the input's windows (im2col, zeros in the padding). float32,
// groups 1, the weight contiguous; the callers (conv_pool.cpp,
// conv_pool_backward.cpp) fall back to oneDNN otherwise.
#include "kernels.h"

#include <cstring>
#include <vector>

namespace axle::cpu {
namespace {

// Up to these output positions the sgemm calls win: the weight gradient's up
// to 64 (256 -> 256 channels at 4x4, batch 4: 0.7-1.0 ms either way, where its
// blocked layout's reorder then follows), the forward and the input gradient
// only up to 16 (at 4x4 oneDNN's blocked primitives were faster: 0.8 vs 1.1 ms).
constexpr int64_t kGemmPositions = 16, kGemmWeightGradPositions = 64;

struct Dims {
  int64_t n, ci, ih, iw, co, oh, ow, kh, kw, s0, s1, d0, d1, p0, p1;
  int64_t positions() const { return oh * ow; }
  int64_t np() const { return n * oh * ow; }
  int64_t k() const { return ci * kh * kw; }
};

Dims dims_of(const Shape& x, const Shape& w, const Shape& y, const ConvGeometry& g) {
  return {x.dims[0], x.dims[1],    x.dims[2],    x.dims[3],        w.dims[0],        y.dims[2],  y.dims[3], w.dims[2],
          w.dims[3], g.strides[0], g.strides[1], g.dilates[0] + 1, g.dilates[1] + 1, g.pad_l[0], g.pad_l[1]};
}

// Calls fn(row of col, column, input offset or -1 in the padding) for every
// window element: row (c, a, e) of the [I*KH*KW, N*P] matrix, column (b, y, z).
template <typename Fn>
void for_each_window_element(const Dims& d, const int64_t* xs, Fn&& fn) {
  const int64_t positions = d.positions();
  for (int64_t c = 0; c < d.ci; ++c)
    for (int64_t a = 0; a < d.kh; ++a)
      for (int64_t e = 0; e < d.kw; ++e) {
        const int64_t row = (c * d.kh + a) * d.kw + e;
        for (int64_t b = 0; b < d.n; ++b)
          for (int64_t y = 0; y < d.oh; ++y) {
            const int64_t r = y * d.s0 + a * d.d0 - d.p0;
            for (int64_t z = 0; z < d.ow; ++z) {
              const int64_t q = z * d.s1 + e * d.d1 - d.p1;
              const bool inside = r >= 0 && r < d.ih && q >= 0 && q < d.iw;
              fn(row, b * positions + y * d.ow + z, inside ? b * xs[0] + c * xs[1] + r * xs[2] + q * xs[3] : -1);
            }
          }
      }
}

// col [I*KH*KW, N*P] of x.
const float* im2col(const Shape& x, const Dims& d) {
  thread_local std::vector<float> col;
  col.resize(static_cast<size_t>(d.k() * d.np()));
  const auto* src = static_cast<const float*>(x.data);
  const int64_t np = d.np();
  for_each_window_element(d, x.strides.data(), [&](int64_t row, int64_t column, int64_t at) {
    col[static_cast<size_t>(row * np + column)] = at >= 0 ? src[at] : 0.0f;
  });
  return col.data();
}

// Calls fn(o, column, offset) for every element (b, o, y, z) of an [N, O, OH,
// OW] tensor t seen as rows [O, N*P]: column b * P + y * OW + z.
template <typename Fn>
void for_each_as_rows(const Shape& t, const Dims& d, Fn&& fn) {
  for (int64_t o = 0; o < d.co; ++o)
    for (int64_t b = 0; b < d.n; ++b)
      for (int64_t y = 0; y < d.oh; ++y)
        for (int64_t z = 0; z < d.ow; ++z)
          fn(o, (b * d.oh + y) * d.ow + z, b * t.strides[0] + o * t.strides[1] + y * t.strides[2] + z * t.strides[3]);
}

// gy as rows [O, N*P]; sums[o] gets row o's sum (in double) when not null.
const float* grad_rows(const Shape& gy, const Dims& d, float* sums) {
  thread_local std::vector<float> rows;
  const int64_t np = d.np();
  rows.resize(static_cast<size_t>(d.co * np));
  const auto* src = static_cast<const float*>(gy.data);
  for_each_as_rows(
      gy, d, [&](int64_t o, int64_t column, int64_t at) { rows[static_cast<size_t>(o * np + column)] = src[at]; });
  if (sums)
    for (int64_t o = 0; o < d.co; ++o) {
      double sum = 0;
      for (int64_t j = 0; j < np; ++j) sum += rows[static_cast<size_t>(o * np + j)];
      sums[o] = static_cast<float>(sum);
    }
  return rows.data();
}

}  // namespace

bool gemm_conv_fits(const Shape& x, const Shape& w, const Shape& y, int64_t groups, bool transposed, bool weight_grad) {
  if (x.ndim() != 4 || w.ndim() != 4 || y.ndim() != 4 || x.dtype != AXLE_DTYPE_FLOAT32 || w.dtype != x.dtype ||
      y.dtype != x.dtype || groups != 1 || transposed ||
      y.dims[0] * y.dims[2] * y.dims[3] > (weight_grad ? kGemmWeightGradPositions : kGemmPositions))
    return false;
  int64_t dense = 1;  // the weight row-major: [O, I*KH*KW] rows for sgemm
  for (int d = 3; d >= 0; --d) {
    if (w.strides[static_cast<size_t>(d)] != dense) return false;
    dense *= w.dims[static_cast<size_t>(d)];
  }
  return true;
}

void gemm_conv_forward(const Shape& x, const Shape& w, const Shape* bias, const Shape& y, const ConvGeometry& g) {
  const Dims d = dims_of(x, w, y, g);
  const int64_t np = d.np(), k = d.k();
  const float* col = im2col(x, d);
  thread_local std::vector<float> out;
  out.resize(static_cast<size_t>(d.co * np));
  dnnl_sgemm('N', 'N', d.co, np, k, 1.0f, static_cast<const float*>(w.data), w.strides[0], col, np, 0.0f, out.data(),
             np);
  auto* dst = static_cast<float*>(y.data);
  const auto* b = bias ? static_cast<const float*>(bias->data) : nullptr;
  for_each_as_rows(y, d, [&](int64_t o, int64_t column, int64_t at) {
    dst[at] = out[static_cast<size_t>(o * np + column)] + (b ? b[o * bias->strides[0]] : 0.0f);
  });
}

void gemm_conv_backward_data(const Shape& gy, const Shape& w, const Shape& gx, const ConvGeometry& g) {
  const Dims d = dims_of(gx, w, gy, g);
  const int64_t np = d.np(), k = d.k();
  const float* rows = grad_rows(gy, d, nullptr);
  thread_local std::vector<float> gcol;
  gcol.resize(static_cast<size_t>(k * np));
  dnnl_sgemm('T', 'N', k, np, d.co, 1.0f, static_cast<const float*>(w.data), w.strides[0], rows, np, 0.0f, gcol.data(),
             np);
  auto* dst = static_cast<float*>(gx.data);
  std::memset(dst, 0, static_cast<size_t>(gx.numel()) * sizeof(float));  // gx is contiguous
  for_each_window_element(d, gx.strides.data(), [&](int64_t row, int64_t column, int64_t at) {
    if (at >= 0) dst[at] += gcol[static_cast<size_t>(row * np + column)];
  });
}

void gemm_conv_weight_grad(const Shape& x, const Shape& gy, const Shape& w, const ConvGeometry& g, float* gw,
                           float* gb) {
  const Dims d = dims_of(x, w, gy, g);
  const int64_t np = d.np(), k = d.k();
  const float* rows = grad_rows(gy, d, gb);
  const float* col = im2col(x, d);
  dnnl_sgemm('N', 'T', d.co, k, np, 1.0f, rows, np, col, np, 0.0f, gw, k);
}

}  // namespace axle::cpu
