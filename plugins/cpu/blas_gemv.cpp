// Matrix products with one or two rows and a weight whose K dim is contiguous:
// linear's x @ W^T at batch 1 or 2. oneDNN 2.6's brgemm repacks such a
// weight on every call (a 1x4096 @ 4096x128 product: 141 us, four times torch's
// OpenBLAS sgemv), so the plugin computes them itself: one dot product per
// output element, 4 weight rows at a time with independent accumulators,
// vectorized (AVX-512 / AVX2 clones), the weight rows split across threads.
// float32 only; bound by reading the weight once. Measured against oneDNN
// (1 / 2 threads): 1x4096x128 37 / 23 us vs 141 / 96; 1x1024x1024 75 / 46 vs
// 176 / 97; 2x2048x512 126 / 66 vs 329 / 143; at 4 rows oneDNN wins (200 / 111
// vs 257 / 135 us for 4x512x2048), so 3 rows and more stay with it.
//
// What the backward pass of linear at batch 1 or 2 adds: the input gradient
// g @ W with W row-major (N contiguous): rows of W scaled and summed into
// double accumulators, one pass over W (row_major_small_m_product); and the
// weight gradient g^T @ x, an outer product when K = 1 (outer_product).
//
// And linear's x @ W^T with a small K and a large output (a language model's
// decoder: 700 x 32 @ 32 x 7918): oneDNN 2.6's brgemm matmul runs it at half
// the speed of oneDNN's own sgemm (one thread, cache cold: 6.1 vs 3.1 ms; with
// the bias 6.7 vs 4.0 ms, the bias written first and sgemm accumulating onto
// it), which small_k_sgemm calls instead. For K up to 512 sgemm is as fast or
// faster on every shape measured (BERT's 128 x 768 x 2304: 2.67 vs 2.72 ms);
// above, and with other layouts (g @ W, g^T @ x), the matmul primitive wins.
// With a bias and K up to 64 the plugin computes the product itself
// (small_k_linear): sgemm needs the bias written into the output first and
// then reads it back (beta 1), two extra passes over an output of tens of MB;
// here each 8 x 32 register tile starts from the bias and is stored once.
// The decoder above, cache cold, one thread: 3.6-4.0 ms against sgemm's
// 5.5-5.8 ms with the bias pass (4096 x 64 @ 64 x 1024: 3.7 vs 7.0 ms); at
// K = 128 sgemm is faster again.
// Its backward: the weight gradient g^T @ x and the bias gradient (g's column
// sums) in one pass over g (small_k_weight_grad), 8 columns of g against the
// rows of x in registers: cache cold, one thread, [700, 7918] x [700, 32]:
// 3.2-3.9 ms against 6.5-9 ms for oneDNN's sgemm plus the column sums.
#include "kernels.h"

#include <cstring>

#include <algorithm>
#include <vector>

namespace axle::cpu {
namespace {

// out[j] = dot(x, w + j * ldw) over k, for j < 4.
__attribute__((target_clones("avx512f", "avx2", "default"))) void dot4(const float* __restrict x,
                                                                       const float* __restrict w, int64_t ldw,
                                                                       int64_t k, float* out) {
  const float *w0 = w, *w1 = w + ldw, *w2 = w + 2 * ldw, *w3 = w + 3 * ldw;
  float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#pragma omp simd reduction(+ : s0, s1, s2, s3)
  for (int64_t i = 0; i < k; ++i) {
    s0 += x[i] * w0[i];
    s1 += x[i] * w1[i];
    s2 += x[i] * w2[i];
    s3 += x[i] * w3[i];
  }
  out[0] = s0, out[1] = s1, out[2] = s2, out[3] = s3;
}

__attribute__((target_clones("avx512f", "avx2", "default"))) float dot1(const float* __restrict x,
                                                                        const float* __restrict w, int64_t k) {
  float s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t i = 0; i < k; ++i) s += x[i] * w[i];
  return s;
}

// acc[j] += x * w[j] for j < n.
__attribute__((target_clones("avx512f", "avx2", "default"))) void axpy_double(double x, const float* __restrict w,
                                                                              int64_t n, double* __restrict acc) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) acc[j] += x * static_cast<double>(w[j]);
}

// y[j] = s * w[j] for j < n.
__attribute__((target_clones("avx512f", "avx2", "default"))) void scale_row(float s, const float* __restrict w,
                                                                            int64_t n, float* __restrict y) {
#pragma omp simd
  for (int64_t j = 0; j < n; ++j) y[j] = s * w[j];
}

// A bias that is one contiguous float32 row of n broadcast over the rows
// (linear's, after run() pads it to 2-d).
bool one_bias_row(const Shape& bias, int64_t n) {
  return bias.ndim() == 2 && bias.dtype == AXLE_DTYPE_FLOAT32 && bias.dims[0] == 1 && bias.dims[1] == n &&
         (n == 1 || bias.strides[1] == 1);
}

// The register tile of small_k_linear: kTileRows rows of a times a panel of
// W^T (kTileCols columns, packed [k][kTileCols]), started from the bias.
constexpr int kTileRows = 8, kTileCols = 32;
__attribute__((target_clones("avx512f", "avx2", "default"))) void linear_tile(const float* __restrict a, int64_t lda,
                                                                              const float* __restrict panel,
                                                                              const float* __restrict bias, int64_t k,
                                                                              float* __restrict dst, int64_t ldd,
                                                                              int rows, int cols) {
  float acc[kTileRows][kTileCols];
  for (int r = 0; r < kTileRows; ++r)
#pragma omp simd
    for (int c = 0; c < kTileCols; ++c) acc[r][c] = bias[c];
  for (int64_t i = 0; i < k; ++i) {
    const float* w = panel + i * kTileCols;
#pragma GCC unroll 8
    for (int r = 0; r < kTileRows; ++r) {
      const float x = a[r * lda + i];
#pragma omp simd
      for (int c = 0; c < kTileCols; ++c) acc[r][c] += x * w[c];
    }
  }
  if (cols == kTileCols) {
    for (int r = 0; r < rows; ++r)
#pragma omp simd
      for (int c = 0; c < kTileCols; ++c) dst[r * ldd + c] = acc[r][c];
  } else {
    for (int r = 0; r < rows; ++r) std::memcpy(dst + r * ldd, acc[r], static_cast<size_t>(cols) * 4);
  }
}

// The weight gradient's register tile (small_k_weight_grad): gw[q][c] (+)=
// sum over rows r of g[r][q] * x[r][c] for kGradCols columns q of g and a
// kGradK-wide slice c of x (packed [rows][kGradK]); bias[q] = the rows' sum of
// g[r][q]. `first` starts from zero, else from gw.
constexpr int kGradCols = 8, kGradK = 32;
constexpr int64_t kGradRows = 32;
__attribute__((target_clones("avx512f", "avx2", "default"))) void weight_grad_tile(
    const float* __restrict g, int64_t ldg, const float* __restrict xp, int64_t rows, float* __restrict gw,
    int64_t ldgw, int kcols, bool first, float* __restrict bias) {
  float acc[kGradCols][kGradK] = {};
  float bs[kGradCols] = {};
  if (!first)
    for (int q = 0; q < kGradCols; ++q) std::memcpy(acc[q], gw + q * ldgw, static_cast<size_t>(kcols) * 4);
  for (int64_t r = 0; r < rows; ++r) {
    const float* gr = g + r * ldg;
    const float* xr = xp + r * kGradK;
#pragma GCC unroll 8
    for (int q = 0; q < kGradCols; ++q) {
      const float v = gr[q];
#pragma omp simd
      for (int c = 0; c < kGradK; ++c) acc[q][c] += v * xr[c];
    }
#pragma omp simd
    for (int q = 0; q < kGradCols; ++q) bs[q] += gr[q];
  }
  for (int q = 0; q < kGradCols; ++q) {
    std::memcpy(gw + q * ldgw, acc[q], static_cast<size_t>(kcols) * 4);
    bias[q] = bs[q];
  }
}

// gw rows [0, width) (row j at gw + j * k) and, when bias is not null, bias[j]
// (added in double) from `width` columns of g (row stride ldg, width a multiple
// of kGradCols): blocks of kGradRows rows of g are read once, each tile's
// columns against every kGradK-wide slice of x's packed rows xp, while the
// block's x rows stay in L1.
void weight_grad_columns(const float* g, int64_t ldg, const float* xp, int64_t m, int64_t k, int64_t width, float* gw,
                         double* bias) {
  const int64_t slices = (k + kGradK - 1) / kGradK;
  float block_bias[kGradCols];
  for (int64_t r0 = 0; r0 < m; r0 += kGradRows) {
    const int64_t rows = std::min(kGradRows, m - r0);
    for (int64_t j = 0; j < width; j += kGradCols)
      for (int64_t s = 0; s < slices; ++s) {
        weight_grad_tile(g + r0 * ldg + j, ldg, xp + (s * m + r0) * kGradK, rows, gw + j * k + s * kGradK, k,
                         static_cast<int>(std::min<int64_t>(kGradK, k - s * kGradK)), r0 == 0, block_bias);
        if (s == 0 && bias)
          for (int q = 0; q < kGradCols; ++q) bias[j + q] += block_bias[q];
      }
  }
}

}  // namespace

void small_k_weight_grad(const float* g, const float* x, int64_t m, int64_t n, int64_t k, float* gw, float* gb) {
  // x's rows in kGradK-wide slices [slice][row][kGradK], zero-padded; kept per
  // thread so a call reuses the previous call's memory (K = kGradK: x's rows
  // are that already).
  const int64_t slices = (k + kGradK - 1) / kGradK;
  thread_local std::vector<float> packed;
  const float* xp = x;
  if (k != kGradK) {
    packed.assign(static_cast<size_t>(slices * m * kGradK), 0.0f);
    for (int64_t s = 0; s < slices; ++s) {
      const int64_t width = std::min<int64_t>(kGradK, k - s * kGradK);
      for (int64_t r = 0; r < m; ++r)
        std::memcpy(packed.data() + (s * m + r) * kGradK, x + r * k + s * kGradK, static_cast<size_t>(width) * 4);
    }
    xp = packed.data();
  }
  // Whole tiles of columns, ranges of them per thread.
  const int64_t full = n / kGradCols * kGradCols;
  const int threads = m * n * k >= (int64_t{1} << 20) ? std::min<int64_t>(thread_count(), full / kGradCols) : 1;
  parallel_ranges(full, threads, kGradCols, [&](int64_t j0, int64_t j1) {
    std::vector<double> bias(gb ? static_cast<size_t>(j1 - j0) : 0);
    weight_grad_columns(g + j0, n, xp, m, k, j1 - j0, gw + j0 * k, gb ? bias.data() : nullptr);
    if (gb)
      for (int64_t j = j0; j < j1; ++j) gb[j] = static_cast<float>(bias[static_cast<size_t>(j - j0)]);
  });
  // The last n % kGradCols columns: copied into zero-padded rows of
  // kGradCols and run through the same tiles (a column-by-column loop read g
  // at a stride of n per element).
  const int64_t tail = n - full;
  if (tail == 0) return;
  thread_local std::vector<float> tail_g, tail_w;
  tail_g.assign(static_cast<size_t>(m * kGradCols), 0.0f);
  tail_w.assign(static_cast<size_t>(kGradCols * k), 0.0f);
  for (int64_t r = 0; r < m; ++r)
    std::memcpy(tail_g.data() + r * kGradCols, g + r * n + full, static_cast<size_t>(tail) * 4);
  double bias[kGradCols] = {};
  weight_grad_columns(tail_g.data(), kGradCols, xp, m, k, kGradCols, tail_w.data(), bias);
  for (int64_t j = 0; j < tail; ++j) {
    std::memcpy(gw + (full + j) * k, tail_w.data() + j * k, static_cast<size_t>(k) * 4);
    if (gb) gb[full + j] = static_cast<float>(bias[j]);
  }
}

bool small_k_linear(const Shape& a, const Shape& b, const Shape* bias, const Shape& dst, double alpha) {
  if (!bias || alpha != 1.0 || a.dtype != AXLE_DTYPE_FLOAT32 || a.ndim() != 2 || b.ndim() != 2 || dst.ndim() != 2)
    return false;
  const int64_t m = a.dims[0], k = a.dims[1], n = b.dims[1];
  // a's rows K-contiguous, b any layout (it is packed), dst row-major, the
  // bias one contiguous row broadcast over the rows (linear's).
  if (k < 1 || k > kSmallK || m < kTileRows || m * n < (int64_t{1} << 16) || (k > 1 && a.strides[1] != 1) ||
      dst.strides[1] != 1 || dst.strides[0] < n)
    return false;
  if (!one_bias_row(*bias, n)) return false;
  const auto* pa = static_cast<const float*>(a.data);
  const auto* pw = static_cast<const float*>(b.data);
  const auto* pbias = static_cast<const float*>(bias->data);
  auto* pd = static_cast<float*>(dst.data);
  const int64_t panels = (n + kTileCols - 1) / kTileCols;
  // W^T in panels [panel][k][kTileCols] and the bias padded to whole panels;
  // kept per thread so a call reuses the previous call's memory.
  thread_local std::vector<float> packed, packed_bias;
  packed.assign(static_cast<size_t>(panels * k * kTileCols), 0.0f);
  packed_bias.assign(static_cast<size_t>(panels * kTileCols), 0.0f);
  for (int64_t j = 0; j < n; ++j) {
    float* col = packed.data() + (j / kTileCols) * k * kTileCols + j % kTileCols;
    for (int64_t i = 0; i < k; ++i) col[i * kTileCols] = pw[i * b.strides[0] + j * b.strides[1]];
  }
  std::memcpy(packed_bias.data(), pbias, static_cast<size_t>(n) * 4);
  const float* pp = packed.data();
  const float* pb = packed_bias.data();
  const int64_t blocks = (m + kTileRows - 1) / kTileRows;
  const int threads = m * n * k >= (int64_t{1} << 20) ? std::min<int64_t>(thread_count(), blocks) : 1;
  // Row blocks outer: the packed weight (up to 2 MB at K = 64) stays in L2
  // while each block's output rows are written once, front to back.
  parallel_ranges(blocks, threads, 1, [&](int64_t b0, int64_t b1) {
    float tail[kTileRows * kSmallK] = {};
    for (int64_t blk = b0; blk < b1; ++blk) {
      const int64_t r0 = blk * kTileRows;
      const int rows = static_cast<int>(std::min<int64_t>(kTileRows, m - r0));
      const float* rows_a = pa + r0 * a.strides[0];
      int64_t lda = a.strides[0];
      if (rows < kTileRows) {  // the last rows, padded with zeros
        for (int r = 0; r < rows; ++r) std::memcpy(tail + r * k, rows_a + r * lda, static_cast<size_t>(k) * 4);
        rows_a = tail;
        lda = k;
      }
      for (int64_t p = 0; p < panels; ++p) {
        const int64_t j = p * kTileCols;
        linear_tile(rows_a, lda, pp + p * k * kTileCols, pb + j, k, pd + r0 * dst.strides[0] + j, dst.strides[0], rows,
                    static_cast<int>(std::min<int64_t>(kTileCols, n - j)));
      }
    }
  });
  return true;
}

bool row_major_small_m_product(const Shape& a, const Shape& b, const Shape* bias, const Shape& dst, double alpha) {
  if (a.dtype != AXLE_DTYPE_FLOAT32 || a.ndim() != 2 || b.ndim() != 2 || dst.ndim() != 2 || bias) return false;
  const int64_t m = a.dims[0], k = a.dims[1], n = b.dims[1];
  if (m > 2 || k < 64 || n < 16 || b.strides[1] != 1 || b.strides[0] < n || dst.strides[1] != 1) return false;
  const auto* pa = static_cast<const float*>(a.data);
  const auto* pb = static_cast<const float*>(b.data);
  auto* pd = static_cast<float*>(dst.data);
  const int threads = m * n * k >= (int64_t{1} << 18) ? std::min<int64_t>(thread_count(), n / 16) : 1;
  parallel_ranges(n, threads, 16, [&](int64_t n0, int64_t n1) {
    std::vector<double> acc(static_cast<size_t>(n1 - n0));
    for (int64_t r = 0; r < m; ++r) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t i = 0; i < k; ++i)
        axpy_double(pa[r * a.strides[0] + i * a.strides[1]], pb + i * b.strides[0] + n0, n1 - n0, acc.data());
      float* y = pd + r * dst.strides[0];
      for (int64_t j = n0; j < n1; ++j) y[j] = static_cast<float>(alpha * acc[static_cast<size_t>(j - n0)]);
    }
  });
  return true;
}

bool outer_product(const Shape& a, const Shape& b, const Shape* bias, const Shape& dst, double alpha) {
  if (a.dtype != AXLE_DTYPE_FLOAT32 || a.ndim() != 2 || b.ndim() != 2 || dst.ndim() != 2 || bias) return false;
  const int64_t m = a.dims[0], n = b.dims[1];
  if (a.dims[1] != 1 || n < 16 || (b.strides[1] != 1 && n > 1) || dst.strides[1] != 1) return false;
  const auto* pa = static_cast<const float*>(a.data);
  const auto* pb = static_cast<const float*>(b.data);
  auto* pd = static_cast<float*>(dst.data);
  const float scale = static_cast<float>(alpha);
  const int threads = m * n >= (int64_t{1} << 16) ? std::min<int64_t>(thread_count(), m) : 1;
  parallel_ranges(m, threads, 1, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) scale_row(scale * pa[r * a.strides[0]], pb, n, pd + r * dst.strides[0]);
  });
  return true;
}

bool small_m_product(const Shape& a, const Shape& b, const Shape* bias, const Shape& dst, double alpha) {
  if (a.dtype != AXLE_DTYPE_FLOAT32 || a.ndim() != 2 || b.ndim() != 2 || dst.ndim() != 2) return false;
  const int64_t m = a.dims[0], k = a.dims[1], n = b.dims[1];
  // K contiguous in a's rows and in b's columns (b is W^T of a row-major W).
  if (m > 2 || k < 64 || (a.strides[1] != 1) || (b.strides[0] != 1) || b.strides[1] < k || n < 4) return false;
  if (bias && (bias->ndim() != 2 || bias->dtype != AXLE_DTYPE_FLOAT32)) return false;
  const auto* pa = static_cast<const float*>(a.data);
  const auto* pb = static_cast<const float*>(b.data);
  auto* pd = static_cast<float*>(dst.data);
  const int64_t ldb = b.strides[1];
  const float scale = static_cast<float>(alpha);
  // Columns [n0, n1) of every row, 4 weight rows at a time: the rows of a read
  // the same 4 weight rows while they are in cache.
  auto columns = [&](int64_t n0, int64_t n1) {
    float s[4];
    for (int64_t j = n0; j < n1; j += 4) {
      const int64_t width = std::min<int64_t>(4, n1 - j);
      for (int64_t r = 0; r < m; ++r) {
        const float* x = pa + r * a.strides[0];
        float* y = pd + r * dst.strides[0];
        if (width == 4) {
          dot4(x, pb + j * ldb, ldb, k, s);
        } else {
          for (int64_t q = 0; q < width; ++q) s[q] = dot1(x, pb + (j + q) * ldb, k);
        }
        const float* pbias =
            bias ? static_cast<const float*>(bias->data) + (bias->dims[0] > 1 ? r * bias->strides[0] : 0) : nullptr;
        const int64_t bs = bias && bias->dims[1] > 1 ? bias->strides[1] : 0;
        for (int64_t q = 0; q < width; ++q)
          y[(j + q) * dst.strides[1]] = pbias ? scale * s[q] + pbias[(j + q) * bs] : scale * s[q];
      }
    }
  };
  parallel_ranges(n, m * n * k >= (int64_t{1} << 18) ? std::min<int64_t>(thread_count(), n / 4) : 1, 4, columns);
  return true;
}

bool small_k_sgemm(const Shape& a, const Shape& b, const Shape* bias, const Shape& dst, double alpha) {
  if (a.dtype != AXLE_DTYPE_FLOAT32 || a.ndim() != 2 || b.ndim() != 2 || dst.ndim() != 2) return false;
  const int64_t m = a.dims[0], k = a.dims[1], n = b.dims[1];
  // a row-major, b = W^T of a row-major W (K contiguous), dst row-major.
  if (k > 512 || m * n < (int64_t{1} << 16) || a.strides[1] != 1 || a.strides[0] < k || b.strides[0] != 1 ||
      b.strides[1] < k || dst.strides[1] != 1 || dst.strides[0] < n)
    return false;
  if (bias && !one_bias_row(*bias, n)) return false;
  auto* pd = static_cast<float*>(dst.data);
  if (bias)
    for (int64_t r = 0; r < m; ++r) std::memcpy(pd + r * dst.strides[0], bias->data, static_cast<size_t>(n) * 4);
  return dnnl_sgemm('N', 'T', m, n, k, static_cast<float>(alpha), static_cast<const float*>(a.data), a.strides[0],
                    static_cast<const float*>(b.data), b.strides[1], bias ? 1.0f : 0.0f, pd,
                    dst.strides[0]) == dnnl_success;
}

}  // namespace axle::cpu
