// Pooling windows as torch computes them, shared by every implementation of
// the pooling ops and their gradients (a plugin's kernels, the core's
// composites): header-only, no dependencies beyond the standard library.
#pragma once

#include <algorithm>
#include <cstdint>

namespace axle::plugin {

// avg_pool's window along one dimension for output index `o`: [begin, end)
// clipped to the input, and `padded`, its length counting the padding (cut at
// the padded end), the size count_include_pad divides by.
struct PoolWindow {
  int64_t begin, end, padded;
  int64_t size() const { return end - begin; }
};
inline PoolWindow avg_pool_window(int64_t o, int64_t stride, int64_t pad, int64_t kernel, int64_t in) {
  const int64_t start = o * stride - pad;
  const int64_t stop = std::min(start + kernel, in + pad);
  return {std::max<int64_t>(start, 0), std::min(stop, in), stop - start};
}
// torch's divisor of one avg_pool2d output without divisor_override (which
// replaces it when given): the window's size with the padding
// (count_include_pad) or without.
inline int64_t avg_pool_divisor(const PoolWindow& h, const PoolWindow& w, bool include_pad) {
  return include_pad ? h.padded * w.padded : h.size() * w.size();
}
// The same for avg_pool3d's windows along depth, height and width.
inline int64_t avg_pool3d_divisor(const PoolWindow& d, const PoolWindow& h, const PoolWindow& w, bool include_pad) {
  return include_pad ? d.padded * h.padded * w.padded : d.size() * h.size() * w.size();
}

}  // namespace axle::plugin
