// copy_ (contiguous, clone, to(dtype), reshape of a strided view...), cat, and
// the reductions sum / mean / amax / amin / prod / norm on oneDNN.
//
// copy_: equal dense layouts and dtypes are a memcpy (split over the threads);
// other strided copies and float conversions are oneDNN reorders. Declined:
// broadcasting sources, float -> integer (oneDNN rounds and saturates, PyTorch
// truncates) and integer narrowing (oneDNN saturates, PyTorch wraps).
//
// Reductions: oneDNN's reduction primitive over float32 / bfloat16, the
// destination described with the input's rank (reduced dims of size 1).
#include "kernels.h"

#include <omp.h>

#include <cstring>

namespace axle::cpu {
namespace {

using plugin::arg_bool;
using plugin::arg_is_none;
using plugin::arg_tensor;

bool is_float(axle_dtype d) {
  return d == AXLE_DTYPE_FLOAT32 || d == AXLE_DTYPE_BFLOAT16 || d == AXLE_DTYPE_FLOAT16;
}

// A conversion oneDNN's reorder performs exactly as PyTorch does.
bool reorder_converts_like_torch(axle_dtype from, axle_dtype to) {
  if (from == to) return true;
  if (is_float(to)) return true;  // any supported type -> float rounds to nearest even, as torch
  return false;                   // float -> int truncates in torch; int narrowing wraps
}

axle_status copy(void*, const axle_kernel_call* c) {
  return guarded(c, [&]() -> axle_status {
    Shape dst = Shape::of(arg_tensor(c, 0)), src = Shape::of(arg_tensor(c, 1));
    const int64_t n = dst.numel();
    if (n == 0 || src.ndim() != dst.ndim() || src.dims != dst.dims || src.has_zero_stride() || dst.has_zero_stride())
      return AXLE_DECLINED;
    if (src.dtype == dst.dtype && src.same_layout(dst) && src.is_dense()) {
      const size_t bytes = static_cast<size_t>(n) * plugin::dtype_size(src.dtype);
      const char* from = static_cast<const char*>(src.data);
      char* to = static_cast<char*>(dst.data);
      if (from == to) return AXLE_OK;
      const int threads = bytes >= (size_t{1} << 20) ? thread_count() : 1;
#pragma omp parallel num_threads(threads)
      {
        const size_t t = static_cast<size_t>(omp_get_thread_num()), nt = static_cast<size_t>(omp_get_num_threads());
        const size_t chunk = (bytes + nt - 1) / nt, begin = std::min(bytes, t * chunk);
        std::memcpy(to + begin, from + begin, std::min(bytes, begin + chunk) - begin);
      }
      return AXLE_OK;
    }
    if (n < dnnl_min_elements() || !reorder_converts_like_torch(src.dtype, dst.dtype)) return AXLE_DECLINED;
    Key key("copy");
    key.add(src).add(dst);
    auto p = cache().get(key.str(), [&]() -> std::shared_ptr<Primitive> {
      dnnl::memory::desc smd, dmd;
      if (!describe(src, &smd) || !describe(dst, &dmd)) return declined("dtype or rank oneDNN lacks");
      const dnnl::reorder::primitive_desc pd(engine(), smd, engine(), dmd, default_attr());
      return make_primitive<dnnl::reorder::primitive_desc, dnnl::reorder>(pd, {DNNL_ARG_FROM, DNNL_ARG_TO},
                                                                          {smd, dmd});
    });
    if (!p->declined.empty()) return AXLE_DECLINED;
    execute(*p, {src.data, dst.data});
    return AXLE_OK;
  });
}

// ---- reductions

// The reduced dims of `self` from an int[]? argument (None or [] = all dims).
bool reduced_dims(const axle_kernel_call* c, int i, int64_t ndim, std::vector<bool>* reduced) {
  reduced->assign(static_cast<size_t>(ndim), false);
  const axle_value& v = c->args[i];
  if (v.tag == AXLE_VALUE_NONE || (v.tag == AXLE_VALUE_INT_LIST && v.u.ints.count == 0)) {
    reduced->assign(static_cast<size_t>(ndim), true);
    return true;
  }
  std::vector<int64_t> dims;
  if (v.tag == AXLE_VALUE_INT_LIST) dims.assign(v.u.ints.items, v.u.ints.items + v.u.ints.count);
  else if (v.tag == AXLE_VALUE_INT) dims.push_back(v.u.i);
  else return false;
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
    return AXLE_DECLINED;
  std::vector<bool> reduced;
  if (!reduced_dims(c, dim_arg, src.ndim(), &reduced)) return AXLE_DECLINED;
  const bool keepdim = arg_bool(c, keepdim_arg);
  // The destination with the input's rank: reduced dims of size 1.
  Shape dst = Shape::of(out);
  if (!keepdim)
    for (int64_t d = 0; d < src.ndim(); ++d)
      if (reduced[static_cast<size_t>(d)]) dst.insert_unit(d);
  if (dst.ndim() != src.ndim()) return AXLE_DECLINED;
  for (int64_t d = 0; d < src.ndim(); ++d)
    if (reduced[static_cast<size_t>(d)]) dst.dims[d] = 1;
  dst.unexpand();
  if (dst.numel() == src.numel()) return AXLE_DECLINED;  // nothing reduced: a copy
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
  if (!p->declined.empty()) return AXLE_DECLINED;
  execute(*p, {src.data, dst.data});
  return AXLE_OK;
}

// sum.dim_IntList / mean.dim (self, dim, keepdim, *, dtype)
axle_status sum(void*, const axle_kernel_call* c) {
  return guarded(c, [&] { return reduce(c, dnnl::algorithm::reduction_sum, 1, 2, 0.f); });
}
axle_status mean(void*, const axle_kernel_call* c) {
  return guarded(c, [&] { return reduce(c, dnnl::algorithm::reduction_mean, 1, 2, 0.f); });
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
// norm.ScalarOpt_dim (self, p?, dim, keepdim): p = 1 or 2 (None = 2).
axle_status norm(void*, const axle_kernel_call* c) {
  return guarded(c, [&]() -> axle_status {
    const double p = arg_is_none(c, 1) ? 2.0 : plugin::arg_double(c, 1);
    if (p != 1.0 && p != 2.0) return AXLE_DECLINED;
    return reduce(c, dnnl::algorithm::reduction_norm_lp_sum, 2, 3, static_cast<float>(p));
  });
}

// cat(tensors, dim): one oneDNN concat when every non-empty input has the
// output's dtype (float32 / bf16); conversions and empty inputs' special cases
// stay with the composite of copies.
axle_status cat(void*, const axle_kernel_call* c) {
  return guarded(c, [&]() -> axle_status {
    const axle_value& list = c->args[0];
    Shape dst = Shape::of(c->outputs[0]);
    if (dst.numel() < dnnl_min_elements() || dst.numel() == 0 || dst.ndim() == 0 ||
        !is_f32_or_bf16(dst.dtype))
      return AXLE_DECLINED;
    int64_t dim = plugin::arg_int(c, 1);
    if (dim < 0) dim += dst.ndim();
    std::vector<Shape> srcs;
    for (int64_t i = 0; i < list.u.tensors.count; ++i) {
      const axle_tensor_view& v = list.u.tensors.items[i];
      if (v.ndim != dst.ndim() || v.dtype != dst.dtype) return AXLE_DECLINED;  // legacy empties, conversions
      Shape s = Shape::of(v);
      if (s.numel() == 0) continue;
      if (s.has_zero_stride()) return AXLE_DECLINED;
      srcs.push_back(std::move(s));
    }
    if (srcs.empty()) return AXLE_DECLINED;
    Key key("cat");
    key.add(dim).add(dst);
    for (const Shape& s : srcs) key.add(s);
    auto p = cache().get(key.str(), [&]() -> std::shared_ptr<Primitive> {
      dnnl::memory::desc dmd;
      std::vector<dnnl::memory::desc> mds;
      std::vector<int> ids;
      for (size_t i = 0; i < srcs.size(); ++i) {
        dnnl::memory::desc md;
        if (!describe(srcs[i], &md)) return declined("dtype or rank");
        mds.push_back(md);
        ids.push_back(DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i));
      }
      if (!describe(dst, &dmd)) return declined("dtype or rank");
      const dnnl::concat::primitive_desc pd(dmd, static_cast<int>(dim), mds, engine(), default_attr());
      ids.push_back(DNNL_ARG_DST);
      mds.push_back(dmd);
      return make_primitive<dnnl::concat::primitive_desc, dnnl::concat>(pd, ids, mds);
    });
    if (!p->declined.empty()) return AXLE_DECLINED;
    std::vector<void*> ptrs;
    for (const Shape& s : srcs) ptrs.push_back(s.data);
    ptrs.push_back(dst.data);
    execute(*p, ptrs);
    return AXLE_OK;
  });
}

const KernelEntry kKernels[] = {
    {"cat", &cat, AXLE_HERE},
    {"copy_", &copy, AXLE_HERE},
    {"sum.dim_IntList", &sum, AXLE_HERE},
    {"mean.dim", &mean, AXLE_HERE},
    {"amax", &amax, AXLE_HERE},
    {"amin", &amin, AXLE_HERE},
    {"prod.dim_int", &prod, AXLE_HERE},
    {"norm.ScalarOpt_dim", &norm, AXLE_HERE},
};

}  // namespace

axle_status register_copy_reduce(const axle_registrar* r) { return plugin::register_kernels(r, "cpu", kKernels); }

}  // namespace axle::cpu
