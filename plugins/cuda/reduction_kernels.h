// Launchers of the reductions (reduction.cu) and scans (reduction_scan.cu), host
// functions used by reduction.cpp, and the index math both sides share. A reduction sees its
// input as outputs x count elements: output o (row-major over the kept dims)
// reduces the elements at kept_offset(o) + reduced_offset(k) for k in [0, count),
// k the row-major position over the reduced dims (the index argmax reports).
// Size-1 dims are dropped and adjacent dims merged where their strides allow, so
// a contiguous input reduced over any consecutive dims has one reduced dim.
// Offsets are in elements; index math runs in 32 bits (multiply-shift division)
// while outputs and count are below 2^31, in 64 bits otherwise.
#pragma once

#include <axle/plugin/axle_plugin.h>

#include "fast_div.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace axle::cuda {

constexpr int kReduceDims = 16;  // dims left after merging; more: declined

struct ReduceShape {
  int32_t nkept = 0, nred = 0;
  bool small = true;    // outputs and count below 2^31: 32-bit index math
  int64_t outputs = 1;  // product of kept_sizes (0: nothing to compute)
  int64_t count = 1;    // product of red_sizes (0: every output is the reduction's identity)
  int64_t kept_sizes[kReduceDims] = {};
  int64_t kept_strides[3][kReduceDims] = {};  // input, output 0, output 1
  FastDiv kept_div[kReduceDims] = {};
  int64_t red_sizes[kReduceDims] = {};
  int64_t red_strides[kReduceDims] = {};
  FastDiv red_div[kReduceDims] = {};
};

// off[0]: the offset of output o's first element in the input, off[1] / off[2]:
// o's offset in output 0 / 1.
AXLE_PLUGIN_HOST_DEVICE inline void kept_offsets(const ReduceShape& s, int64_t o, int64_t off[3]) {
  off[0] = off[1] = off[2] = 0;
  if (s.small) {
    uint32_t r = static_cast<uint32_t>(o);
    for (int32_t d = s.nkept - 1; d >= 0; --d) {
      const uint32_t q = d > 0 ? fast_div(s.kept_div[d], r) : 0;
      const int64_t i = static_cast<int64_t>(r - q * s.kept_div[d].divisor);
      for (int j = 0; j < 3; ++j) off[j] += i * s.kept_strides[j][d];
      r = q;
    }
  } else {
    for (int32_t d = s.nkept - 1; d >= 0; --d) {
      const int64_t q = d > 0 ? o / s.kept_sizes[d] : 0, i = o - q * s.kept_sizes[d];
      for (int j = 0; j < 3; ++j) off[j] += i * s.kept_strides[j][d];
      o = q;
    }
  }
}

// The input offset of the k-th reduced element (relative to kept_offsets' off[0]).
AXLE_PLUGIN_HOST_DEVICE inline int64_t reduced_offset(const ReduceShape& s, int64_t k) {
  if (s.nred <= 1) return s.nred == 1 ? k * s.red_strides[0] : 0;
  int64_t off = 0;
  if (s.small) {
    uint32_t r = static_cast<uint32_t>(k);
    for (int32_t d = s.nred - 1; d > 0; --d) {
      const uint32_t q = fast_div(s.red_div[d], r);
      off += static_cast<int64_t>(r - q * s.red_div[d].divisor) * s.red_strides[d];
      r = q;
    }
    return off + static_cast<int64_t>(r) * s.red_strides[0];
  }
  for (int32_t d = s.nred - 1; d > 0; --d) {
    const int64_t q = k / s.red_sizes[d];
    off += (k - q * s.red_sizes[d]) * s.red_strides[d];
    k = q;
  }
  return off + k * s.red_strides[0];
}

namespace detail {
struct Dim {
  int64_t size;
  int64_t stride[3];
};
// Drops size-1 dims and merges each dim into the previous one where strides allow (all three strides).
inline std::vector<Dim> merge_dims(const std::vector<Dim>& dims) {
  std::vector<Dim> out;
  for (const Dim& d : dims) {
    if (d.size == 1) continue;
    if (!out.empty()) {
      Dim& p = out.back();
      bool mergeable = true;
      for (int j = 0; j < 3; ++j) mergeable = mergeable && p.stride[j] == d.stride[j] * d.size;
      if (mergeable) {
        p.size *= d.size;
        for (int j = 0; j < 3; ++j) p.stride[j] = d.stride[j];
        continue;
      }
    }
    out.push_back(d);
  }
  return out;
}
inline void fill_divs(ReduceShape* s) {
  constexpr int64_t kSmall = int64_t{1} << 31;
  s->small = s->outputs < kSmall && s->count < kSmall;
  const auto div = [&](int64_t size) { return make_fast_div(static_cast<uint32_t>(s->small && size > 0 ? size : 1)); };
  for (int32_t d = 0; d < s->nkept; ++d) s->kept_div[d] = div(s->kept_sizes[d]);
  for (int32_t d = 0; d < s->nred; ++d) s->red_div[d] = div(s->red_sizes[d]);
}
}  // namespace detail

// The shape of reducing x over the dims flagged in `reduced` (x.ndim flags) into
// out0 / out1 (either may be NULL): an output has the kept dims in order, plus
// size-1 reduced dims when it has as many dims as x. `reorder`: the reduced
// dims may be visited in any order (they are sorted by decreasing stride, which
// lets more of them merge); not for argmax / argmin, whose index is the
// row-major position. False when more than kReduceDims dims remain.
inline bool make_reduce_shape(const axle_tensor_view& x, const bool* reduced, const axle_tensor_view* out0,
                              const axle_tensor_view* out1, bool reorder, ReduceShape* s) {
  *s = ReduceShape{};
  std::vector<detail::Dim> kept, red;
  int64_t kept_index = 0;
  for (int32_t d = 0; d < x.ndim; ++d) {
    if (reduced[d]) {
      s->count *= x.sizes[d];
      red.push_back({x.sizes[d], {x.strides[d], 0, 0}});
      continue;
    }
    detail::Dim k{x.sizes[d], {x.strides[d], 0, 0}};
    const axle_tensor_view* outs[2] = {out0, out1};
    for (int j = 0; j < 2; ++j)
      if (outs[j]) k.stride[j + 1] = outs[j]->strides[outs[j]->ndim == x.ndim ? d : kept_index];
    s->outputs *= x.sizes[d];
    kept.push_back(k);
    ++kept_index;
  }
  if (s->count == 0) red.clear();
  if (reorder)
    std::stable_sort(red.begin(), red.end(), [](const detail::Dim& a, const detail::Dim& b) {
      return std::llabs(a.stride[0]) > std::llabs(b.stride[0]);
    });
  kept = detail::merge_dims(kept);
  red = detail::merge_dims(red);
  if (kept.size() > static_cast<size_t>(kReduceDims) || red.size() > static_cast<size_t>(kReduceDims)) return false;
  s->nkept = static_cast<int32_t>(kept.size());
  s->nred = static_cast<int32_t>(red.size());
  for (int32_t d = 0; d < s->nkept; ++d) {
    s->kept_sizes[d] = kept[static_cast<size_t>(d)].size;
    for (int j = 0; j < 3; ++j) s->kept_strides[j][d] = kept[static_cast<size_t>(d)].stride[j];
  }
  for (int32_t d = 0; d < s->nred; ++d) {
    s->red_sizes[d] = red[static_cast<size_t>(d)].size;
    s->red_strides[d] = red[static_cast<size_t>(d)].stride[0];
  }
  detail::fill_divs(s);
  return true;
}

// A scan along `dim` of x into y (same sizes): the lines are the outputs of a
// ReduceShape with no reduced dims (kept_strides[0]: x, [1]: y); each line has
// `length` elements `in_step` / `out_step` apart.
struct ScanShape {
  ReduceShape lines;
  int64_t length = 1, in_step = 0, out_step = 0;
};
inline bool make_scan_shape(const axle_tensor_view& x, const axle_tensor_view& y, int64_t dim, ScanShape* s) {
  *s = ScanShape{};
  std::vector<detail::Dim> kept;
  for (int32_t d = 0; d < x.ndim; ++d) {
    if (d == dim) {
      s->length = x.sizes[d];
      s->in_step = x.strides[d];
      s->out_step = y.strides[d];
      continue;
    }
    s->lines.outputs *= x.sizes[d];
    kept.push_back({x.sizes[d], {x.strides[d], y.strides[d], 0}});
  }
  kept = detail::merge_dims(kept);
  if (kept.size() > static_cast<size_t>(kReduceDims)) return false;
  s->lines.nkept = static_cast<int32_t>(kept.size());
  for (int32_t d = 0; d < s->lines.nkept; ++d) {
    s->lines.kept_sizes[d] = kept[static_cast<size_t>(d)].size;
    for (int j = 0; j < 3; ++j) s->lines.kept_strides[j][d] = kept[static_cast<size_t>(d)].stride[j];
  }
  s->lines.count = s->length;
  detail::fill_divs(&s->lines);
  return true;
}

// ---- reduction.cu
enum class ReduceOp : int32_t {
  Sum,   // floating outputs accumulate in float (double with float64), others in wrapping int64
  Mean,  // Sum / count
  Prod,  // as Sum
  Max,   // value; NaN propagates
  Min,
  ArgMax,  // value (optional) and int64 index of the first extreme; the first NaN wins
  ArgMin,
  Var,  // Welford; m2 / max(0, count - param), param the correction
  Std,  // sqrt(Var)
  All,  // 0 / 1 into bool or uint8
  Any,
  CountNonzero,  // int64
  Norm,          // vector p-norm, param = p (0, 1, 2, +-inf or any other)
  LogSumExp      // max + log(sum(exp(x - max))), online
};

struct ReduceCall {
  ReduceOp op = ReduceOp::Sum;
  ReduceShape shape;
  const void* x = nullptr;
  axle_dtype x_dtype = AXLE_DTYPE_FLOAT32;
  void* values = nullptr;  // output 0 (NULL for argmax / argmin)
  axle_dtype values_dtype = AXLE_DTYPE_FLOAT32;
  int64_t* indices = nullptr;  // ArgMax / ArgMin: int64 indices at kept_strides[2]
  double param = 0;
};

// Device scratch bytes launch_reduction needs (0: none). Deterministic: the
// same call gives the same split of the work, hence the same rounding.
size_t reduction_scratch_bytes(const ReduceCall& call);
// Enqueues the reduction (shape.outputs > 0). Returns 0 or a cudaError_t.
int launch_reduction(const ReduceCall& call, void* scratch, void* stream);

// ---- reduction_scan.cu: cumsum / cumprod, accumulating as ReduceOp::Sum / Prod for y's dtype.
struct ScanCall {
  bool product = false;
  ScanShape shape;
  const void* x = nullptr;
  axle_dtype x_dtype = AXLE_DTYPE_FLOAT32;
  void* y = nullptr;
  axle_dtype y_dtype = AXLE_DTYPE_FLOAT32;
};
size_t scan_scratch_bytes(const ScanCall& call);
int launch_scan(const ScanCall& call, void* scratch, void* stream);

}  // namespace axle::cuda
