// Element-wise comparison of two tensors on the host: the one rule behind
// axle::equal / axle::allclose, the conformance kit's checks and the parity
// finder. Values are compared as float64 (int64 when neither tensor is
// floating point, so large integers compare exactly).
#pragma once

#include <axle/export.h>
#include <axle/tensor.h>

#include <cstdint>
#include <string>

namespace axle {

// Two elements a (actual) and e (expected) match when both are NaN and
// equal_nan is set, when a == e (equal infinities included), or when both are
// finite and |a - e| <= atol + rtol * |e|. rtol = atol = 0 means exact.
struct Tolerance {
  double rtol = 0;
  double atol = 0;
  bool equal_nan = true;
};

struct AXLE_API Comparison {
  std::string mismatch;   // why the tensors are not comparable (shape or dtype); empty when they are
  int64_t numel = 0;      // elements compared
  int64_t differing = 0;  // elements that do not match
  int64_t first = -1;     // flat index of the first that does not
  double first_actual = 0, first_expected = 0;
  double max_abs = 0, max_rel = 0;  // largest errors over the pairs of finite values
  bool matches() const { return mismatch.empty() && differing == 0; }
  // "3 of 10 elements differ (first at flat index 2: 1.5 vs 1.25)", or the mismatch; empty on a match.
  std::string describe() const;
};

// Copies both tensors to the host (any device, dtype, layout). check_dtype:
// tensors of different dtypes are a mismatch, else both are compared as
// float64. Sizes must be equal. Thread-safe; throws what the copies throw.
AXLE_API Comparison compare(const Tensor& actual, const Tensor& expected, const Tolerance& tolerance,
                            bool check_dtype = true);

}  // namespace axle
