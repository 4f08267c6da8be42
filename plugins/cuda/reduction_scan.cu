// cumsum / cumprod along one dim (reduction_kernels.h's ScanShape: lines of
// `length` elements, any strides). Lines strided in memory, when there are many
// of them, and short lines get a thread each (adjacent threads read adjacent
// lines). Otherwise a block scans a line in tiles of 256 x 4 elements with
// cub::BlockScan, carrying the running total from tile to tile; a long line with
// few lines beside it is cut into chunks scanned by separate blocks: the chunks'
// totals first (cub::BlockReduce), their exclusive scan per line, then each
// chunk's scan from its carry. Accumulates as the reference: in the output's
// kind (float; double when float64 is involved; wrapping 64-bit integers for
// integral outputs), loading any dtype through a runtime switch.
#include "device_math.cuh"
#include "kernels.h"
#include "reduction_kernels.h"

#include <cuda_runtime.h>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <cstdint>

namespace axle::cuda {
namespace {

constexpr int kThreads = kRowThreads;
constexpr int kItems = 4;  // elements per thread and tile
constexpr int64_t kTile = kThreads * kItems;
constexpr int64_t kTargetBlocks = 1024;

template <typename A>
struct ScanOp {
  bool product = false;
  __device__ __forceinline__ A operator()(A a, A b) const { return product ? a * b : a + b; }
  __device__ __forceinline__ A identity() const { return product ? A(1) : A(0); }
};

struct Args {
  ScanShape s;
  const void* x;
  axle_dtype x_dtype;
  void* y;
  axle_dtype y_dtype;
  int64_t chunks;     // per line
  int64_t chunk_len;  // elements per chunk (a multiple of kTile)
};

// One thread per line.
template <typename A>
__global__ void __launch_bounds__(kThreads) scan_lines(ScanOp<A> op, Args a) {
  const int64_t lines = a.s.lines.outputs;
  for (int64_t line = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; line < lines;
       line += int64_t(gridDim.x) * blockDim.x) {
    int64_t off[3];
    kept_offsets(a.s.lines, line, off);
    A acc = op.identity();
#pragma unroll 4
    for (int64_t i = 0; i < a.s.length; ++i) {
      acc = op(acc, load_dtype<A>(a.x, off[0] + i * a.s.in_step, a.x_dtype));
      store_dtype(a.y, off[1] + i * a.s.out_step, a.y_dtype, acc);
    }
  }
}

// The total of each (line, chunk) into totals[line * chunks + chunk].
template <typename A>
__global__ void __launch_bounds__(kThreads) chunk_totals(ScanOp<A> op, Args a, A* totals) {
  using Reduce = cub::BlockReduce<A, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  const int64_t units = a.s.lines.outputs * a.chunks;
  for (int64_t unit = blockIdx.x; unit < units; unit += gridDim.x) {
    const int64_t line = unit / a.chunks, begin = unit % a.chunks * a.chunk_len;
    const int64_t end = begin + a.chunk_len < a.s.length ? begin + a.chunk_len : a.s.length;
    int64_t off[3];
    kept_offsets(a.s.lines, line, off);
    A acc = op.identity();
    for (int64_t i = begin + threadIdx.x; i < end; i += kThreads)
      acc = op(acc, load_dtype<A>(a.x, off[0] + i * a.s.in_step, a.x_dtype));
    acc = Reduce(temp).Reduce(acc, op);
    if (threadIdx.x == 0) totals[unit] = acc;
    __syncthreads();  // temp is reused by the next unit
  }
}

// totals[line][c] becomes the combination of the line's chunks before c (thread per line).
template <typename A>
__global__ void __launch_bounds__(kThreads) chunk_carries(ScanOp<A> op, int64_t lines, int64_t chunks, A* totals) {
  for (int64_t line = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; line < lines;
       line += int64_t(gridDim.x) * blockDim.x) {
    A run = op.identity();
    for (int64_t c = 0; c < chunks; ++c) {
      const A t = totals[line * chunks + c];
      totals[line * chunks + c] = run;
      run = op(run, t);
    }
  }
}

// A block per (line, chunk): tiles of kTile elements scanned with cub::BlockScan
// from the chunk's carry (carries == NULL: one chunk per line).
template <typename A>
__global__ void __launch_bounds__(kThreads) scan_chunks(ScanOp<A> op, Args a, const A* carries) {
  using Scan = cub::BlockScan<A, kThreads>;
  __shared__ typename Scan::TempStorage temp;
  const int64_t units = a.s.lines.outputs * a.chunks;
  for (int64_t unit = blockIdx.x; unit < units; unit += gridDim.x) {
    const int64_t line = unit / a.chunks, begin = unit % a.chunks * a.chunk_len;
    const int64_t end = begin + a.chunk_len < a.s.length ? begin + a.chunk_len : a.s.length;
    int64_t off[3];
    kept_offsets(a.s.lines, line, off);
    A carry = carries ? carries[unit] : op.identity();
    for (int64_t tile = begin; tile < end; tile += kTile) {
      A v[kItems];
      const int64_t first = tile + int64_t(threadIdx.x) * kItems;
#pragma unroll
      for (int j = 0; j < kItems; ++j)
        v[j] = first + j < end ? load_dtype<A>(a.x, off[0] + (first + j) * a.s.in_step, a.x_dtype) : op.identity();
      A total;
      Scan(temp).InclusiveScan(v, v, op, total);
#pragma unroll
      for (int j = 0; j < kItems; ++j)
        if (first + j < end) store_dtype(a.y, off[1] + (first + j) * a.s.out_step, a.y_dtype, op(carry, v[j]));
      carry = op(carry, total);
      __syncthreads();  // temp is reused by the next tile
    }
  }
}

using plugin::is_floating;

// How the work is cut: one thread per line, or blocks over (line, chunk).
struct ScanPlan {
  bool per_thread = false;
  int64_t chunks = 1, chunk_len = 1;
};
ScanPlan plan_of(const ScanShape& s) {
  ScanPlan p;
  const int64_t lines = s.lines.outputs, n = s.length;
  p.per_thread = (s.in_step != 1 && lines >= 8 * kTargetBlocks) || (n <= 16 && lines >= kTargetBlocks);
  p.chunk_len = std::max<int64_t>(n, 1);
  if (!p.per_thread && lines < kTargetBlocks && n > 2 * kTile) {
    const int64_t want = std::min((n + kTile - 1) / kTile, (kTargetBlocks + lines - 1) / lines);
    p.chunk_len = ((n + want - 1) / want + kTile - 1) / kTile * kTile;
    p.chunks = (n + p.chunk_len - 1) / p.chunk_len;
  }
  return p;
}

size_t acc_size(const ScanCall& c) {
  if (!is_floating(c.y_dtype)) return sizeof(uint64_t);
  return c.x_dtype == AXLE_DTYPE_FLOAT64 || c.y_dtype == AXLE_DTYPE_FLOAT64 ? sizeof(double) : sizeof(float);
}

unsigned grid_of(int64_t blocks) { return static_cast<unsigned>(std::clamp<int64_t>(blocks, 1, int64_t{1} << 30)); }

template <typename A>
int run(const ScanCall& c, void* scratch, cudaStream_t stream) {
  const ScanOp<A> op{c.product};
  const ScanPlan p = plan_of(c.shape);
  const Args a{c.shape, c.x, c.x_dtype, c.y, c.y_dtype, p.chunks, p.chunk_len};
  const int64_t lines = c.shape.lines.outputs;
  if (p.per_thread) {
    scan_lines<A><<<grid_of((lines + kThreads - 1) / kThreads), kThreads, 0, stream>>>(op, a);
  } else if (p.chunks == 1) {
    scan_chunks<A><<<grid_of(lines), kThreads, 0, stream>>>(op, a, nullptr);
  } else {
    A* totals = static_cast<A*>(scratch);
    chunk_totals<A><<<grid_of(lines * p.chunks), kThreads, 0, stream>>>(op, a, totals);
    chunk_carries<A><<<grid_of((lines + kThreads - 1) / kThreads), kThreads, 0, stream>>>(op, lines, p.chunks, totals);
    scan_chunks<A><<<grid_of(lines * p.chunks), kThreads, 0, stream>>>(op, a, totals);
  }
  return static_cast<int>(cudaGetLastError());
}

}  // namespace

size_t scan_scratch_bytes(const ScanCall& call) {
  const ScanPlan p = plan_of(call.shape);
  if (p.per_thread || p.chunks <= 1) return 0;
  return static_cast<size_t>(call.shape.lines.outputs * p.chunks) * acc_size(call);
}

int launch_scan(const ScanCall& call, void* scratch, void* stream) {
  if (call.shape.lines.outputs <= 0 || call.shape.length <= 0) return 0;
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  if (!is_floating(call.y_dtype)) return run<uint64_t>(call, scratch, s);
  if (acc_size(call) == sizeof(double)) return run<double>(call, scratch, s);
  return run<float>(call, scratch, s);
}

}  // namespace axle::cuda
