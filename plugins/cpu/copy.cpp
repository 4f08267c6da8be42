// copy_ (contiguous, clone, to(dtype), reshape of a strided view...) and cat on
// oneDNN.
//
// copy_: equal dense layouts and dtypes are a memcpy (split over the threads);
// other strided copies and float conversions are oneDNN reorders. Declined:
// broadcasting sources, float -> integer (oneDNN rounds and saturates, PyTorch
// truncates) and integer narrowing (oneDNN saturates, PyTorch wraps).
#include "kernels.h"

#include <omp.h>

#include <cstring>

namespace axle::cpu {
namespace {

using plugin::arg_tensor;

bool is_float(axle_dtype d) { return d == AXLE_DTYPE_FLOAT32 || d == AXLE_DTYPE_BFLOAT16 || d == AXLE_DTYPE_FLOAT16; }

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
      return make_primitive<dnnl::reorder::primitive_desc, dnnl::reorder>(pd, {DNNL_ARG_FROM, DNNL_ARG_TO}, {smd, dmd});
    });
    if (!p->declined.empty()) return plugin::decline(c, p->declined);
    execute(*p, {src.data, dst.data});
    return AXLE_OK;
  });
}

// cat(tensors, dim): one oneDNN concat when every non-empty input has the
// output's dtype (float32 / bf16); conversions and empty inputs' special cases
// stay with the composite of copies.
axle_status cat(void*, const axle_kernel_call* c) {
  return guarded(c, [&]() -> axle_status {
    const axle_value& list = c->args[0];
    Shape dst = Shape::of(c->outputs[0]);
    if (dst.numel() < dnnl_min_elements() || dst.numel() == 0 || dst.ndim() == 0 || !is_f32_or_bf16(dst.dtype))
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
    if (!p->declined.empty()) return plugin::decline(c, p->declined);
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
};

}  // namespace

axle_status register_copy(const axle_registrar* r) { return plugin::register_kernels(r, "cpu", kKernels); }

}  // namespace axle::cpu
