// What the linalg family's sample files share (linalg.cpp, linalg_decomp.cpp):
// well-conditioned, positive-definite and triangular-friendly matrices in any
// layout, for samples that the float64 gradient suite differentiates.
#pragma once

#include "samples.h"

namespace axle::conformance::linalg_samples_util {

inline const Layout C = Layout::Contiguous, T = Layout::Transposed, S = Layout::Stepped, E = Layout::Expanded,
                    O = Layout::Offset;
inline const std::vector<DType> kLinalgDTypes = {kFloat32, kFloat64};
// float32: torch rounds each step, axle computes in double and rounds once.
inline constexpr double kScale = 20;

// The m x n identity (eye.m) of the dtype and device under test.
inline Tensor identity(SampleContext& c, int64_t m, int64_t n) {
  return call_op("eye.m", {m, n, c.dtype(), c.device()})[0].tensor();
}

// `values` laid out as `layout` (Expanded: its first batch element repeated).
inline Tensor as_layout(SampleContext& c, const Tensor& values, Layout layout) {
  if (layout == E) return narrow(values, 0, 0, 1).expand(values.sizes());
  Tensor t = c.make(values.sizes(), layout);
  t.copy_(values);
  return t;
}

// A well-conditioned [..., n, n] batch: uniform [-1, 1] plus 2n times the
// anti-diagonal identity (LU pivots; the determinant's sign varies).
inline Tensor well(SampleContext& c, const IntList& sizes, Layout layout = C) {
  const int64_t n = sizes.back();
  const Tensor r = c.make(sizes, C, {}, -1, 1);
  const Tensor p = flip(identity(c, n, n), {-1});
  return as_layout(c, r + p * static_cast<double>(2 * n), layout);
}

// Diagonally dominant: uniform [-1, 1] plus 2n I (both triangles well-conditioned).
inline Tensor tri(SampleContext& c, const IntList& sizes, Layout layout = C) {
  const int64_t n = sizes.back();
  return as_layout(c, c.make(sizes, C, {}, -1, 1) + identity(c, n, n) * static_cast<double>(2 * n), layout);
}

// A rectangular [..., m, n] batch whose LU needs pivoting and has no small pivots.
inline Tensor rect(SampleContext& c, const IntList& sizes, Layout layout = C) {
  const int64_t m = sizes[sizes.size() - 2], n = sizes.back();
  const Tensor r = c.make(sizes, C, {}, -1, 1);
  const Tensor p = flip(identity(c, m, n), {-2});
  return as_layout(c, r + p * static_cast<double>(2 * std::max(m, n)), layout);
}

// Symmetric positive-definite: R R^T + n I.
inline Tensor spd(SampleContext& c, const IntList& sizes, Layout layout = C) {
  const int64_t n = sizes.back();
  const Tensor r = c.make(sizes, C, {}, -1, 1);
  const Tensor a = matmul(r, r.transpose(-1, -2)) + identity(c, n, n) * static_cast<double>(n);
  return as_layout(c, a, layout);
}

inline DType other(const SampleContext& c) { return c.dtype() == kFloat32 ? kFloat64 : kFloat32; }

}  // namespace axle::conformance::linalg_samples_util
