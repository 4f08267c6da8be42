// What the linalg family's shape functions, composites and derivative
// formulas share: torch's argument checks (in its words, after the op's name)
// and small matrix helpers written with axle ops (device-agnostic and
// differentiable).
#pragma once

#include "../api/op_handle.h"
#include "shape_util.h"

#include <axle/ops.h>

#include <string>

namespace axle::linalg {

inline Tensor mT(const Tensor& t) { return transpose(t, -2, -1); }

// The n x n identity of t's dtype and device.
inline Tensor eye_like(const Tensor& t, int64_t n) {
  return detail::call_one(AXLE_OP("eye"), n, Value(t.dtype()), Value(t.device()));
}

// The main diagonals of a batch of square matrices, [..., n] (a product with
// the identity summed: differentiable through ops that record themselves).
inline Tensor diagonal(const Tensor& a) {
  const int64_t n = a.size(-1);
  return sum(a * eye_like(a, n), {-1});
}

// [..., n] -> [..., n, n] with v on the diagonal.
inline Tensor diag_embed(const Tensor& v) { return unsqueeze(v, -1) * eye_like(v, v.size(-1)); }

inline void check_at_least_2d(const char* op, const Tensor& t, const char* name = "A") {
  AXLE_CHECK(t.dim() >= 2, ShapeError, op, ": The input tensor ", name, " must have at least 2 dimensions.");
}

inline void check_square(const char* op, const Tensor& t, const char* name = "A") {
  check_at_least_2d(op, t, name);
  AXLE_CHECK(t.size(-1) == t.size(-2), ShapeError, op, ": ", name, " must be batches of square matrices, but they are ",
             t.size(-2), " by ", t.size(-1), " matrices");
}

// torch's kernel-dispatch error for dtypes its LAPACK path lacks ("lu_cpu").
inline void check_lapack_dtype(const char* op, const char* kernel, DType d) {
  AXLE_CHECK(d == kFloat32 || d == kFloat64, DTypeError, op, ": \"", kernel, "\" not implemented for '",
             torch_type_name(d), "'");
}

// torch's linalg_solve_is_vector_rhs: B is a vector (or a batch of them).
inline bool vector_rhs(const Tensor& a, const Tensor& b) {
  if (b.dim() == 1) return true;
  return b.dim() == a.dim() - 1 && IntList(b.sizes()) == IntList(a.sizes().begin(), a.sizes().end() - 1);
}

// float32 and float64 (torch's CPU linalg also takes complex, which axle lacks).
inline void check_float(const char* op, const Tensor& t) {
  AXLE_CHECK(t.dtype() != kFloat16 && t.dtype() != kBFloat16, DTypeError, op,
             ": Low precision dtypes not supported. Got ", torch_type_name(t.dtype()));
  AXLE_CHECK(t.dtype() == kFloat32 || t.dtype() == kFloat64, DTypeError, op,
             ": Expected a floating point or complex tensor as input. Got ", torch_type_name(t.dtype()));
}

// The leading (batch) sizes of a [..., r, c] tensor.
inline IntList batch_sizes(const Tensor& t, int64_t core = 2) {
  return IntList(t.sizes().begin(), t.sizes().end() - core);
}

// info (int32, any shape) on the host: the first non-zero entry's flat index
// and value, or {-1, 0} when every entry is zero.
inline std::pair<int64_t, int64_t> first_failure(const Tensor& info) {
  const Tensor host = info.cpu().contiguous();
  const int32_t* p = host.data_ptr<int32_t>();
  for (int64_t i = 0; i < host.numel(); ++i)
    if (p[i] != 0) return {i, p[i]};
  return {-1, 0};
}

// "(Batch element 3): " where the input is batched (torch's prefix), else "".
inline std::string batch_prefix(const Tensor& a, int64_t index) {
  return a.dim() > 2 ? "(Batch element " + std::to_string(index) + "): " : "";
}

}  // namespace axle::linalg
