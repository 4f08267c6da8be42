// sum / mean / amax / amin over one consecutive range of dims of a contiguous
// tensor, seen as (outer, cols, inner): a block per row when inner == 1 (the
// reduced dims are the trailing ones), else a thread per (outer, inner) column.
// Accumulates in float (double for float64); amax / amin propagate NaN.
#include "device_math.cuh"
#include "kernels.h"

namespace axle::cuda {
namespace {

template <typename A>
__device__ __forceinline__ A finish(A acc, ReduceKind k, int64_t cols) {
  return k == ReduceKind::Mean ? acc / static_cast<A>(cols) : acc;
}

template <typename In, typename Out, typename A, typename Op>
__global__ void reduce_rows(const In* x, Out* y, int64_t rows, int64_t cols, ReduceKind kind, Op op, A identity) {
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const In* xr = x + r * cols;
    A acc = identity;
    for (int64_t i = threadIdx.x; i < cols; i += blockDim.x) acc = op(acc, load_as<In, A>(xr, i));
    acc = block_reduce(acc, op, identity);
    if (threadIdx.x == 0) store_as<Out, A>(y, r, finish(acc, kind, cols));
  }
}

template <typename In, typename Out, typename A, typename Op>
__global__ void reduce_columns(const In* x, Out* y, int64_t outer, int64_t cols, int64_t inner, ReduceKind kind, Op op,
                               A identity) {
  const int64_t n = outer * inner;
  for (int64_t t = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; t < n; t += int64_t(gridDim.x) * blockDim.x) {
    const int64_t o = t / inner, in = t % inner;
    const In* xc = x + o * cols * inner + in;
    A acc = identity;
    for (int64_t k = 0; k < cols; ++k) acc = op(acc, load_as<In, A>(xc, k * inner));
    store_as<Out, A>(y, t, finish(acc, kind, cols));
  }
}

template <typename In, typename Out, typename A, typename Op>
int run(const void* x, void* y, int64_t outer, int64_t cols, int64_t inner, ReduceKind kind, Op op, A identity,
        cudaStream_t s) {
  const In* xi = static_cast<const In*>(x);
  Out* yo = static_cast<Out*>(y);
  if (inner == 1)
    reduce_rows<In, Out, A, Op><<<row_grid(outer), kRowThreads, 0, s>>>(xi, yo, outer, cols, kind, op, identity);
  else
    reduce_columns<In, Out, A, Op><<<row_grid((outer * inner + kRowThreads - 1) / kRowThreads), kRowThreads, 0, s>>>(
        xi, yo, outer, cols, inner, kind, op, identity);
  return static_cast<int>(cudaGetLastError());
}

template <typename In, typename Out>
int by_kind(const void* x, void* y, int64_t outer, int64_t cols, int64_t inner, ReduceKind kind, cudaStream_t s) {
  using A = AccType<In, Out>;
  switch (kind) {
    case ReduceKind::Sum:
    case ReduceKind::Mean: return run<In, Out, A>(x, y, outer, cols, inner, kind, SumOp{}, A(0), s);
    case ReduceKind::Max: return run<In, Out, A>(x, y, outer, cols, inner, kind, MaxOp{}, A(-INFINITY), s);
    case ReduceKind::Min: return run<In, Out, A>(x, y, outer, cols, inner, kind, MinOp{}, A(INFINITY), s);
  }
  return static_cast<int>(cudaErrorInvalidValue);
}

}  // namespace

int launch_reduce(ReduceKind kind, axle_dtype in_dt, axle_dtype out_dt, const void* x, void* y, int64_t outer,
                  int64_t cols, int64_t inner, void* stream) {
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  return with_floating_type(in_dt, [&](auto in) {
    return with_floating_type(out_dt, [&](auto out) {
      return by_kind<decltype(in), decltype(out)>(x, y, outer, cols, inner, kind, s);
    });
  });
}

}  // namespace axle::cuda
