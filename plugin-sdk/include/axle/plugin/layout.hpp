// Layout metadata every device kernel needs, computed from axle_tensor_view
// metadata only (ndim, sizes, strides): the data pointers are never read, so
// these serve devices whose memory the host cannot dereference (OpenCL, Vulkan,
// a private arena) as well as host-addressable ones. A kernel computes them on
// the host and passes the result to its device code.
//   - broadcast_strides: an operand's element strides aligned to the output's
//     shape (right-aligned; size-1 and missing dims get stride 0);
//   - coalesce_dims: the fewest dims that visit the same elements, for N
//     operands (size-1 dims dropped, adjacent dims merged where every operand
//     steps contiguously across them), as PyTorch's TensorIterator coalesces;
//   - contiguous_same_shape: the fast-path test (every operand row-major
//     contiguous with the same sizes: flat arrays of numel elements).
// Every function checks ranks against kMaxDims and returns false rather
// than overflow its fixed arrays. Depends on axle_plugin.h and the C++
// standard library only.
#pragma once

#include <axle/plugin/axle_plugin.h>

#include <array>
#include <cstddef>
#include <cstdint>

namespace axle::plugin {

// The largest rank the SDK's helpers accept: these and helpers.hpp's loops
// (axle's kMaxTensorDims).
constexpr int kMaxDims = 64;

// Element strides of `v` aligned to the shape (ndim, sizes) it broadcasts to:
// v's dims are right-aligned with the shape's; a dim v lacks or where v has
// size 1 gets stride 0. Writes ndim values to out_strides. False (out_strides
// unspecified) when ndim or v's rank is negative or above kMaxDims, v has
// more dims than the shape, or one of v's sizes is neither 1 nor the shape's.
inline bool broadcast_strides(const axle_tensor_view& v, int32_t ndim, const int64_t* sizes, int64_t* out_strides) {
  if (ndim < 0 || ndim > kMaxDims || v.ndim < 0 || v.ndim > ndim) return false;
  const int32_t lead = ndim - v.ndim;
  for (int32_t d = 0; d < ndim; ++d) {
    const int32_t vd = d - lead;
    if (vd < 0) {
      out_strides[d] = 0;
    } else if (v.sizes[vd] == 1) {
      out_strides[d] = 0;
    } else if (v.sizes[vd] == sizes[d]) {
      out_strides[d] = v.strides[vd];
    } else {
      return false;
    }
  }
  return true;
}

// The iteration space of N operands over one shape after coalesce_dims:
// operand k's element at index (i_0, ..., i_{ndim-1}) of `sizes` is at element
// offset sum(i_d * strides[k][d]) from its view's data. ndim 0 means one
// element (every offset 0).
template <size_t N>
struct CoalescedLayout {
  static_assert(N > 0, "at least one operand");
  int32_t ndim = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[N][kMaxDims] = {};

  int64_t numel() const {
    int64_t n = 1;
    for (int32_t d = 0; d < ndim; ++d) n *= sizes[d];
    return n;
  }
};

// Coalesces the shape (ndim, sizes) and the N operands viewed over it (each
// broadcast to it as broadcast_strides does; usually the output first, then the
// inputs) into the fewest dims visiting the same element offsets in the same
// row-major order: dims of size 1 are dropped, and a dim merges with the next
// inner one when every operand's stride there equals its inner stride times the
// inner size. Dims are not reordered. A shape with no elements becomes one dim
// of size 0; a shape of one element ndim 0. False (out unspecified) when ndim
// is negative or above kMaxDims, or an operand does not broadcast to the
// shape.
template <size_t N>
inline bool coalesce_dims(int32_t ndim, const int64_t* sizes, const std::array<const axle_tensor_view*, N>& operands,
                          CoalescedLayout<N>* out) {
  if (ndim < 0 || ndim > kMaxDims || out == nullptr) return false;
  int64_t strides[N][kMaxDims];
  for (size_t k = 0; k < N; ++k)
    if (operands[k] == nullptr || !broadcast_strides(*operands[k], ndim, sizes, strides[k])) return false;
  out->ndim = 0;
  for (int32_t d = 0; d < ndim; ++d) {
    if (sizes[d] < 0) return false;
    if (sizes[d] == 0) {  // nothing to visit
      out->ndim = 1;
      out->sizes[0] = 0;
      for (size_t k = 0; k < N; ++k) out->strides[k][0] = 0;
      return true;
    }
  }
  // From the innermost dim outwards, collected innermost first then reversed.
  int32_t n = 0;
  for (int32_t d = ndim - 1; d >= 0; --d) {
    if (sizes[d] == 1) continue;
    bool merge = n > 0;
    for (size_t k = 0; k < N && merge; ++k) merge = strides[k][d] == out->strides[k][n - 1] * out->sizes[n - 1];
    if (merge) {
      out->sizes[n - 1] *= sizes[d];
      continue;
    }
    out->sizes[n] = sizes[d];
    for (size_t k = 0; k < N; ++k) out->strides[k][n] = strides[k][d];
    ++n;
  }
  for (int32_t i = 0, j = n - 1; i < j; ++i, --j) {
    const int64_t s = out->sizes[i];
    out->sizes[i] = out->sizes[j];
    out->sizes[j] = s;
    for (size_t k = 0; k < N; ++k) {
      const int64_t t = out->strides[k][i];
      out->strides[k][i] = out->strides[k][j];
      out->strides[k][j] = t;
    }
  }
  out->ndim = n;
  return true;
}

// The same over the shape of operands[0] (the output, for a kernel's
// `{&call->outputs[0], &arg_tensor(call, 0), ...}`).
template <size_t N>
inline bool coalesce_dims(const std::array<const axle_tensor_view*, N>& operands, CoalescedLayout<N>* out) {
  static_assert(N > 0, "the shape is operands[0]'s");
  if (operands[0] == nullptr) return false;
  return coalesce_dims<N>(operands[0]->ndim, operands[0]->sizes, operands, out);
}

// The fast path: true when every operand has exactly operands[0]'s sizes (no
// broadcasting) and is row-major contiguous (a dim of size 1 may have any
// stride; a view with no elements counts as contiguous), so a kernel may treat
// each as a flat array of numel elements. False for a rank that is negative or
// above kMaxDims.
template <size_t N>
inline bool contiguous_same_shape(const std::array<const axle_tensor_view*, N>& operands) {
  static_assert(N > 0, "the shape is operands[0]'s");
  if (operands[0] == nullptr) return false;
  const int32_t ndim = operands[0]->ndim;
  if (ndim < 0 || ndim > kMaxDims) return false;
  bool empty = false;
  for (int32_t d = 0; d < ndim; ++d) empty = empty || operands[0]->sizes[d] == 0;
  for (const axle_tensor_view* v : operands) {
    if (v == nullptr || v->ndim != ndim) return false;
    for (int32_t d = 0; d < ndim; ++d)
      if (v->sizes[d] != operands[0]->sizes[d]) return false;
    if (empty) continue;
    int64_t expected = 1;
    for (int32_t d = ndim - 1; d >= 0; --d) {
      if (v->sizes[d] != 1 && v->strides[d] != expected) return false;
      expected *= v->sizes[d];
    }
  }
  return true;
}

}  // namespace axle::plugin
