// The reductions of reduction_kernels.h: one kernel template over a reducer (a
// state with identity / update / combine / result). A block of 256 threads
// covers tx outputs x ty threads per output (tx * ty = 256, both powers of two);
// threads of one output are adjacent in the warp when the reduced dims are the
// fastest in memory (a row reduction: reads coalesce along k), threads of
// adjacent outputs are when a kept dim is (a column reduction: reads coalesce
// along o). The ty partial states meet through warp shuffles (shared memory
// where they lie in different warps). When there are few outputs for the GPU
// and much to reduce (a full reduction, tall columns) the reduced range is split
// over gridDim.y blocks that write partial states to scratch, and a second
// launch of the same kernel combines them. The split depends on the shape only,
// so results are deterministic. Elements are loaded from any dtype through a
// runtime switch into the accumulator type (float for float32 / float16 /
// bfloat16, double when float64 is involved, wrapping 64-bit integers for
// integral sums and products, int64 for integral max / min).
#include "device_math.cuh"
#include "kernels.h"
#include "reduction_kernels.h"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace axle::cuda {
namespace {

constexpr int kThreads = kRowThreads;
constexpr int64_t kTargetBlocks = 1024;  // enough resident blocks to fill a large GPU
constexpr int64_t kMinPerThread = 64;    // split the reduced range only beyond this many elements per thread

#define AXLE_HD AXLE_PLUGIN_HOST_DEVICE __forceinline__

// The reducers' scalar math (host and device callable).
template <typename A>
AXLE_HD bool is_nan(A v) {
  if constexpr (std::is_floating_point_v<A>)
    return v != v;
  else
    return false;
}
template <typename A>
AXLE_HD A abs_(A x) {
  return x < A(0) ? -x : x == A(0) ? A(0) : x;  // NaN stays NaN
}
template <typename A>
AXLE_HD A exp_(A x) {
  if constexpr (std::is_same_v<A, double>)
    return exp(x);
  else
    return expf(x);
}
template <typename A>
AXLE_HD A log_(A x) {
  if constexpr (std::is_same_v<A, double>)
    return log(x);
  else
    return logf(x);
}
template <typename A>
AXLE_HD A pow_(A x, A y) {
  if constexpr (std::is_same_v<A, double>)
    return pow(x, y);
  else
    return powf(x, y);
}
template <typename A>
AXLE_HD A sqrt_(A x) {
  if constexpr (std::is_same_v<A, double>)
    return sqrt(x);
  else
    return sqrtf(x);
}
template <typename A>
AXLE_HD bool is_finite(A x) {
  return x == x && x != A(INFINITY) && x != A(-INFINITY);
}
template <typename A>
AXLE_HD A lowest() {
  if constexpr (std::is_floating_point_v<A>)
    return -A(INFINITY);
  else
    return INT64_MIN;
}
template <typename A>
AXLE_HD A highest() {
  if constexpr (std::is_floating_point_v<A>)
    return A(INFINITY);
  else
    return INT64_MAX;
}

// Where the results go: values (output 0) at off[1], indices at off[2].
struct Outputs {
  void* values = nullptr;
  axle_dtype values_dtype = AXLE_DTYPE_FLOAT32;
  int64_t* indices = nullptr;
};

// ---------------------------------------------------------------- reducers
// Load: the type elements are loaded as; State: the partial result; result(state):
// the value stored into output 0 (ArgState: the value and the index).

// Sum, Mean (divide by count at the end) and Prod; uint64_t wraps as torch's int64.
template <typename A>
struct SumR {
  using Load = A;
  using State = A;
  bool product = false, mean = false;
  int64_t count = 0;
  AXLE_HD State identity() const { return product ? A(1) : A(0); }
  AXLE_HD State combine(State a, State b) const { return product ? a * b : a + b; }
  AXLE_HD State update(State s, A x, int64_t) const { return combine(s, x); }
  AXLE_HD A result(State s) const { return mean ? s / static_cast<A>(count) : s; }
};

// Max / Min of the values; NaN propagates.
template <typename A>
struct ExtremeR {
  using Load = A;
  using State = A;
  bool largest = true;
  AXLE_HD State identity() const { return largest ? lowest<A>() : highest<A>(); }
  AXLE_HD State combine(State a, State b) const {
    if constexpr (std::is_floating_point_v<A>)
      return largest ? max_nan(a, b) : min_nan(a, b);
    else
      return largest ? (a > b ? a : b) : (a < b ? a : b);
  }
  AXLE_HD State update(State s, A x, int64_t) const { return combine(s, x); }
  AXLE_HD A result(State s) const { return s; }
};

// The first extreme and its position k; NaN is the extreme (the first NaN wins).
// Ties go to the smaller index whatever the order partial states meet in.
template <typename A>
struct ArgState {
  A value;
  int64_t index;  // -1: no element yet
};
template <typename A>
struct ArgR {
  using Load = A;
  using State = ArgState<A>;
  bool largest = true;
  AXLE_HD State identity() const { return {A(0), -1}; }
  AXLE_HD State combine(State a, State b) const {
    if (a.index < 0) return b;
    if (b.index < 0) return a;
    const bool an = is_nan(a.value), bn = is_nan(b.value);
    if (an || bn) return an && bn ? (a.index < b.index ? a : b) : (an ? a : b);
    if (a.value == b.value) return a.index < b.index ? a : b;
    return (largest ? a.value > b.value : a.value < b.value) ? a : b;
  }
  AXLE_HD State update(State s, A x, int64_t k) const { return combine(s, State{x, k}); }
  AXLE_HD State result(State s) const { return s; }
};

// Welford's running mean and sum of squared deviations, merged by Chan's formula.
template <typename A>
struct WelfordState {
  A mean, m2;
  int64_t n;
};
template <typename A>
struct WelfordR {
  using Load = A;
  using State = WelfordState<A>;
  bool take_sqrt = false;
  A correction = 1;
  AXLE_HD State identity() const { return {A(0), A(0), 0}; }
  AXLE_HD State update(State s, A x, int64_t) const {
    ++s.n;
    const A delta = x - s.mean;
    s.mean += delta / static_cast<A>(s.n);
    s.m2 += delta * (x - s.mean);
    return s;
  }
  AXLE_HD State combine(State a, State b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const int64_t n = a.n + b.n;
    const A delta = b.mean - a.mean, fb = static_cast<A>(b.n) / static_cast<A>(n);
    return {a.mean + delta * fb, a.m2 + b.m2 + delta * delta * static_cast<A>(a.n) * fb, n};
  }
  AXLE_HD A result(State s) const {
    const A d = static_cast<A>(s.n) - correction;
    const A v = s.m2 / (d > A(0) ? d : A(0));
    return take_sqrt ? sqrt_(v) : v;
  }
};

// all / any (0 or 1) and count_nonzero over the elements' truth values.
struct TruthR {
  using Load = bool;
  using State = int64_t;
  enum Kind : int32_t { All, Any, Count } kind = All;
  AXLE_HD State identity() const { return kind == All ? 1 : 0; }
  AXLE_HD State combine(State a, State b) const {
    return kind == All ? (a < b ? a : b) : kind == Any ? (a > b ? a : b) : a + b;
  }
  AXLE_HD State update(State s, bool x, int64_t) const { return combine(s, x ? 1 : 0); }
  AXLE_HD State result(State s) const { return s; }
};

// The vector p-norm: a count (p = 0), sums of |x|, x^2 or |x|^p, or max / min of |x|.
template <typename A>
struct NormR {
  using Load = A;
  using State = A;
  enum Kind : int32_t { Zero, One, Two, Inf, NegInf, P } kind = Two;
  A p = 2;
  int64_t count = 0;
  AXLE_HD State identity() const { return kind == NegInf ? A(INFINITY) : A(0); }
  AXLE_HD State combine(State a, State b) const {
    return kind == Inf ? max_nan(a, b) : kind == NegInf ? min_nan(a, b) : a + b;
  }
  AXLE_HD State update(State s, A x, int64_t) const {
    switch (kind) {
      case Zero: return s + (x != A(0) ? A(1) : A(0));
      case One: return s + abs_(x);
      case Two: return s + x * x;
      case P: return s + pow_(abs_(x), p);
      default: return combine(s, abs_(x));
    }
  }
  AXLE_HD A result(State s) const {
    if (count == 0) return A(0);
    return kind == Two ? sqrt_(s) : kind == P ? pow_(s, A(1) / p) : s;
  }
};

// logsumexp online: the running max m and s = sum(exp(x - m)). A non-finite max
// is the result (NaN, +inf; -inf when every element is -inf or there is none),
// as the reference's max + log(sum(exp(x - max))) with an infinite max replaced by 0.
template <typename A>
struct LseState {
  A m, s;
};
template <typename A>
struct LseR {
  using Load = A;
  using State = LseState<A>;
  AXLE_HD State identity() const { return {-A(INFINITY), A(0)}; }
  AXLE_HD State combine(State a, State b) const {
    const A m = max_nan(a.m, b.m);
    if (!is_finite(m)) return {m, A(0)};
    const A sa = a.m == -A(INFINITY) ? A(0) : a.s * exp_(a.m - m);
    const A sb = b.m == -A(INFINITY) ? A(0) : b.s * exp_(b.m - m);
    return {m, sa + sb};
  }
  AXLE_HD State update(State s, A x, int64_t) const { return combine(s, State{x, A(1)}); }
  AXLE_HD A result(State s) const { return is_finite(s.m) ? log_(s.s) + s.m : s.m; }
};

// ---------------------------------------------------------------- the kernel
template <typename V>
__device__ __forceinline__ void write_result(const Outputs& out, const int64_t* off, V v) {
  store_dtype(out.values, off[1], out.values_dtype, v);
}
template <typename A>
__device__ __forceinline__ void write_result(const Outputs& out, const int64_t* off, ArgState<A> v) {
  if (out.values) store_dtype(out.values, off[1], out.values_dtype, v.value);
  if (out.indices) out.indices[off[2]] = v.index < 0 ? 0 : v.index;
}

// v of the lane `mask` away (xor) in the warp, for any state of 4-byte words.
template <typename T>
__device__ __forceinline__ T shfl_xor_state(T v, int mask) {
  static_assert(sizeof(T) % 4 == 0, "states are whole 32-bit words");
  uint32_t w[sizeof(T) / 4];
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (size_t i = 0; i < sizeof(T) / 4; ++i) w[i] = __shfl_xor_sync(0xffffffffu, w[i], mask);
  memcpy(&v, w, sizeof(T));
  return v;
}

struct Plan {
  int32_t tx = 1, ty = kThreads;  // outputs per block, threads per output
  bool kfast = true;              // thread t is (t / ty, t % ty) (reduced-fast) or (t % tx, t / tx)
  int64_t tiles = 1;              // blocks of tx outputs
  int64_t splits = 1;             // gridDim.y: parts of the reduced range
  int64_t chunk = 1;              // reduced elements per part
  unsigned grid_x = 1;
};

int64_t pow2_at_least(int64_t n) {
  int64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

// The work split for `outputs` results of `count` elements each; kfast when the
// reduced elements are the fastest in memory.
Plan make_plan(int64_t outputs, int64_t count, bool kfast, bool allow_split) {
  Plan p;
  p.kfast = kfast;
  const int64_t k2 = pow2_at_least(count > 0 ? count : 1);
  if (kfast) {
    p.ty = static_cast<int32_t>(k2 < kThreads ? k2 : kThreads);
  } else {
    const int64_t tx0 = std::min<int64_t>(pow2_at_least(outputs), 32);
    p.ty = static_cast<int32_t>(std::min<int64_t>(k2, kThreads / tx0));
  }
  p.tx = kThreads / p.ty;
  p.tiles = (outputs + p.tx - 1) / p.tx;
  const int64_t per_thread = (count + p.ty - 1) / p.ty;
  if (allow_split && p.tiles < kTargetBlocks && per_thread >= kMinPerThread) {
    const int64_t want = std::min((kTargetBlocks + p.tiles - 1) / p.tiles, (per_thread + 31) / 32);
    p.splits = std::min<int64_t>(want, 65535);
  }
  p.chunk = (count + p.splits - 1) / p.splits;
  if (p.chunk < 1) p.chunk = 1;
  p.splits = (count + p.chunk - 1) / p.chunk;
  if (p.splits < 1) p.splits = 1;
  p.grid_x = static_cast<unsigned>(std::min<int64_t>(p.tiles, int64_t{1} << 30));
  return p;
}

// Partials: combine `count` partial states per output from scratch ([count][outputs])
// instead of reading the input. Otherwise a grid with gridDim.y > 1 writes one
// partial state per (blockIdx.y, output) to scratch.
template <typename R, bool Partials>
__global__ void __launch_bounds__(kThreads)
    reduce_kernel(R r, ReduceShape s, Plan p, int64_t count, Outputs out, const void* x, axle_dtype x_dtype,
                  typename R::State* scratch) {
  using State = typename R::State;
  __shared__ __align__(16) unsigned char raw[kThreads * sizeof(State)];
  State* sm = reinterpret_cast<State*>(raw);
  const int t = static_cast<int>(threadIdx.x);
  const int ox = p.kfast ? t / p.ty : t % p.tx, ky = p.kfast ? t % p.ty : t / p.tx;
  const int64_t k0 = static_cast<int64_t>(blockIdx.y) * p.chunk;
  const int64_t k1 = k0 + p.chunk < count ? k0 + p.chunk : count;
  const bool final_pass = Partials || gridDim.y == 1;
  for (int64_t tile = blockIdx.x; tile < p.tiles; tile += gridDim.x) {
    const int64_t o = tile * p.tx + ox;
    int64_t off[3] = {0, 0, 0};
    State st = r.identity();
    if (o < s.outputs) {
      kept_offsets(s, o, off);
      if constexpr (Partials) {
        for (int64_t k = k0 + ky; k < k1; k += p.ty) st = r.combine(st, scratch[k * s.outputs + o]);
      } else {
        using L = typename R::Load;
        const int64_t step = p.ty;
        int64_t k = k0 + ky;
        for (; k + 3 * step < k1; k += 4 * step) {  // four loads in flight
          const L v0 = load_dtype<L>(x, off[0] + reduced_offset(s, k), x_dtype);
          const L v1 = load_dtype<L>(x, off[0] + reduced_offset(s, k + step), x_dtype);
          const L v2 = load_dtype<L>(x, off[0] + reduced_offset(s, k + 2 * step), x_dtype);
          const L v3 = load_dtype<L>(x, off[0] + reduced_offset(s, k + 3 * step), x_dtype);
          st = r.update(st, v0, k);
          st = r.update(st, v1, k + step);
          st = r.update(st, v2, k + 2 * step);
          st = r.update(st, v3, k + 3 * step);
        }
        for (; k < k1; k += step) st = r.update(st, load_dtype<L>(x, off[0] + reduced_offset(s, k), x_dtype), k);
      }
    }
    // Tree over ky: state ky takes ky + half's, halving; levels whose partner is
    // another warp go through shared memory, the rest through shuffles.
    const int lanes = p.kfast ? 1 : p.tx;  // lanes between ky and ky + 1
    int half = p.ty / 2;
    if (half * lanes >= 32) {
      State* mine = sm + ox * p.ty;
      mine[ky] = st;
      __syncthreads();
      for (; half * lanes >= 32; half >>= 1) {
        if (ky < half) mine[ky] = r.combine(mine[ky], mine[ky + half]);
        __syncthreads();
      }
      st = mine[ky];
      __syncthreads();  // sm is reused by the next tile
    }
    for (; half > 0; half >>= 1) {
      const State other = shfl_xor_state(st, half * lanes);
      if (ky < half) st = r.combine(st, other);
    }
    if (ky == 0 && o < s.outputs) {
      if (final_pass)
        write_result(out, off, r.result(st));
      else
        scratch[static_cast<int64_t>(blockIdx.y) * s.outputs + o] = st;
    }
  }
}

// Whether the reduced elements are the fastest-moving in memory (the innermost
// merged reduced dim has a stride no larger than the innermost kept dim's).
bool reduced_fast(const ReduceShape& s) {
  if (s.nkept == 0) return true;
  if (s.nred == 0) return false;
  return std::llabs(s.red_strides[s.nred - 1]) <= std::llabs(s.kept_strides[0][s.nkept - 1]);
}

Plan plan_of(const ReduceCall& c) { return make_plan(c.shape.outputs, c.shape.count, reduced_fast(c.shape), true); }

template <typename R>
int run(const R& r, const ReduceCall& c, void* scratch, cudaStream_t stream) {
  using State = typename R::State;
  const Plan p = plan_of(c);
  const Outputs out{c.values, c.values_dtype, c.indices};
  State* partial = static_cast<State*>(scratch);
  reduce_kernel<R, false><<<dim3(p.grid_x, static_cast<unsigned>(p.splits)), kThreads, 0, stream>>>(
      r, c.shape, p, c.shape.count, out, c.x, c.x_dtype, partial);
  if (p.splits > 1) {
    const Plan q = make_plan(c.shape.outputs, p.splits, true, false);
    reduce_kernel<R, true>
        <<<dim3(q.grid_x, 1), kThreads, 0, stream>>>(r, c.shape, q, p.splits, out, c.x, c.x_dtype, partial);
  }
  return static_cast<int>(cudaGetLastError());
}

bool is_f64(axle_dtype d) { return d == AXLE_DTYPE_FLOAT64; }
using plugin::is_floating;

// Calls f(reducer) with the reducer of the call's op in its accumulator type.
template <typename Ret, typename F>
Ret with_reducer(const ReduceCall& c, F&& f) {
  const bool dbl = is_f64(c.x_dtype) || (c.values && is_f64(c.values_dtype));
  const int64_t n = c.shape.count;
  switch (c.op) {
    case ReduceOp::Sum:
    case ReduceOp::Mean:
    case ReduceOp::Prod: {
      const bool product = c.op == ReduceOp::Prod, mean = c.op == ReduceOp::Mean;
      if (!is_floating(c.values_dtype)) return f(SumR<uint64_t>{product, false, n});
      if (dbl) return f(SumR<double>{product, mean, n});
      return f(SumR<float>{product, mean, n});
    }
    case ReduceOp::Max:
    case ReduceOp::Min: {
      const bool largest = c.op == ReduceOp::Max;
      if (!is_floating(c.x_dtype)) return f(ExtremeR<int64_t>{largest});
      if (is_f64(c.x_dtype)) return f(ExtremeR<double>{largest});
      return f(ExtremeR<float>{largest});
    }
    case ReduceOp::ArgMax:
    case ReduceOp::ArgMin: {
      const bool largest = c.op == ReduceOp::ArgMax;
      if (!is_floating(c.x_dtype)) return f(ArgR<int64_t>{largest});
      if (is_f64(c.x_dtype)) return f(ArgR<double>{largest});
      return f(ArgR<float>{largest});
    }
    case ReduceOp::Var:
    case ReduceOp::Std: {
      const bool root = c.op == ReduceOp::Std;
      if (dbl) return f(WelfordR<double>{root, c.param});
      return f(WelfordR<float>{root, static_cast<float>(c.param)});
    }
    case ReduceOp::All: return f(TruthR{TruthR::All});
    case ReduceOp::Any: return f(TruthR{TruthR::Any});
    case ReduceOp::CountNonzero: return f(TruthR{TruthR::Count});
    case ReduceOp::Norm: {
      const double p = c.param;
      const int32_t kind = p == 0 ? 0 : p == 1 ? 1 : p == 2 ? 2 : p == INFINITY ? 3 : p == -INFINITY ? 4 : 5;
      if (dbl) return f(NormR<double>{static_cast<NormR<double>::Kind>(kind), p, n});
      return f(NormR<float>{static_cast<NormR<float>::Kind>(kind), static_cast<float>(p), n});
    }
    case ReduceOp::LogSumExp:
      if (dbl) return f(LseR<double>{});
      return f(LseR<float>{});
  }
  return f(SumR<float>{});
}

}  // namespace

size_t reduction_scratch_bytes(const ReduceCall& call) {
  const Plan p = plan_of(call);
  if (p.splits <= 1) return 0;
  return with_reducer<size_t>(call, [&](const auto& r) {
    using State = typename std::decay_t<decltype(r)>::State;
    return static_cast<size_t>(p.splits) * static_cast<size_t>(call.shape.outputs) * sizeof(State);
  });
}

int launch_reduction(const ReduceCall& call, void* scratch, void* stream) {
  if (call.shape.outputs <= 0) return 0;
  const cudaStream_t s = static_cast<cudaStream_t>(stream);
  return with_reducer<int>(call, [&](const auto& r) { return run(r, call, scratch, s); });
}

}  // namespace axle::cuda
