// The CUDA plugin's kernels (one family per file) and its device runtime.
#pragma once

#include <axle/plugin/helpers.hpp>

#include <cstdint>

namespace axle::cuda {

using plugin::KernelEntry;

const axle_device_interface* device_interface();

axle_status register_elementwise(const axle_registrar* r);  // elementwise.cpp (+ elementwise.cu)
axle_status register_blas(const axle_registrar* r);         // blas.cpp
axle_status register_conv_pool(const axle_registrar* r);    // conv_pool.cpp (cuDNN; + cudnn_util.cpp)
axle_status register_norms(const axle_registrar* r);        // norms.cpp (+ norms.cu)
axle_status register_gather(const axle_registrar* r);       // gather.cpp (+ gather.cu)
axle_status register_reduce(const axle_registrar* r);       // reduce.cpp (+ reduce.cu)
axle_status register_random(const axle_registrar* r);       // random.cpp (+ random.cu)

// ---- launchers implemented in elementwise.cu (host functions)
constexpr int kMaxDims = 12;
// Byte strides of up to three operands aligned to the output's dims (0 for a
// broadcast dim). Dims are not collapsed yet: each element pays one div/mod per dim.
struct Indexing {
  int32_t ndim = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[3][kMaxDims] = {};
};
enum class Compute : int32_t { Float, Double, Int64 };
enum class Op : int32_t {
  Copy, Fill, Add, Sub, Mul, Div, Neg, Relu, Exp, Log, Sqrt, Abs, Sigmoid, Tanh, Sin, Cos
};
struct Operand {
  void* data = nullptr;
  axle_dtype dtype = AXLE_DTYPE_FLOAT32;
};
// out = op(a [, b]) elementwise over `n` elements; `alpha` scales b (add/sub) or
// is the fill value. Returns a cudaError_t as int (0: success).
int launch_elementwise(Op op, Compute compute, const Indexing& ix, int64_t n, Operand out, Operand a, Operand b,
                       double alpha, void* stream);

// ---- launchers implemented in norms.cu (contiguous tensors; 0 or a cudaError_t)
// softmax over `cols` elements with stride `inner`, for outer x inner slices.
int launch_softmax(axle_dtype in_dt, axle_dtype out_dt, const void* x, void* y, int64_t outer, int64_t cols,
                   int64_t inner, bool log, void* stream);
// layer_norm (rms = false; w, b may be NULL) or rms_norm (b unused) over rows of `cols`.
int launch_norm(bool rms, axle_dtype dt, const void* x, const void* w, const void* b, void* y, int64_t rows,
                int64_t cols, double eps, void* stream);

// ---- launchers implemented in reduce.cu: x seen as (outer, cols, inner),
// reduced over cols into y (outer x inner). 0 or a cudaError_t.
enum class ReduceKind : int32_t { Sum, Mean, Max, Min };
int launch_reduce(ReduceKind kind, axle_dtype in_dt, axle_dtype out_dt, const void* x, void* y, int64_t outer,
                  int64_t cols, int64_t inner, void* stream);

// ---- launchers implemented in gather.cu (contiguous tensors; 0 or a cudaError_t)
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
