// Normalization, softmax and prelu on oneDNN: softmax / log_softmax (softmax_v2,
// the output dtype may differ from the input's), layer_norm, batch_norm
// (inference with running statistics, training with the batch's) and prelu. float32 and bfloat16 data; scale and shift
// must be float32 (oneDNN's requirement), otherwise the call is declined.
#include "kernels.h"

#include <vector>

namespace axle::cpu {
namespace {

using plugin::arg_bool;
using plugin::arg_double;
using plugin::arg_int;
using plugin::arg_is_none;
using plugin::arg_tensor;

axle_status softmax_impl(const axle_kernel_call* c, dnnl::algorithm alg) {
  Shape src = Shape::of(arg_tensor(c, 0)), dst = Shape::of(c->outputs[0]);
  if (src.ndim() == 0 || src.numel() == 0 || !is_f32_or_bf16(src.dtype) || !is_f32_or_bf16(dst.dtype) ||
      src.has_zero_stride())
    return AXLE_DECLINED;
  int64_t dim = arg_int(c, 1);
  if (dim < 0) dim += src.ndim();
  Key key(alg == dnnl::algorithm::softmax_log ? "log_softmax" : "softmax");
  key.add(src).add(dst).add(dim);
  auto p = cache().get(key.str(), [&]() -> std::shared_ptr<Primitive> {
    dnnl::memory::desc smd, dmd;
    if (!describe(src, &smd) || !describe(dst, &dmd)) return declined("dtype or rank oneDNN lacks");
    const dnnl::softmax_v2_forward::desc d(dnnl::prop_kind::forward_inference, alg, smd, dmd, static_cast<int>(dim));
    const dnnl::softmax_v2_forward::primitive_desc pd(d, default_attr(), engine());
    return make_primitive<dnnl::softmax_v2_forward::primitive_desc, dnnl::softmax_v2_forward>(
        pd, {DNNL_ARG_SRC, DNNL_ARG_DST}, {smd, dmd});
  });
  if (!p->declined.empty()) return plugin::decline(c, p->declined);
  execute(*p, {src.data, dst.data});
  return AXLE_OK;
}

axle_status softmax(void*, const axle_kernel_call* c) {
  return guarded(c, [&] { return softmax_impl(c, dnnl::algorithm::softmax_accurate); });
}
axle_status log_softmax(void*, const axle_kernel_call* c) {
  return guarded(c, [&] { return softmax_impl(c, dnnl::algorithm::softmax_log); });
}

// layer_norm(input, normalized_shape, weight, bias, eps, cudnn_enable): the
// normalized dims are flattened into one, so the input must be contiguous.
axle_status layer_norm(void*, const axle_kernel_call* c) {
  return guarded(c, [&]() -> axle_status {
    const axle_tensor_view& in = arg_tensor(c, 0);
    const axle_tensor_view& out = c->outputs[0];
    if (!is_f32_or_bf16(in.dtype) || out.dtype != in.dtype || !plugin::is_contiguous(in) || !plugin::is_contiguous(out))
      return AXLE_DECLINED;
    const int64_t total = plugin::numel(in);
    int64_t inner = 1;
    const axle_value& ns = c->args[1];
    for (int64_t i = 0; i < ns.u.ints.count; ++i) inner *= ns.u.ints.items[i];
    if (total == 0 || inner == 0) return AXLE_DECLINED;
    void *scale = nullptr, *shift = nullptr;
    if (!param(c, 2, inner, &scale) || !param(c, 3, inner, &shift)) return AXLE_DECLINED;
    const double eps = arg_double(c, 4);
    Shape s;
    s.dims = {total / inner, inner};
    s.strides = {inner, 1};
    s.dtype = in.dtype;
    Key key("layer_norm");
    key.add(s).add(eps).add(static_cast<int64_t>(scale != nullptr)).add(static_cast<int64_t>(shift != nullptr));
    auto p = cache().get(key.str(), [&]() -> std::shared_ptr<Primitive> {
      dnnl::memory::desc md;
      if (!describe(s, &md)) return declined("dtype oneDNN lacks");
      auto flags = dnnl::normalization_flags::none;
      if (scale) flags |= dnnl::normalization_flags::use_scale;
      if (shift) flags |= dnnl::normalization_flags::use_shift;
      const dnnl::layer_normalization_forward::desc d(dnnl::prop_kind::forward_inference, md, static_cast<float>(eps),
                                                      flags);
      const dnnl::layer_normalization_forward::primitive_desc pd(d, default_attr(), engine());
      std::vector<int> ids = {DNNL_ARG_SRC, DNNL_ARG_DST};
      std::vector<dnnl::memory::desc> mds = {md, md};
      const dnnl::memory::desc pmd({inner}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
      if (scale) ids.push_back(DNNL_ARG_SCALE), mds.push_back(pmd);
      if (shift) ids.push_back(DNNL_ARG_SHIFT), mds.push_back(pmd);
      return make_primitive<dnnl::layer_normalization_forward::primitive_desc, dnnl::layer_normalization_forward>(
          pd, ids, mds);
    });
    if (!p->declined.empty()) return plugin::decline(c, p->declined);
    std::vector<void*> ptrs = {in.data, out.data};
    if (scale) ptrs.push_back(scale);
    if (shift) ptrs.push_back(shift);
    execute(*p, ptrs);
    return AXLE_OK;
  });
}

// oneDNN's batch normalization forward over src into dst: inference reads
// mean / var (the running statistics), training writes the batch's there.
axle_status run_batch_norm(const axle_kernel_call* c, const Shape& src, const Shape& dst, void* scale, void* shift,
                           void* mean, void* var, bool training, double eps) {
  const int64_t channels = src.dims[1];
  Key key(training ? "batch_norm_training" : "batch_norm");
  key.add(src).add(eps).add(static_cast<int64_t>(scale != nullptr)).add(static_cast<int64_t>(shift != nullptr));
  auto p = cache().get(key.str(), [&]() -> std::shared_ptr<Primitive> {
    dnnl::memory::desc md;
    if (!describe(src, &md)) return declined("dtype or rank oneDNN lacks");
    auto flags = training ? dnnl::normalization_flags::none : dnnl::normalization_flags::use_global_stats;
    if (scale) flags |= dnnl::normalization_flags::use_scale;
    if (shift) flags |= dnnl::normalization_flags::use_shift;
    const dnnl::batch_normalization_forward::desc d(
        training ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference, md, static_cast<float>(eps),
        flags);
    const dnnl::batch_normalization_forward::primitive_desc pd(d, default_attr(), engine());
    const dnnl::memory::desc pmd({channels}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::a);
    std::vector<int> ids = {DNNL_ARG_SRC, DNNL_ARG_DST, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE};
    std::vector<dnnl::memory::desc> mds = {md, md, pmd, pmd};
    if (scale) ids.push_back(DNNL_ARG_SCALE), mds.push_back(pmd);
    if (shift) ids.push_back(DNNL_ARG_SHIFT), mds.push_back(pmd);
    return make_primitive<dnnl::batch_normalization_forward::primitive_desc, dnnl::batch_normalization_forward>(pd, ids,
                                                                                                                mds);
  });
  if (!p->declined.empty()) return plugin::decline(c, p->declined);
  std::vector<void*> ptrs = {src.data, dst.data, mean, var};
  if (scale) ptrs.push_back(scale);
  if (shift) ptrs.push_back(shift);
  execute(*p, ptrs);
  return AXLE_OK;
}

bool batch_norm_views(const axle_kernel_call* c, Shape* src, Shape* dst) {
  *src = Shape::of(arg_tensor(c, 0)), *dst = Shape::of(c->outputs[0]);
  return src->ndim() >= 2 && src->numel() != 0 && is_f32_or_bf16(src->dtype) && dst->dtype == src->dtype &&
         !src->has_zero_stride() && src->strides == dst->strides;
}

// batch_norm(input, weight, bias, running_mean, running_var, training, momentum,
// eps, cudnn_enabled): inference normalizes with the running statistics;
// training (without running statistics to update: nn's modules and F.batch_norm
// train through _native_batch_norm_legit.no_stats, below) with the batch's,
// which oneDNN computes into scratch.
axle_status batch_norm(void*, const axle_kernel_call* c) {
  return guarded(c, [&]() -> axle_status {
    const bool training = arg_bool(c, 5);
    Shape src, dst;
    if (!batch_norm_views(c, &src, &dst)) return AXLE_DECLINED;
    const int64_t channels = src.dims[1];
    void *scale, *shift, *mean, *var;
    if (!param(c, 1, channels, &scale) || !param(c, 2, channels, &shift) || !param(c, 3, channels, &mean) ||
        !param(c, 4, channels, &var))
      return AXLE_DECLINED;
    if (training ? (mean || var) : (!mean || !var))
      return plugin::decline(c, training ? "training with running statistics" : "inference without them");
    std::vector<float> batch_mean, batch_var;
    if (training) {
      batch_mean.resize(static_cast<size_t>(channels));
      batch_var.resize(static_cast<size_t>(channels));
      mean = batch_mean.data();
      var = batch_var.data();
    }
    return run_batch_norm(c, src, dst, scale, shift, mean, var, training, arg_double(c, 7));
  });
}

// y = (x - m) * a + b over n floats.
__attribute__((target_clones("avx512f", "avx2", "default"))) void normalize_plane(const float* __restrict x, float m,
                                                                                  float a, float b, int64_t n,
                                                                                  float* __restrict y) {
  for (int64_t j = 0; j < n; ++j) y[j] = (x[j] - m) * a + b;
}

// The training forward of a contiguous float32 (N, C, ...) input on our loops,
// per channel (channels split across threads): the mean and the variance about
// it in double over the channel's planes, then y = (x - mean) * invstd * w + b.
// oneDNN's primitive took 1.6 ms for ResNet-18's twenty at batch 4, 64x64
// (mostly per call).
void batch_norm_training_loops(const Shape& src, const Shape& dst, const float* w, const float* b, float* mean,
                               float* invstd, double eps, double* var = nullptr) {
  const int64_t n = src.dims[0], ch = src.dims[1], total = src.numel(), plane = total / (n * ch);
  const auto* x = static_cast<const float*>(src.data);
  auto* y = static_cast<float*>(dst.data);
  parallel_ranges(ch, total >= (int64_t{1} << 15) ? thread_count() : 1, 1, [&](int64_t k0, int64_t k1) {
    for (int64_t k = k0; k < k1; ++k) {
      channel_statistics(x, n, ch, plane, k, eps, &mean[k], &invstd[k], var ? &var[k] : nullptr);
      const float a = invstd[k] * (w ? w[k] : 1.0f), shift = b ? b[k] : 0.0f;
      for (int64_t i = 0; i < n; ++i)
        normalize_plane(x + (i * ch + k) * plane, mean[k], a, shift, plane, y + (i * ch + k) * plane);
    }
  });
}

// The batch statistics outputs (save_mean, save_invstd) of both
// _native_batch_norm_legit forms: float32, contiguous, one per channel.
bool stats_outputs(const axle_kernel_call* c, int64_t channels) {
  for (int i : {1, 2}) {
    const axle_tensor_view& v = c->outputs[i];
    if (v.dtype != AXLE_DTYPE_FLOAT32 || plugin::numel(v) != channels || !plugin::is_contiguous(v)) return false;
  }
  return true;
}

// _native_batch_norm_legit.no_stats(input, weight, bias, training, momentum,
// eps) -> (out, save_mean, save_invstd) for float32 input (a bfloat16 one has
// float32 statistics: declined) and parameters: contiguous inputs on the loops
// above; other layouts on oneDNN's training forward, which writes the batch's
// mean and (biased) variance into the outputs, the variance then turned into
// 1 / sqrt(var + eps) in place.
axle_status batch_norm_no_stats(void*, const axle_kernel_call* c) {
  return guarded(c, [&]() -> axle_status {
    Shape src, dst;
    if (!batch_norm_views(c, &src, &dst) || src.dtype != AXLE_DTYPE_FLOAT32) return AXLE_DECLINED;
    const int64_t channels = src.dims[1];
    void *scale, *shift;
    if (!param(c, 1, channels, &scale) || !param(c, 2, channels, &shift) || !arg_bool(c, 3)) return AXLE_DECLINED;
    const axle_tensor_view &mv = c->outputs[1], &iv = c->outputs[2];
    if (!stats_outputs(c, channels)) return AXLE_DECLINED;
    const double eps = arg_double(c, 5);
    if (plugin::is_contiguous(arg_tensor(c, 0)) && plugin::is_contiguous(c->outputs[0])) {
      batch_norm_training_loops(src, dst, static_cast<const float*>(scale), static_cast<const float*>(shift),
                                static_cast<float*>(mv.data), static_cast<float*>(iv.data), eps);
      return AXLE_OK;
    }
    if (axle_status s = run_batch_norm(c, src, dst, scale, shift, mv.data, iv.data, true, eps)) return s;
    auto* inv = static_cast<float*>(iv.data);
    for (int64_t k = 0; k < channels; ++k) inv[k] = static_cast<float>(1.0 / std::sqrt(double{inv[k]} + eps));
    return AXLE_OK;
  });
}

// _native_batch_norm_legit(input, weight, bias, running_mean!, running_var!,
// training, momentum, eps) in training: float32, the input and output
// contiguous, on the loops above; then the running statistics (float32,
// contiguous) per channel in double, torch's update: momentum * the batch's
// mean / unbiased variance + (1 - momentum) * the running one. Evaluation and
// anything else is declined (the composite serves it).
axle_status batch_norm_legit(void*, const axle_kernel_call* c) {
  return guarded(c, [&]() -> axle_status {
    Shape src, dst;
    if (!batch_norm_views(c, &src, &dst) || src.dtype != AXLE_DTYPE_FLOAT32 || !arg_bool(c, 5) ||
        !plugin::is_contiguous(arg_tensor(c, 0)) || !plugin::is_contiguous(c->outputs[0]))
      return plugin::decline(c, "evaluation, or an input that is not contiguous float32");
    const int64_t channels = src.dims[1];
    void *scale, *shift, *rm, *rv;
    if (!param(c, 1, channels, &scale) || !param(c, 2, channels, &shift) || !param(c, 3, channels, &rm) ||
        !param(c, 4, channels, &rv) || !rm || !rv)
      return plugin::decline(c, "parameters or running statistics not contiguous float32");
    const axle_tensor_view &mv = c->outputs[1], &iv = c->outputs[2];
    if (!stats_outputs(c, channels)) return AXLE_DECLINED;
    for (int i : {3, 4})
      if (plugin::views_overlap(arg_tensor(c, i), arg_tensor(c, 0)) ||
          plugin::views_overlap(arg_tensor(c, i), c->outputs[0]))
        return plugin::decline(c, "running statistics overlapping the input or output");
    std::vector<double> var(static_cast<size_t>(channels));
    auto* mean = static_cast<float*>(mv.data);
    batch_norm_training_loops(src, dst, static_cast<const float*>(scale), static_cast<const float*>(shift), mean,
                              static_cast<float*>(iv.data), arg_double(c, 7), var.data());
    const double momentum = arg_double(c, 6), count = static_cast<double>(src.numel() / channels);
    auto *running_mean = static_cast<float*>(rm), *running_var = static_cast<float*>(rv);
    for (int64_t k = 0; k < channels; ++k) {
      const double unbiased = var[static_cast<size_t>(k)] * count / (count - 1);  // 0 / 0 for one value, as torch
      running_mean[k] = static_cast<float>(momentum * mean[k] + (1 - momentum) * running_mean[k]);
      running_var[k] = static_cast<float>(momentum * unbiased + (1 - momentum) * running_var[k]);
    }
    return AXLE_OK;
  });
}

// prelu(self, weight): one slope, or one per channel (dim 1), same dtype as self.
axle_status prelu(void*, const axle_kernel_call* c) {
  return guarded(c, [&]() -> axle_status {
    Shape src = Shape::of(arg_tensor(c, 0)), dst = Shape::of(c->outputs[0]);
    const axle_tensor_view& w = arg_tensor(c, 1);
    if (src.ndim() == 0 || src.numel() < dnnl_min_elements() || src.numel() == 0 || !is_f32_or_bf16(src.dtype) ||
        w.dtype != src.dtype || dst.dtype != src.dtype || src.has_zero_stride() || w.ndim > 1)
      return AXLE_DECLINED;
    Shape wei;
    wei.dtype = w.dtype;
    wei.data = w.data;
    wei.dims.assign(static_cast<size_t>(src.ndim()), 1);
    wei.strides.assign(static_cast<size_t>(src.ndim()), 1);
    const int64_t n = plugin::numel(w);
    if (n != 1) {
      if (src.ndim() < 2 || src.dims[1] != n) return AXLE_DECLINED;
      wei.dims[1] = n;
      wei.strides[1] = w.ndim == 1 ? w.strides[0] : 1;
    }
    wei.unexpand();
    Key key("prelu");
    key.add(src).add(wei).add(dst);
    auto p = cache().get(key.str(), [&]() -> std::shared_ptr<Primitive> {
      dnnl::memory::desc smd, wmd, dmd;
      if (!describe(src, &smd) || !describe(wei, &wmd) || !describe(dst, &dmd)) return declined("dtype or rank");
      if (smd != dmd) return declined("input and output layouts differ");
      const dnnl::prelu_forward::desc d(dnnl::prop_kind::forward_inference, smd, wmd);
      const dnnl::prelu_forward::primitive_desc pd(d, default_attr(), engine());
      return make_primitive<dnnl::prelu_forward::primitive_desc, dnnl::prelu_forward>(
          pd, {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST}, {smd, wmd, dmd});
    });
    if (!p->declined.empty()) return plugin::decline(c, p->declined);
    execute(*p, {src.data, wei.data, dst.data});
    return AXLE_OK;
  });
}

const KernelEntry kKernels[] = {
    {"prelu", &prelu, AXLE_HERE},
    {"softmax.int", &softmax, AXLE_HERE},
    {"log_softmax.int", &log_softmax, AXLE_HERE},
    {"layer_norm", &layer_norm, AXLE_HERE},
    {"batch_norm", &batch_norm, AXLE_HERE},
    {"_native_batch_norm_legit.no_stats", &batch_norm_no_stats, AXLE_HERE},
    {"_native_batch_norm_legit", &batch_norm_legit, AXLE_HERE},
};

}  // namespace

axle_status register_nn(const axle_registrar* r) { return plugin::register_kernels(r, "cpu", kKernels); }

}  // namespace axle::cpu
