// mm, bmm, addmm, baddbmm and dot through one strided batched product:
// out[b] = beta * self[b] + alpha * (A[b] @ B[b]), with self broadcast (stride 0)
// and ignored when beta is 0, as torch. Accumulates in double or int64; alpha
// and beta are converted to int64 for integer results. Half is rejected, as
// torch's CPU kernels do.
#include "kernels.h"

#include <string>
#include <vector>

namespace axle::reference {

using namespace axle::plugin;

namespace {

// A batch of matrices: [batch, rows, cols] with element strides (0 broadcasts).
struct Mat3 {
  const char* data;
  axle_dtype dtype;
  int64_t sb, sr, sc;
};

// Right-aligns `v` to [b, n, m]; missing or size-1 dims get stride 0.
Mat3 broadcast3(const axle_tensor_view& v) {
  int64_t st[3] = {0, 0, 0};
  for (int32_t d = 0; d < v.ndim; ++d) {
    const int32_t o = 3 - v.ndim + d;
    st[o] = v.sizes[d] == 1 ? 0 : v.strides[d];
  }
  return {static_cast<const char*>(v.data), v.dtype, st[0], st[1], st[2]};
}

template <typename Acc>
void gemm(const axle_tensor_view& outv, const Mat3& out, const Mat3& a, const Mat3& b, const Mat3* self, int64_t nb,
          int64_t n, int64_t k, int64_t m, Acc alpha, Acc beta) {
  const int64_t ea = static_cast<int64_t>(dtype_size(a.dtype)), eb = static_cast<int64_t>(dtype_size(b.dtype));
  const int64_t eo = static_cast<int64_t>(dtype_size(outv.dtype));
  const int64_t es = self ? static_cast<int64_t>(dtype_size(self->dtype)) : 0;
  char* po = static_cast<char*>(outv.data);
  std::vector<Acc> row(static_cast<size_t>(m));
  for (int64_t t = 0; t < nb; ++t) {
    for (int64_t i = 0; i < n; ++i) {
      std::fill(row.begin(), row.end(), Acc{});
      for (int64_t p = 0; p < k; ++p) {
        const Acc x = load_as<Acc>(a.data + (t * a.sb + i * a.sr + p * a.sc) * ea, a.dtype);
        const char* pb = b.data + (t * b.sb + p * b.sr) * eb;
        for (int64_t j = 0; j < m; ++j) row[static_cast<size_t>(j)] += x * load_as<Acc>(pb + j * b.sc * eb, b.dtype);
      }
      for (int64_t j = 0; j < m; ++j) {
        Acc v = alpha * row[static_cast<size_t>(j)];
        if (self && beta != Acc{})
          v += beta * load_as<Acc>(self->data + (t * self->sb + i * self->sr + j * self->sc) * es, self->dtype);
        store_from<Acc>(po + (t * out.sb + i * out.sr + j * out.sc) * eo, outv.dtype, v);
      }
    }
  }
}

axle_status product(const axle_kernel_call* c, const char* kernel, const Mat3& a, const Mat3& b,
                    const axle_tensor_view* self, int64_t nb, int64_t n, int64_t k, int64_t m, int alpha_arg,
                    const Mat3& out) {
  const axle_tensor_view& outv = c->outputs[0];
  if (outv.dtype == AXLE_DTYPE_FLOAT16 && nb * n * m > 0 && (k > 0 || std::string(kernel) == "dot"))
    return fail(c, AXLE_ERROR_DTYPE, std::string(c->op_name) + ": \"" + kernel + "\" not implemented for 'Half'");
  const Mat3 s = self ? broadcast3(*self) : Mat3{};
  if (is_floating(outv.dtype)) {
    const double alpha = alpha_arg >= 0 ? arg_double(c, alpha_arg) : 1.0;
    const double beta = alpha_arg >= 0 ? arg_double(c, alpha_arg - 1) : 0.0;
    gemm<double>(outv, out, a, b, self ? &s : nullptr, nb, n, k, m, alpha, beta);
  } else {
    const int64_t alpha = alpha_arg >= 0 ? arg_int(c, alpha_arg) : 1;
    const int64_t beta = alpha_arg >= 0 ? arg_int(c, alpha_arg - 1) : 0;
    gemm<int64_t>(outv, out, a, b, self ? &s : nullptr, nb, n, k, m, alpha, beta);
  }
  return AXLE_OK;
}

Mat3 as_mat3(const axle_tensor_view& v) {  // a 2-d or 3-d view
  if (v.ndim == 2) return {static_cast<const char*>(v.data), v.dtype, 0, v.strides[0], v.strides[1]};
  return {static_cast<const char*>(v.data), v.dtype, v.strides[0], v.strides[1], v.strides[2]};
}

axle_status mm(void*, const axle_kernel_call* c) {
  const axle_tensor_view& a = arg_tensor(c, 0);
  const axle_tensor_view& b = arg_tensor(c, 1);
  return product(c, "addmm_impl_cpu_", as_mat3(a), as_mat3(b), nullptr, 1, a.sizes[0], a.sizes[1], b.sizes[1], -1,
                 as_mat3(c->outputs[0]));
}

axle_status addmm(void*, const axle_kernel_call* c) {
  const axle_tensor_view& a = arg_tensor(c, 1);
  const axle_tensor_view& b = arg_tensor(c, 2);
  return product(c, "addmm_impl_cpu_", as_mat3(a), as_mat3(b), &arg_tensor(c, 0), 1, a.sizes[0], a.sizes[1], b.sizes[1],
                 4, as_mat3(c->outputs[0]));
}

axle_status bmm(void*, const axle_kernel_call* c) {
  const axle_tensor_view& a = arg_tensor(c, 0);
  const axle_tensor_view& b = arg_tensor(c, 1);
  return product(c, "bmm", as_mat3(a), as_mat3(b), nullptr, a.sizes[0], a.sizes[1], a.sizes[2], b.sizes[2], -1,
                 as_mat3(c->outputs[0]));
}

axle_status baddbmm(void*, const axle_kernel_call* c) {
  const axle_tensor_view& a = arg_tensor(c, 1);
  const axle_tensor_view& b = arg_tensor(c, 2);
  return product(c, "baddbmm", as_mat3(a), as_mat3(b), &arg_tensor(c, 0), a.sizes[0], a.sizes[1], a.sizes[2],
                 b.sizes[2], 4, as_mat3(c->outputs[0]));
}

// dot: a (1 x k) row times a (k x 1) column into a 0-d output.
axle_status dot(void*, const axle_kernel_call* c) {
  const axle_tensor_view& a = arg_tensor(c, 0);
  const axle_tensor_view& b = arg_tensor(c, 1);
  const Mat3 ra{static_cast<const char*>(a.data), a.dtype, 0, 0, a.strides[0]};
  const Mat3 cb{static_cast<const char*>(b.data), b.dtype, 0, b.strides[0], 0};
  const Mat3 o{nullptr, c->outputs[0].dtype, 0, 0, 0};
  return product(c, "dot", ra, cb, nullptr, 1, 1, a.sizes[0], 1, -1, o);
}

const KernelEntry kBlasKernels[] = {
    {"mm", &mm, AXLE_HERE},           {"addmm", &addmm, AXLE_HERE}, {"bmm", &bmm, AXLE_HERE},
    {"baddbmm", &baddbmm, AXLE_HERE}, {"dot", &dot, AXLE_HERE},
};

}  // namespace

axle_status register_blas(const axle_registrar* r) { return register_kernels(r, "cpu", kBlasKernels); }

}  // namespace axle::reference
