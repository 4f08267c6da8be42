// softmax / log_softmax along one dim, layer_norm and rms_norm over the last
// dims: one thread block per row with warp-shuffle reductions (rows along the
// last dim), or one thread per (outer, inner) column when the dim is not the
// last. Inputs and outputs are contiguous; float32 / float16 / bfloat16 load and
// accumulate in float, float64 in double. Statistics are two-pass (mean, then
// squared deviations) as the reference computes them.
#include "device_math.cuh"
#include "kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace axle::cuda {
namespace {

constexpr int kThreads = kRowThreads;

template <typename A>
__device__ __forceinline__ A exp_(A x) {
  if constexpr (std::is_same_v<A, double>)
    return exp(x);
  else
    return expf(x);
}
template <typename A>
__device__ __forceinline__ A log_(A x) {
  if constexpr (std::is_same_v<A, double>)
    return log(x);
  else
    return logf(x);
}
template <typename A>
__device__ __forceinline__ A rsqrt_(A x) {
  if constexpr (std::is_same_v<A, double>)
    return rsqrt(x);
  else
    return rsqrtf(x);
}

template <typename In, typename Out, typename A, bool Log>
__global__ void softmax_rows(const In* x, Out* y, int64_t rows, int64_t cols) {
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const In* xr = x + r * cols;
    Out* yr = y + r * cols;
    A m = -INFINITY;
    for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) m = max_nan(m, load_as<In, A>(xr, i));
    m = block_reduce(m, MaxOp{}, A(-INFINITY));
    A s = 0;
    for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) s += exp_(load_as<In, A>(xr, i) - m);
    s = block_reduce(s, SumOp{}, A(0));
    const A log_s = log_(s);
    for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) {
      const A v = load_as<In, A>(xr, i) - m;
      store_as<Out, A>(yr, i, Log ? v - log_s : exp_(v) / s);
    }
  }
}

// dim not last: element (o, k, in) at (o * cols + k) * inner + in; one thread per (o, in).
template <typename In, typename Out, typename A, bool Log>
__global__ void softmax_columns(const In* x, Out* y, int64_t outer, int64_t cols, int64_t inner) {
  const int64_t n = outer * inner;
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < n; t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t o = t / inner, in = t % inner;
    const In* xc = x + o * cols * inner + in;
    Out* yc = y + o * cols * inner + in;
    A m = -INFINITY;
    for (int64_t k = 0; k < cols; ++k) m = max_nan(m, load_as<In, A>(xc, k * inner));
    A s = 0;
    for (int64_t k = 0; k < cols; ++k) s += exp_(load_as<In, A>(xc, k * inner) - m);
    const A log_s = log_(s);
    for (int64_t k = 0; k < cols; ++k) {
      const A v = load_as<In, A>(xc, k * inner) - m;
      store_as<Out, A>(yc, k * inner, Log ? v - log_s : exp_(v) / s);
    }
  }
}

// layer_norm (RMS = false) and rms_norm (RMS = true) over rows of `cols`.
template <typename T, typename A, bool RMS>
__global__ void norm_rows(const T* x, const T* w, const T* b, T* y, int64_t rows, int64_t cols, A eps) {
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * cols;
    T* yr = y + r * cols;
    A mean = 0;
    if (!RMS) {
      A s = 0;
      for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) s += load_as<T, A>(xr, i);
      mean = block_reduce(s, SumOp{}, A(0)) / static_cast<A>(cols);
    }
    A q = 0;
    for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) {
      const A d = load_as<T, A>(xr, i) - mean;
      q += d * d;
    }
    const A rstd = rsqrt_(block_reduce(q, SumOp{}, A(0)) / static_cast<A>(cols) + eps);
    for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) {
      A v = (load_as<T, A>(xr, i) - mean) * rstd;
      if (w) v *= load_as<T, A>(w, i);
      if (b) v += load_as<T, A>(b, i);
      store_as<T, A>(yr, i, v);
    }
  }
}

unsigned grid_for(int64_t blocks) { return row_grid(blocks); }

template <typename In, typename Out>
int softmax_typed(const void* x, void* y, int64_t outer, int64_t cols, int64_t inner, bool log, cudaStream_t s) {
  using A = AccType<In, Out>;
  const In* xi = static_cast<const In*>(x);
  Out* yo = static_cast<Out*>(y);
  if (inner == 1) {
    if (log)
      softmax_rows<In, Out, A, true><<<grid_for(outer), kThreads, 0, s>>>(xi, yo, outer, cols);
    else
      softmax_rows<In, Out, A, false><<<grid_for(outer), kThreads, 0, s>>>(xi, yo, outer, cols);
  } else {
    const unsigned grid = grid_for((outer * inner + kThreads - 1) / kThreads);
    if (log)
      softmax_columns<In, Out, A, true><<<grid, kThreads, 0, s>>>(xi, yo, outer, cols, inner);
    else
      softmax_columns<In, Out, A, false><<<grid, kThreads, 0, s>>>(xi, yo, outer, cols, inner);
  }
  return static_cast<int>(cudaGetLastError());
}

template <typename T, bool RMS>
int norm_typed(const void* x, const void* w, const void* b, void* y, int64_t rows, int64_t cols, double eps,
               cudaStream_t s) {
  using A = AccType<T, T>;
  norm_rows<T, A, RMS><<<grid_for(rows), kThreads, 0, s>>>(static_cast<const T*>(x), static_cast<const T*>(w),
                                                           static_cast<const T*>(b), static_cast<T*>(y), rows, cols,
                                                           static_cast<A>(eps));
  return static_cast<int>(cudaGetLastError());
}

}  // namespace

int launch_softmax(axle_dtype in_dt, axle_dtype out_dt, const void* x, void* y, int64_t outer, int64_t cols,
                   int64_t inner, bool log, void* stream) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  return with_floating_type(in_dt, [&](auto in) {
    return with_floating_type(
        out_dt, [&](auto out) { return softmax_typed<decltype(in), decltype(out)>(x, y, outer, cols, inner, log, s); });
  });
}

int launch_norm(bool rms, axle_dtype dt, const void* x, const void* w, const void* b, void* y, int64_t rows,
                int64_t cols, double eps, void* stream) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  return with_floating_type(dt, [&](auto t) {
    using T = decltype(t);
    return rms ? norm_typed<T, true>(x, w, b, y, rows, cols, eps, s)
               : norm_typed<T, false>(x, w, b, y, rows, cols, eps, s);
  });
}

}  // namespace axle::cuda
