// index_select and gather, and the index check that runs before them: a
// grid-wide min/max of the index tensor (atomicMin/atomicMax on 64-bit) that
// the host reads back, so an out-of-range index is an IndexError naming the
// value, never a device fault. Elements move as bytes (1, 2, 4 or 8), exact for
// every dtype. Contiguous tensors; 64-bit index math.
#include "kernels.h"

#include <cuda_runtime.h>

#include <cstdint>

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

unsigned grid_for(int64_t n) {
  const int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65535 ? (blocks > 0 ? blocks : 1) : 65535);
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
  switch (esize) {
    case 1: index_select_kernel<<<grid, kThreads, 0, s>>>(static_cast<const uint8_t*>(self), idx, i32, static_cast<uint8_t*>(out), outer, n_self, n_idx, inner); break;
    case 2: index_select_kernel<<<grid, kThreads, 0, s>>>(static_cast<const uint16_t*>(self), idx, i32, static_cast<uint16_t*>(out), outer, n_self, n_idx, inner); break;
    case 4: index_select_kernel<<<grid, kThreads, 0, s>>>(static_cast<const uint32_t*>(self), idx, i32, static_cast<uint32_t*>(out), outer, n_self, n_idx, inner); break;
    case 8: index_select_kernel<<<grid, kThreads, 0, s>>>(static_cast<const uint64_t*>(self), idx, i32, static_cast<uint64_t*>(out), outer, n_self, n_idx, inner); break;
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
  return static_cast<int>(cudaGetLastError());
}

int launch_gather(size_t esize, const void* self, const void* idx, bool i32, void* out, const GatherShape& shape,
                  int64_t n, void* stream) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  const unsigned grid = grid_for(n);
  switch (esize) {
    case 1: gather_kernel<<<grid, kThreads, 0, s>>>(static_cast<const uint8_t*>(self), idx, i32, static_cast<uint8_t*>(out), shape); break;
    case 2: gather_kernel<<<grid, kThreads, 0, s>>>(static_cast<const uint16_t*>(self), idx, i32, static_cast<uint16_t*>(out), shape); break;
    case 4: gather_kernel<<<grid, kThreads, 0, s>>>(static_cast<const uint32_t*>(self), idx, i32, static_cast<uint32_t*>(out), shape); break;
    case 8: gather_kernel<<<grid, kThreads, 0, s>>>(static_cast<const uint64_t*>(self), idx, i32, static_cast<uint64_t*>(out), shape); break;
    default: return static_cast<int>(cudaErrorInvalidValue);
  }
  return static_cast<int>(cudaGetLastError());
}

}  // namespace axle::cuda
