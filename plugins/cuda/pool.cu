// max_pool2d and max_pool2d_with_indices: one thread per output element, any
// input and output strides (NCHW, channels-last, views), dilation and the
// output size the shape function chose (ceil_mode). The running maximum starts
// at -inf, so a window of -inf is -inf (cuDNN's pooling starts at -FLT_MAX);
// the first maximum wins and a NaN replaces it, as torch's loops take it; the
// index is h * W + w within the plane. max_pool2d_with_indices_backward: each
// input element gathers the gradients of the outputs whose index names it,
// after a check that every index lies in its window. Values compare in float (double for
// float64): the result is one of the inputs, so no rounding happens.
#include "device_math.cuh"
#include "kernels.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace axle::cuda {
namespace {

template <typename T>
__global__ void max_pool2d_kernel(const T* x, T* y, int64_t* indices, MaxPool2d p) {
  using A = AccType<T, T>;
  const int64_t total = p.n * p.c * p.out_h * p.out_w;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total; i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t ow = i % p.out_w, oh = (i / p.out_w) % p.out_h, ch = (i / (p.out_w * p.out_h)) % p.c,
                  n = i / (p.out_w * p.out_h * p.c);
    int64_t h0 = oh * p.stride[0] - p.pad[0], w0 = ow * p.stride[1] - p.pad[1];
    const int64_t h1 = min(h0 + (p.kernel[0] - 1) * p.dilation[0] + 1, p.in_h);
    const int64_t w1 = min(w0 + (p.kernel[1] - 1) * p.dilation[1] + 1, p.in_w);
    while (h0 < 0) h0 += p.dilation[0];
    while (w0 < 0) w0 += p.dilation[1];
    const T* plane = x + n * p.in_stride[0] + ch * p.in_stride[1];
    int64_t best = h0 * p.in_w + w0;
    A maxval = -INFINITY;
    for (int64_t h = h0; h < h1; h += p.dilation[0])
      for (int64_t w = w0; w < w1; w += p.dilation[1]) {
        const A v = load_as<T, A>(plane, h * p.in_stride[2] + w * p.in_stride[3]);
        if (v > maxval || v != v) {
          maxval = v;
          best = h * p.in_w + w;
        }
      }
    const int64_t o = n * p.out_stride[0] + ch * p.out_stride[1] + oh * p.out_stride[2] + ow * p.out_stride[3];
    store_as<T, A>(y, o, maxval);
    if (indices)
      indices[n * p.index_stride[0] + ch * p.index_stride[1] + oh * p.index_stride[2] + ow * p.index_stride[3]] = best;
  }
}

// Whether every index is the flat h * W + w of a position inside its own
// output's window (what max_pool2d_with_indices returns); *bad = 1 otherwise.
__global__ void max_pool2d_check_indices_kernel(const int64_t* indices, MaxPool2d p, int* bad) {
  const int64_t total = p.n * p.c * p.out_h * p.out_w;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total; i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t ow = i % p.out_w, oh = (i / p.out_w) % p.out_h, ch = (i / (p.out_w * p.out_h)) % p.c,
                  n = i / (p.out_w * p.out_h * p.c);
    const int64_t at =
        indices[n * p.index_stride[0] + ch * p.index_stride[1] + oh * p.index_stride[2] + ow * p.index_stride[3]];
    bool ok = at >= 0 && at < p.in_h * p.in_w;
    if (ok) {
      const int64_t dh = at / p.in_w + p.pad[0] - oh * p.stride[0], dw = at % p.in_w + p.pad[1] - ow * p.stride[1];
      ok = dh >= 0 && dw >= 0 && dh % p.dilation[0] == 0 && dw % p.dilation[1] == 0 &&
           dh / p.dilation[0] < p.kernel[0] && dw / p.dilation[1] < p.kernel[1];
    }
    if (!ok) *bad = 1;
  }
}

// Lowest output position whose window (start o * stride - pad, extent
// (kernel - 1) * dilation + 1) can reach input position h.
__device__ int64_t first_window(int64_t h, int64_t pad, int64_t kernel, int64_t dilation, int64_t stride) {
  const int64_t a = h + pad - (kernel - 1) * dilation;
  return a <= 0 ? 0 : (a + stride - 1) / stride;
}

// One thread per input element: the sum, in output order, of the gradients of
// the outputs whose index names it (deterministic, no atomics; the indices were
// checked to lie in their windows, so the windows that reach it hold them all).
template <typename T>
__global__ void max_pool2d_backward_kernel(const T* gy, const int64_t* indices, T* gx, MaxPool2d p) {
  using A = AccType<T, T>;
  const int64_t total = p.n * p.c * p.in_h * p.in_w;
  for (int64_t i = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; i < total; i += int64_t{gridDim.x} * blockDim.x) {
    const int64_t w = i % p.in_w, h = (i / p.in_w) % p.in_h, ch = (i / (p.in_w * p.in_h)) % p.c,
                  n = i / (p.in_w * p.in_h * p.c);
    const int64_t h0 = first_window(h, p.pad[0], p.kernel[0], p.dilation[0], p.stride[0]);
    const int64_t w0 = first_window(w, p.pad[1], p.kernel[1], p.dilation[1], p.stride[1]);
    const int64_t h1 = min((h + p.pad[0]) / p.stride[0] + 1, p.out_h),
                  w1 = min((w + p.pad[1]) / p.stride[1] + 1, p.out_w);
    const int64_t target = h * p.in_w + w;
    A acc = 0;
    for (int64_t oh = h0; oh < h1; ++oh)
      for (int64_t ow = w0; ow < w1; ++ow)
        if (indices[n * p.index_stride[0] + ch * p.index_stride[1] + oh * p.index_stride[2] + ow * p.index_stride[3]] ==
            target)
          acc += load_as<T, A>(
              gy, n * p.out_stride[0] + ch * p.out_stride[1] + oh * p.out_stride[2] + ow * p.out_stride[3]);
    store_as<T, A>(gx, n * p.in_stride[0] + ch * p.in_stride[1] + h * p.in_stride[2] + w * p.in_stride[3], acc);
  }
}

constexpr int kThreads = 256;
unsigned grid_for(int64_t total) {
  return static_cast<unsigned>(std::min<int64_t>((total + kThreads - 1) / kThreads, int64_t{1} << 20));
}

}  // namespace

int launch_max_pool2d_check_indices(const int64_t* indices, const MaxPool2d& p, int* bad, void* stream) {
  const int64_t total = p.n * p.c * p.out_h * p.out_w;
  if (total == 0) return 0;
  max_pool2d_check_indices_kernel<<<grid_for(total), kThreads, 0, static_cast<cudaStream_t>(stream)>>>(indices, p, bad);
  return static_cast<int>(cudaGetLastError());
}

int launch_max_pool2d_backward(axle_dtype dt, const void* gy, const int64_t* indices, void* gx, const MaxPool2d& p,
                               void* stream) {
  const int64_t total = p.n * p.c * p.in_h * p.in_w;
  if (total == 0) return 0;
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  return with_floating_type(dt, [&](auto t) {
    using T = decltype(t);
    max_pool2d_backward_kernel<T>
        <<<grid_for(total), kThreads, 0, s>>>(static_cast<const T*>(gy), indices, static_cast<T*>(gx), p);
    return static_cast<int>(cudaGetLastError());
  });
}

int launch_max_pool2d(axle_dtype dt, const void* x, void* y, int64_t* indices, const MaxPool2d& p, void* stream) {
  const int64_t total = p.n * p.c * p.out_h * p.out_w;
  if (total == 0) return 0;
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  return with_floating_type(dt, [&](auto t) {
    using T = decltype(t);
    max_pool2d_kernel<T><<<grid_for(total), kThreads, 0, s>>>(static_cast<const T*>(x), static_cast<T*>(y), indices, p);
    return static_cast<int>(cudaGetLastError());
  });
}

}  // namespace axle::cuda
