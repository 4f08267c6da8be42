// softmax / log_softmax along one dim, layer_norm and rms_norm over the last
// dims, and the backward ops of softmax, log_softmax and layer_norm (its weight
// and bias gradients: one thread per column over the rows, deterministic):
// one thread block per row with warp-shuffle reductions (rows along the
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

// _softmax_backward_data (Log = false): y * (g - sum(g * y)); _log_softmax_backward_data
// (Log = true): g - exp(y) * sum(g); g and y of one dtype, the result of the input's.
template <typename In, typename Out, typename A, bool Log>
__global__ void softmax_backward_rows(const In* g, const In* y, Out* gx, int64_t rows, int64_t cols) {
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const In* gr = g + r * cols;
    const In* yr = y + r * cols;
    A s = 0;
    for (int64_t i = threadIdx.x; i < cols; i += blockDim.x)
      s += Log ? load_as<In, A>(gr, i) : load_as<In, A>(gr, i) * load_as<In, A>(yr, i);
    s = block_reduce(s, SumOp{}, A(0));
    for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) {
      const A gv = load_as<In, A>(gr, i), yv = load_as<In, A>(yr, i);
      store_as<Out, A>(gx + r * cols, i, Log ? gv - exp_(yv) * s : yv * (gv - s));
    }
  }
}

template <typename In, typename Out, typename A, bool Log>
__global__ void softmax_backward_columns(const In* g, const In* y, Out* gx, int64_t outer, int64_t cols,
                                         int64_t inner) {
  const int64_t n = outer * inner;
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < n; t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t base = (t / inner) * cols * inner + t % inner;
    A s = 0;
    for (int64_t k = 0; k < cols; ++k) {
      const int64_t i = base + k * inner;
      s += Log ? load_as<In, A>(g, i) : load_as<In, A>(g, i) * load_as<In, A>(y, i);
    }
    for (int64_t k = 0; k < cols; ++k) {
      const int64_t i = base + k * inner;
      const A gv = load_as<In, A>(g, i), yv = load_as<In, A>(y, i);
      store_as<Out, A>(gx, i, Log ? gv - exp_(yv) * s : yv * (gv - s));
    }
  }
}

// native_layer_norm_backward, pass 1: per row the statistics (given, or two-pass
// as the forward) into mean / rstd, and the input gradient (gx may be NULL)
// rstd * (g*w - mean(g*w) - xhat * mean(g*w * xhat)).
template <typename T, typename A>
__global__ void layer_norm_backward_rows(const T* g, const T* x, const T* w, const T* given_mean, const T* given_rstd,
                                         T* gx, A* mean, A* rstd, int64_t rows, int64_t cols, A eps) {
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* xr = x + r * cols;
    const T* gr = g + r * cols;
    A m;
    if (given_mean) {
      m = load_as<T, A>(given_mean, r);
    } else {
      A s = 0;
      for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) s += load_as<T, A>(xr, i);
      m = block_reduce(s, SumOp{}, A(0)) / static_cast<A>(cols);
    }
    A rs;
    if (given_rstd) {
      rs = load_as<T, A>(given_rstd, r);
    } else {
      A q = 0;
      for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) {
        const A d = load_as<T, A>(xr, i) - m;
        q += d * d;
      }
      rs = rsqrt_(block_reduce(q, SumOp{}, A(0)) / static_cast<A>(cols) + eps);
    }
    if (threadIdx.x == 0) mean[r] = m, rstd[r] = rs;
    if (!gx) continue;
    A a = 0, b = 0;
    for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) {
      const A gh = w ? load_as<T, A>(gr, i) * load_as<T, A>(w, i) : load_as<T, A>(gr, i);
      a += gh;
      b += gh * ((load_as<T, A>(xr, i) - m) * rs);
    }
    a = block_reduce(a, SumOp{}, A(0)) / static_cast<A>(cols);
    b = block_reduce(b, SumOp{}, A(0)) / static_cast<A>(cols);
    for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) {
      const A gh = w ? load_as<T, A>(gr, i) * load_as<T, A>(w, i) : load_as<T, A>(gr, i);
      const A xh = (load_as<T, A>(xr, i) - m) * rs;
      store_as<T, A>(gx + r * cols, i, rs * (gh - a - xh * b));
    }
  }
}

// Pass 2: one thread per column sums g * xhat (gw) and g (gb) over the rows in
// order (deterministic); either may be NULL.
template <typename T, typename A>
__global__ void layer_norm_backward_columns(const T* g, const T* x, const A* mean, const A* rstd, T* gw, T* gb,
                                            int64_t rows, int64_t cols) {
  for (int64_t j = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; j < cols; j += int64_t(gridDim.x) * blockDim.x) {
    A sw = 0, sb = 0;
    for (int64_t r = 0; r < rows; ++r) {
      const A gv = load_as<T, A>(g, r * cols + j);
      sw += gv * ((load_as<T, A>(x, r * cols + j) - mean[r]) * rstd[r]);
      sb += gv;
    }
    if (gw) store_as<T, A>(gw, j, sw);
    if (gb) store_as<T, A>(gb, j, sb);
  }
}

unsigned grid_for(int64_t blocks) { return row_grid(blocks); }

template <typename In, typename Out>
int softmax_backward_typed(const void* g, const void* y, void* gx, int64_t outer, int64_t cols, int64_t inner, bool log,
                           cudaStream_t s) {
  using A = AccType<In, Out>;
  const In* gi = static_cast<const In*>(g);
  const In* yi = static_cast<const In*>(y);
  Out* o = static_cast<Out*>(gx);
  if (inner == 1) {
    if (log)
      softmax_backward_rows<In, Out, A, true><<<grid_for(outer), kThreads, 0, s>>>(gi, yi, o, outer, cols);
    else
      softmax_backward_rows<In, Out, A, false><<<grid_for(outer), kThreads, 0, s>>>(gi, yi, o, outer, cols);
  } else {
    const unsigned grid = grid_for((outer * inner + kThreads - 1) / kThreads);
    if (log)
      softmax_backward_columns<In, Out, A, true><<<grid, kThreads, 0, s>>>(gi, yi, o, outer, cols, inner);
    else
      softmax_backward_columns<In, Out, A, false><<<grid, kThreads, 0, s>>>(gi, yi, o, outer, cols, inner);
  }
  return static_cast<int>(cudaGetLastError());
}

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

int launch_softmax_backward(axle_dtype dt, axle_dtype out_dt, const void* g, const void* y, void* gx, int64_t outer,
                            int64_t cols, int64_t inner, bool log, void* stream) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  return with_floating_type(dt, [&](auto in) {
    return with_floating_type(out_dt, [&](auto out) {
      return softmax_backward_typed<decltype(in), decltype(out)>(g, y, gx, outer, cols, inner, log, s);
    });
  });
}

size_t layer_norm_backward_scratch(axle_dtype dt, int64_t rows) {
  return 2 * static_cast<size_t>(rows) * (dt == AXLE_DTYPE_FLOAT64 ? sizeof(double) : sizeof(float));
}

int launch_layer_norm_backward(axle_dtype dt, const LayerNormBackward& p, void* scratch, void* stream) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  return with_floating_type(dt, [&](auto t) {
    using T = decltype(t);
    using A = AccType<T, T>;
    A* mean = static_cast<A*>(scratch);
    A* rstd = mean + p.rows;
    layer_norm_backward_rows<T, A><<<grid_for(p.rows), kThreads, 0, s>>>(
        static_cast<const T*>(p.g), static_cast<const T*>(p.x), static_cast<const T*>(p.w),
        static_cast<const T*>(p.mean), static_cast<const T*>(p.rstd), static_cast<T*>(p.gx), mean, rstd, p.rows, p.cols,
        static_cast<A>(p.eps));
    if (p.gw || p.gb)
      layer_norm_backward_columns<T, A><<<grid_for((p.cols + kThreads - 1) / kThreads), kThreads, 0, s>>>(
          static_cast<const T*>(p.g), static_cast<const T*>(p.x), mean, rstd, static_cast<T*>(p.gw),
          static_cast<T*>(p.gb), p.rows, p.cols);
    return static_cast<int>(cudaGetLastError());
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
