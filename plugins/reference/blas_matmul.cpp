// matmul for every torch.matmul case: 1-D operands are promoted to matrices
// (and the dim removed from the output, as the core's shape function did),
// batch dims broadcast. Portable i-k-j loops, accumulating in double or int64.
#include "kernels.h"

#include <vector>

namespace axle::reference {

using namespace axle::plugin;

namespace {

struct Mat {  // a batch of matrices viewed as [batch..., rows, cols] in elements
  const axle_tensor_view* v;
  std::vector<int64_t> sizes, strides;
};

// Rewrites a view as at least 2-D: 1-D self -> (1, k); 1-D other -> (k, 1).
Mat as_matrix(const axle_tensor_view& v, bool is_left) {
  Mat m{&v, std::vector<int64_t>(v.sizes, v.sizes + v.ndim), std::vector<int64_t>(v.strides, v.strides + v.ndim)};
  if (v.ndim == 1) {
    if (is_left) {
      m.sizes.insert(m.sizes.begin(), 1);
      m.strides.insert(m.strides.begin(), 0);
    } else {
      m.sizes.push_back(1);
      m.strides.push_back(0);
    }
  }
  return m;
}

template <typename Acc>
void run(const axle_tensor_view& out, const Mat& a, const Mat& b) {
  const size_t na = a.sizes.size(), nb = b.sizes.size();
  const int64_t n = a.sizes[na - 2], k = a.sizes[na - 1], m = b.sizes[nb - 1];
  const size_t nbatch = std::max(na, nb) - 2;
  std::vector<int64_t> batch(nbatch), sa(nbatch, 0), sb(nbatch, 0);
  for (size_t i = 0; i < nbatch; ++i) {
    const int64_t ia = static_cast<int64_t>(i) - static_cast<int64_t>(nbatch - (na - 2));
    const int64_t ib = static_cast<int64_t>(i) - static_cast<int64_t>(nbatch - (nb - 2));
    const int64_t da = ia >= 0 ? a.sizes[ia] : 1, db = ib >= 0 ? b.sizes[ib] : 1;
    batch[i] = da == 1 ? db : da;  // broadcast: a size-0 dim against 1 stays 0
    sa[i] = (ia >= 0 && da != 1) ? a.strides[ia] : 0;
    sb[i] = (ib >= 0 && db != 1) ? b.strides[ib] : 0;
  }
  // Output element strides for (batch..., n, m), accounting for removed 1-D dims.
  std::vector<int64_t> so(nbatch + 2, 0);
  {
    int32_t d = out.ndim - 1;
    if (b.v->ndim != 1) so[nbatch + 1] = out.strides[d--];
    if (a.v->ndim != 1) so[nbatch] = out.strides[d--];
    for (size_t i = nbatch; i-- > 0;) so[i] = out.strides[d--];
  }
  const int64_t sa_r = a.strides[na - 2], sa_c = a.strides[na - 1], sb_r = b.strides[nb - 2], sb_c = b.strides[nb - 1];
  const size_t ea = dtype_size(a.v->dtype), eb = dtype_size(b.v->dtype), eo = dtype_size(out.dtype);
  int64_t total = 1;
  for (int64_t s : batch) total *= s;
  std::vector<Acc> row(static_cast<size_t>(m));
  std::vector<int64_t> idx(nbatch, 0);
  for (int64_t t = 0; t < total; ++t) {
    int64_t oa = 0, ob = 0, oo = 0;
    for (size_t i = 0; i < nbatch; ++i) {
      oa += idx[i] * sa[i];
      ob += idx[i] * sb[i];
      oo += idx[i] * so[i];
    }
    const char* pa = static_cast<const char*>(a.v->data);
    const char* pb = static_cast<const char*>(b.v->data);
    char* po = static_cast<char*>(out.data);
    for (int64_t i = 0; i < n; ++i) {
      std::fill(row.begin(), row.end(), Acc{});
      for (int64_t p = 0; p < k; ++p) {
        const Acc x = load_as<Acc>(pa + (oa + i * sa_r + p * sa_c) * static_cast<int64_t>(ea), a.v->dtype);
        for (int64_t j = 0; j < m; ++j)
          row[static_cast<size_t>(j)] +=
              x * load_as<Acc>(pb + (ob + p * sb_r + j * sb_c) * static_cast<int64_t>(eb), b.v->dtype);
      }
      for (int64_t j = 0; j < m; ++j)
        store_from<Acc>(po + (oo + i * so[nbatch] + j * so[nbatch + 1]) * static_cast<int64_t>(eo), out.dtype,
                        row[static_cast<size_t>(j)]);
    }
    for (size_t i = nbatch; i-- > 0;) {  // odometer over batch indices
      if (++idx[i] < batch[i]) break;
      idx[i] = 0;
    }
  }
}

}  // namespace

axle_status matmul(void*, const axle_kernel_call* c) {
  const axle_tensor_view& a = arg_tensor(c, 0);
  const axle_tensor_view& b = arg_tensor(c, 1);
  const axle_tensor_view& out = c->outputs[0];
  const Mat ma = as_matrix(a, true), mb = as_matrix(b, false);
  if (is_floating(out.dtype))
    run<double>(out, ma, mb);
  else
    run<int64_t>(out, ma, mb);
  return AXLE_OK;
}

const KernelEntry kMatmulKernels[] = {
    {"matmul", &matmul, AXLE_HERE},
};

axle_status register_blas_matmul(const axle_registrar* r) { return register_kernels(r, "cpu", kMatmulKernels); }

}  // namespace axle::reference
