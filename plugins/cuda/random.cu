// rand / randn / randint on the device: one grid-stride thread per element, each
// drawing Philox4x32-10 block offset + i under the seed with the SDK's own
// functions (axle/plugin/random.hpp, host and device), so the values are the
// reference plugin's: rand and randint bit for bit (integer math, exact
// conversions); randn through the device's log / cos, which may differ from
// glibc's in the last unit of a float64 result. Values are stored as the
// reference's store_from does: a double rounded to float first for float16 /
// bfloat16, an int64 converted with wrap-around for narrower integers, != 0 for
// bool. Strided outputs through element strides; 64-bit index math.
#include "random_kernels.h"

#include <axle/plugin/random.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace axle::cuda {
namespace {

constexpr int kThreads = 256;

// The reference's store_from<double> for floating T.
template <typename T>
__device__ __forceinline__ T from_double(double v) {
  if constexpr (std::is_same_v<T, __half>)
    return __float2half_rn(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __float2bfloat16_rn(static_cast<float>(v));
  else
    return static_cast<T>(v);
}

// The reference's store_from<int64_t>: integers wrap, bool is v != 0, floating
// types round to nearest (16-bit ones through float, as the reference).
template <typename T>
__device__ __forceinline__ T from_int64(int64_t v) {
  if constexpr (std::is_same_v<T, __half>)
    return __float2half_rn(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return __float2bfloat16_rn(static_cast<float>(v));
  else if constexpr (std::is_same_v<T, bool>)
    return v != 0;
  else
    return static_cast<T>(v);
}

__device__ __forceinline__ int64_t element_offset(const RandomLayout& l, int64_t i) {
  if (l.contiguous) return i;
  int64_t rest = i, off = 0;
  for (int32_t d = l.ndim - 1; d >= 0; --d) {
    off += (rest % l.sizes[d]) * l.strides[d];
    rest /= l.sizes[d];
  }
  return off;
}

template <typename T, RandomKind K>
__global__ void random_kernel(T* out, int64_t n, RandomLayout layout, uint64_t seed, uint64_t offset, int bits,
                              int64_t low, uint64_t range) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const plugin::PhiloxWords r = plugin::philox4x32_words(offset + static_cast<uint64_t>(i), seed);
    T v;
    if constexpr (K == RandomKind::Uniform)
      v = from_double<T>(plugin::uniform01_words(r, bits));
    else if constexpr (K == RandomKind::Normal)
      v = from_double<T>(plugin::normal01_words(r));
    else
      v = from_int64<T>(plugin::uniform_int_words(r, low, range));
    out[element_offset(layout, i)] = v;
  }
}

// uniform01's random bits per dtype, as the reference: never rounds up to 1.
template <typename T, RandomKind K>
int launch(void* out, int64_t n, const RandomLayout& layout, uint64_t seed, uint64_t offset, int bits, int64_t low,
           uint64_t range, cudaStream_t s) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  const unsigned grid = static_cast<unsigned>(blocks < 65535 * 32 ? blocks : 65535 * 32);
  random_kernel<T, K><<<grid, kThreads, 0, s>>>(static_cast<T*>(out), n, layout, seed, offset, bits, low, range);
  return static_cast<int>(cudaGetLastError());
}

template <RandomKind K>
int launch_floating(axle_dtype dt, void* out, int64_t n, const RandomLayout& layout, uint64_t seed, uint64_t offset,
                    cudaStream_t s) {
  const int bits = plugin::uniform_bits(dt);
  switch (dt) {
    case AXLE_DTYPE_FLOAT32: return launch<float, K>(out, n, layout, seed, offset, bits, 0, 1, s);
    case AXLE_DTYPE_FLOAT64: return launch<double, K>(out, n, layout, seed, offset, bits, 0, 1, s);
    case AXLE_DTYPE_FLOAT16: return launch<__half, K>(out, n, layout, seed, offset, bits, 0, 1, s);
    case AXLE_DTYPE_BFLOAT16: return launch<__nv_bfloat16, K>(out, n, layout, seed, offset, bits, 0, 1, s);
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

int launch_int(axle_dtype dt, void* out, int64_t n, const RandomLayout& layout, uint64_t seed, uint64_t offset,
               int64_t low, uint64_t range, cudaStream_t s) {
  constexpr RandomKind K = RandomKind::Int;
  switch (dt) {
    case AXLE_DTYPE_FLOAT32: return launch<float, K>(out, n, layout, seed, offset, 0, low, range, s);
    case AXLE_DTYPE_FLOAT64: return launch<double, K>(out, n, layout, seed, offset, 0, low, range, s);
    case AXLE_DTYPE_FLOAT16: return launch<__half, K>(out, n, layout, seed, offset, 0, low, range, s);
    case AXLE_DTYPE_BFLOAT16: return launch<__nv_bfloat16, K>(out, n, layout, seed, offset, 0, low, range, s);
    case AXLE_DTYPE_INT8: return launch<int8_t, K>(out, n, layout, seed, offset, 0, low, range, s);
    case AXLE_DTYPE_UINT8: return launch<uint8_t, K>(out, n, layout, seed, offset, 0, low, range, s);
    case AXLE_DTYPE_INT16: return launch<int16_t, K>(out, n, layout, seed, offset, 0, low, range, s);
    case AXLE_DTYPE_INT32: return launch<int32_t, K>(out, n, layout, seed, offset, 0, low, range, s);
    case AXLE_DTYPE_INT64: return launch<int64_t, K>(out, n, layout, seed, offset, 0, low, range, s);
    case AXLE_DTYPE_BOOL: return launch<bool, K>(out, n, layout, seed, offset, 0, low, range, s);
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

}  // namespace

int launch_random(RandomKind kind, axle_dtype dt, void* out, int64_t n, const RandomLayout& layout, uint64_t seed,
                  uint64_t offset, int64_t low, uint64_t range, void* stream) {
  if (n <= 0) return 0;
  if (kind == RandomKind::Int && range == 0) return static_cast<int>(cudaErrorInvalidValue);  // x % 0
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  switch (kind) {
    case RandomKind::Uniform: return launch_floating<RandomKind::Uniform>(dt, out, n, layout, seed, offset, s);
    case RandomKind::Normal: return launch_floating<RandomKind::Normal>(dt, out, n, layout, seed, offset, s);
    case RandomKind::Int: return launch_int(dt, out, n, layout, seed, offset, low, range, s);
  }
  return static_cast<int>(cudaErrorInvalidValue);
}

}  // namespace axle::cuda
