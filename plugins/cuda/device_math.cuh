// Device helpers shared by the row-wise kernels (norms.cu, reduce.cu): typed
// loads/stores through float (double for float64), NaN-propagating max/min,
// and a block-wide reduction with warp shuffles.
#pragma once

#include <axle/plugin/axle_plugin.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace axle::cuda {

constexpr int kRowThreads = 256;  // threads per block of the row kernels

template <typename T, typename A>
__device__ __forceinline__ A load_as(const T* p, int64_t i) {
  if constexpr (std::is_same_v<T, __half>) return static_cast<A>(__half2float(p[i]));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return static_cast<A>(__bfloat162float(p[i]));
  else return static_cast<A>(p[i]);
}
template <typename T, typename A>
__device__ __forceinline__ void store_as(T* p, int64_t i, A v) {
  if constexpr (std::is_same_v<T, __half>) p[i] = __float2half_rn(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) p[i] = __float2bfloat16_rn(static_cast<float>(v));
  else p[i] = static_cast<T>(v);
}

// max / min that propagate NaN (torch's amax, amin and softmax do).
template <typename A>
__device__ __forceinline__ A max_nan(A a, A b) {
  return (a != a || b != b) ? a + b : (a > b ? a : b);
}
template <typename A>
__device__ __forceinline__ A min_nan(A a, A b) {
  return (a != a || b != b) ? a + b : (a < b ? a : b);
}

struct SumOp {
  template <typename A>
  __device__ A operator()(A a, A b) const { return a + b; }
};
struct MaxOp {
  template <typename A>
  __device__ A operator()(A a, A b) const { return max_nan(a, b); }
};
struct MinOp {
  template <typename A>
  __device__ A operator()(A a, A b) const { return min_nan(a, b); }
};

// Block-wide reduction of one value per thread (blockDim.x == kRowThreads);
// every thread gets the result. `identity` fills the absent warps.
template <typename A, typename Op>
__device__ A block_reduce(A v, Op op, A identity) {
  __shared__ A partial[kRowThreads / 32];
  for (int offset = 16; offset > 0; offset >>= 1) v = op(v, __shfl_down_sync(0xffffffffu, v, offset));
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < static_cast<int>(blockDim.x / 32) ? partial[lane] : identity;
    for (int offset = 16; offset > 0; offset >>= 1) v = op(v, __shfl_down_sync(0xffffffffu, v, offset));
    if (lane == 0) partial[0] = v;
  }
  __syncthreads();
  const A r = partial[0];
  __syncthreads();  // partial is reused by the next reduction
  return r;
}

// Calls f(T{}) with T the element type of a floating dtype (float, double,
// __half, __nv_bfloat16) and returns its result; cudaErrorInvalidValue for
// every other dtype. The launchers dispatch their template kernels through it.
template <typename F>
int with_floating_type(axle_dtype dt, F&& f) {
  switch (dt) {
    case AXLE_DTYPE_FLOAT32: return f(float{});
    case AXLE_DTYPE_FLOAT64: return f(double{});
    case AXLE_DTYPE_FLOAT16: return f(__half{});
    case AXLE_DTYPE_BFLOAT16: return f(__nv_bfloat16{});
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

// Accumulation type of a kernel reading In and writing Out: double when either is.
template <typename In, typename Out>
using AccType = std::conditional_t<std::is_same_v<In, double> || std::is_same_v<Out, double>, double, float>;

inline unsigned row_grid(int64_t blocks) {
  return static_cast<unsigned>(blocks < 65535 ? (blocks > 0 ? blocks : 1) : 65535);
}

}  // namespace axle::cuda
