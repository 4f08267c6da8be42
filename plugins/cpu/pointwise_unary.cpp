// Unary ops and activations on oneDNN's eltwise primitive. An elementwise op over
// an input and output of the same dense layout is the same op over flat memory,
// so the primitive sees one 1-D tensor (one JIT kernel for every shape of a
// given size). float32 and bfloat16, input dtype == output dtype. Tensors below
// dnnl_min_elements() run faster in the reference plugin's loop than through a oneDNN
// execute (microseconds of setup), so those calls are declined; strided or
// overlapping layouts are declined too.
#include "kernels.h"

#include <cstdint>
#include <cstring>

namespace axle::cpu {
namespace {

using plugin::arg_double;
using plugin::arg_tensor;

// oneDNN's JIT eltwise kernels turn a NaN into a number for some algorithms
// (exp gives inf; relu and clip give a bound); torch propagates NaN. After
// those, NaN inputs are written back to the output: one vectorizable pass
// (in-place calls of those are declined: the reference's loop serves them).
bool loses_nan(dnnl::algorithm alg) {
  return alg == dnnl::algorithm::eltwise_exp || alg == dnnl::algorithm::eltwise_relu ||
         alg == dnnl::algorithm::eltwise_clip_v2;
}
__attribute__((target_clones("avx512f", "avx2", "default"))) void restore_nan(const void* in, void* out, int64_t n,
                                                                              axle_dtype dtype) {
  if (dtype == AXLE_DTYPE_FLOAT32) {
    const float* x = static_cast<const float*>(in);
    float* y = static_cast<float*>(out);
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] != x[i] ? x[i] : y[i];
  } else {  // bfloat16: NaN when the exponent is all ones and the mantissa is not zero
    const uint16_t* x = static_cast<const uint16_t*>(in);
    uint16_t* y = static_cast<uint16_t*>(out);
    for (int64_t i = 0; i < n; ++i) y[i] = (x[i] & 0x7fff) > 0x7f80 ? x[i] : y[i];
  }
}

// Runs `alg` with (alpha, beta) from input 0 into output 0 as flat memory.
axle_status eltwise(const axle_kernel_call* c, dnnl::algorithm alg, float alpha, float beta) {
  // The size check first: it declines most small calls before any Shape (two
  // heap vectors each) is built.
  const int64_t n = plugin::numel(c->outputs[0]);
  if (n < dnnl_min_elements() || n == 0) return AXLE_DECLINED;
  const Shape in = Shape::of(arg_tensor(c, 0)), out = Shape::of(c->outputs[0]);
  if (in.numel() != n || in.dtype != out.dtype || !is_f32_or_bf16(in.dtype) || !in.same_layout(out) || !in.is_dense())
    return AXLE_DECLINED;
  // In place, the NaN inputs are overwritten before they could be put back.
  if (loses_nan(alg) && in.data == out.data) return plugin::decline(c, "in place this oneDNN eltwise would lose NaN");
  Shape flat;
  flat.dims = {n};
  flat.strides = {1};
  flat.dtype = in.dtype;
  Key key("eltwise");
  key.add(static_cast<int64_t>(alg)).add(static_cast<double>(alpha)).add(static_cast<double>(beta)).add(flat);
  auto p = cache().get(key.str(), [&]() -> std::shared_ptr<Primitive> {
    dnnl::memory::desc md;
    if (!describe(flat, &md)) return declined("dtype oneDNN lacks");
    const dnnl::eltwise_forward::desc d(dnnl::prop_kind::forward_inference, alg, md, alpha, beta);
    const dnnl::eltwise_forward::primitive_desc pd(d, default_attr(), engine());
    return make_primitive<dnnl::eltwise_forward::primitive_desc, dnnl::eltwise_forward>(
        pd, {DNNL_ARG_SRC, DNNL_ARG_DST}, {md, md});
  });
  if (!p->declined.empty()) return plugin::decline(c, p->declined);
  // Element 0 is a dense view's lowest address (strides are never negative).
  execute(*p, {in.data, out.data});
  if (loses_nan(alg)) restore_nan(in.data, out.data, n, in.dtype);
  return AXLE_OK;
}

template <dnnl::algorithm Alg>
axle_status simple(void*, const axle_kernel_call* c) {
  return guarded(c, [&] { return eltwise(c, Alg, 0.f, 0.f); });
}

axle_status neg(void*, const axle_kernel_call* c) {
  return guarded(c, [&] { return eltwise(c, dnnl::algorithm::eltwise_linear, -1.f, 0.f); });
}
axle_status reciprocal(void*, const axle_kernel_call* c) {
  return guarded(c, [&] { return eltwise(c, dnnl::algorithm::eltwise_pow, 1.f, -1.f); });
}
// x * clamp(x / 6 + 1/2, 0, 1); oneDNN versions that read alpha/beta get torch's.
axle_status hardswish(void*, const axle_kernel_call* c) {
  return guarded(c, [&] { return eltwise(c, dnnl::algorithm::eltwise_hardswish, 1.f / 6.f, 0.5f); });
}
axle_status silu(void*, const axle_kernel_call* c) {
  return guarded(c, [&] { return eltwise(c, dnnl::algorithm::eltwise_swish, 1.f, 0.f); });
}
axle_status relu6(void*, const axle_kernel_call* c) {
  return guarded(c, [&] { return eltwise(c, dnnl::algorithm::eltwise_clip_v2, 0.f, 6.f); });
}
// leaky_relu(self, negative_slope=0.01)
axle_status leaky_relu(void*, const axle_kernel_call* c) {
  return guarded(c,
                 [&] { return eltwise(c, dnnl::algorithm::eltwise_relu, static_cast<float>(arg_double(c, 1)), 0.f); });
}
// hardtanh(self, min_val=-1, max_val=1)
axle_status hardtanh(void*, const axle_kernel_call* c) {
  return guarded(c, [&]() -> axle_status {
    const double lo = arg_double(c, 1), hi = arg_double(c, 2);
    if (!(lo <= hi)) return AXLE_DECLINED;
    return eltwise(c, dnnl::algorithm::eltwise_clip_v2, static_cast<float>(lo), static_cast<float>(hi));
  });
}
// elu(self, alpha=1, scale=1, input_scale=1): oneDNN has the alpha form only.
axle_status elu(void*, const axle_kernel_call* c) {
  return guarded(c, [&]() -> axle_status {
    if (arg_double(c, 2) != 1.0 || arg_double(c, 3) != 1.0) return AXLE_DECLINED;
    return eltwise(c, dnnl::algorithm::eltwise_elu, static_cast<float>(arg_double(c, 1)), 0.f);
  });
}
// gelu(self, approximate='none' | 'tanh')
axle_status gelu(void*, const axle_kernel_call* c) {
  return guarded(c, [&] {
    const bool tanh = std::strcmp(c->args[1].u.str, "tanh") == 0;
    return eltwise(c, tanh ? dnnl::algorithm::eltwise_gelu_tanh : dnnl::algorithm::eltwise_gelu_erf, 0.f, 0.f);
  });
}

// threshold_backward(grad_output, self, threshold): relu's gradient, one pass
// of our own over dense operands of one layout (float32 or bfloat16).
// Branch-free (the gradient's bits masked), so that it vectorizes: a branch on
// random signs mispredicts half the time and a conditional load does not vectorize.
void keep_above(const float* __restrict g, const float* __restrict x, float* __restrict out, int64_t n, float t) {
  for (int64_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &g[i], sizeof bits);
    bits &= 0u - static_cast<uint32_t>(!(x[i] <= t));  // NaN passes, as torch
    std::memcpy(&out[i], &bits, sizeof bits);
  }
}
void keep_above(const uint16_t* __restrict g, const uint16_t* __restrict x, uint16_t* __restrict out, int64_t n,
                float t) {
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t xbits = static_cast<uint32_t>(x[i]) << 16;
    float f;
    std::memcpy(&f, &xbits, sizeof f);
    out[i] = static_cast<uint16_t>(g[i] & (0u - static_cast<uint32_t>(!(f <= t))));
  }
}
axle_status threshold_backward(void*, const axle_kernel_call* c) {
  return guarded(c, [&]() -> axle_status {
    const Shape g = Shape::of(arg_tensor(c, 0)), x = Shape::of(arg_tensor(c, 1)), out = Shape::of(c->outputs[0]);
    if (g.dtype != x.dtype || g.dtype != out.dtype || !is_f32_or_bf16(g.dtype) || !g.same_layout(x) ||
        !g.same_layout(out) || !g.is_dense())
      return plugin::decline(c, "mixed dtypes or layouts");
    const float threshold = static_cast<float>(arg_double(c, 2));
    const int64_t n = g.numel();
    if (g.dtype == AXLE_DTYPE_FLOAT32)
      keep_above(static_cast<const float*>(g.data), static_cast<const float*>(x.data), static_cast<float*>(out.data), n,
                 threshold);
    else
      keep_above(static_cast<const uint16_t*>(g.data), static_cast<const uint16_t*>(x.data),
                 static_cast<uint16_t*>(out.data), n, threshold);
    return AXLE_OK;
  });
}

// gelu_backward(grad_output, self, approximate): oneDNN's eltwise backward
// (gelu_erf / gelu_tanh) over flat dense memory of one layout.
axle_status gelu_backward(void*, const axle_kernel_call* c) {
  return guarded(c, [&]() -> axle_status {
    const int64_t n = plugin::numel(c->outputs[0]);
    if (n < dnnl_min_elements() || n == 0) return AXLE_DECLINED;
    const Shape g = Shape::of(arg_tensor(c, 0)), x = Shape::of(arg_tensor(c, 1)), out = Shape::of(c->outputs[0]);
    if (g.dtype != x.dtype || g.dtype != out.dtype || !is_f32_or_bf16(g.dtype) || !g.same_layout(x) ||
        !g.same_layout(out) || !g.is_dense())
      return plugin::decline(c, "mixed dtypes or layouts");
    const dnnl::algorithm alg = std::strcmp(c->args[2].u.str, "tanh") == 0 ? dnnl::algorithm::eltwise_gelu_tanh
                                                                           : dnnl::algorithm::eltwise_gelu_erf;
    Shape flat;
    flat.dims = {n};
    flat.strides = {1};
    flat.dtype = g.dtype;
    Key key("eltwise_backward");
    key.add(static_cast<int64_t>(alg)).add(flat);
    auto p = cache().get(key.str(), [&]() -> std::shared_ptr<Primitive> {
      dnnl::memory::desc md;
      if (!describe(flat, &md)) return declined("dtype oneDNN lacks");
      const dnnl::eltwise_forward::desc fd(dnnl::prop_kind::forward_training, alg, md, 0.f, 0.f);
      const dnnl::eltwise_forward::primitive_desc fpd(fd, engine());
      const dnnl::eltwise_backward::desc bd(alg, md, md, 0.f, 0.f);
      const dnnl::eltwise_backward::primitive_desc pd(bd, default_attr(), engine(), fpd);
      return make_primitive<dnnl::eltwise_backward::primitive_desc, dnnl::eltwise_backward>(
          pd, {DNNL_ARG_SRC, DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_SRC}, {md, md, md});
    });
    if (!p->declined.empty()) return plugin::decline(c, p->declined);
    execute(*p, {x.data, g.data, out.data});
    return AXLE_OK;
  });
}

// pow.Tensor_Tensor(self, exponent) with one exponent value (what `x ** 2`
// becomes: a Python number arrives as a 0-d tensor): oneDNN's square and sqrt
// for 2 and 0.5 (x * x and sqrt, as torch computes them), its pow otherwise
// (-1 as the reciprocal kernel runs it). A self smaller than the output (a
// broadcast exponent) is declined by eltwise.
axle_status pow_one_exponent(void*, const axle_kernel_call* c) {
  return guarded(c, [&]() -> axle_status {
    const axle_tensor_view& e = arg_tensor(c, 1);
    if (plugin::numel(e) != 1 || !e.data || c->outputs[0].dtype != arg_tensor(c, 0).dtype)
      return plugin::decline(c, "an exponent of more than one value, or a promoted result");
    double v;
    switch (e.dtype) {
      case AXLE_DTYPE_FLOAT64: v = *static_cast<const double*>(e.data); break;
      case AXLE_DTYPE_FLOAT32: v = *static_cast<const float*>(e.data); break;
      case AXLE_DTYPE_INT64: v = static_cast<double>(*static_cast<const int64_t*>(e.data)); break;
      case AXLE_DTYPE_INT32: v = *static_cast<const int32_t*>(e.data); break;
      default: return plugin::decline(c, "an exponent dtype other than float64/32 or int64/32");
    }
    if (v == 2.0) return eltwise(c, dnnl::algorithm::eltwise_square, 0.f, 0.f);
    if (v == 0.5) return eltwise(c, dnnl::algorithm::eltwise_sqrt, 0.f, 0.f);
    if (v == 1.0 || v == 0.0) return plugin::decline(c, "exponent 0 or 1");
    return eltwise(c, dnnl::algorithm::eltwise_pow, 1.f, static_cast<float>(v));
  });
}

// relu of a dense float32 tensor, in place (relu_, which runs this kernel
// with its output on its input) or into an output of its layout: our own loop,
// x < 0 ? 0 : x, which keeps NaN as torch (oneDNN's eltwise turns it into 0).
// One pass where oneDNN's eltwise plus putting NaN back took two (9.4 MB at
// one thread: 0.65 vs 1.3 ms). Other dtypes and strided inputs out of place:
// oneDNN's eltwise with NaN put back; strided in place: declined.
// y may be x: element i reads only x[i] before writing y[i].
__attribute__((target_clones("avx512f", "avx2", "default"))) void relu_loop(const float* x, float* y, int64_t n) {
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) y[i] = x[i] < 0.0f ? 0.0f : x[i];
}
axle_status relu(void*, const axle_kernel_call* c) {
  const axle_tensor_view &v = arg_tensor(c, 0), &o = c->outputs[0];
  if (v.data == nullptr || v.dtype != AXLE_DTYPE_FLOAT32 || o.dtype != AXLE_DTYPE_FLOAT32)
    return guarded(c, [&] { return eltwise(c, dnnl::algorithm::eltwise_relu, 0.f, 0.f); });
  const Shape s = Shape::of(v);
  const bool in_place = o.data == v.data;
  if (!s.is_dense() || s.has_zero_stride() || !s.same_layout(Shape::of(o))) {
    if (in_place) return plugin::decline(c, "in place on a strided or expanded tensor");
    return guarded(c, [&] { return eltwise(c, dnnl::algorithm::eltwise_relu, 0.f, 0.f); });
  }
  const int64_t n = s.numel();
  auto* x = static_cast<float*>(v.data);
  auto* y = static_cast<float*>(o.data);
  parallel_ranges(n, n >= (int64_t{1} << 20) ? thread_count() : 1, 16,
                  [&](int64_t b, int64_t e) { relu_loop(x + b, y + b, e - b); });
  return AXLE_OK;
}

using alg = dnnl::algorithm;
const KernelEntry kKernels[] = {
    {"pow.Tensor_Tensor", &pow_one_exponent, AXLE_HERE},
    {"gelu_backward", &gelu_backward, AXLE_HERE},
    {"threshold_backward", &threshold_backward, AXLE_HERE},
    {"relu", &relu, AXLE_HERE},
    {"tanh", &simple<alg::eltwise_tanh>, AXLE_HERE},
    {"sigmoid", &simple<alg::eltwise_logistic>, AXLE_HERE},
    {"exp", &simple<alg::eltwise_exp>, AXLE_HERE},
    {"log", &simple<alg::eltwise_log>, AXLE_HERE},
    {"sqrt", &simple<alg::eltwise_sqrt>, AXLE_HERE},
    {"abs", &simple<alg::eltwise_abs>, AXLE_HERE},
    {"square", &simple<alg::eltwise_square>, AXLE_HERE},
    {"mish", &simple<alg::eltwise_mish>, AXLE_HERE},
    {"hardswish", &hardswish, AXLE_HERE},
    {"neg", &neg, AXLE_HERE},
    {"reciprocal", &reciprocal, AXLE_HERE},
    {"silu", &silu, AXLE_HERE},
    {"relu6", &relu6, AXLE_HERE},
    {"leaky_relu", &leaky_relu, AXLE_HERE},
    {"hardtanh", &hardtanh, AXLE_HERE},
    {"elu", &elu, AXLE_HERE},
    {"gelu", &gelu, AXLE_HERE},
};

}  // namespace

axle_status register_pointwise_unary(const axle_registrar* r) { return plugin::register_kernels(r, "cpu", kKernels); }

}  // namespace axle::cpu
