// max_pool2d and max_pool2d_with_indices: one thread per output element, any
// input and output strides (NCHW, channels-last, views), dilation and the
// output size the shape function chose (ceil_mode). The running maximum starts
// at -inf, so a window of -inf is -inf (cuDNN's pooling starts at -FLT_MAX);
// the first maximum wins and a NaN replaces it, as torch's loops take it; the
// index is h * W + w within the plane. Values compare in float (double for
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

}  // namespace

int launch_max_pool2d(axle_dtype dt, const void* x, void* y, int64_t* indices, const MaxPool2d& p, void* stream) {
  const int64_t total = p.n * p.c * p.out_h * p.out_w;
  if (total == 0) return 0;
  constexpr int kThreads = 256;
  const int64_t blocks = std::min<int64_t>((total + kThreads - 1) / kThreads, int64_t{1} << 20);
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  return with_floating_type(dt, [&](auto t) {
    using T = decltype(t);
    max_pool2d_kernel<T>
        <<<static_cast<unsigned>(blocks), kThreads, 0, s>>>(static_cast<const T*>(x), static_cast<T*>(y), indices, p);
    return static_cast<int>(cudaGetLastError());
  });
}

}  // namespace axle::cuda
