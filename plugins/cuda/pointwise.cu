// Pointwise kernels: one kernel per compute type (float, double, int64) and
// indexing path that loads each operand in its own dtype, computes `op`, and
// stores in the output's dtype. The launcher first collapses the dims
// (collapse_dims), then picks a path:
// - vector: one dim, every operand contiguous (or a broadcast single element)
//   and aligned; each thread moves 4 elements with 8-32 byte loads and stores.
// - strided, 32-bit: up to 2^31 - 1 elements; a division per dim beyond the
//   first as a multiply-high and a shift (FastDiv, fast_div.h), 64-bit byte offsets.
// - strided, 64-bit: larger tensors, 64-bit division.
// Load/store follow axle's reference semantics: float -> integer truncates
// toward zero, saturating, NaN -> 0; 16-bit floats round to nearest even;
// int64 -> float goes through double (the reference loads integers as double).
#include "kernels.h"
#include "pointwise_load_store.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace axle::cuda {
namespace {

constexpr int kThreads = 256;

// ---------------------------------------------------------------- math
#define AXLE_MATH1(name)                                                    \
  __device__ __forceinline__ float m_##name(float a) { return name##f(a); } \
  __device__ __forceinline__ double m_##name(double a) { return name(a); }
#define AXLE_MATH2(name)                                                                \
  __device__ __forceinline__ float m_##name(float a, float b) { return name##f(a, b); } \
  __device__ __forceinline__ double m_##name(double a, double b) { return name(a, b); }
AXLE_MATH1(exp)
AXLE_MATH1(exp2)
AXLE_MATH1(expm1)
AXLE_MATH1(log)
AXLE_MATH1(log2)
AXLE_MATH1(log10)
AXLE_MATH1(log1p)
AXLE_MATH1(sqrt)
AXLE_MATH1(sin)
AXLE_MATH1(cos)
AXLE_MATH1(tan)
AXLE_MATH1(asin)
AXLE_MATH1(acos)
AXLE_MATH1(atan)
AXLE_MATH1(sinh)
AXLE_MATH1(cosh)
AXLE_MATH1(tanh)
AXLE_MATH1(erf)
AXLE_MATH1(erfc)
AXLE_MATH1(fabs)
AXLE_MATH1(floor)
AXLE_MATH1(ceil)
AXLE_MATH1(trunc)
AXLE_MATH1(rint)
AXLE_MATH2(atan2)
AXLE_MATH2(fmod)
AXLE_MATH2(pow)
// x + alpha * y as the reference computes it in double: a float product is exact
// there, so float rounds once (fma); double rounds the product and the sum.
__device__ __forceinline__ float m_add_scaled(float x, float alpha, float y) { return fmaf(alpha, y, x); }
__device__ __forceinline__ double m_add_scaled(double x, double alpha, double y) {
  return __dadd_rn(x, __dmul_rn(alpha, y));
}
#undef AXLE_MATH1
#undef AXLE_MATH2

// The kernel's arguments: op, operands and the op's scalars.
template <typename C>
struct Args {
  Op op = Op::Copy;
  int32_t round_dt = -1;          // Compute::Float: the 16-bit dtype inputs are rounded to first, or -1
  int32_t dt[kMaxOperands] = {};  // output, inputs
  char* out = nullptr;
  const char* in[3] = {};            // NULL: absent (reads as 0), unless passed by value
  alignas(8) char value[3][8] = {};  // inputs passed by value (Operand::by_value): their bytes
  uint32_t by_value = 0;             // bit k: input k is value[k]
  C f[3] = {};                       // OpScalars::f in the compute type (floating compute)
  double d[3] = {};                  // OpScalars::f as given: comparisons with x are exact
  int64_t q[2] = {};                 // OpScalars::i (Int64 compute)
};

// torch's hardsigmoid with std::max / std::min, so NaN propagates.
template <typename C>
__device__ __forceinline__ C hardsigmoid(C x) {
  C t = x + C(3);
  t = t < C(0) ? C(0) : t;
  t = C(6) < t ? C(6) : t;
  return t / C(6);
}

template <typename C>
__device__ __forceinline__ C as_bool(bool b) {
  return b ? C(1) : C(0);
}

// Floating forms (C = float or double).
template <typename C>
__device__ __forceinline__ C apply_floating(const Args<C>& a, C x, C y, C z) {
  switch (a.op) {
    case Op::Copy: return x;
    case Op::Fill: return a.f[0];
    case Op::Add: return m_add_scaled(x, a.f[0], y);
    case Op::Sub: return m_add_scaled(x, -a.f[0], y);
    case Op::Mul: return x * y;
    case Op::Div: return x / y;
    case Op::Neg: return -x;
    case Op::Relu: return x > C(0) ? x : (x == x ? C(0) : x);  // NaN propagates
    case Op::Eq: return as_bool<C>(x == y);
    case Op::Ne: return as_bool<C>(x != y);
    case Op::Lt: return as_bool<C>(x < y);
    case Op::Le: return as_bool<C>(x <= y);
    case Op::Gt: return as_bool<C>(x > y);
    case Op::Ge: return as_bool<C>(x >= y);
    case Op::Maximum: return (x != x || y != y) ? x + y : (x > y ? x : y);
    case Op::Minimum: return (x != x || y != y) ? x + y : (x < y ? x : y);
    case Op::Atan2: return m_atan2(x, y);
    case Op::Remainder: {  // Python's modulo: the sign of y
      const C r = m_fmod(x, y);
      return (r != C(0) && ((r < C(0)) != (y < C(0)))) ? r + y : r;
    }
    case Op::Fmod: return m_fmod(x, y);
    case Op::Pow: return m_pow(x, y);
    case Op::LogicalAnd: return as_bool<C>(x != C(0) && y != C(0));
    case Op::LogicalOr: return as_bool<C>(x != C(0) || y != C(0));
    case Op::LogicalXor: return as_bool<C>((x != C(0)) != (y != C(0)));
    case Op::Where: return x != C(0) ? y : z;
    case Op::ClampTensor: {  // NaN in any operand gives NaN
      const bool lo = (a.q[0] & 1) != 0, hi = (a.q[0] & 2) != 0;
      if (x != x) return x;
      if (lo && y != y) return y;
      if (hi && z != z) return z;
      if (lo && x < y) x = y;
      if (hi && x > z) x = z;
      return x;
    }
    case Op::Exp: return m_exp(x);
    case Op::Exp2: return m_exp2(x);
    case Op::Expm1: return m_expm1(x);
    case Op::Log: return m_log(x);
    case Op::Log2: return m_log2(x);
    case Op::Log10: return m_log10(x);
    case Op::Log1p: return m_log1p(x);
    case Op::Sqrt: return m_sqrt(x);
    case Op::Rsqrt: return C(1) / m_sqrt(x);
    case Op::Reciprocal: return C(1) / x;
    case Op::Abs: return m_fabs(x);
    case Op::Sigmoid: return C(1) / (C(1) + m_exp(-x));
    case Op::Tanh: return m_tanh(x);
    case Op::Sin: return m_sin(x);
    case Op::Cos: return m_cos(x);
    case Op::Tan: return m_tan(x);
    case Op::Asin: return m_asin(x);
    case Op::Acos: return m_acos(x);
    case Op::Atan: return m_atan(x);
    case Op::Sinh: return m_sinh(x);
    case Op::Cosh: return m_cosh(x);
    case Op::Erf: return m_erf(x);
    case Op::Erfc: return m_erfc(x);
    case Op::Sign: return C(static_cast<int>(x > C(0)) - static_cast<int>(x < C(0)));  // NaN: 0, as torch
    case Op::Floor: return m_floor(x);
    case Op::Ceil: return m_ceil(x);
    case Op::Trunc: return m_trunc(x);
    case Op::Round: return m_rint(x);  // half to even
    case Op::Frac: return x - m_trunc(x);
    case Op::Square: return x * x;
    case Op::IsNan: return as_bool<C>(x != x);
    case Op::IsInf: return as_bool<C>(m_fabs(x) == C(INFINITY));
    case Op::IsFinite: return as_bool<C>(m_fabs(x) < C(INFINITY));
    case Op::LogicalNot: return as_bool<C>(x == C(0));
    case Op::Gelu: return C(0.5) * x * (C(1) + m_erf(x * C(0.70710678118654752440)));
    case Op::GeluTanh: {
      const C k = C(0.79788456080286535588);  // sqrt(2 / pi)
      return C(0.5) * x * (C(1) + m_tanh(k * (x + C(0.044715) * x * x * x)));
    }
    case Op::Silu: return x / (C(1) + m_exp(-x));
    case Op::Mish: return x * m_tanh(m_log1p(m_exp(x)));
    case Op::LeakyRelu: return x > C(0) ? x : x * a.f[0];
    case Op::Elu: return x > C(0) ? x * a.f[1] : m_expm1(x * a.f[2]) * a.f[0] * a.f[1];
    case Op::Hardsigmoid: return hardsigmoid(x);
    case Op::Hardswish: return x * hardsigmoid(x);
    case Op::Softplus:  // the threshold test in double, as the reference
      return static_cast<double>(x) * a.d[0] > a.d[1] ? x : m_log1p(m_exp(x * a.f[0])) / a.f[0];
    case Op::Clamp: {  // in double: a bound between two values of C clamps exactly
      double v = static_cast<double>(x);
      if (v < a.d[0]) v = a.d[0];
      if (v > a.d[1]) v = a.d[1];
      return static_cast<C>(v);
    }
    case Op::Threshold: return static_cast<double>(x) <= a.d[0] ? a.f[1] : x;
    case Op::NanToNum: return x != x ? a.f[0] : x == C(INFINITY) ? a.f[1] : x == C(-INFINITY) ? a.f[2] : x;
    case Op::PowTensorScalar: {
      const double e = a.d[0];
      if (e == 0) return C(1);
      if (e == 1) return x;
      if (e == 2) return x * x;
      return m_pow(x, a.f[0]);
    }
    case Op::PowScalarTensor: return a.d[0] == 1 ? C(1) : m_pow(a.f[0], x);
    default: return x;
  }
}

__device__ __forceinline__ int64_t wrap_add(int64_t x, int64_t y) {
  return static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
}
__device__ __forceinline__ int64_t wrap_sub(int64_t x, int64_t y) {
  return static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
}
__device__ __forceinline__ int64_t wrap_mul(int64_t x, int64_t y) {
  return static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
}
// torch's integer pow: wraps; negative exponents give 0 unless |base| is 1.
__device__ __forceinline__ int64_t pow_int(int64_t base, int64_t exp) {
  if (exp < 0) return base == 1 ? 1 : base == -1 ? ((exp & 1) ? -1 : 1) : 0;
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  while (exp) {
    if (exp & 1) result *= b;
    b *= b;
    exp >>= 1;
  }
  return static_cast<int64_t>(result);
}

// Integer and bool forms (bool results store x != 0).
__device__ __forceinline__ int64_t apply_integer(const Args<int64_t>& a, int64_t x, int64_t y, int64_t z) {
  switch (a.op) {
    case Op::Copy: return x;
    case Op::Fill: return a.q[0];
    case Op::Add: return wrap_add(x, wrap_mul(a.q[0], y));
    case Op::Sub: return wrap_sub(x, wrap_mul(a.q[0], y));
    case Op::Mul: return wrap_mul(x, y);
    case Op::Neg: return wrap_sub(0, x);
    case Op::Relu: return x > 0 ? x : 0;
    case Op::Abs: return x < 0 ? wrap_sub(0, x) : x;
    case Op::Eq: return x == y;
    case Op::Ne: return x != y;
    case Op::Lt: return x < y;
    case Op::Le: return x <= y;
    case Op::Gt: return x > y;
    case Op::Ge: return x >= y;
    case Op::Maximum: return x > y ? x : y;
    case Op::Minimum: return x < y ? x : y;
    case Op::Pow: return pow_int(x, y);
    case Op::LogicalAnd: return x != 0 && y != 0;
    case Op::LogicalOr: return x != 0 || y != 0;
    case Op::LogicalXor: return (x != 0) != (y != 0);
    case Op::BitwiseAnd: return x & y;
    case Op::BitwiseOr: return x | y;
    case Op::BitwiseXor: return x ^ y;
    case Op::Where: return x != 0 ? y : z;
    case Op::ClampTensor:
      if ((a.q[0] & 1) && x < y) x = y;
      if ((a.q[0] & 2) && x > z) x = z;
      return x;
    case Op::Sign: return static_cast<int64_t>(x > 0) - static_cast<int64_t>(x < 0);
    case Op::Square: return wrap_mul(x, x);
    case Op::IsNan:
    case Op::IsInf: return 0;
    case Op::IsFinite: return 1;
    case Op::LogicalNot: return x == 0;
    case Op::BitwiseNot: return ~x;
    case Op::Clamp:
      if (x < a.q[0]) x = a.q[0];
      if (x > a.q[1]) x = a.q[1];
      return x;
    case Op::Threshold: return x <= a.q[0] ? a.q[1] : x;
    case Op::PowTensorScalar: return pow_int(x, a.q[0]);
    case Op::PowScalarTensor: return pow_int(a.q[0], x);
    default: return x;  // floor, ceil, trunc, round, nan_to_num: integers unchanged
  }
}

template <typename C>
__device__ __forceinline__ C apply(const Args<C>& a, C x, C y, C z) {
  if constexpr (std::is_integral_v<C>)
    return apply_integer(a, x, y, z);
  else
    return apply_floating(a, x, y, z);
}

// An input converted as torch converts operands to a 16-bit common dtype.
template <typename C>
__device__ __forceinline__ C round_input(C v, int32_t round_dt) {
  if constexpr (std::is_same_v<C, float>) {
    if (round_dt == AXLE_DTYPE_FLOAT16) return __half2float(__float2half_rn(v));
    if (round_dt == AXLE_DTYPE_BFLOAT16) return __bfloat162float(__float2bfloat16_rn(v));
  }
  return v;
}

// Whether input k is given, and where its element at byte offset `off` is
// (a by-value input is one element in the arguments, at any offset).
template <typename C>
__device__ __forceinline__ bool present(const Args<C>& a, int k) {
  return a.in[k] != nullptr || ((a.by_value >> k) & 1u) != 0;
}
template <typename C>
__device__ __forceinline__ const char* input_at(const Args<C>& a, int k, int64_t off) {
  return ((a.by_value >> k) & 1u) != 0 ? a.value[k] : a.in[k] + off;
}

// One element at the operands' byte offsets (out first).
template <typename C>
__device__ __forceinline__ void element(const Args<C>& a, const int64_t (&off)[kMaxOperands]) {
  C v[3];
#pragma unroll
  for (int k = 0; k < 3; ++k)
    v[k] = present(a, k) ? round_input(load<C>(input_at(a, k, off[k + 1]), a.dt[k + 1]), a.round_dt) : C(0);
  store<C>(a.out + off[0], a.dt[0], apply<C>(a, v[0], v[1], v[2]));
}

// ---------------------------------------------------------------- kernels
template <typename C, typename Ix>
__global__ void __launch_bounds__(kThreads) strided_kernel(const Args<C> a, const Ix ix, int64_t n) {
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    int64_t off[kMaxOperands];
    offsets(ix, i, off);
    element(a, off);
  }
}

// Byte step per element of each operand in the vector path: its element size,
// or 0 for an input broadcast from one element.
struct Steps {
  int64_t s[kMaxOperands] = {};
};

template <typename C>
__global__ void __launch_bounds__(kThreads) vector_kernel(const Args<C> a, const Steps st, int64_t n) {
  const int64_t groups = (n + kVec - 1) / kVec;
  const int64_t step = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t g = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; g < groups; g += step) {
    const int64_t i0 = g * kVec;
    if (i0 + kVec > n) {  // the tail
      for (int64_t i = i0; i < n; ++i) {
        int64_t off[kMaxOperands];
#pragma unroll
        for (int k = 0; k < kMaxOperands; ++k) off[k] = i * st.s[k];
        element(a, off);
      }
      continue;
    }
    C v[3][kVec];
#pragma unroll
    for (int k = 0; k < 3; ++k) {
      if (!present(a, k)) {
#pragma unroll
        for (int j = 0; j < kVec; ++j) v[k][j] = C(0);
        continue;
      }
      if (st.s[k + 1] == 0) {
        const C one = load<C>(input_at(a, k, 0), a.dt[k + 1]);
#pragma unroll
        for (int j = 0; j < kVec; ++j) v[k][j] = one;
      } else {
        load_vec<C>(a.in[k] + i0 * st.s[k + 1], a.dt[k + 1], v[k]);
      }
#pragma unroll
      for (int j = 0; j < kVec; ++j) v[k][j] = round_input(v[k][j], a.round_dt);
    }
    C r[kVec];
#pragma unroll
    for (int j = 0; j < kVec; ++j) r[j] = apply<C>(a, v[0][j], v[1][j], v[2][j]);
    store_vec<C>(a.out + i0 * st.s[0], a.dt[0], r);
  }
}

// ---------------------------------------------------------------- launch
unsigned grid_for(int64_t work) {
  const int64_t blocks = (work + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65535 * 32 ? blocks : 65535 * 32);
}

// The vector path: one dim, the output contiguous, each input contiguous or one
// broadcast element, the contiguous ones aligned to kVec elements.
bool vectorizable(const Indexing& ix, Operand out, const Operand (&in)[3]) {
  if (ix.ndim != 1) return false;
  const Operand* ops[kMaxOperands] = {&out, &in[0], &in[1], &in[2]};
  for (int k = 0; k < kMaxOperands; ++k) {
    if (!ops[k]->data) continue;
    const int64_t esize = static_cast<int64_t>(plugin::dtype_size(ops[k]->dtype));
    const int64_t stride = ix.strides[k][0];
    if (k > 0 && stride == 0) continue;
    if (stride != esize || reinterpret_cast<uintptr_t>(ops[k]->data) % static_cast<uintptr_t>(esize * kVec) != 0)
      return false;
  }
  return true;
}

template <typename C>
Args<C> make_args(Op op, Operand out, const Operand (&in)[3], const OpScalars& s) {
  Args<C> a;
  a.op = op;
  a.out = static_cast<char*>(out.data);
  a.dt[0] = out.dtype;
  bool other_dtype = false;
  for (int k = 0; k < 3; ++k) {
    a.in[k] = static_cast<const char*>(in[k].data);
    a.dt[k + 1] = in[k].dtype;
    if (in[k].by_value) {
      a.by_value |= 1u << k;
      for (int b = 0; b < 8; ++b) a.value[k][b] = static_cast<char>(in[k].value[b]);
    }
    other_dtype |= (in[k].data || in[k].by_value) && in[k].dtype != out.dtype;
  }
  const bool half = out.dtype == AXLE_DTYPE_FLOAT16 || out.dtype == AXLE_DTYPE_BFLOAT16;
  if (std::is_same_v<C, float> && half && other_dtype) a.round_dt = out.dtype;
  for (int k = 0; k < 3; ++k) {
    a.d[k] = s.f[k];
    if constexpr (std::is_floating_point_v<C>) a.f[k] = static_cast<C>(s.f[k]);
  }
  a.q[0] = s.i[0];
  a.q[1] = s.i[1];
  return a;
}

template <typename C>
cudaError_t launch(Op op, const Indexing& ix, int64_t n, Operand out, const Operand (&in)[3], const OpScalars& s,
                   cudaStream_t stream) {
  const Args<C> a = make_args<C>(op, out, in, s);
  if (n >= kVec && vectorizable(ix, out, in)) {
    Steps st;
    for (int k = 0; k < kMaxOperands; ++k) st.s[k] = ix.strides[k][0];
    vector_kernel<C><<<grid_for((n + kVec - 1) / kVec), kThreads, 0, stream>>>(a, st, n);
  } else if (n <= INT32_MAX) {
    strided_kernel<C, Index32><<<grid_for(n), kThreads, 0, stream>>>(a, make_index32(ix), n);
  } else {
    strided_kernel<C, Indexing><<<grid_for(n), kThreads, 0, stream>>>(a, ix, n);
  }
  return cudaGetLastError();
}

}  // namespace

int launch_pointwise(Op op, Compute compute, const Indexing& ix, int64_t n, Operand out, const Operand (&in)[3],
                     const OpScalars& s, void* stream) {
  if (n <= 0) return 0;
  Indexing collapsed = ix;
  collapse_dims(&collapsed, kMaxOperands);
  const cudaStream_t st = static_cast<cudaStream_t>(stream);
  switch (compute) {
    case Compute::Float: return launch<float>(op, collapsed, n, out, in, s, st);
    case Compute::Double: return launch<double>(op, collapsed, n, out, in, s, st);
    case Compute::Int64: return launch<int64_t>(op, collapsed, n, out, in, s, st);
  }
  return static_cast<int>(cudaErrorInvalidValue);
}

}  // namespace axle::cuda
