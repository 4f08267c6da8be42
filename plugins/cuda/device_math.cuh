// Device helpers shared by the row-wise kernels (nn.cu, reduction.cu): typed
// loads/stores through float (double for float64), NaN-propagating max/min,
// and a block-wide reduction with warp shuffles.
#pragma once

#include <axle/plugin/axle_plugin.h>
#include <axle/plugin/host_device.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace axle::cuda {

constexpr int kRowThreads = 256;  // threads per block of the row kernels

template <typename T, typename A>
__device__ __forceinline__ A load_as(const T* p, int64_t i) {
  if constexpr (std::is_same_v<T, __half>)
    return static_cast<A>(__half2float(p[i]));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return static_cast<A>(__bfloat162float(p[i]));
  else
    return static_cast<A>(p[i]);
}
template <typename T, typename A>
__device__ __forceinline__ void store_as(T* p, int64_t i, A v) {
  if constexpr (std::is_same_v<T, __half>)
    p[i] = __float2half_rn(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    p[i] = __float2bfloat16_rn(static_cast<float>(v));
  else
    p[i] = static_cast<T>(v);
}

// max / min that propagate NaN (torch's amax, amin and softmax do).
template <typename A>
AXLE_PLUGIN_HOST_DEVICE __forceinline__ A max_nan(A a, A b) {
  return (a != a || b != b) ? a + b : (a > b ? a : b);
}
template <typename A>
AXLE_PLUGIN_HOST_DEVICE __forceinline__ A min_nan(A a, A b) {
  return (a != a || b != b) ? a + b : (a < b ? a : b);
}

struct SumOp {
  template <typename A>
  __device__ A operator()(A a, A b) const {
    return a + b;
  }
};
struct MaxOp {
  template <typename A>
  __device__ A operator()(A a, A b) const {
    return max_nan(a, b);
  }
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

// ---- Any-dtype element access (reduction.cu, reduction_scan.cu), converting as the reference
// does: to floating by value, floating to integral truncating toward zero, to
// bool testing non-zero. L (loads) is float, double, int64_t, uint64_t or bool.
template <typename L, typename T>
__device__ __forceinline__ L convert_elem(T v) {
  if constexpr (std::is_same_v<T, __half>)
    return convert_elem<L>(__half2float(v));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return convert_elem<L>(__bfloat162float(v));
  else if constexpr (std::is_same_v<L, bool>)
    return v != T(0);
  else if constexpr (std::is_floating_point_v<L>)
    return static_cast<L>(v);
  else
    return static_cast<L>(static_cast<int64_t>(v));
}
template <typename L>
__device__ __forceinline__ L load_dtype(const void* p, int64_t i, axle_dtype dt) {
  switch (dt) {
    case AXLE_DTYPE_FLOAT32: return convert_elem<L>(static_cast<const float*>(p)[i]);
    case AXLE_DTYPE_FLOAT64: return convert_elem<L>(static_cast<const double*>(p)[i]);
    case AXLE_DTYPE_FLOAT16: return convert_elem<L>(static_cast<const __half*>(p)[i]);
    case AXLE_DTYPE_BFLOAT16: return convert_elem<L>(static_cast<const __nv_bfloat16*>(p)[i]);
    case AXLE_DTYPE_INT8: return convert_elem<L>(static_cast<const int8_t*>(p)[i]);
    case AXLE_DTYPE_UINT8: return convert_elem<L>(static_cast<const uint8_t*>(p)[i]);
    case AXLE_DTYPE_INT16: return convert_elem<L>(static_cast<const int16_t*>(p)[i]);
    case AXLE_DTYPE_INT32: return convert_elem<L>(static_cast<const int32_t*>(p)[i]);
    case AXLE_DTYPE_INT64: return convert_elem<L>(static_cast<const int64_t*>(p)[i]);
    case AXLE_DTYPE_BOOL: return convert_elem<L>(static_cast<const uint8_t*>(p)[i] != 0);
    default: return L{};
  }
}
// Stores v (float, double, an integer or bool) as element i of dtype dt.
template <typename T, typename V>
__device__ __forceinline__ T convert_out(V v) {
  if constexpr (std::is_same_v<T, __half>)
    return __float2half_rn(convert_out<float>(v));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __float2bfloat16_rn(convert_out<float>(v));
  else if constexpr (std::is_same_v<T, bool>)
    return v != V(0);
  else if constexpr (std::is_floating_point_v<T> && std::is_floating_point_v<V>)
    return static_cast<T>(v);
  else
    return static_cast<T>(static_cast<int64_t>(v));
}
template <typename V>
__device__ __forceinline__ void store_dtype(void* p, int64_t i, axle_dtype dt, V v) {
  switch (dt) {
    case AXLE_DTYPE_FLOAT32: static_cast<float*>(p)[i] = convert_out<float>(v); break;
    case AXLE_DTYPE_FLOAT64: static_cast<double*>(p)[i] = convert_out<double>(v); break;
    case AXLE_DTYPE_FLOAT16: static_cast<__half*>(p)[i] = convert_out<__half>(v); break;
    case AXLE_DTYPE_BFLOAT16: static_cast<__nv_bfloat16*>(p)[i] = convert_out<__nv_bfloat16>(v); break;
    case AXLE_DTYPE_INT8: static_cast<int8_t*>(p)[i] = convert_out<int8_t>(v); break;
    case AXLE_DTYPE_UINT8: static_cast<uint8_t*>(p)[i] = convert_out<uint8_t>(v); break;
    case AXLE_DTYPE_INT16: static_cast<int16_t*>(p)[i] = convert_out<int16_t>(v); break;
    case AXLE_DTYPE_INT32: static_cast<int32_t*>(p)[i] = convert_out<int32_t>(v); break;
    case AXLE_DTYPE_INT64: static_cast<int64_t*>(p)[i] = convert_out<int64_t>(v); break;
    case AXLE_DTYPE_BOOL: static_cast<uint8_t*>(p)[i] = convert_out<bool>(v) ? 1 : 0; break;
    default: break;
  }
}

inline unsigned row_grid(int64_t blocks) {
  return static_cast<unsigned>(blocks < 65535 ? (blocks > 0 ? blocks : 1) : 65535);
}

}  // namespace axle::cuda
