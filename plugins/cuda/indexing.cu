// index_select, gather and scatter (src / value / add), and the index check
// that runs before them: a grid-wide min/max of the index tensor
// (atomicMin/atomicMax on 64-bit) that the host reads back, so an out-of-range
// index is an IndexError naming the value, never a device fault. Elements move
// as bytes (1, 2, 4 or 8), exact for every dtype; scatter_add adds with
// atomicAdd. scatter.src settles duplicate indices as the reference does (the
// last index element in row-major order wins) by claiming each destination
// first (atomicMax of the position along dim) and then letting only the
// winner write. Strided index (index_put_ broadcasts it along a row), src and
// out; 64-bit index math.
#include "indexing_kernels.h"
#include "kernels.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace axle::cuda {
namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ int64_t load_index(const void* p, int64_t i, bool i32) {
  return i32 ? static_cast<int64_t>(static_cast<const int32_t*>(p)[i]) : static_cast<const int64_t*>(p)[i];
}

__global__ void index_min_max(const void* idx, bool i32, int64_t n, long long* out) {
  long long lo = LLONG_MAX, hi = LLONG_MIN;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    const long long v = load_index(idx, i, i32);
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    const long long l = __shfl_down_sync(0xffffffffu, lo, offset), h = __shfl_down_sync(0xffffffffu, hi, offset);
    lo = l < lo ? l : lo;
    hi = h > hi ? h : hi;
  }
  if (threadIdx.x % 32 == 0) {
    atomicMin(&out[0], lo);
    atomicMax(&out[1], hi);
  }
}

template <typename E>
__global__ void index_select_kernel(const E* self, const void* idx, bool i32, E* out, int64_t outer, int64_t n_self,
                                    int64_t n_idx, int64_t inner) {
  const int64_t total = outer * n_idx * inner;
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < total; t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t o = t / (n_idx * inner), rem = t % (n_idx * inner), i = rem / inner, in = rem % inner;
    out[t] = self[(o * n_self + load_index(idx, i, i32)) * inner + in];
  }
}

template <typename E>
__global__ void gather_kernel(const E* self, const void* idx, bool i32, E* out, GatherShape s) {
  int64_t total = 1;
  for (int d = 0; d < s.ndim; ++d) total *= s.index_sizes[d];
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < total; t += int64_t(gridDim.x) * blockDim.x) {
    int64_t rest = t, off = 0;
    for (int d = s.ndim - 1; d >= 0; --d) {
      const int64_t coord = rest % s.index_sizes[d];
      rest /= s.index_sizes[d];
      off += (d == s.dim ? load_index(idx, t, i32) : coord) * s.self_strides[d];
    }
    out[t] = self[off];
  }
}

// ---------------------------------------------------------------- scatter
struct CopyShape {
  int32_t ndim = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[kMaxDims] = {};  // in elements
};

template <typename E>
__global__ void strided_copy_kernel(const E* self, E* out, CopyShape s, int64_t n) {
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < n; t += int64_t(gridDim.x) * blockDim.x) {
    int64_t rest = t, off = 0;
    for (int d = s.ndim - 1; d >= 0; --d) {
      off += (rest % s.sizes[d]) * s.strides[d];
      rest /= s.sizes[d];
    }
    out[t] = self[off];
  }
}

// Where index element t (row-major over the index's dims) goes: its value v
// (read through index_strides: 0 where the index is broadcast), its offsets in
// out (coord[dim] replaced by v) and src, its line (row-major over the index's
// dims other than dim) and its position k along dim.
struct ScatterAt {
  int64_t v = 0, out = 0, src = 0, line = 0, k = 0;
};
__device__ __forceinline__ ScatterAt scatter_at(const ScatterShape& s, int64_t t, const void* idx, bool i32) {
  ScatterAt a;
  int64_t rest = t, line_step = 1, at = 0;
  for (int d = s.ndim - 1; d >= 0; --d) {
    const int64_t coord = rest % s.index_sizes[d];
    rest /= s.index_sizes[d];
    a.src += coord * s.src_strides[d];
    at += coord * s.index_strides[d];
    if (d == s.dim) {
      a.k = coord;
    } else {
      a.out += coord * s.out_strides[d];
      a.line += coord * line_step;
      line_step *= s.index_sizes[d];
    }
  }
  a.v = load_index(idx, at, i32);
  a.out += a.v * s.out_strides[s.dim];
  return a;
}

template <typename E>
__global__ void scatter_value_kernel(const void* idx, bool i32, E* out, ScatterShape s, int64_t n, E value) {
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < n; t += int64_t(gridDim.x) * blockDim.x)
    out[scatter_at(s, t, idx, i32).out] = value;
}

// One writer per destination (every line of the index along dim has one element).
template <typename E>
__global__ void scatter_src_kernel(const void* idx, bool i32, const E* src, E* out, ScatterShape s, int64_t n) {
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < n; t += int64_t(gridDim.x) * blockDim.x) {
    const ScatterAt a = scatter_at(s, t, idx, i32);
    out[a.out] = src[a.src];
  }
}

// Pass 1 of a scatter.src with possible duplicates: winner[line, v] = the largest
// k + 1 writing there (elements writing one destination share their line, so
// the largest k is the last in row-major order). winner starts zeroed.
template <typename W>
__global__ void scatter_claim_kernel(const void* idx, bool i32, W* winner, ScatterShape s, int64_t n) {
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < n; t += int64_t(gridDim.x) * blockDim.x) {
    const ScatterAt a = scatter_at(s, t, idx, i32);
    atomicMax(&winner[a.line * s.out_dim_size + a.v], static_cast<W>(a.k + 1));
  }
}

// Pass 2: only the winner of each destination writes it.
template <typename E, typename W>
__global__ void scatter_winner_kernel(const void* idx, bool i32, const E* src, E* out, const W* winner, ScatterShape s,
                                      int64_t n) {
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < n; t += int64_t(gridDim.x) * blockDim.x) {
    const ScatterAt a = scatter_at(s, t, idx, i32);
    if (winner[a.line * s.out_dim_size + a.v] == static_cast<W>(a.k + 1)) out[a.out] = src[a.src];
  }
}

template <typename T>
__device__ __forceinline__ void atomic_add(T* p, T v) {
  if constexpr (std::is_same_v<T, int64_t>) {
    // two's complement: the unsigned sum wraps as the reference's int64 sum does
    atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
  } else {
    atomicAdd(p, v);  // float, double, int, __half (sm_70+), __nv_bfloat16 (native sm_90+, CAS loop before)
  }
}

template <typename T>
__global__ void scatter_add_kernel(const void* idx, bool i32, const T* src, T* out, ScatterShape s, int64_t n) {
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < n; t += int64_t(gridDim.x) * blockDim.x) {
    const ScatterAt a = scatter_at(s, t, idx, i32);
    atomic_add(&out[a.out], src[a.src]);
  }
}

unsigned grid_for(int64_t n) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65535 ? (blocks > 0 ? blocks : 1) : 65535);
}

// Calls f(E{}) with E the unsigned integer type of `esize` bytes and returns its
// result; cudaErrorInvalidValue for other sizes.
template <typename F>
int with_element_type(size_t esize, F&& f) {
  switch (esize) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    case 8: return f(uint64_t{});
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

template <typename E, typename W>
int scatter_src_with_winners(const void* idx, bool i32, const E* src, E* out, const ScatterShape& s, int64_t n,
                             void* scratch, size_t bytes, cudaStream_t stream) {
  const cudaError_t e = cudaMemsetAsync(scratch, 0, bytes, stream);
  if (e != cudaSuccess) return static_cast<int>(e);
  W* winner = static_cast<W*>(scratch);
  scatter_claim_kernel<W><<<grid_for(n), kThreads, 0, stream>>>(idx, i32, winner, s, n);
  scatter_winner_kernel<E, W><<<grid_for(n), kThreads, 0, stream>>>(idx, i32, src, out, winner, s, n);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace

int launch_index_min_max(const void* idx, bool i32, int64_t n, long long* out_device, void* stream) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  const long long init[2] = {LLONG_MAX, LLONG_MIN};
  cudaError_t e = cudaMemcpyAsync(out_device, init, sizeof init, cudaMemcpyHostToDevice, s);
  if (e != cudaSuccess) return static_cast<int>(e);
  if (n > 0) index_min_max<<<grid_for(n), kThreads, 0, s>>>(idx, i32, n, out_device);
  return static_cast<int>(cudaGetLastError());
}

int launch_index_select(size_t esize, const void* self, const void* idx, bool i32, void* out, int64_t outer,
                        int64_t n_self, int64_t n_idx, int64_t inner, void* stream) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  const unsigned grid = grid_for(outer * n_idx * inner);
  return with_element_type(esize, [&](auto e) {
    using E = decltype(e);
    index_select_kernel<E><<<grid, kThreads, 0, s>>>(static_cast<const E*>(self), idx, i32, static_cast<E*>(out), outer,
                                                     n_self, n_idx, inner);
    return static_cast<int>(cudaGetLastError());
  });
}

int launch_gather(size_t esize, const void* self, const void* idx, bool i32, void* out, const GatherShape& shape,
                  int64_t n, void* stream) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  const unsigned grid = grid_for(n);
  return with_element_type(esize, [&](auto e) {
    using E = decltype(e);
    gather_kernel<E><<<grid, kThreads, 0, s>>>(static_cast<const E*>(self), idx, i32, static_cast<E*>(out), shape);
    return static_cast<int>(cudaGetLastError());
  });
}

int launch_strided_copy(size_t esize, const void* self, int32_t ndim, const int64_t* sizes, const int64_t* strides,
                        void* out, int64_t n, void* stream) {
  if (n <= 0) return 0;
  if (ndim > kMaxDims) return static_cast<int>(cudaErrorInvalidValue);
  CopyShape shape;
  shape.ndim = ndim;
  for (int32_t d = 0; d < ndim; ++d) {
    shape.sizes[d] = sizes[d];
    shape.strides[d] = strides[d];
  }
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  return with_element_type(esize, [&](auto e) {
    using E = decltype(e);
    strided_copy_kernel<E>
        <<<grid_for(n), kThreads, 0, s>>>(static_cast<const E*>(self), static_cast<E*>(out), shape, n);
    return static_cast<int>(cudaGetLastError());
  });
}

int launch_scatter_value(size_t esize, const void* idx, bool i32, void* out, const ScatterShape& shape, int64_t n,
                         const void* value, void* stream) {
  if (n <= 0) return 0;
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  return with_element_type(esize, [&](auto e) {
    using E = decltype(e);
    E v;
    std::memcpy(&v, value, sizeof v);
    scatter_value_kernel<E><<<grid_for(n), kThreads, 0, s>>>(idx, i32, static_cast<E*>(out), shape, n, v);
    return static_cast<int>(cudaGetLastError());
  });
}

int launch_scatter_src(size_t esize, const void* idx, bool i32, const void* src, void* out, const ScatterShape& shape,
                       int64_t n, void* scratch, void* stream) {
  if (n <= 0) return 0;
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  const size_t bytes = scatter_src_scratch_bytes(shape);
  if (bytes > 0 && !scratch) return static_cast<int>(cudaErrorInvalidValue);
  const bool wide = shape.index_sizes[shape.dim] >= int64_t{UINT32_MAX};  // as scatter_src_scratch_bytes
  return with_element_type(esize, [&](auto e) {
    using E = decltype(e);
    const E* from = static_cast<const E*>(src);
    E* to = static_cast<E*>(out);
    if (bytes == 0) {
      scatter_src_kernel<E><<<grid_for(n), kThreads, 0, s>>>(idx, i32, from, to, shape, n);
      return static_cast<int>(cudaGetLastError());
    }
    return wide ? scatter_src_with_winners<E, unsigned long long>(idx, i32, from, to, shape, n, scratch, bytes, s)
                : scatter_src_with_winners<E, unsigned int>(idx, i32, from, to, shape, n, scratch, bytes, s);
  });
}

int launch_scatter_add(axle_dtype dt, const void* idx, bool i32, const void* src, void* out, const ScatterShape& shape,
                       int64_t n, void* stream) {
  if (n <= 0) return 0;
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  auto run = [&](auto e) {
    using T = decltype(e);
    scatter_add_kernel<T>
        <<<grid_for(n), kThreads, 0, s>>>(idx, i32, static_cast<const T*>(src), static_cast<T*>(out), shape, n);
    return static_cast<int>(cudaGetLastError());
  };
  switch (dt) {
    case AXLE_DTYPE_FLOAT32: return run(float{});
    case AXLE_DTYPE_FLOAT64: return run(double{});
    case AXLE_DTYPE_FLOAT16: return run(__half{});
    case AXLE_DTYPE_BFLOAT16: return run(__nv_bfloat16{});
    case AXLE_DTYPE_INT32: return run(int32_t{});
    case AXLE_DTYPE_INT64: return run(int64_t{});
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
}

}  // namespace axle::cuda
