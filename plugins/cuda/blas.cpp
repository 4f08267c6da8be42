// mm / bmm / matmul (2-D and batched 3-D) and addmm on cuBLAS: cublasGemmEx and
// cublasGemmStridedBatchedEx, float32 (compute type from the matmul_precision
// setting, as torch.set_float32_matmul_precision: "highest" FP32, "high" TF32,
// "medium" BF16), float64, float16 and bfloat16 (FP32 accumulate).
// Row-major axle matrices are column-major transposes for cuBLAS: C = A B is
// computed as C^T = B^T A^T. Operands whose last two dims are neither row- nor
// column-contiguous (broadcasts, overlapping rows) are first copied dense on the
// GPU; outputs that are not contiguous are declined.
// addmm (what linear runs) is alpha * (mat1 @ mat2) from cuBLAS, then
// beta * self added with the pointwise kernel (self broadcast to the output);
// beta = 0 ignores self, NaN included, as torch.
#include "cuda_util.h"
#include "kernels.h"

#include <cublas_api.h>
#include <cublas_v2.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

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

// out[b] = alpha * a[b] @ w[b] for `batch` matrices (batch strides in elements, 0 = broadcast).
axle_status gemm(const axle_kernel_call* c, const axle_tensor_view& a_in, const axle_tensor_view& w_in,
                 const axle_tensor_view& out, int64_t batch, int64_t sa, int64_t sw, int64_t so,
                 double alpha_value = 1.0) {
  cudaDataType_t t;
  cublasComputeType_t compute;
  if (a_in.dtype != out.dtype || w_in.dtype != out.dtype || !types(c, out.dtype, &t, &compute) ||
      !plugin::is_contiguous(out))
    return AXLE_DECLINED;
  const int64_t m = a_in.sizes[a_in.ndim - 2], k = a_in.sizes[a_in.ndim - 1], n = w_in.sizes[w_in.ndim - 1];
  if (m == 0 || n == 0) return AXLE_OK;
  if (k == 0) return AXLE_DECLINED;  // zeros: the reference path fills them
  DeviceGuard guard(out.device_index);
  if (axle_status s = guard.status(c)) return s;
  const axle_tensor_view *pa = &a_in, *pw = &w_in;
  DenseCopy a_copy, w_copy;
  if (!matrix(a_in).ok) {
    if (axle_status s = dense_copy(c, a_in, &a_copy)) return s;
    pa = &a_copy.view;
    if (batch > 1 && sa != 0) sa = m * k;
  }
  if (!matrix(w_in).ok) {
    if (axle_status s = dense_copy(c, w_in, &w_copy)) return s;
    pw = &w_copy.view;
    if (batch > 1 && sw != 0) sw = k * n;
  }
  const axle_tensor_view &a = *pa, &w = *pw;
  const Mat ma = matrix(a), mw = matrix(w);
  if (!ma.ok || !mw.ok) return AXLE_DECLINED;
  const int64_t lim = int64_t{1} << 31;
  if (m >= lim || n >= lim || k >= lim || ma.ld >= lim || mw.ld >= lim) return AXLE_DECLINED;
  axle_status status = AXLE_OK;
  cublasHandle_t h = handle(out.device_index, c, &status);
  if (!h) return status;
  if (axle_status s = check_cublas(cublasSetStream(h, to_cuda(c->stream)), "cublasSetStream", c)) return s;
  const double alpha_d = alpha_value, zero_d = 0.0;
  const float alpha_f = static_cast<float>(alpha_value), zero_f = 0.0f;
  const void* alpha = compute == CUBLAS_COMPUTE_64F ? static_cast<const void*>(&alpha_d) : &alpha_f;
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

// A view with its own sizes and strides (operands reshaped for cuBLAS).
struct OwnedView {
  std::vector<int64_t> sizes, strides;
  axle_tensor_view view{};
  OwnedView(const axle_tensor_view& base, std::vector<int64_t> s, std::vector<int64_t> st)
      : sizes(std::move(s)), strides(std::move(st)), view(base) {
    view.ndim = static_cast<int32_t>(sizes.size());
    view.sizes = sizes.data();
    view.strides = strides.data();
  }
};

// Collapses dims (outermost first) into one when each steps over the next:
// false when they do not; `stride` is then the innermost non-trivial stride
// (0 when every dim has size 1 or is broadcast with stride 0 throughout).
bool collapse(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides, int64_t* stride) {
  int64_t inner = -1, inner_size = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    if (sizes[d] == 1) continue;
    if (inner >= 0 && strides[d] != inner * inner_size) return false;
    inner = inner < 0 ? strides[d] : inner;
    inner_size *= sizes[d];
  }
  *stride = inner < 0 ? 0 : inner;
  return true;
}

// matmul, every torch.matmul case but the 1-D x 1-D dot (declined): 1-D
// operands become a row (left) or a column (right); with a matrix on the right,
// the left's batch dims fold into its rows when they collapse (one GEMM);
// otherwise both operands broadcast their batch dims to the output's and one
// strided batched GEMM runs, after a dense copy of an operand whose batch dims
// do not collapse into one stride.
axle_status matmul(void* u, const axle_kernel_call* c) {
  const axle_tensor_view &a = arg_tensor(c, 0), &w = arg_tensor(c, 1), &out = c->outputs[0];
  if (a.ndim == 2 && w.ndim == 2) return mm(u, c);
  if (a.ndim == 3 && w.ndim == 3 && a.sizes[0] == w.sizes[0]) return bmm(u, c);
  if ((a.ndim == 1 && w.ndim == 1) || !plugin::is_contiguous(out) || a.ndim > kMaxDims || w.ndim > kMaxDims)
    return AXLE_DECLINED;
  if (plugin::numel(out) == 0) return AXLE_OK;
  std::vector<int64_t> as(a.sizes, a.sizes + a.ndim), ast(a.strides, a.strides + a.ndim);
  std::vector<int64_t> ws(w.sizes, w.sizes + w.ndim), wst(w.strides, w.strides + w.ndim);
  if (a.ndim == 1) as.insert(as.begin(), 1), ast.insert(ast.begin(), 0);
  if (w.ndim == 1) ws.push_back(1), wst.push_back(0);
  const size_t na = as.size() - 2, nw = ws.size() - 2;  // batch dims
  const int64_t m = as[na], k = as[na + 1], n = ws[nw + 1];
  if (nw == 0) {  // [batch..., m, k] @ [k, n]: fold the batch into the rows when it collapses
    int64_t row_stride = 0;
    std::vector<int64_t> rows(as.begin(), as.end() - 1), row_strides(ast.begin(), ast.end() - 1);
    int64_t total = 1;
    for (int64_t r : rows) total *= r;
    if (collapse(rows, row_strides, &row_stride) && (row_stride != 0 || total == 1)) {
      const OwnedView a2(a, {total, k}, {total == 1 ? k : row_stride, ast.back()});
      const OwnedView w2(w, {k, n}, {wst[0], wst[1]});
      const OwnedView o2(out, {total, n}, {n, 1});
      return gemm(c, a2.view, w2.view, o2.view, 1, 0, 0, 0);
    }
  }
  // The output's batch dims, each operand's strides over them (0: broadcast).
  const size_t nb = std::max(na, nw);
  std::vector<int64_t> batch(nb), a_batch(nb), w_batch(nb);
  int64_t count = 1;
  for (size_t j = 0; j < nb; ++j) {
    const size_t ja = j + na - nb, jw = j + nw - nb;  // wrap below 0: absent
    const bool in_a = j >= nb - na, in_w = j >= nb - nw;
    batch[j] = std::max(in_a ? as[ja] : 1, in_w ? ws[jw] : 1);
    a_batch[j] = in_a && as[ja] != 1 ? ast[ja] : 0;
    w_batch[j] = in_w && ws[jw] != 1 ? wst[jw] : 0;
    count *= batch[j];
  }
  if (count >= (int64_t{1} << 31)) return AXLE_DECLINED;
  // An operand expanded to [batch..., rows, cols]; its batch stride, or a dense copy.
  auto operand = [&](const axle_tensor_view& base, const std::vector<int64_t>& sizes,
                     const std::vector<int64_t>& strides, const std::vector<int64_t>& bstrides, int64_t* stride,
                     std::unique_ptr<OwnedView>* expanded, std::unique_ptr<DenseCopy>* copy) -> axle_status {
    const int64_t rows = sizes[sizes.size() - 2], cols = sizes.back();
    if (collapse(batch, bstrides, stride)) {
      expanded->reset(new OwnedView(base, {count, rows, cols}, {*stride, strides[strides.size() - 2], strides.back()}));
      return AXLE_OK;
    }
    std::vector<int64_t> full = batch, full_strides = bstrides;
    full.push_back(rows), full.push_back(cols);
    full_strides.push_back(strides[strides.size() - 2]), full_strides.push_back(strides.back());
    const OwnedView wide(base, full, full_strides);
    copy->reset(new DenseCopy);
    if (axle_status s = dense_copy(c, wide.view, copy->get())) return s;
    *stride = rows * cols;
    axle_tensor_view dense = (*copy)->view;
    expanded->reset(new OwnedView(dense, {count, rows, cols}, {rows * cols, cols, 1}));
    return AXLE_OK;
  };
  DeviceGuard guard(out.device_index);
  if (axle_status s = guard.status(c)) return s;
  int64_t sa = 0, sw = 0;
  std::unique_ptr<OwnedView> a3, w3;
  std::unique_ptr<DenseCopy> a_copy, w_copy;
  if (axle_status s = operand(a, as, ast, a_batch, &sa, &a3, &a_copy)) return s;
  if (axle_status s = operand(w, ws, wst, w_batch, &sw, &w3, &w_copy)) return s;
  const OwnedView o3(out, {count, m, n}, {m * n, n, 1});
  return gemm(c, a3->view, w3->view, o3.view, count, sa, sw, m * n);
}

// addmm(self, mat1, mat2, *, beta=1, alpha=1)
axle_status addmm(void*, const axle_kernel_call* c) {
  const axle_tensor_view &self = arg_tensor(c, 0), &out = c->outputs[0];
  if (self.dtype != out.dtype || self.device_index != out.device_index || self.ndim > 2 ||
      !plugin::is_floating(out.dtype))
    return AXLE_DECLINED;
  const double beta = plugin::arg_double(c, 3), alpha = plugin::arg_double(c, 4);
  if (plugin::arg_tensor(c, 1).sizes[1] == 0) return AXLE_DECLINED;  // k = 0: beta * self alone (reference)
  if (axle_status s = gemm(c, arg_tensor(c, 1), arg_tensor(c, 2), out, 1, 0, 0, 0, alpha)) return s;
  if (beta == 0.0 || plugin::numel(out) == 0) return AXLE_OK;
  return add_broadcast(c, out, self, beta, "addmm");
}

const KernelEntry kKernels[] = {
    {"addmm", &addmm, AXLE_HERE},
    {"mm", &mm, AXLE_HERE},
    {"bmm", &bmm, AXLE_HERE},
    {"matmul", &matmul, AXLE_HERE},
};

}  // namespace

axle_status register_blas(const axle_registrar* r) { return plugin::register_kernels(r, "cuda", kKernels); }

}  // namespace axle::cuda
