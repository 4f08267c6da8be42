// Convolution, transposed convolution and pooling on oneDNN.
//
// convolution.out (what conv1d / conv2d / conv_transpose2d / convolution reach):
// oneDNN picks the layouts it runs fastest ("any"); a channels_last input, or a
// first layer with few input channels, is offered as is first (no reorders), a
// plain NCHW one is reordered into the blocked layout and the result back, as
// PyTorch's mkldnn path does. Weights are reordered on every call: they may change between calls,
// and the reorder costs well under 1% of a convolution. float32 and bfloat16;
// 1 to 3 spatial dims; groups, dilation, asymmetric output sizes.
//
// max_pool2d / avg_pool2d and max_pool3d / avg_pool3d run in the input's layout
// (NCHW or channels_last; 3-d: float32 only, torch's CPU pools no bfloat16 in
// 3-d); ceil_mode and divisor_override are declined (oneDNN's border rule differs).
#include "kernels.h"

#include <algorithm>

namespace axle::cpu {

int64_t at(const std::vector<int64_t>& v, size_t i) { return v.size() == 1 ? v[0] : v[i]; }

dnnl::memory::desc any_like(const Shape& s) {
  dnnl::memory::data_type t;
  dnnl_type(s.dtype, &t);
  return dnnl::memory::desc(dnnl::memory::dims(s.dims.begin(), s.dims.end()), t, dnnl::memory::format_tag::any);
}

bool conv_geometry(const std::vector<int64_t>& stride, const std::vector<int64_t>& padding,
                   const std::vector<int64_t>& dilation, const Shape& src, const Shape& wei, const Shape& dst,
                   bool transposed, ConvGeometry* g) {
  const int64_t spatial = src.ndim() - 2;
  if (stride.empty() || padding.empty() || dilation.empty()) return false;
  for (int64_t d = 0; d < spatial; ++d) {
    const int64_t s = at(stride, d), p = at(padding, d), dil = at(dilation, d);
    const int64_t k = wei.dims[2 + d], i = src.dims[2 + d], o = dst.dims[2 + d];
    const int64_t extent = (k - 1) * dil + 1;
    int64_t r = transposed ? (i - 1) * s - p + extent - o : (o - 1) * s + extent - i - p;
    int64_t crop = 0;
    if (r < 0 && !transposed && -r < i) crop = -r, r = 0;
    if (r < 0 || p < 0 || s < 1 || dil < 1) return false;
    g->strides.push_back(s);
    g->dilates.push_back(dil - 1);
    g->pad_l.push_back(p);
    g->pad_r.push_back(r);
    g->crop.push_back(crop);
  }
  return true;
}

bool ConvGeometry::cropping() const {
  return std::any_of(crop.begin(), crop.end(), [](int64_t v) { return v > 0; });
}

Shape cropped(const Shape& s, const ConvGeometry& g) {
  Shape r = s;
  for (size_t d = 0; d < g.crop.size(); ++d) r.dims[2 + d] -= g.crop[d];
  return r;
}

bool one_by_one(const Shape& wei) {
  for (int64_t d = 2; d < wei.ndim(); ++d)
    if (wei.dims[d] != 1) return false;
  return true;
}

Shape conv_weights(const Shape& wei, bool transposed, int64_t groups) {
  Shape w = wei;
  if (transposed) std::swap(w.dims[0], w.dims[1]), std::swap(w.strides[0], w.strides[1]);
  if (groups > 1) {
    // convolution: dim 0 (O) splits into G x O/G; transposed: dim 1 (I) does.
    const int64_t split = transposed ? 1 : 0;
    const int64_t per = w.dims[split] / groups;
    if (transposed) {  // after the swap: dims [O/G, I, K]; I = G * I/G
      w.dims[1] = per;
      w.dims.insert(w.dims.begin(), groups);
      w.strides.insert(w.strides.begin(), per * w.strides[1]);
    } else {
      w.dims[0] = per;
      w.dims.insert(w.dims.begin(), groups);
      w.strides.insert(w.strides.begin(), per * w.strides[0]);
    }
  }
  return w;
}

void run_with_reorders(const std::string& key, const Primitive& p, const std::vector<Arg>& args) {
  std::vector<void*> ptrs;
  std::vector<std::pair<std::shared_ptr<const Primitive>, std::pair<void*, void*>>> after;
  int slot = 1;
  for (size_t i = 0; i < args.size(); ++i) {
    const Arg& a = args[i];
    const dnnl::memory::desc& want = p.arg_mds[i];
    if (want == a.user) {
      ptrs.push_back(a.data);
      continue;
    }
    void* tmp = workspace(slot++, want.get_size());
    const std::string k = key + static_cast<char>('0' + i);
    if (a.output) {
      after.push_back({reorder_primitive(k, want, a.user), {tmp, a.data}});
    } else {
      auto r = reorder_primitive(k, a.user, want);
      if (!r->declined.empty()) throw dnnl::error(dnnl_unimplemented, r->declined.c_str());
      execute(*r, {a.data, tmp});
    }
    ptrs.push_back(tmp);
  }
  execute(p, ptrs);
  for (auto& [r, io] : after) {
    if (!r->declined.empty()) throw dnnl::error(dnnl_unimplemented, r->declined.c_str());
    execute(*r, {io.first, io.second});
  }
}

namespace {

using plugin::arg_bool;
using plugin::arg_int;
using plugin::arg_ints;
using plugin::arg_is_none;
using plugin::arg_tensor;

bool channels_last(const Shape& s) { return s.ndim() >= 3 && s.strides[1] == 1 && s.dims[1] > 1; }

// convolution.out(input, weight, bias?, stride, padding, dilation, transposed,
//                 output_padding, groups, *, out)
axle_status convolution(void*, const axle_kernel_call* c) {
  return guarded(c, [&]() -> axle_status {
    Shape src = Shape::of(arg_tensor(c, 0)), wei = Shape::of(arg_tensor(c, 1)), dst = Shape::of(c->outputs[0]);
    const bool has_bias = !arg_is_none(c, 2) && arg_tensor(c, 2).ndim >= 0 && arg_tensor(c, 2).data;
    const bool transposed = arg_bool(c, 6);
    const int64_t groups = arg_int(c, 8), spatial = src.ndim() - 2;
    if (!is_f32_or_bf16(src.dtype) || wei.dtype != src.dtype || dst.dtype != src.dtype || spatial < 1 || spatial > 3 ||
        wei.ndim() != src.ndim() || src.numel() == 0 || dst.numel() == 0 || wei.numel() == 0 || src.has_zero_stride() ||
        wei.has_zero_stride() || dst.has_zero_stride() || groups < 1)
      return AXLE_DECLINED;
    Shape bias;
    if (has_bias) {
      bias = Shape::of(arg_tensor(c, 2));
      if (bias.dtype != src.dtype || bias.ndim() != 1 || bias.has_zero_stride()) return AXLE_DECLINED;
    }
    ConvGeometry g;
    if (!conv_geometry(arg_ints(c, 3), arg_ints(c, 4), arg_ints(c, 5), src, wei, dst, transposed, &g))
      return AXLE_DECLINED;
    src = cropped(src, g);
    if (gemm_conv_fits(src, wei, dst, groups, transposed, false)) {  // few output positions: conv_gemm.cpp
      gemm_conv_forward(src, wei, has_bias ? &bias : nullptr, dst, g);
      return AXLE_OK;
    }
    const dnnl::memory::dims &strides = g.strides, &dilates = g.dilates, &pad_l = g.pad_l, &pad_r = g.pad_r;
    const Shape w = conv_weights(wei, transposed, groups);
    const bool cl = channels_last(src) && channels_last(dst);
    Key key(transposed ? "deconvolution" : "convolution");
    key.add(src).add(wei).add(dst).add(groups).add(static_cast<int64_t>(has_bias));
    if (has_bias) key.add(bias);
    for (auto v : {strides, dilates, pad_l, pad_r})
      for (int64_t x : v) key.add(x);
    dnnl::memory::desc src_u, wei_u, dst_u, bias_u;
    if (!describe(src, &src_u) || !describe(w, &wei_u) || !describe(dst, &dst_u) ||
        (has_bias && !describe(bias, &bias_u)))
      return AXLE_DECLINED;
    auto make = [&](bool user_layout) -> std::shared_ptr<Primitive> {
      const dnnl::memory::desc s = user_layout ? src_u : any_like(src), d = user_layout ? dst_u : any_like(dst);
      const dnnl::memory::desc wa = any_like(w);
      const dnnl::memory::desc b = has_bias ? bias_u : dnnl::memory::desc();
      std::vector<int> ids = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_DST};
      if (has_bias) ids.push_back(DNNL_ARG_BIAS);
      if (transposed) {
        const dnnl::deconvolution_forward::desc desc(dnnl::prop_kind::forward_inference,
                                                     dnnl::algorithm::deconvolution_direct, s, wa, b, d, strides,
                                                     dilates, pad_l, pad_r);
        const dnnl::deconvolution_forward::primitive_desc pd(desc, default_attr(), engine());
        std::vector<dnnl::memory::desc> mds = {pd.src_desc(), pd.weights_desc(), pd.dst_desc()};
        if (has_bias) mds.push_back(pd.bias_desc());
        return make_primitive<dnnl::deconvolution_forward::primitive_desc, dnnl::deconvolution_forward>(pd, ids, mds);
      }
      // forward_training, even without autograd: oneDNN 2.6 then picks its jit
      // avx512 kernel, where forward_inference picks brgconv, which is slower on
      // small images and equal elsewhere within noise (one thread, 3x3, with
      // the weight reorder: 4x512x2x2 1.5 vs 2.4 ms, 4x256x4x4 0.55 vs 0.68,
      // 32x32x32x32 -> 64 6.8 vs 7.6, 8x64x56x56 10.3 vs 10.6; ResNet-18's
      // forward at batch 4, 64x64: 19 -> 14 ms).
      const dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct,
                                                 s, wa, b, d, strides, dilates, pad_l, pad_r);
      const dnnl::convolution_forward::primitive_desc pd(desc, default_attr(), engine());
      std::vector<dnnl::memory::desc> mds = {pd.src_desc(), pd.weights_desc(), pd.dst_desc()};
      if (has_bias) mds.push_back(pd.bias_desc());
      return make_primitive<dnnl::convolution_forward::primitive_desc, dnnl::convolution_forward>(pd, ids, mds);
    };
    // Tensors as they are: channels_last (oneDNN's nhwc kernels need no reorder),
    // one input channel per group, where the plain gemm convolution beats the
    // blocked jit kernel plus its output reorder (MNIST's 1 -> 32 at 28x28,
    // batch 64: 0.53 vs 0.71 ms; from 3 channels on the blocked kernel wins
    // since forward_training picks it: ResNet's 7x7 stem on 224x224 at batch
    // 8 10.4 vs 20.1 ms, 3 -> 32 on 32x32 at batch 32 0.61 vs 0.78 ms); and
    // 1x1 kernels (ResNet's downsampling, 64->128 channels at 16x16, stride 2:
    // 0.12 vs 0.21 ms cache cold).
    const bool as_is = cl || (!transposed && (src.dims[1] / groups <= 1 || one_by_one(wei)));
    auto p = cache().get(key.str(), [&] { return plain_or_blocked(as_is, make); });
    if (!p->declined.empty()) return plugin::decline(c, p->declined);
    std::vector<Arg> args = {{DNNL_ARG_SRC, src_u, src.data, false},
                             {DNNL_ARG_WEIGHTS, wei_u, wei.data, false},
                             {DNNL_ARG_DST, dst_u, dst.data, true}};
    if (has_bias) args.push_back({DNNL_ARG_BIAS, bias_u, bias.data, false});
    run_with_reorders(key.str(), *p, args);
    return AXLE_OK;
  });
}

// max_pool{2,3}d(self, kernel_size, stride, padding, dilation, ceil_mode) and
// avg_pool{2,3}d(self, kernel_size, stride, padding, ceil_mode, count_include_pad,
// divisor_override); the shape functions have normalized the int lists to `spatial`.
axle_status pool(const axle_kernel_call* c, bool max, int spatial) {
  Shape src = Shape::of(arg_tensor(c, 0)), dst = Shape::of(c->outputs[0]);
  const bool ceil_mode = arg_bool(c, max ? 5 : 4);
  const bool dtype_ok = spatial == 2 ? is_f32_or_bf16(src.dtype) : src.dtype == AXLE_DTYPE_FLOAT32;
  if (ceil_mode || (!max && !arg_is_none(c, 6)) || src.numel() == 0 || dst.numel() == 0 || !dtype_ok ||
      dst.dtype != src.dtype || src.has_zero_stride())
    return AXLE_DECLINED;
  if (src.ndim() == spatial + 1) {  // unbatched
    src.pad_front(spatial + 2);
    dst.pad_front(spatial + 2);
  }
  const auto kernel = arg_ints(c, 1), stride = arg_ints(c, 2), padding = arg_ints(c, 3);
  const std::vector<int64_t> dilation = max ? arg_ints(c, 4) : std::vector<int64_t>{1};
  dnnl::memory::dims k, s, dil, pl, pr;
  for (int d = 0; d < spatial; ++d) {
    const int64_t kk = at(kernel, d), ss = at(stride, d), pp = at(padding, d), dd = at(dilation, d);
    const int64_t extent = (kk - 1) * dd + 1;
    const int64_t r = (dst.dims[2 + d] - 1) * ss + extent - src.dims[2 + d] - pp;
    if (r < 0) return AXLE_DECLINED;
    k.push_back(kk), s.push_back(ss), dil.push_back(dd - 1), pl.push_back(pp), pr.push_back(r);
  }
  const auto alg = max              ? dnnl::algorithm::pooling_max
                   : arg_bool(c, 5) ? dnnl::algorithm::pooling_avg_include_padding
                                    : dnnl::algorithm::pooling_avg_exclude_padding;
  Key key("pool");
  key.add(static_cast<int64_t>(alg)).add(src).add(dst);
  for (auto v : {k, s, dil, pl, pr})
    for (int64_t x : v) key.add(x);
  auto p = cache().get(key.str(), [&]() -> std::shared_ptr<Primitive> {
    dnnl::memory::desc smd, dmd;
    if (!describe(src, &smd) || !describe(dst, &dmd)) return declined("dtype or rank");
    const dnnl::pooling_v2_forward::desc d(dnnl::prop_kind::forward_inference, alg, smd, dmd, s, k, dil, pl, pr);
    const dnnl::pooling_v2_forward::primitive_desc pd(d, default_attr(), engine());
    return make_primitive<dnnl::pooling_v2_forward::primitive_desc, dnnl::pooling_v2_forward>(
        pd, {DNNL_ARG_SRC, DNNL_ARG_DST}, {smd, dmd});
  });
  if (!p->declined.empty()) return plugin::decline(c, p->declined);
  execute(*p, {src.data, dst.data});
  return AXLE_OK;
}

template <bool Max, int Spatial>
axle_status pool_kernel(void*, const axle_kernel_call* c) {
  return guarded(c, [&] { return pool(c, Max, Spatial); });
}

const KernelEntry kKernels[] = {
    {"convolution.out", &convolution, AXLE_HERE},      {"max_pool2d", &pool_kernel<true, 2>, AXLE_HERE},
    {"avg_pool2d", &pool_kernel<false, 2>, AXLE_HERE}, {"max_pool3d", &pool_kernel<true, 3>, AXLE_HERE},
    {"avg_pool3d", &pool_kernel<false, 3>, AXLE_HERE},
};

}  // namespace

axle_status register_conv_pool(const axle_registrar* r) { return plugin::register_kernels(r, "cpu", kKernels); }

}  // namespace axle::cpu
