// 3-d pooling (max with indices, average, adaptive average, adaptive max) over
// strided 4-d (C, D, H, W) or 5-d (N, C, D, H, W) inputs of any layout.
// Accumulates in double (int64 for avg_pool3d of int64); the dtype rules of
// torch's CPU kernels (no Half or BFloat16, except Half for adaptive average)
// are checked here, the shape rules in dispatcher/src/ops/conv_pool3d.cpp.
#include "kernels.h"
#include "pool_view.h"

#include <axle/plugin/pooling.hpp>

#include <cmath>
#include <limits>

namespace axle::reference {

using namespace axle::plugin;

namespace {

axle_status not_implemented(const axle_kernel_call* c, const char* kernel, axle_dtype d) {
  return fail(c, AXLE_ERROR_DTYPE,
              std::string(c->op_name) + ": \"" + kernel + "\" not implemented for '" + torch_type_name(d) + "'");
}

bool half_or_bf16(axle_dtype d) { return d == AXLE_DTYPE_FLOAT16 || d == AXLE_DTYPE_BFLOAT16; }

using Pool5 = PoolView<5>;  // pool_view.h

// Calls fn(n, c, o[3]) for every element of a 5-d pooling output.
template <typename Fn>
void for_each_output(const Pool5& y, Fn&& fn) {
  for (int64_t n = 0; n < y.size[0]; ++n)
    for (int64_t ch = 0; ch < y.size[1]; ++ch)
      for (int64_t ot = 0; ot < y.size[2]; ++ot)
        for (int64_t oh = 0; oh < y.size[3]; ++oh)
          for (int64_t ow = 0; ow < y.size[4]; ++ow) fn(n, ch, ot, oh, ow);
}

// A window along one dim: begin, end (exclusive) and step.
struct Span {
  int64_t b, e, s;
};

// The maximum of x[n, ch] over the window as torch's CPU loops take it (the first
// maximum wins, a NaN replaces the running maximum); stores it in y at `o` and its
// flat index (d * H + h) * W + w in ix.
void store_window_max(const Pool5& x, const Pool5& y, const Pool5& ix, int64_t n, int64_t ch, const int64_t* o,
                      const Span* w) {
  const int64_t H = x.size[3], W = x.size[4];
  int64_t best = (w[0].b * H + w[1].b) * W + w[2].b;
  double maxval = -std::numeric_limits<double>::infinity();
  for (int64_t t = w[0].b; t < w[0].e; t += w[0].s)
    for (int64_t h = w[1].b; h < w[1].e; h += w[1].s)
      for (int64_t v = w[2].b; v < w[2].e; v += w[2].s) {
        const double val = load_as<double>(x.at(n, ch, t, h, v), x.dtype);
        if (val > maxval || std::isnan(val)) {
          maxval = val;
          best = (t * H + h) * W + v;
        }
      }
  store_from<double>(y.at(n, ch, o[0], o[1], o[2]), y.dtype, maxval);
  *reinterpret_cast<int64_t*>(ix.at(n, ch, o[0], o[1], o[2])) = best;
}

// max_pool3d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode).
axle_status max_pool3d_with_indices(void*, const axle_kernel_call* c) {
  const Pool5 x = pool_view<5>(arg_tensor(c, 0)), y = pool_view<5>(c->outputs[0]), ix = pool_view<5>(c->outputs[1]);
  if (half_or_bf16(x.dtype)) return not_implemented(c, "max_pool3d_with_indices_cpu", x.dtype);
  for_each_output(y, [&](int64_t n, int64_t ch, int64_t ot, int64_t oh, int64_t ow) {
    const int64_t o[3] = {ot, oh, ow};
    Span w[3];
    for (int i = 0; i < 3; ++i) {
      const int64_t k = list_at(c, 1, i), s = list_at(c, 2, i), p = list_at(c, 3, i), d = list_at(c, 4, i);
      int64_t b = o[i] * s - p;
      const int64_t e = std::min(b + (k - 1) * d + 1, x.size[2 + i]);
      while (b < 0) b += d;
      w[i] = {b, e, d};
    }
    store_window_max(x, y, ix, n, ch, o, w);
  });
  return AXLE_OK;
}

// avg_pool3d(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
// torch's divisor rules; windows entirely in the padding give 0; int64 divides truncating.
axle_status avg_pool3d(void*, const axle_kernel_call* c) {
  const Pool5 x = pool_view<5>(arg_tensor(c, 0)), y = pool_view<5>(c->outputs[0]);
  if (half_or_bf16(x.dtype)) return not_implemented(c, "avg_pool3d_out_frame", x.dtype);
  const bool include_pad = arg_bool(c, 5);
  const bool has_divisor = !arg_is_none(c, 6);
  const int64_t divisor = has_divisor ? arg_int(c, 6) : 0;
  const bool integral = !is_floating(x.dtype);
  for_each_output(y, [&](int64_t n, int64_t ch, int64_t ot, int64_t oh, int64_t ow) {
    const int64_t o[3] = {ot, oh, ow};
    PoolWindow w[3];
    for (int i = 0; i < 3; ++i)
      w[i] = avg_pool_window(o[i], list_at(c, 2, i), list_at(c, 3, i), list_at(c, 1, i), x.size[2 + i]);
    char* dst = y.at(n, ch, ot, oh, ow);
    if (w[0].size() <= 0 || w[1].size() <= 0 || w[2].size() <= 0) {
      store_from<double>(dst, y.dtype, 0.0);
      return;
    }
    const int64_t factor = has_divisor ? divisor : avg_pool3d_divisor(w[0], w[1], w[2], include_pad);
    double sum = 0;
    int64_t isum = 0;
    for (int64_t t = w[0].begin; t < w[0].end; ++t)
      for (int64_t h = w[1].begin; h < w[1].end; ++h)
        for (int64_t v = w[2].begin; v < w[2].end; ++v) {
          if (integral)
            isum += load_as<int64_t>(x.at(n, ch, t, h, v), x.dtype);
          else
            sum += load_as<double>(x.at(n, ch, t, h, v), x.dtype);
        }
    if (integral)
      store_from<int64_t>(dst, y.dtype, isum / factor);
    else
      store_from<double>(dst, y.dtype, sum / static_cast<double>(factor));
  });
  return AXLE_OK;
}

// Adaptive windows: [floor(o * in / out), ceil((o + 1) * in / out)).
Span adaptive_span(int64_t o, int64_t out, int64_t in) { return {(o * in) / out, ((o + 1) * in + out - 1) / out, 1}; }

axle_status adaptive_avg_pool3d(void*, const axle_kernel_call* c) {
  const Pool5 x = pool_view<5>(arg_tensor(c, 0)), y = pool_view<5>(c->outputs[0]);
  if (x.dtype == AXLE_DTYPE_BFLOAT16) return not_implemented(c, "adaptive_avg_pool3d_cpu", x.dtype);
  for_each_output(y, [&](int64_t n, int64_t ch, int64_t ot, int64_t oh, int64_t ow) {
    const Span t = adaptive_span(ot, y.size[2], x.size[2]), h = adaptive_span(oh, y.size[3], x.size[3]);
    const Span w = adaptive_span(ow, y.size[4], x.size[4]);
    double sum = 0;
    for (int64_t i = t.b; i < t.e; ++i)
      for (int64_t j = h.b; j < h.e; ++j)
        for (int64_t k = w.b; k < w.e; ++k) sum += load_as<double>(x.at(n, ch, i, j, k), x.dtype);
    store_from<double>(y.at(n, ch, ot, oh, ow), y.dtype,
                       sum / static_cast<double>((t.e - t.b) * (h.e - h.b) * (w.e - w.b)));
  });
  return AXLE_OK;
}

axle_status adaptive_max_pool3d(void*, const axle_kernel_call* c) {
  const Pool5 x = pool_view<5>(arg_tensor(c, 0)), y = pool_view<5>(c->outputs[0]), ix = pool_view<5>(c->outputs[1]);
  if (half_or_bf16(x.dtype)) return not_implemented(c, "adaptive_max_pool3d_cpu", x.dtype);
  for_each_output(y, [&](int64_t n, int64_t ch, int64_t ot, int64_t oh, int64_t ow) {
    const int64_t o[3] = {ot, oh, ow};
    const Span w[3] = {adaptive_span(ot, y.size[2], x.size[2]), adaptive_span(oh, y.size[3], x.size[3]),
                       adaptive_span(ow, y.size[4], x.size[4])};
    store_window_max(x, y, ix, n, ch, o, w);
  });
  return AXLE_OK;
}

const KernelEntry kConvPool3dKernels[] = {
    {"max_pool3d_with_indices", &max_pool3d_with_indices, AXLE_HERE},
    {"avg_pool3d", &avg_pool3d, AXLE_HERE},
    {"_adaptive_avg_pool3d", &adaptive_avg_pool3d, AXLE_HERE},
    {"adaptive_max_pool3d", &adaptive_max_pool3d, AXLE_HERE},
};

}  // namespace

axle_status register_conv_pool3d(const axle_registrar* r) { return register_kernels(r, "cpu", kConvPool3dKernels); }

}  // namespace axle::reference
