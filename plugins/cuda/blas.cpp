// mm / bmm / matmul (2-D and batched 3-D) on cuBLAS: cublasGemmEx and
// cublasGemmStridedBatchedEx, float32 (compute type from the matmul_precision
// setting, as torch.set_float32_matmul_precision: "highest" FP32, "high" TF32,
// "medium" BF16), float64, float16 and bfloat16 (FP32 accumulate).
// Row-major axle matrices are column-major transposes for cuBLAS: C = A B is
// computed as C^T = B^T A^T. Operands whose last two dims are neither row- nor
// column-contiguous, and outputs that are not contiguous, are declined.
#include "cuda_util.h"
#include "kernels.h"

#include <cublas_api.h>
#include <cublas_v2.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <string>

namespace axle::cuda {
namespace {

using plugin::arg_tensor;

axle_status check_cublas(cublasStatus_t s, const char* what, const axle_kernel_call* c) {
  if (s == CUBLAS_STATUS_SUCCESS) return AXLE_OK;
  const std::string msg = std::string(what) + ": " + cublasGetStatusName(s) + ": " + cublasGetStatusString(s);
  set_last_error(msg);
  return plugin::fail(c, s == CUBLAS_STATUS_ALLOC_FAILED ? AXLE_ERROR_OUT_OF_MEMORY : AXLE_ERROR_DEVICE, msg);
}

// One handle per (thread, device): cuBLAS handles are not meant to be shared
// across threads that set different streams.
cublasHandle_t handle(int device, const axle_kernel_call* c, axle_status* status) {
  thread_local std::map<int, cublasHandle_t> handles;
  auto it = handles.find(device);
  if (it != handles.end()) return it->second;
  cublasHandle_t h = nullptr;
  *status = check_cublas(cublasCreate(&h), "cublasCreate", c);
  if (*status != AXLE_OK) return nullptr;
  handles[device] = h;
  return h;
}

// float32's compute type for the configured matmul precision.
cublasComputeType_t float32_compute(const axle_kernel_call* c) {
  if (plugin::option_is(c, "matmul_precision", "\"high\"")) return CUBLAS_COMPUTE_32F_FAST_TF32;
  if (plugin::option_is(c, "matmul_precision", "\"medium\"")) return CUBLAS_COMPUTE_32F_FAST_16BF;
  return CUBLAS_COMPUTE_32F;
}

bool types(const axle_kernel_call* c, axle_dtype d, cudaDataType_t* t, cublasComputeType_t* compute) {
  switch (d) {
    case AXLE_DTYPE_FLOAT32: *t = CUDA_R_32F, *compute = float32_compute(c); return true;
    case AXLE_DTYPE_FLOAT64: *t = CUDA_R_64F, *compute = CUBLAS_COMPUTE_64F; return true;
    case AXLE_DTYPE_FLOAT16: *t = CUDA_R_16F, *compute = CUBLAS_COMPUTE_32F; return true;
    case AXLE_DTYPE_BFLOAT16: *t = CUDA_R_16BF, *compute = CUBLAS_COMPUTE_32F; return true;
    default: return false;
  }
}

// A matrix view (the last two dims) as cuBLAS sees it: `trans` when it is
// column-contiguous (a transposed row-major matrix), with its leading dimension.
struct Mat {
  bool ok = false, trans = false;
  int64_t ld = 0;
};
Mat matrix(const axle_tensor_view& v) {
  const int64_t rows = v.sizes[v.ndim - 2], cols = v.sizes[v.ndim - 1];
  const int64_t rs = v.strides[v.ndim - 2], cs = v.strides[v.ndim - 1];
  // A leading dimension must step over a whole row (column): a broadcast
  // (stride 0) or overlapping view cannot be described to cuBLAS and is declined.
  Mat m;
  if ((cs == 1 || cols == 1) && (rows == 1 || rs >= std::max<int64_t>(cols, 1))) {
    m = {true, false, rows == 1 ? std::max<int64_t>(cols, 1) : rs};
  } else if ((rs == 1 || rows == 1) && (cols == 1 || cs >= std::max<int64_t>(rows, 1))) {
    m = {true, true, cols == 1 ? std::max<int64_t>(rows, 1) : cs};
  }
  return m;
}

// out[b] = a[b] @ w[b] for `batch` matrices (batch strides in elements, 0 = broadcast).
axle_status gemm(const axle_kernel_call* c, const axle_tensor_view& a, const axle_tensor_view& w,
                 const axle_tensor_view& out, int64_t batch, int64_t sa, int64_t sw, int64_t so) {
  cudaDataType_t t;
  cublasComputeType_t compute;
  if (a.dtype != out.dtype || w.dtype != out.dtype || !types(c, out.dtype, &t, &compute)) return AXLE_DECLINED;
  const int64_t m = a.sizes[a.ndim - 2], k = a.sizes[a.ndim - 1], n = w.sizes[w.ndim - 1];
  const Mat ma = matrix(a), mw = matrix(w);
  if (!ma.ok || !mw.ok || !plugin::is_contiguous(out)) return AXLE_DECLINED;
  if (m == 0 || n == 0) return AXLE_OK;
  if (k == 0) return AXLE_DECLINED;  // zeros: the reference path fills them
  const int64_t lim = int64_t{1} << 31;
  if (m >= lim || n >= lim || k >= lim || ma.ld >= lim || mw.ld >= lim) return AXLE_DECLINED;
  DeviceGuard guard(out.device_index);
  if (axle_status s = guard.status(c)) return s;
  axle_status status = AXLE_OK;
  cublasHandle_t h = handle(out.device_index, c, &status);
  if (!h) return status;
  if (axle_status s = check_cublas(cublasSetStream(h, to_cuda(c->stream)), "cublasSetStream", c)) return s;
  const double one_d = 1.0, zero_d = 0.0;
  const float one_f = 1.0f, zero_f = 0.0f;
  const void* alpha = compute == CUBLAS_COMPUTE_64F ? static_cast<const void*>(&one_d) : &one_f;
  const void* beta = compute == CUBLAS_COMPUTE_64F ? static_cast<const void*>(&zero_d) : &zero_f;
  // Column-major: C^T (n x m) = W^T (n x k) * A^T (k x m).
  const cublasOperation_t opw = mw.trans ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t opa = ma.trans ? CUBLAS_OP_T : CUBLAS_OP_N;
  if (batch == 1)
    return check_cublas(cublasGemmEx(h, opw, opa, int(n), int(m), int(k), alpha, w.data, t, int(mw.ld), a.data, t,
                                     int(ma.ld), beta, out.data, t, int(n), compute, CUBLAS_GEMM_DEFAULT),
                        "cublasGemmEx", c);
  return check_cublas(cublasGemmStridedBatchedEx(h, opw, opa, int(n), int(m), int(k), alpha, w.data, t, int(mw.ld), sw,
                                                 a.data, t, int(ma.ld), sa, beta, out.data, t, int(n), so, int(batch),
                                                 compute, CUBLAS_GEMM_DEFAULT),
                      "cublasGemmStridedBatchedEx", c);
}

axle_status mm(void*, const axle_kernel_call* c) {
  return gemm(c, arg_tensor(c, 0), arg_tensor(c, 1), c->outputs[0], 1, 0, 0, 0);
}

axle_status bmm(void*, const axle_kernel_call* c) {
  const axle_tensor_view &a = arg_tensor(c, 0), &w = arg_tensor(c, 1), &out = c->outputs[0];
  const int64_t batch = out.sizes[0];
  return gemm(c, a, w, out, batch, a.sizes[0] == 1 ? 0 : a.strides[0], w.sizes[0] == 1 ? 0 : w.strides[0],
              out.strides[0]);
}

// matmul: the 2-D x 2-D and 3-D x 3-D (equal batch) forms; the others decline.
axle_status matmul(void* u, const axle_kernel_call* c) {
  const axle_tensor_view &a = arg_tensor(c, 0), &w = arg_tensor(c, 1);
  if (a.ndim == 2 && w.ndim == 2) return mm(u, c);
  if (a.ndim == 3 && w.ndim == 3 && a.sizes[0] == w.sizes[0]) return bmm(u, c);
  return AXLE_DECLINED;
}

const KernelEntry kKernels[] = {
    {"mm", &mm, AXLE_HERE},
    {"bmm", &bmm, AXLE_HERE},
    {"matmul", &matmul, AXLE_HERE},
};

}  // namespace

axle_status register_blas(const axle_registrar* r) { return plugin::register_kernels(r, "cuda", kKernels); }

}  // namespace axle::cuda
