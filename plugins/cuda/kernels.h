// The CUDA plugin's kernels (one op family per file, or a named piece of one:
// <family>_<piece>.cpp/.cu) and its device runtime.
#pragma once

#include <axle/plugin/helpers.hpp>

#include "allocator.h"
#include "fast_div.h"

#include <cstdint>

namespace axle::cuda {

using plugin::KernelEntry;

const axle_device_interface* device_interface();

axle_status register_pointwise(const axle_registrar* r);  // pointwise.cpp (+ pointwise.cu)
axle_status register_blas(const axle_registrar* r);       // blas.cpp
axle_status register_conv_pool(const axle_registrar* r);  // conv_pool.cpp (cuDNN; + cudnn_util.cpp, pool.cu)
axle_status register_nn(const axle_registrar* r);         // nn.cpp (+ nn.cu)
axle_status register_indexing(const axle_registrar* r);   // indexing.cpp (+ indexing.cu)
axle_status register_reduction(const axle_registrar* r);  // reduction.cpp (+ reduction.cu, reduction_scan.cu)
axle_status register_random(const axle_registrar* r);     // random.cpp (+ random.cu)

// ---- launchers implemented in pointwise.cu (host functions)
constexpr int kMaxDims = 12;
constexpr int kMaxOperands = 4;  // the output and up to three inputs
// Byte strides of the output (operand 0) and up to three inputs aligned to the
// output's dims (0 for a broadcast dim or an absent input). launch_pointwise
// collapses them first (collapse_dims), so a contiguous or simply broadcast call
// runs with 1-2 dims and pays at most one division per dim beyond the first.
struct Indexing {
  int32_t ndim = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[kMaxOperands][kMaxDims] = {};
};
// In place, for a call with at least one element: drops size-1 dims, orders the
// rest by the output's strides (largest outermost; ties keep their order), then
// merges dim d into d + 1 wherever strides[k][d] == strides[k][d + 1] * sizes[d + 1]
// for every operand k < noperands. The same (output, inputs) element tuples are
// visited, in another order. Implemented in pointwise_dims.cpp.
void collapse_dims(Indexing* ix, int noperands);

// The same indexing with a fast_div divisor per dim (fewer than 2^31 elements).
struct Index32 {
  int32_t ndim = 0;
  FastDiv div[kMaxDims];
  int64_t strides[kMaxOperands][kMaxDims] = {};
};
inline Index32 make_index32(const Indexing& ix) {
  Index32 r;
  r.ndim = ix.ndim;
  for (int32_t d = 0; d < ix.ndim; ++d) {
    r.div[d] = make_fast_div(static_cast<uint32_t>(ix.sizes[d]));
    for (int k = 0; k < kMaxOperands; ++k) r.strides[k][d] = ix.strides[k][d];
  }
  return r;
}

// Byte offset per operand of element i (row-major over the dims): what the
// strided kernels compute per element, on the host too (tests).
AXLE_PLUGIN_HOST_DEVICE inline void offsets(const Index32& ix, int64_t i, int64_t (&off)[kMaxOperands]) {
  uint32_t rest = static_cast<uint32_t>(i);
  for (int k = 0; k < kMaxOperands; ++k) off[k] = 0;
  for (int32_t d = ix.ndim - 1; d > 0; --d) {
    const uint32_t q = fast_div(ix.div[d], rest);
    const int64_t idx = rest - q * ix.div[d].divisor;
    rest = q;
    for (int k = 0; k < kMaxOperands; ++k) off[k] += idx * ix.strides[k][d];
  }
  if (ix.ndim > 0)
    for (int k = 0; k < kMaxOperands; ++k) off[k] += static_cast<int64_t>(rest) * ix.strides[k][0];
}
AXLE_PLUGIN_HOST_DEVICE inline void offsets(const Indexing& ix, int64_t i, int64_t (&off)[kMaxOperands]) {
  int64_t rest = i;
  for (int k = 0; k < kMaxOperands; ++k) off[k] = 0;
  for (int32_t d = ix.ndim - 1; d > 0; --d) {
    const int64_t q = rest / ix.sizes[d];
    const int64_t idx = rest - q * ix.sizes[d];
    rest = q;
    for (int k = 0; k < kMaxOperands; ++k) off[k] += idx * ix.strides[k][d];
  }
  if (ix.ndim > 0)
    for (int k = 0; k < kMaxOperands; ++k) off[k] += rest * ix.strides[k][0];
}

enum class Compute : int32_t { Float, Double, Int64 };
enum class Op : int32_t {
  Copy,
  Fill,
  Add,
  Sub,
  Mul,
  Div,
  Neg,
  Relu,
  Exp,
  Log,
  Sqrt,
  Abs,
  Sigmoid,
  Tanh,
  Sin,
  Cos,
  // binary (a, b)
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  Maximum,
  Minimum,
  Atan2,
  Remainder,
  Fmod,
  Pow,
  LogicalAnd,
  LogicalOr,
  LogicalXor,
  BitwiseAnd,
  BitwiseOr,
  BitwiseXor,
  // ternary: where(cond a, b, c); clamp(a, lo b, hi c) with i[0] bit 0 / bit 1 = lo / hi present
  Where,
  ClampTensor,
  // unary
  Exp2,
  Expm1,
  Log2,
  Log10,
  Log1p,
  Rsqrt,
  Reciprocal,
  Tan,
  Asin,
  Acos,
  Atan,
  Sinh,
  Cosh,
  Erf,
  Erfc,
  Sign,
  Floor,
  Ceil,
  Trunc,
  Round,
  Frac,
  Square,
  IsNan,
  IsInf,
  IsFinite,
  LogicalNot,
  BitwiseNot,
  // unary with scalars (f: floating forms, i: integer forms; see pointwise.cu)
  Gelu,
  GeluTanh,
  Silu,
  Mish,
  LeakyRelu,
  Elu,
  Hardsigmoid,
  Hardswish,
  Softplus,
  Clamp,
  Threshold,
  NanToNum,
  PowTensorScalar,
  PowScalarTensor
};
// An operand in device memory, or (by_value) one element passed in the
// kernel's arguments: a host scalar (AXLE_VIEW_HOST_SCALAR), never uploaded.
struct Operand {
  void* data = nullptr;
  axle_dtype dtype = AXLE_DTYPE_FLOAT32;
  bool by_value = false;
  alignas(8) unsigned char value[8] = {};  // by_value: the element's bytes in `dtype`
};
// An op's scalar arguments: f for floating compute, i for Int64 compute.
struct OpScalars {
  double f[3] = {};
  int64_t i[2] = {};
};
// out = op(in[0], in[1], in[2]) elementwise over `n` elements (inputs with NULL
// data are absent). With Compute::Float and a 16-bit float output, inputs of
// another dtype are first rounded to it (as torch casts to the common dtype).
// Returns a cudaError_t as int (0: success).
int launch_pointwise(Op op, Compute compute, const Indexing& ix, int64_t n, Operand out, const Operand (&in)[3],
                     const OpScalars& scalars, void* stream);
// The compute type of an op whose inputs are converted to the output's dtype.
inline Compute compute_for(axle_dtype out) {
  return out == AXLE_DTYPE_FLOAT64 ? Compute::Double : plugin::is_floating(out) ? Compute::Float : Compute::Int64;
}

// ---- pointwise.cpp: helpers of other families' kernels.
// A dense row-major copy of a view, in scratch memory on the call's stream (freed with the DenseCopy; work queued
// before then may use it), for operands a library cannot describe: cuBLAS (a broadcast or overlapping matrix, such as
// sum()'s expanded gradient) and cuDNN's filter descriptor (no strides: the transposed gradient convolution_backward's
// composite passes as a weight). `view` is the copy, with the view's sizes.
struct DenseCopy {
  Scratch memory;
  int64_t strides[kMaxDims] = {};
  axle_tensor_view view{};
};
// channels_last: channels (dim 1) innermost instead (the NHWC layout of a 3-d or more view).
axle_status dense_copy(const axle_kernel_call* c, const axle_tensor_view& v, DenseCopy* d, bool channels_last = false);
// out += scale * src, src's dims right-aligned to out's and broadcast where
// they are 1 (the caller's shape function checked torch's expand rules): a
// bias or addmm's beta * self. `what` names the call in an error.
axle_status add_broadcast(const axle_kernel_call* c, const axle_tensor_view& out, const axle_tensor_view& src,
                          double scale, const char* what);
// ---- reduction.cpp: out = the sum of x over the dims flagged in `reduced` (x.ndim flags; out has x's
// other dims, in order): convolution_backward's bias gradient.
axle_status sum_over(const axle_kernel_call* c, const axle_tensor_view& x, const bool* reduced,
                     const axle_tensor_view& out);

// ---- launchers implemented in nn.cu (contiguous tensors; 0 or a cudaError_t)
// softmax over `cols` elements with stride `inner`, for outer x inner slices.
int launch_softmax(axle_dtype in_dt, axle_dtype out_dt, const void* x, void* y, int64_t outer, int64_t cols,
                   int64_t inner, bool log, void* stream);
// _softmax_backward_data (log = false) / _log_softmax_backward_data (log = true): g and y of dtype `dt`, gx of out_dt.
int launch_softmax_backward(axle_dtype dt, axle_dtype out_dt, const void* g, const void* y, void* gx, int64_t outer,
                            int64_t cols, int64_t inner, bool log, void* stream);
// native_layer_norm_backward over rows of `cols`: mean / rstd (one per row) may be NULL (recomputed with eps), w
// NULL (ones); gx, gw, gb NULL where not wanted. Needs layer_norm_backward_scratch bytes of device scratch.
struct LayerNormBackward {
  const void *g = nullptr, *x = nullptr, *w = nullptr, *mean = nullptr, *rstd = nullptr;
  void *gx = nullptr, *gw = nullptr, *gb = nullptr;
  int64_t rows = 0, cols = 0;
  double eps = 1e-5;
};
size_t layer_norm_backward_scratch(axle_dtype dt, int64_t rows);
int launch_layer_norm_backward(axle_dtype dt, const LayerNormBackward& p, void* scratch, void* stream);
// layer_norm (rms = false; w, b may be NULL) or rms_norm (b unused) over rows of `cols`.
int launch_norm(bool rms, axle_dtype dt, const void* x, const void* w, const void* b, void* y, int64_t rows,
                int64_t cols, double eps, void* stream);

// ---- launchers of reduction.cu and reduction_scan.cu: reduction_kernels.h

// ---- launcher implemented in pool.cu (any strides, in elements; 0 or a cudaError_t)
struct MaxPool2d {
  int64_t n = 1, c = 1, in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t kernel[2] = {1, 1}, stride[2] = {1, 1}, pad[2] = {0, 0}, dilation[2] = {1, 1};
  int64_t in_stride[4] = {}, out_stride[4] = {}, index_stride[4] = {};  // n, c, h, w
};
// y (and indices, unless NULL) = the window maxima of x, as max_pool2d_with_indices.
int launch_max_pool2d(axle_dtype dt, const void* x, void* y, int64_t* indices, const MaxPool2d& p, void* stream);
// *bad = 1 (set to 0 first by the caller) when an index is not the position of an element of its output's
// window; p's in_* describe the input gradient, out_* grad_output, index_* the indices.
int launch_max_pool2d_check_indices(const int64_t* indices, const MaxPool2d& p, int* bad, void* stream);
// gx = max_pool2d_with_indices_backward(gy, indices) for indices that passed the check.
int launch_max_pool2d_backward(axle_dtype dt, const void* gy, const int64_t* indices, void* gx, const MaxPool2d& p,
                               void* stream);

// ---- launchers implemented in indexing.cu (contiguous tensors; 0 or a cudaError_t)
// out_device[0] = min, out_device[1] = max of n int32 / int64 indices (enqueued).
int launch_index_min_max(const void* idx, bool i32, int64_t n, long long* out_device, void* stream);
int launch_index_select(size_t esize, const void* self, const void* idx, bool i32, void* out, int64_t outer,
                        int64_t n_self, int64_t n_idx, int64_t inner, void* stream);
struct GatherShape {
  int32_t ndim = 0;
  int32_t dim = 0;
  int64_t index_sizes[kMaxDims] = {};
  int64_t self_strides[kMaxDims] = {};  // in elements
};
int launch_gather(size_t esize, const void* self, const void* idx, bool i32, void* out, const GatherShape& shape,
                  int64_t n, void* stream);

}  // namespace axle::cuda
