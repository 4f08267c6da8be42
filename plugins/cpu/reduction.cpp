// The reductions sum / mean / amax / amin / prod / norm on oneDNN's reduction
// primitive over float32 / bfloat16, the destination described with the
// input's rank (reduced dims of size 1); float32 sums and means over leading
// dims on our own loop (leading_reduce), and the 1- and 2-norms of a whole
// float32 tensor (whole_norm).
#include "kernels.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace axle::cpu {

__attribute__((target_clones("avx512f", "avx2", "default"))) void add_rows(const float* __restrict p, int64_t rows,
                                                                           int64_t stride, int64_t n,
                                                                           double* __restrict acc) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = p + r * stride;
#pragma omp simd
    for (int64_t j = 0; j < n; ++j) acc[j] += row[j];
  }
}

void sum_over_rows(const float* p, int64_t rows, int64_t n, float* out) {
  std::vector<double> acc(static_cast<size_t>(n));
  add_rows(p, rows, n, n, acc.data());
  for (int64_t j = 0; j < n; ++j) out[j] = static_cast<float>(acc[static_cast<size_t>(j)]);
}

namespace {

using plugin::arg_bool;
using plugin::arg_is_none;
using plugin::arg_tensor;

// The reduced dims of `self` from an int[]? argument (None or [] = all dims).
bool reduced_dims(const axle_kernel_call* c, int i, int64_t ndim, std::vector<bool>* reduced) {
  reduced->assign(static_cast<size_t>(ndim), false);
  const axle_value& v = c->args[i];
  if (v.tag == AXLE_VALUE_NONE || (v.tag == AXLE_VALUE_INT_LIST && v.u.ints.count == 0)) {
    reduced->assign(static_cast<size_t>(ndim), true);
    return true;
  }
  std::vector<int64_t> dims;
  if (v.tag == AXLE_VALUE_INT_LIST)
    dims.assign(v.u.ints.items, v.u.ints.items + v.u.ints.count);
  else if (v.tag == AXLE_VALUE_INT)
    dims.push_back(v.u.i);
  else
    return false;
  for (int64_t d : dims) {
    if (d < 0) d += ndim;
    if (d < 0 || d >= ndim) return false;
    (*reduced)[static_cast<size_t>(d)] = true;
  }
  return true;
}

axle_status reduce(const axle_kernel_call* c, dnnl::algorithm alg, int dim_arg, int keepdim_arg, float p_value) {
  Shape src = Shape::of(arg_tensor(c, 0));
  const axle_tensor_view& out = c->outputs[0];
  if (src.ndim() == 0 || src.numel() == 0 || plugin::numel(out) == 0 || src.has_zero_stride() ||
      !is_f32_or_bf16(src.dtype) || !is_f32_or_bf16(out.dtype))
    return plugin::decline(c, "empty, 0-d, expanded or not float32 / bfloat16");
  std::vector<bool> reduced;
  if (!reduced_dims(c, dim_arg, src.ndim(), &reduced)) return plugin::decline(c, "dims it cannot read");
  const bool keepdim = arg_bool(c, keepdim_arg);
  // The destination with the input's rank: reduced dims of size 1.
  Shape dst = Shape::of(out);
  if (!keepdim)
    for (int64_t d = 0; d < src.ndim(); ++d)
      if (reduced[static_cast<size_t>(d)]) dst.insert_unit(d);
  if (dst.ndim() != src.ndim()) return plugin::decline(c, "an output of another rank");
  for (int64_t d = 0; d < src.ndim(); ++d)
    if (reduced[static_cast<size_t>(d)]) dst.dims[d] = 1;
  dst.unexpand();
  if (dst.numel() == src.numel()) return plugin::decline(c, "nothing reduced (a copy)");
  Key key("reduce");
  key.add(static_cast<int64_t>(alg)).add(static_cast<double>(p_value)).add(src).add(dst);
  auto p = cache().get(key.str(), [&]() -> std::shared_ptr<Primitive> {
    dnnl::memory::desc smd, dmd;
    if (!describe(src, &smd) || !describe(dst, &dmd)) return declined("dtype or rank oneDNN lacks");
    const dnnl::reduction::desc d(alg, smd, dmd, p_value, 0.f);
    const dnnl::reduction::primitive_desc pd(d, default_attr(), engine());
    return make_primitive<dnnl::reduction::primitive_desc, dnnl::reduction>(pd, {DNNL_ARG_SRC, DNNL_ARG_DST},
                                                                            {smd, dmd});
  });
  if (!p->declined.empty()) return plugin::decline(c, p->declined);
  execute(*p, {src.data, dst.data});
  return AXLE_OK;
}

// sum / mean of float32 over leading dims, our loops where oneDNN's reduction
// has only its reference implementation (reduced dims that are not the
// innermost: a bias gradient sums over batch and sequence) or nothing to read
// (one element expanded, as sum()'s gradient): columns accumulate in double,
// as the reference plugin sums, split across threads by columns.
axle_status leading_reduce(const axle_kernel_call* c, bool mean) {
  const axle_tensor_view &x = arg_tensor(c, 0), &out = c->outputs[0];
  if (x.dtype != AXLE_DTYPE_FLOAT32 || out.dtype != AXLE_DTYPE_FLOAT32 || !plugin::is_contiguous(out) || x.ndim == 0)
    return AXLE_DECLINED;
  const int64_t cols = plugin::numel(out), n = plugin::numel(x);
  if (cols == 0 || n == 0) return AXLE_DECLINED;
  std::vector<bool> reduced;
  if (!reduced_dims(c, 1, x.ndim, &reduced)) return AXLE_DECLINED;
  const int64_t rows = n / cols;
  float* o = static_cast<float*>(out.data);
  if (one_element(x)) {
    const double v = *static_cast<const float*>(x.data);
    const float r = static_cast<float>(mean ? v : v * static_cast<double>(rows));
    std::fill(o, o + cols, r);
    return AXLE_OK;
  }
  // Reduced dims first, kept dims after (size-1 dims either way), densely laid out.
  int32_t kept = 0;
  while (kept < x.ndim && (reduced[static_cast<size_t>(kept)] || x.sizes[kept] == 1)) ++kept;
  for (int32_t d = kept; d < x.ndim; ++d)
    if (reduced[static_cast<size_t>(d)] && x.sizes[d] != 1) return AXLE_DECLINED;
  // Few columns: oneDNN's innermost reduction serves them well.
  if (rows == 1 || cols < 16 || !plugin::is_contiguous(x)) return AXLE_DECLINED;
  const float* p = static_cast<const float*>(x.data);
  const double scale = mean ? 1.0 / static_cast<double>(rows) : 1.0;
  auto columns = [&](int64_t begin, int64_t end) {
    // Blocks of columns whose double accumulators stay in L1 (8 KiB).
    constexpr int64_t kBlock = 1024;
    double acc[kBlock];
    for (int64_t b = begin; b < end; b += kBlock) {
      const int64_t width = std::min(kBlock, end - b);
      std::fill(acc, acc + width, 0.0);
      add_rows(p + b, rows, cols, width, acc);
      for (int64_t j = 0; j < width; ++j) o[b + j] = static_cast<float>(acc[j] * scale);
    }
  };
  parallel_ranges(cols, n >= (int64_t{1} << 16) && cols >= 64 ? thread_count() : 1, 16, columns);
  return AXLE_OK;
}

// The sum of x (power 0), |x| (1) or x^2 (2) over n contiguous floats: float
// lanes over 1024-element blocks (the compiler vectorizes them), the blocks
// added in double, as precise as the reference plugin's double loop for any n.
// 64 lanes: four independent vector accumulators, so the additions' latency
// does not bound the loop (a 7918 x 32 norm: 40 -> 23 us); the power is a
// template parameter, so the loop has no branch.
template <int Power>
inline double block_sum_of(const float* __restrict x, int64_t n) {
  constexpr int kLanes = 64;
  constexpr int64_t kBlock = 1024;
  auto term = [](float v) { return Power == 0 ? v : Power == 1 ? std::fabs(v) : v * v; };
  double total = 0;
  for (int64_t b = 0; b < n; b += kBlock) {
    const int64_t e = std::min(n, b + kBlock);
    float acc[kLanes] = {};
    int64_t j = b;
    for (; j + kLanes <= e; j += kLanes)
#pragma omp simd
      for (int l = 0; l < kLanes; ++l) acc[l] += term(x[j + l]);
    double block = 0;
    for (float a : acc) block += a;
    for (; j < e; ++j) block += term(x[j]);
    total += block;
  }
  return total;
}

__attribute__((target_clones("avx512f", "avx2", "default"))) double block_sum(const float* __restrict x, int64_t n,
                                                                              int power = 0) {
  return power == 0 ? block_sum_of<0>(x, n) : power == 1 ? block_sum_of<1>(x, n) : block_sum_of<2>(x, n);
}

// sum / mean of a contiguous float32 (N, C, ...) tensor over every dim but
// the channels (batch norm's statistics): oneDNN runs that reduction on its
// reference implementation; here each channel's planes, summed in double,
// channels split across threads.
axle_status channel_reduce(const axle_kernel_call* c, bool mean) {
  const axle_tensor_view &x = arg_tensor(c, 0), &out = c->outputs[0];
  // The cheap checks first: every float32 sum and mean passes here.
  if (x.dtype != AXLE_DTYPE_FLOAT32 || out.dtype != AXLE_DTYPE_FLOAT32 || x.ndim < 3 ||
      plugin::numel(out) != x.sizes[1] || !plugin::is_contiguous(x) || !plugin::is_contiguous(out))
    return AXLE_DECLINED;
  std::vector<bool> reduced;
  if (!reduced_dims(c, 1, x.ndim, &reduced)) return AXLE_DECLINED;
  for (int32_t d = 0; d < x.ndim; ++d)
    if (reduced[static_cast<size_t>(d)] != (d != 1)) return AXLE_DECLINED;
  const int64_t n = x.sizes[0], ch = x.sizes[1], total = plugin::numel(x);
  if (n == 0 || ch == 0 || total == 0 || plugin::numel(out) != ch) return AXLE_DECLINED;
  const int64_t plane = total / (n * ch);
  const auto* data = static_cast<const float*>(x.data);
  auto* o = static_cast<float*>(out.data);
  parallel_ranges(ch, total >= (int64_t{1} << 18) ? thread_count() : 1, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t k = c0; k < c1; ++k) {
      double s = 0;
      for (int64_t b = 0; b < n; ++b) s += block_sum(data + (b * ch + k) * plane, plane);
      o[k] = static_cast<float>(mean ? s / static_cast<double>(n * plane) : s);
    }
  });
  return AXLE_OK;
}

// sum.dim_IntList / mean.dim (self, dim, keepdim, *, dtype)
axle_status sum(void*, const axle_kernel_call* c) {
  return guarded(c, [&]() -> axle_status {
    if (channel_reduce(c, false) == AXLE_OK) return AXLE_OK;
    const axle_status s = leading_reduce(c, false);
    return s != AXLE_DECLINED ? s : reduce(c, dnnl::algorithm::reduction_sum, 1, 2, 0.f);
  });
}
axle_status mean(void*, const axle_kernel_call* c) {
  return guarded(c, [&]() -> axle_status {
    if (channel_reduce(c, true) == AXLE_OK) return AXLE_OK;
    const axle_status s = leading_reduce(c, true);
    return s != AXLE_DECLINED ? s : reduce(c, dnnl::algorithm::reduction_mean, 1, 2, 0.f);
  });
}
// amax / amin (self, dim=[], keepdim); NaN handling in oneDNN's max is not
// PyTorch's (NaN propagates there), so inputs are scanned for NaN first.
bool has_nan(const Shape& s) {
  if (s.dtype != AXLE_DTYPE_FLOAT32 || !s.is_dense()) return true;  // unknown: let the reference decide
  const float* p = static_cast<const float*>(s.data);
  const int64_t n = s.numel();
  bool nan = false;
#pragma omp simd reduction(|| : nan)
  for (int64_t i = 0; i < n; ++i) nan = nan || (p[i] != p[i]);
  return nan;
}
axle_status amax(void*, const axle_kernel_call* c) {
  return guarded(c, [&]() -> axle_status {
    if (has_nan(Shape::of(arg_tensor(c, 0)))) return AXLE_DECLINED;
    return reduce(c, dnnl::algorithm::reduction_max, 1, 2, 0.f);
  });
}
axle_status amin(void*, const axle_kernel_call* c) {
  return guarded(c, [&]() -> axle_status {
    if (has_nan(Shape::of(arg_tensor(c, 0)))) return AXLE_DECLINED;
    return reduce(c, dnnl::algorithm::reduction_min, 1, 2, 0.f);
  });
}
// prod.dim_int (self, dim, keepdim, *, dtype)
axle_status prod(void*, const axle_kernel_call* c) {
  return guarded(c, [&] { return reduce(c, dnnl::algorithm::reduction_mul, 1, 2, 0.f); });
}
// The norm of a whole contiguous float32 tensor into one float32 value (what
// clip_grad_norm_ asks of every gradient): oneDNN's reduction has only its
// reference implementation for norms; blocks of rows split across threads,
// their partial sums added in a fixed order.
axle_status whole_norm(const axle_kernel_call* c, double p) {
  const axle_tensor_view &x = arg_tensor(c, 0), &out = c->outputs[0];
  const int64_t n = plugin::numel(x);
  if (x.dtype != AXLE_DTYPE_FLOAT32 || out.dtype != AXLE_DTYPE_FLOAT32 || plugin::numel(out) != 1 || n == 0 ||
      !plugin::is_contiguous(x))
    return AXLE_DECLINED;
  const auto* data = static_cast<const float*>(x.data);
  const int threads = n >= (int64_t{1} << 18) ? thread_count() : 1;
  std::vector<double> partial(static_cast<size_t>(std::max(threads, 1)), 0.0);
  const int64_t chunk = (n + threads - 1) / threads;
  parallel_ranges(threads, threads, 1, [&](int64_t t0, int64_t t1) {
    for (int64_t t = t0; t < t1; ++t) {
      const int64_t b = t * chunk, e = std::min(n, b + chunk);
      if (b < e) partial[static_cast<size_t>(t)] = block_sum(data + b, e - b, p == 2.0 ? 2 : 1);
    }
  });
  double total = 0;
  for (double v : partial) total += v;
  *static_cast<float*>(out.data) = static_cast<float>(p == 2.0 ? std::sqrt(total) : total);
  return AXLE_OK;
}

// norm.ScalarOpt_dim (self, p?, dim, keepdim): p = 1 or 2 (None = 2).
axle_status norm(void*, const axle_kernel_call* c) {
  return guarded(c, [&]() -> axle_status {
    const double p = arg_is_none(c, 1) ? 2.0 : plugin::arg_double(c, 1);
    if (p != 1.0 && p != 2.0) return plugin::decline(c, "p other than 1 and 2");
    if (whole_norm(c, p) == AXLE_OK) return AXLE_OK;
    return reduce(c, dnnl::algorithm::reduction_norm_lp_sum, 2, 3, static_cast<float>(p));
  });
}

const KernelEntry kKernels[] = {
    {"sum.dim_IntList", &sum, AXLE_HERE}, {"mean.dim", &mean, AXLE_HERE},     {"amax", &amax, AXLE_HERE},
    {"amin", &amin, AXLE_HERE},           {"prod.dim_int", &prod, AXLE_HERE}, {"norm.ScalarOpt_dim", &norm, AXLE_HERE},
};

}  // namespace

axle_status register_reduction(const axle_registrar* r) { return plugin::register_kernels(r, "cpu", kKernels); }

}  // namespace axle::cpu
