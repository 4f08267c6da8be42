// The cpu plugin: oneDNN primitives and our own vectorized kernels for the host
// device "cpu", ranked above the reference plugin. Every kernel declines
// (AXLE_DECLINED, before writing anything) what it would serve badly or not at
// all, and the reference plugin runs it. One op family (or a named piece of one,
// <family>_<piece>.cpp) per .cpp file.
#pragma once

#include "dnnl_util.h"

#include <omp.h>

#include <algorithm>

namespace axle::cpu {

using plugin::KernelEntry;

// One register_<family>[_piece] per .cpp file, named after the op family it serves.
axle_status register_blas(const axle_registrar* r);
axle_status register_nn(const axle_registrar* r);
axle_status register_nn_backward(const axle_registrar* r);
axle_status register_nn_rnn(const axle_registrar* r);
axle_status register_optim(const axle_registrar* r);
axle_status register_random(const axle_registrar* r);
axle_status register_pointwise_unary(const axle_registrar* r);
axle_status register_pointwise_binary(const axle_registrar* r);
axle_status register_conv_pool(const axle_registrar* r);
axle_status register_conv_pool_backward(const axle_registrar* r);
axle_status register_conv_pool_max(const axle_registrar* r);
axle_status register_copy(const axle_registrar* r);
axle_status register_creation(const axle_registrar* r);
axle_status register_indexing(const axle_registrar* r);
axle_status register_reduction(const axle_registrar* r);

// Splits [0, n) among `threads` OpenMP threads into ranges whose starts are
// multiples of `align` (e.g. 16 floats: 64-byte boundaries) and calls
// fn(begin, end) for each non-empty one; one call over [0, n) for one thread.
template <typename Fn>
void parallel_ranges(int64_t n, int threads, int64_t align, Fn&& fn) {
  if (threads <= 1) {
    fn(int64_t{0}, n);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    const int64_t chunk = (n + nt - 1) / nt / align * align + align;
    const int64_t begin = std::min(n, t * chunk), end = std::min(n, begin + chunk);
    if (begin < end) fn(begin, end);
  }
}

// An optional float32 contiguous tensor argument of `n` elements (weight, bias,
// statistics...): false when present but unusable; *data is null when absent.
inline bool param(const axle_kernel_call* c, int i, int64_t n, void** data) {
  *data = nullptr;
  if (plugin::arg_is_none(c, i)) return true;
  const axle_tensor_view& v = plugin::arg_tensor(c, i);
  if (v.ndim < 0 || !v.data) return true;
  if (v.dtype != AXLE_DTYPE_FLOAT32 || plugin::numel(v) != n || !plugin::is_contiguous(v)) return false;
  *data = v.data;
  return true;
}

// Whether every element of `v` is one and the same (a single element, or one
// expanded with stride 0 wherever its size exceeds 1, as sum()'s gradient is).
inline bool one_element(const axle_tensor_view& v) {
  for (int32_t d = 0; d < v.ndim; ++d)
    if (v.sizes[d] > 1 && v.strides[d] != 0) return false;
  return true;
}

// ---- shared by the convolution kernels (conv_pool.cpp, conv_pool_backward.cpp)
int64_t at(const std::vector<int64_t>& v, size_t i);  // v[i], or v[0] for a single value
// The layout oneDNN picks ("any") for a tensor of s's sizes and dtype.
dnnl::memory::desc any_like(const Shape& s);
// oneDNN's strides, dilations (minus one) and left/right padding of a convolution
// from torch's int lists; false for what oneDNN cannot express.
struct ConvGeometry {
  dnnl::memory::dims strides, dilates, pad_l, pad_r;
  // Input elements past the last window, per spatial dim (a stride that does
  // not divide the input: a 1x1 stride-2 convolution of 16 columns reads 15):
  // oneDNN takes no negative right padding, so the input is described without
  // them (cropped()); their input gradient is zero.
  std::vector<int64_t> crop;
  bool cropping() const;
};
// `s` without the cropped elements (same strides: a view of its first ones).
Shape cropped(const Shape& s, const ConvGeometry& g);
bool conv_geometry(const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                   const std::vector<int64_t>& dilation, const Shape& src, const Shape& wei, const Shape& dst,
                   bool transposed, ConvGeometry* g);
// 2-d convolutions with few output positions as sgemm calls on the plain
// tensors (conv_gemm.cpp): whether one fits (float32, groups 1, a contiguous
// weight; the forward and input gradient, or the weight gradient), its
// forward, input gradient (gx contiguous) and weight / bias gradients
// (contiguous, gb may be null).
bool gemm_conv_fits(const Shape& x, const Shape& w, const Shape& y, int64_t groups, bool transposed, bool weight_grad);
void gemm_conv_forward(const Shape& x, const Shape& w, const Shape* bias, const Shape& y, const ConvGeometry& g);
void gemm_conv_backward_data(const Shape& gy, const Shape& w, const Shape& gx, const ConvGeometry& g);
void gemm_conv_weight_grad(const Shape& x, const Shape& gy, const Shape& w, const ConvGeometry& g, float* gw,
                           float* gb);
// Weights in oneDNN's logical order [G,] O, I, K...: torch's are [O, I/G, K...]
// (convolution) or [I, O/G, K...] (transposed).
Shape conv_weights(const Shape& wei, bool transposed, int64_t groups);
// Whether every spatial dim of the kernel is 1 (weights [O, I, K...]).
bool one_by_one(const Shape& wei);
// The primitive `make(true)` builds on the tensors' own layouts when `plain`
// (falling back when oneDNN has none or only its reference implementation),
// else `make(false)`'s on the layouts oneDNN picks.
template <typename Make>
std::shared_ptr<Primitive> plain_or_blocked(bool plain, Make&& make) {
  if (plain) {
    try {
      auto p = make(true);
      if (p->declined.empty()) return p;
    } catch (const dnnl::error&) {
    }
  }
  return make(false);
}
// Runs `p` with its arguments in the layouts it chose, reordering the user's
// tensors in and the outputs out where they differ.
struct Arg {
  int id;
  dnnl::memory::desc user;
  void* data;
  bool output;
};
void run_with_reorders(const std::string& key, const Primitive& p, const std::vector<Arg>& args);

// dst = alpha * (a @ b) [+ bias] for float32 2-D operands with at most 2 rows
// and K contiguous in a's rows and b's columns (blas_gemv.cpp); false (nothing
// written) for anything else.
bool small_m_product(const Shape& a, const Shape& b, const Shape* bias, const Shape& dst, double alpha);
// The same with b row-major (N contiguous: g @ W in linear's backward), no
// bias, accumulating in double; and the outer product of a K = 1 product.
bool row_major_small_m_product(const Shape& a, const Shape& b, const Shape* bias, const Shape& dst, double alpha);
bool outer_product(const Shape& a, const Shape& b, const Shape* bias, const Shape& dst, double alpha);
// x @ W^T (a row-major, b K-contiguous, dst row-major) with K <= 512 and at
// least 64Ki outputs, optionally plus a bias row, on oneDNN's sgemm.
bool small_k_sgemm(const Shape& a, const Shape& b, const Shape* bias, const Shape& dst, double alpha);
// The same with a bias row, alpha 1 and K <= 64 on the plugin's own register
// tiles (the bias is the tiles' start: no pass writing it and reading it back).
bool small_k_linear(const Shape& a, const Shape& b, const Shape* bias, const Shape& dst, double alpha);
// linear's weight gradient gw [n, k] = g^T @ x and bias gradient gb [n] (null:
// not computed) = g's column sums, for contiguous float32 g [m, n] and x [m, k]
// with k <= 64, in one pass over g (blas_gemv.cpp).
constexpr int64_t kSmallK = 64;
void small_k_weight_grad(const float* g, const float* x, int64_t m, int64_t n, int64_t k, float* gw, float* gb);

// Batch normalization's statistics of channel k of a contiguous float32
// (N, C, plane) tensor: the mean and 1 / sqrt(var + eps), the biased variance
// about the mean, summed in double over the channel's planes (nn_backward.cpp);
// *var gets that variance when var is not null.
void channel_statistics(const float* x, int64_t n, int64_t ch, int64_t plane, int64_t k, double eps, float* mean,
                        float* invstd, double* var = nullptr);
// acc[j] += p[r * stride + j] for every row r < rows and j < n (reduction.cpp).
void add_rows(const float* p, int64_t rows, int64_t stride, int64_t n, double* acc);
// out[j] = the sum over the rows of a contiguous [rows, n] matrix's column j,
// added in double in row order (deterministic), rounded once (reduction.cpp).
void sum_over_rows(const float* p, int64_t rows, int64_t n, float* out);

}  // namespace axle::cpu
