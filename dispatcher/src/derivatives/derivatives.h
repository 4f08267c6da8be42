// Derivative formulas (vector-Jacobian products) of the built-in ops, by
// family, written with axle ops; each declaration row in ops/<family>.cpp
// names its formula (OpDecl::derivative). See axle/derivative.h.
#pragma once

#include <axle/derivative.h>
#include <axle/ops.h>

#include "../api/op_handle.h"

namespace axle::derivatives {

// Calls an op by name (for ops without a C++ API function).
template <typename... Args>
Tensor call(const OpHandle& op, Args&&... args) {
  return detail::call_one(op, std::forward<Args>(args)...);
}
// A Scalar as a 0-dim tensor for arithmetic with tensors.
Tensor scalar(const Scalar& s);
// Zeros of tensor argument i's shape, dtype and device (a zero gradient).
Tensor zeros_for(const VjpContext& c, size_t i);
// The gradient of a reduction over `dims` (empty: all) of a tensor of `sizes`,
// brought back to `sizes`: unsqueezed where keepdim dropped dims, expanded.
Tensor unreduce(const Tensor& g, const IntList& sizes, IntList dims, bool keepdim);
// torch's sum_to: `g` summed over the dimensions in which `sizes` was
// broadcast to g's shape (leading ones and size-1 ones).
Tensor sum_to(const Tensor& g, const IntList& sizes);
bool expandable_to(const IntList& sizes, const IntList& target);
// The dims of a reduction's `int[1]? dim` argument, wrapped (empty: all).
IntList reduced_dims(const Value& dim, int64_t ndim);

// ---- pointwise
void add(VjpContext& c);
void sub(VjpContext& c);
void mul(VjpContext& c);
void div(VjpContext& c);
void div_mode(VjpContext& c);
void neg(VjpContext& c);
void exp(VjpContext& c);
void exp2(VjpContext& c);
void expm1(VjpContext& c);
void log(VjpContext& c);
void log2(VjpContext& c);
void log10(VjpContext& c);
void log1p(VjpContext& c);
void sqrt(VjpContext& c);
void rsqrt(VjpContext& c);
void reciprocal(VjpContext& c);
void sin(VjpContext& c);
void cos(VjpContext& c);
void tan(VjpContext& c);
void asin(VjpContext& c);
void acos(VjpContext& c);
void atan(VjpContext& c);
void sinh(VjpContext& c);
void cosh(VjpContext& c);
void tanh(VjpContext& c);
void sigmoid(VjpContext& c);
void erf(VjpContext& c);
void erfc(VjpContext& c);
void abs(VjpContext& c);
void zero_self(VjpContext& c);  // piecewise constant: sign, floor, round, ...
void identity(VjpContext& c);   // frac, and ops whose gradient is the incoming one
void square(VjpContext& c);
void relu(VjpContext& c);
void maximum(VjpContext& c);
void minimum(VjpContext& c);
void atan2(VjpContext& c);
void remainder(VjpContext& c);
void fmod(VjpContext& c);
void pow_tensor_scalar(VjpContext& c);
void pow_scalar(VjpContext& c);
void pow_tensor_tensor(VjpContext& c);
void lgamma(VjpContext& c);
void digamma(VjpContext& c);
void polygamma(VjpContext& c);
void erfinv(VjpContext& c);
void i0(VjpContext& c);
void special_i1(VjpContext& c);
void special_i0e(VjpContext& c);
void special_i1e(VjpContext& c);
void special_erfcx(VjpContext& c);
void special_ndtri(VjpContext& c);
void igamma(VjpContext& c);  // other only: torch has no derivative for self
void igammac(VjpContext& c);
void special_zeta(VjpContext& c);  // other only, as torch

// ---- activations
void relu6(VjpContext& c);
void leaky_relu(VjpContext& c);
void elu(VjpContext& c);
void selu(VjpContext& c);
void celu(VjpContext& c);
void gelu(VjpContext& c);
void silu(VjpContext& c);
void mish(VjpContext& c);
void hardtanh(VjpContext& c);
void hardsigmoid(VjpContext& c);
void hardswish(VjpContext& c);
void softplus(VjpContext& c);
void prelu(VjpContext& c);
void glu(VjpContext& c);
void threshold(VjpContext& c);
void threshold_backward(VjpContext& c);
void clamp(VjpContext& c);
void clamp_tensor(VjpContext& c);
void nan_to_num(VjpContext& c);

// ---- reduction
void sum_dim(VjpContext& c);
void mean_dim(VjpContext& c);
void prod(VjpContext& c);
void prod_dim(VjpContext& c);
void amax_amin(VjpContext& c);
void max_min_all(VjpContext& c);
void max_min_dim(VjpContext& c);
void var_correction(VjpContext& c);
void std_correction(VjpContext& c);
void norm_dim(VjpContext& c);
void logsumexp(VjpContext& c);
void cumsum(VjpContext& c);
void cumprod(VjpContext& c);
void topk(VjpContext& c);
void sort(VjpContext& c);
void roll(VjpContext& c);
void repeat(VjpContext& c);
void scatter_src(VjpContext& c);
void scatter_value(VjpContext& c);
void scatter_add(VjpContext& c);
void index_put(VjpContext& c);
void masked_fill_tensor(VjpContext& c);

// ---- blas
void mm(VjpContext& c);
void bmm(VjpContext& c);
void matmul(VjpContext& c);
void addmm(VjpContext& c);
void baddbmm(VjpContext& c);
void dot(VjpContext& c);
void linear(VjpContext& c);

// ---- views and copies
void view(VjpContext& c);
void reshape(VjpContext& c);
void permute(VjpContext& c);
void transpose(VjpContext& c);
void t(VjpContext& c);
void squeeze(VjpContext& c);
void unsqueeze(VjpContext& c);
void expand(VjpContext& c);
void select(VjpContext& c);
void flip(VjpContext& c);
void tril(VjpContext& c);
void triu(VjpContext& c);
void cat(VjpContext& c);
void stack(VjpContext& c);
void copy_(VjpContext& c);
void clone(VjpContext& c);
void to_copy(VjpContext& c);

// ---- nn and indexing
void softmax(VjpContext& c);
void log_softmax(VjpContext& c);
void layer_norm(VjpContext& c);
void rms_norm(VjpContext& c);
void fused_lstm_cell(VjpContext& c);
void fused_gru_cell(VjpContext& c);
void where(VjpContext& c);
void masked_fill(VjpContext& c);
void index_select(VjpContext& c);
void gather(VjpContext& c);
void embedding(VjpContext& c);
void index(VjpContext& c);
void batch_norm(VjpContext& c);
void batch_norm_no_stats(VjpContext& c);
void batch_norm_legit(VjpContext& c);
void group_norm(VjpContext& c);
void upsample_nearest2d(VjpContext& c);
void upsample_bilinear2d(VjpContext& c);
void pad(VjpContext& c);

// ---- convolution and pooling (each calls its declared backward op)
void convolution(VjpContext& c);
void max_pool2d_with_indices(VjpContext& c);
void avg_pool2d(VjpContext& c);
void adaptive_avg_pool2d(VjpContext& c);
void adaptive_max_pool2d(VjpContext& c);
void max_pool3d_with_indices(VjpContext& c);
void avg_pool3d(VjpContext& c);
void adaptive_avg_pool3d(VjpContext& c);
void adaptive_max_pool3d(VjpContext& c);
void grid_sampler_2d(VjpContext& c);
void grid_sampler_3d(VjpContext& c);

// ---- linalg
void linalg_lu_factor_ex(VjpContext& c);
void lu_unpack(VjpContext& c);
void linalg_solve_triangular(VjpContext& c);
void linalg_cholesky_ex(VjpContext& c);
void linalg_qr(VjpContext& c);
void linalg_eigh(VjpContext& c);
void linalg_svd(VjpContext& c);
void linalg_pinv(VjpContext& c);
void linalg_det(VjpContext& c);

}  // namespace axle::derivatives
