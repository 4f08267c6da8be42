// Elementwise kernels: one grid-stride kernel per compute type (float, double,
// int64) that loads each operand in its own dtype, computes `op`, and stores in
// the output's dtype. Strided and broadcast operands through byte strides
// (64-bit index math: tensors beyond 2^31 elements work). Load/store follow
// axle's reference semantics: float -> integer truncates toward zero,
// saturating, NaN -> 0; 16-bit floats round to nearest even.
#include "kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace axle::cuda {
namespace {

template <typename C>
__device__ __forceinline__ C load(const char* p, int32_t dt) {
  switch (dt) {
    case AXLE_DTYPE_FLOAT32: return static_cast<C>(*reinterpret_cast<const float*>(p));
    case AXLE_DTYPE_FLOAT64: return static_cast<C>(*reinterpret_cast<const double*>(p));
    case AXLE_DTYPE_FLOAT16: return static_cast<C>(__half2float(*reinterpret_cast<const __half*>(p)));
    case AXLE_DTYPE_BFLOAT16: return static_cast<C>(__bfloat162float(*reinterpret_cast<const __nv_bfloat16*>(p)));
    case AXLE_DTYPE_INT8: return static_cast<C>(*reinterpret_cast<const int8_t*>(p));
    case AXLE_DTYPE_UINT8: return static_cast<C>(*reinterpret_cast<const uint8_t*>(p));
    case AXLE_DTYPE_INT16: return static_cast<C>(*reinterpret_cast<const int16_t*>(p));
    case AXLE_DTYPE_INT32: return static_cast<C>(*reinterpret_cast<const int32_t*>(p));
    case AXLE_DTYPE_INT64: return static_cast<C>(*reinterpret_cast<const int64_t*>(p));
    default: return static_cast<C>(*reinterpret_cast<const uint8_t*>(p) != 0);
  }
}

template <typename C>
__device__ __forceinline__ int64_t to_int64(C v) {
  if constexpr (std::is_integral_v<C>) {
    return static_cast<int64_t>(v);
  } else {
    if (!(v == v)) return 0;
    if (v >= C(9.2233720368547758e18)) return INT64_MAX;
    if (v <= C(-9.2233720368547758e18)) return INT64_MIN;
    return static_cast<int64_t>(v);
  }
}

template <typename C>
__device__ __forceinline__ void store(char* p, int32_t dt, C v) {
  switch (dt) {
    case AXLE_DTYPE_FLOAT32: *reinterpret_cast<float*>(p) = static_cast<float>(v); break;
    case AXLE_DTYPE_FLOAT64: *reinterpret_cast<double*>(p) = static_cast<double>(v); break;
    case AXLE_DTYPE_FLOAT16: *reinterpret_cast<__half*>(p) = __float2half_rn(static_cast<float>(v)); break;
    case AXLE_DTYPE_BFLOAT16: *reinterpret_cast<__nv_bfloat16*>(p) = __float2bfloat16_rn(static_cast<float>(v)); break;
    case AXLE_DTYPE_INT8: *reinterpret_cast<int8_t*>(p) = static_cast<int8_t>(to_int64(v)); break;
    case AXLE_DTYPE_UINT8: *reinterpret_cast<uint8_t*>(p) = static_cast<uint8_t>(to_int64(v)); break;
    case AXLE_DTYPE_INT16: *reinterpret_cast<int16_t*>(p) = static_cast<int16_t>(to_int64(v)); break;
    case AXLE_DTYPE_INT32: *reinterpret_cast<int32_t*>(p) = static_cast<int32_t>(to_int64(v)); break;
    case AXLE_DTYPE_INT64: *reinterpret_cast<int64_t*>(p) = to_int64(v); break;
    default: *reinterpret_cast<uint8_t*>(p) = v != C(0) ? 1 : 0; break;
  }
}

template <typename C>
__device__ __forceinline__ C apply(Op op, C a, C b, C alpha) {
  switch (op) {
    case Op::Copy: return a;
    case Op::Fill: return alpha;
    case Op::Add: return a + alpha * b;
    case Op::Sub: return a - alpha * b;
    case Op::Mul: return a * b;
    case Op::Div: return a / b;
    case Op::Neg: return -a;
    case Op::Relu: return a > C(0) ? a : (a == a ? C(0) : a);  // NaN propagates
    default: break;
  }
  if constexpr (std::is_integral_v<C>) {
    return a;  // integer compute serves Copy and Fill only
  } else {
    switch (op) {
      case Op::Exp: return exp(a);
      case Op::Log: return log(a);
      case Op::Sqrt: return sqrt(a);
      case Op::Abs: return fabs(a);
      case Op::Sigmoid: return C(1) / (C(1) + exp(-a));
      case Op::Tanh: return tanh(a);
      case Op::Sin: return sin(a);
      case Op::Cos: return cos(a);
      default: return a;
    }
  }
}

template <typename C>
__global__ void elementwise_kernel(Op op, Indexing ix, int64_t n, char* out, int32_t dout, const char* a, int32_t da,
                                   const char* b, int32_t db, C alpha) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t rest = i, o0 = 0, o1 = 0, o2 = 0;
    for (int32_t d = ix.ndim - 1; d >= 0; --d) {
      const int64_t idx = rest % ix.sizes[d];
      rest /= ix.sizes[d];
      o0 += idx * ix.strides[0][d];
      o1 += idx * ix.strides[1][d];
      o2 += idx * ix.strides[2][d];
    }
    const C x = a ? load<C>(a + o1, da) : C(0);
    const C y = b ? load<C>(b + o2, db) : C(0);
    store<C>(out + o0, dout, apply<C>(op, x, y, alpha));
  }
}

template <typename C>
cudaError_t launch(Op op, const Indexing& ix, int64_t n, Operand out, Operand a, Operand b, double alpha,
                   cudaStream_t s) {
  constexpr int kThreads = 256;
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  const unsigned grid = static_cast<unsigned>(blocks < 65535 * 32 ? blocks : 65535 * 32);
  elementwise_kernel<C><<<grid, kThreads, 0, s>>>(op, ix, n, static_cast<char*>(out.data), out.dtype,
                                                  static_cast<const char*>(a.data), a.dtype,
                                                  static_cast<const char*>(b.data), b.dtype, static_cast<C>(alpha));
  return cudaGetLastError();
}

}  // namespace

int launch_elementwise(Op op, Compute compute, const Indexing& ix, int64_t n, Operand out, Operand a, Operand b,
                       double alpha, void* stream) {
  if (n == 0) return 0;
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (compute) {
    case Compute::Float: return launch<float>(op, ix, n, out, a, b, alpha, s);
    case Compute::Double: return launch<double>(op, ix, n, out, a, b, alpha, s);
    case Compute::Int64: return launch<int64_t>(op, ix, n, out, a, b, alpha, s);
  }
  return 0;
}

}  // namespace axle::cuda
