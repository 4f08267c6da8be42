// Conversions, loads and stores of the pointwise kernels: values load in their
// own dtype into the compute type C and store into the output's dtype, one
// element or kVec at a time. Split out of pointwise.cu, its only includer: the
// definitions stay file-local to that translation unit.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace axle::cuda {
namespace {

constexpr int kVec = 4;  // elements per thread of the vector path

// ---------------------------------------------------------------- conversions
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

// A loaded value as the compute type C.
template <typename C, typename T>
__device__ __forceinline__ C convert(T v) {
  if constexpr (std::is_integral_v<C> && std::is_floating_point_v<T>)
    return to_int64(v);
  else if constexpr (std::is_floating_point_v<C> && std::is_same_v<T, int64_t>)
    return static_cast<C>(static_cast<double>(v));
  else
    return static_cast<C>(v);
}

__device__ __forceinline__ float half_bits_to_float(uint32_t bits) {
  __half_raw r;
  r.x = static_cast<unsigned short>(bits & 0xffffu);
  return __half2float(__half(r));
}
__device__ __forceinline__ float bf16_bits_to_float(uint32_t bits) { return __uint_as_float((bits & 0xffffu) << 16); }
__device__ __forceinline__ uint32_t float_to_half_bits(float v) {
  const __half_raw r = __float2half_rn(v);
  return r.x;
}
__device__ __forceinline__ uint32_t float_to_bf16_bits(float v) {
  const __nv_bfloat16_raw r = __float2bfloat16_rn(v);
  return r.x;
}

// ---------------------------------------------------------------- loads and stores
template <typename C>
__device__ __forceinline__ C load(const char* p, int32_t dt) {
  switch (dt) {
    case AXLE_DTYPE_FLOAT32: return convert<C>(*reinterpret_cast<const float*>(p));
    case AXLE_DTYPE_FLOAT64: return convert<C>(*reinterpret_cast<const double*>(p));
    case AXLE_DTYPE_FLOAT16: return convert<C>(__half2float(*reinterpret_cast<const __half*>(p)));
    case AXLE_DTYPE_BFLOAT16: return convert<C>(__bfloat162float(*reinterpret_cast<const __nv_bfloat16*>(p)));
    case AXLE_DTYPE_INT8: return convert<C>(*reinterpret_cast<const int8_t*>(p));
    case AXLE_DTYPE_UINT8: return convert<C>(*reinterpret_cast<const uint8_t*>(p));
    case AXLE_DTYPE_INT16: return convert<C>(*reinterpret_cast<const int16_t*>(p));
    case AXLE_DTYPE_INT32: return convert<C>(*reinterpret_cast<const int32_t*>(p));
    case AXLE_DTYPE_INT64: return convert<C>(*reinterpret_cast<const int64_t*>(p));
    default: return static_cast<C>(*reinterpret_cast<const uint8_t*>(p) != 0);
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

// kVec consecutive elements at p (aligned to kVec element sizes).
template <typename C>
__device__ __forceinline__ void load_vec(const char* p, int32_t dt, C (&v)[kVec]) {
  switch (dt) {
    case AXLE_DTYPE_FLOAT32: {
      const float4 q = *reinterpret_cast<const float4*>(p);
      v[0] = convert<C>(q.x), v[1] = convert<C>(q.y), v[2] = convert<C>(q.z), v[3] = convert<C>(q.w);
      break;
    }
    case AXLE_DTYPE_FLOAT64: {
      const double2 q0 = reinterpret_cast<const double2*>(p)[0], q1 = reinterpret_cast<const double2*>(p)[1];
      v[0] = convert<C>(q0.x), v[1] = convert<C>(q0.y), v[2] = convert<C>(q1.x), v[3] = convert<C>(q1.y);
      break;
    }
    case AXLE_DTYPE_FLOAT16:
    case AXLE_DTYPE_BFLOAT16: {
      const uint2 q = *reinterpret_cast<const uint2*>(p);
      const uint32_t bits[kVec] = {q.x, q.x >> 16, q.y, q.y >> 16};
#pragma unroll
      for (int j = 0; j < kVec; ++j)
        v[j] = convert<C>(dt == AXLE_DTYPE_FLOAT16 ? half_bits_to_float(bits[j]) : bf16_bits_to_float(bits[j]));
      break;
    }
    case AXLE_DTYPE_INT16: {
      const uint2 q = *reinterpret_cast<const uint2*>(p);
      const uint32_t bits[kVec] = {q.x, q.x >> 16, q.y, q.y >> 16};
#pragma unroll
      for (int j = 0; j < kVec; ++j) v[j] = convert<C>(static_cast<int16_t>(static_cast<uint16_t>(bits[j])));
      break;
    }
    case AXLE_DTYPE_INT32: {
      const int4 q = *reinterpret_cast<const int4*>(p);
      v[0] = convert<C>(q.x), v[1] = convert<C>(q.y), v[2] = convert<C>(q.z), v[3] = convert<C>(q.w);
      break;
    }
    case AXLE_DTYPE_INT64: {
      const longlong2 q0 = reinterpret_cast<const longlong2*>(p)[0], q1 = reinterpret_cast<const longlong2*>(p)[1];
      v[0] = convert<C>(static_cast<int64_t>(q0.x)), v[1] = convert<C>(static_cast<int64_t>(q0.y));
      v[2] = convert<C>(static_cast<int64_t>(q1.x)), v[3] = convert<C>(static_cast<int64_t>(q1.y));
      break;
    }
    default: {  // int8, uint8, bool
      const uint32_t q = *reinterpret_cast<const uint32_t*>(p);
#pragma unroll
      for (int j = 0; j < kVec; ++j) {
        const uint8_t byte = static_cast<uint8_t>(q >> (8 * j));
        if (dt == AXLE_DTYPE_INT8)
          v[j] = convert<C>(static_cast<int8_t>(byte));
        else if (dt == AXLE_DTYPE_UINT8)
          v[j] = convert<C>(byte);
        else
          v[j] = static_cast<C>(byte != 0);
      }
      break;
    }
  }
}

template <typename C>
__device__ __forceinline__ void store_vec(char* p, int32_t dt, const C (&v)[kVec]) {
  switch (dt) {
    case AXLE_DTYPE_FLOAT32:
      *reinterpret_cast<float4*>(p) = make_float4(static_cast<float>(v[0]), static_cast<float>(v[1]),
                                                  static_cast<float>(v[2]), static_cast<float>(v[3]));
      break;
    case AXLE_DTYPE_FLOAT64:
      reinterpret_cast<double2*>(p)[0] = make_double2(static_cast<double>(v[0]), static_cast<double>(v[1]));
      reinterpret_cast<double2*>(p)[1] = make_double2(static_cast<double>(v[2]), static_cast<double>(v[3]));
      break;
    case AXLE_DTYPE_FLOAT16:
    case AXLE_DTYPE_BFLOAT16: {
      uint32_t bits[kVec];
#pragma unroll
      for (int j = 0; j < kVec; ++j) {
        const float f = static_cast<float>(v[j]);
        bits[j] = dt == AXLE_DTYPE_FLOAT16 ? float_to_half_bits(f) : float_to_bf16_bits(f);
      }
      *reinterpret_cast<uint2*>(p) = make_uint2(bits[0] | (bits[1] << 16), bits[2] | (bits[3] << 16));
      break;
    }
    case AXLE_DTYPE_INT16: {
      uint32_t bits[kVec];
#pragma unroll
      for (int j = 0; j < kVec; ++j) bits[j] = static_cast<uint16_t>(to_int64(v[j]));
      *reinterpret_cast<uint2*>(p) = make_uint2(bits[0] | (bits[1] << 16), bits[2] | (bits[3] << 16));
      break;
    }
    case AXLE_DTYPE_INT32:
      *reinterpret_cast<int4*>(p) =
          make_int4(static_cast<int32_t>(to_int64(v[0])), static_cast<int32_t>(to_int64(v[1])),
                    static_cast<int32_t>(to_int64(v[2])), static_cast<int32_t>(to_int64(v[3])));
      break;
    case AXLE_DTYPE_INT64:
      reinterpret_cast<longlong2*>(p)[0] = make_longlong2(to_int64(v[0]), to_int64(v[1]));
      reinterpret_cast<longlong2*>(p)[1] = make_longlong2(to_int64(v[2]), to_int64(v[3]));
      break;
    default: {  // int8, uint8, bool
      uint32_t q = 0;
#pragma unroll
      for (int j = 0; j < kVec; ++j) {
        const uint32_t byte = dt == AXLE_DTYPE_BOOL ? (v[j] != C(0) ? 1u : 0u) : static_cast<uint8_t>(to_int64(v[j]));
        q |= byte << (8 * j);
      }
      *reinterpret_cast<uint32_t*>(p) = q;
      break;
    }
  }
}

}  // namespace
}  // namespace axle::cuda
