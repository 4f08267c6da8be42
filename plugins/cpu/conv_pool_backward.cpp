// convolution_backward on oneDNN's backward primitives (what training runs
// instead of the composite's convolutions): the input gradient from
// convolution_backward_data, the weight and bias gradients from
// convolution_backward_weights, each in the layouts oneDNN picks (the user's
// tensors reordered in and out), with a forward_training primitive as the
// hint oneDNN requires. float32 and bfloat16, 1 to 3 spatial dims, groups,
// dilation; transposed convolutions and a bias gradient without the weight's
// are declined (the composite serves them). Outputs output_mask leaves out
// arrive unallocated (no data) and stay so.
#include "kernels.h"

#include <cstring>

namespace axle::cpu {
namespace {

using plugin::arg_bool;
using plugin::arg_int;
using plugin::arg_ints;
using plugin::arg_tensor;

template <typename Desc>
Desc forward_desc(const Shape& x, const Shape& w, const Shape* bias, const Shape& gy, const ConvGeometry& g) {
  const dnnl::memory::desc b = bias ? any_like(*bias) : dnnl::memory::desc();
  return Desc(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct, any_like(x), any_like(w), b,
              any_like(gy), g.strides, g.dilates, g.pad_l, g.pad_r);
}

// convolution_backward(grad_output, input, weight, bias_sizes, stride, padding,
// dilation, transposed, output_padding, groups, output_mask)
axle_status backward(const axle_kernel_call* c) {
  Shape gy = Shape::of(arg_tensor(c, 0)), x = Shape::of(arg_tensor(c, 1)), wei = Shape::of(arg_tensor(c, 2));
  const axle_tensor_view &gx_v = c->outputs[0], &gw_v = c->outputs[1], &gb_v = c->outputs[2];
  const bool want_x = gx_v.data != nullptr, want_w = gw_v.data != nullptr, want_b = gb_v.data != nullptr;
  const int64_t groups = arg_int(c, 9), spatial = x.ndim() - 2;
  if (arg_bool(c, 7) || (want_b && !want_w) || !is_f32_or_bf16(x.dtype) || gy.dtype != x.dtype ||
      wei.dtype != x.dtype || spatial < 1 || spatial > 3 || wei.ndim() != x.ndim() || gy.ndim() != x.ndim() ||
      x.numel() == 0 || gy.numel() == 0 || wei.numel() == 0 || groups < 1 || gy.has_zero_stride() ||
      x.has_zero_stride() || wei.has_zero_stride())
    return AXLE_DECLINED;
  if (!want_x && !want_w) return AXLE_OK;
  ConvGeometry g;
  if (!conv_geometry(arg_ints(c, 4), arg_ints(c, 5), arg_ints(c, 6), x, wei, gy, false, &g)) return AXLE_DECLINED;
  // Input elements no window reads: described without them; their gradient is
  // zero, written first over the whole (dense) input gradient.
  x = cropped(x, g);
  const Shape gx = want_x ? cropped(Shape::of(gx_v), g) : Shape();
  const bool zero_gx_first = want_x && g.cropping();
  if (zero_gx_first && !Shape::of(gx_v).is_dense())
    return plugin::decline(c, "a cropped input gradient that is not dense");
  const Shape w = conv_weights(wei, false, groups);
  Shape gb;
  if (want_b) {
    gb = Shape::of(gb_v);
    if (gb.ndim() != 1 || gb.dims[0] != gy.dims[1] || gb.dtype != x.dtype) return AXLE_DECLINED;
  }
  // Few output positions: the plugin's own GEMMs (conv_gemm.cpp) on the plain
  // tensors instead of oneDNN's blocked primitives and their weight reorders;
  // when they serve every wanted gradient, no primitive is looked up.
  const bool gemm_x = want_x && gemm_conv_fits(x, wei, gy, groups, false, false) && plugin::is_contiguous(gx_v);
  const bool gemm_w = want_w && gemm_conv_fits(x, wei, gy, groups, false, true) && plugin::is_contiguous(gw_v) &&
                      (!want_b || plugin::is_contiguous(gb_v));
  auto run_gemms = [&] {
    if (gemm_x) gemm_conv_backward_data(gy, wei, Shape::of(gx_v), g);
    if (gemm_w)
      gemm_conv_weight_grad(x, gy, wei, g, static_cast<float*>(gw_v.data),
                            want_b ? static_cast<float*>(gb_v.data) : nullptr);
  };
  if ((!want_x || gemm_x) && (!want_w || gemm_w)) {
    run_gemms();
    return AXLE_OK;
  }
  Key base("convolution_backward");
  base.add(gy).add(x).add(wei).add(groups).add(static_cast<int64_t>(want_b));
  for (auto v : {g.strides, g.dilates, g.pad_l, g.pad_r})
    for (int64_t d : v) base.add(d);
  const Shape gw = want_w ? conv_weights(Shape::of(gw_v), false, groups) : Shape();
  dnnl::memory::desc gy_u, x_u, w_u, gx_u, gw_u;
  if (!describe(gy, &gy_u) || !describe(x, &x_u) || !describe(w, &w_u) || (want_x && !describe(gx, &gx_u)) ||
      (want_w && !describe(gw, &gw_u)))
    return AXLE_DECLINED;
  // 1x1 kernels run on the tensors' own layouts (no reorders), which measured
  // faster than blocked layouts plus reorders (ResNet-18's downsampling at
  // 64x64, one thread, cache cold: 0.12 vs 0.25 ms for 64->128 at 16x16); it
  // falls back to the blocked layouts when oneDNN has no such primitive.
  // (oneDNN's own gemm convolution for the weight gradient of small-spatial
  // layers measured slower inside a training step, 3.4-4.0 ms for 512->512 at
  // 2x2: those layers take conv_gemm.cpp's single sgemm, above.)
  const bool plain = one_by_one(wei);
  auto pick = [](bool plain, const dnnl::memory::desc& user, const Shape& s) { return plain ? user : any_like(s); };
  // Every primitive is made (or found declined) before anything is written.
  std::shared_ptr<const Primitive> data, weights;
  if (want_x && !gemm_x) {
    Key key = base;
    key.add(static_cast<int64_t>(1)).add(gx);
    data = cache().get(key.str(), [&]() -> std::shared_ptr<Primitive> {
      const auto hint = dnnl::convolution_forward::primitive_desc(
          forward_desc<dnnl::convolution_forward::desc>(x, w, nullptr, gy, g), default_attr(), engine());
      auto make = [&](bool plain) {
        const dnnl::convolution_backward_data::desc d(dnnl::algorithm::convolution_direct, pick(plain, gx_u, x),
                                                      pick(plain, w_u, w), pick(plain, gy_u, gy), g.strides, g.dilates,
                                                      g.pad_l, g.pad_r);
        const dnnl::convolution_backward_data::primitive_desc pd(d, default_attr(), engine(), hint);
        return make_primitive<dnnl::convolution_backward_data::primitive_desc, dnnl::convolution_backward_data>(
            pd, {DNNL_ARG_DIFF_DST, DNNL_ARG_WEIGHTS, DNNL_ARG_DIFF_SRC},
            {pd.diff_dst_desc(), pd.weights_desc(), pd.diff_src_desc()});
      };
      return plain_or_blocked(plain, make);
    });
    if (!data->declined.empty()) return plugin::decline(c, data->declined);
  }
  dnnl::memory::desc gb_u;
  if (want_b && !describe(gb, &gb_u)) return AXLE_DECLINED;
  if (want_w && !gemm_w) {
    Key key = base;
    key.add(static_cast<int64_t>(2)).add(Shape::of(gw_v));
    weights = cache().get(key.str(), [&]() -> std::shared_ptr<Primitive> {
      const auto hint = dnnl::convolution_forward::primitive_desc(
          forward_desc<dnnl::convolution_forward::desc>(x, w, want_b ? &gb : nullptr, gy, g), default_attr(), engine());
      const dnnl::memory::desc b = want_b ? gb_u : dnnl::memory::desc();
      auto make = [&](bool plain) {
        const dnnl::convolution_backward_weights::desc d(dnnl::algorithm::convolution_direct, pick(plain, x_u, x),
                                                         pick(plain, gw_u, w), b, pick(plain, gy_u, gy), g.strides,
                                                         g.dilates, g.pad_l, g.pad_r);
        const dnnl::convolution_backward_weights::primitive_desc pd(d, default_attr(), engine(), hint);
        std::vector<int> ids = {DNNL_ARG_SRC, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_WEIGHTS};
        std::vector<dnnl::memory::desc> mds = {pd.src_desc(), pd.diff_dst_desc(), pd.diff_weights_desc()};
        if (want_b) ids.push_back(DNNL_ARG_DIFF_BIAS), mds.push_back(pd.diff_bias_desc());
        return make_primitive<dnnl::convolution_backward_weights::primitive_desc, dnnl::convolution_backward_weights>(
            pd, ids, mds);
      };
      return plain_or_blocked(plain, make);
    });
    if (!weights->declined.empty()) return plugin::decline(c, weights->declined);
  }
  // Both primitives wanting grad_output in one blocked layout share its
  // reorder (MNIST's 64x64x24x24 gradient: 1.1 ms a reorder).
  void* gy_data = gy.data;
  dnnl::memory::desc gy_md = gy_u;
  if (data && weights && data->arg_mds[0] == weights->arg_mds[1] && data->arg_mds[0] != gy_u) {
    void* tmp = workspace(kSharedReorderSlot, data->arg_mds[0].get_size());
    const auto r = reorder_primitive(base.str() + "gy", gy_u, data->arg_mds[0]);
    if (!r->declined.empty()) return plugin::decline(c, r->declined);
    execute(*r, {gy.data, tmp});
    gy_data = tmp;
    gy_md = data->arg_mds[0];
  }
  if (data) {
    if (zero_gx_first)
      std::memset(gx_v.data, 0, static_cast<size_t>(plugin::numel(gx_v)) * plugin::dtype_size(gx_v.dtype));
    run_with_reorders(base.str() + "d", *data,
                      {{DNNL_ARG_DIFF_DST, gy_md, gy_data, false},
                       {DNNL_ARG_WEIGHTS, w_u, wei.data, false},
                       {DNNL_ARG_DIFF_SRC, gx_u, gx_v.data, true}});
  }
  run_gemms();
  if (weights) {
    std::vector<Arg> args = {{DNNL_ARG_SRC, x_u, x.data, false},
                             {DNNL_ARG_DIFF_DST, gy_md, gy_data, false},
                             {DNNL_ARG_DIFF_WEIGHTS, gw_u, gw_v.data, true}};
    if (want_b) args.push_back({DNNL_ARG_DIFF_BIAS, gb_u, gb_v.data, true});
    run_with_reorders(base.str() + "w", *weights, args);
  }
  return AXLE_OK;
}

axle_status convolution_backward(void*, const axle_kernel_call* c) {
  return guarded(c, [&] { return backward(c); });
}

const KernelEntry kKernels[] = {
    {"convolution_backward", &convolution_backward, AXLE_HERE},
};

}  // namespace

axle_status register_conv_pool_backward(const axle_registrar* r) {
  return plugin::register_kernels(r, "cpu", kKernels);
}

}  // namespace axle::cpu
