// Direct convolution (1-3 spatial dims, groups, stride, padding, dilation; plain
// and transposed) and 2-d pooling (max with indices, average, adaptive average,
// adaptive max) over strided inputs of any layout (channels_last included).
// Accumulates in double (int64 for integer convolutions); the dtype rules of
// torch's CPU kernels (no Half; integer convolutions only undilated and not
// transposed, int64 always) are checked here, the shape rules in
// dispatcher/src/ops/conv_pool.cpp.
#include "kernels.h"
#include "pool_view.h"

#include <axle/plugin/pooling.hpp>

#include <cmath>
#include <limits>
#include <vector>

namespace axle::reference {

using namespace axle::plugin;

namespace {

axle_status not_implemented(const axle_kernel_call* c, const char* kernel, axle_dtype d) {
  return fail(c, AXLE_ERROR_DTYPE,
              std::string(c->op_name) + ": \"" + kernel + "\" not implemented for '" + torch_type_name(d) + "'");
}

// An N-d view padded to [n, c, d0, d1, d2] (missing spatial dims: size 1, stride 0), element strides.
struct View5 {
  const char* data;
  axle_dtype dtype;
  int64_t esize;
  int64_t size[5];
  int64_t stride[5];
  const char* at(int64_t i0, int64_t i1, int64_t s0, int64_t s1, int64_t s2) const {
    return data + (i0 * stride[0] + i1 * stride[1] + s0 * stride[2] + s1 * stride[3] + s2 * stride[4]) * esize;
  }
};

View5 view5(const axle_tensor_view& v) {
  View5 r{static_cast<const char*>(v.data),
          v.dtype,
          static_cast<int64_t>(dtype_size(v.dtype)),
          {1, 1, 1, 1, 1},
          {0, 0, 0, 0, 0}};
  for (int32_t d = 0; d < v.ndim && d < 5; ++d) {
    r.size[d] = v.sizes[d];
    r.stride[d] = v.strides[d];
  }
  return r;
}

struct ConvArgs {
  int64_t stride[3] = {1, 1, 1}, pad[3] = {0, 0, 0}, dil[3] = {1, 1, 1};
  int64_t groups = 1;
};

template <typename Acc>
void conv_forward(const View5& x, const View5& w, const axle_tensor_view* bias, const View5& y, const ConvArgs& a) {
  const int64_t cin_g = w.size[1], cout_g = w.size[0] / a.groups;
  const int64_t eb = bias ? static_cast<int64_t>(dtype_size(bias->dtype)) : 0;
  for (int64_t n = 0; n < y.size[0]; ++n)
    for (int64_t g = 0; g < a.groups; ++g)
      for (int64_t oc = 0; oc < cout_g; ++oc) {
        const int64_t co = g * cout_g + oc;
        const Acc b0 =
            bias ? load_as<Acc>(static_cast<const char*>(bias->data) + co * bias->strides[0] * eb, bias->dtype) : Acc{};
        for (int64_t o0 = 0; o0 < y.size[2]; ++o0)
          for (int64_t o1 = 0; o1 < y.size[3]; ++o1)
            for (int64_t o2 = 0; o2 < y.size[4]; ++o2) {
              Acc acc = b0;
              for (int64_t ic = 0; ic < cin_g; ++ic) {
                const int64_t ci = g * cin_g + ic;
                for (int64_t k0 = 0; k0 < w.size[2]; ++k0) {
                  const int64_t i0 = o0 * a.stride[0] - a.pad[0] + k0 * a.dil[0];
                  if (i0 < 0 || i0 >= x.size[2]) continue;
                  for (int64_t k1 = 0; k1 < w.size[3]; ++k1) {
                    const int64_t i1 = o1 * a.stride[1] - a.pad[1] + k1 * a.dil[1];
                    if (i1 < 0 || i1 >= x.size[3]) continue;
                    for (int64_t k2 = 0; k2 < w.size[4]; ++k2) {
                      const int64_t i2 = o2 * a.stride[2] - a.pad[2] + k2 * a.dil[2];
                      if (i2 < 0 || i2 >= x.size[4]) continue;
                      acc += load_as<Acc>(x.at(n, ci, i0, i1, i2), x.dtype) *
                             load_as<Acc>(w.at(co, ic, k0, k1, k2), w.dtype);
                    }
                  }
                }
              }
              store_from<Acc>(const_cast<char*>(y.at(n, co, o0, o1, o2)), y.dtype, acc);
            }
      }
}

// Transposed: every input element scatters input * weight into the outputs it
// reaches; accumulated per (batch, group) in a dense buffer, then stored.
template <typename Acc>
void conv_transposed(const View5& x, const View5& w, const axle_tensor_view* bias, const View5& y, const ConvArgs& a) {
  const int64_t cin_g = x.size[1] / a.groups, cout_g = w.size[1];
  const int64_t eb = bias ? static_cast<int64_t>(dtype_size(bias->dtype)) : 0;
  const int64_t plane = y.size[2] * y.size[3] * y.size[4];
  std::vector<Acc> acc(static_cast<size_t>(cout_g * plane));
  for (int64_t n = 0; n < y.size[0]; ++n)
    for (int64_t g = 0; g < a.groups; ++g) {
      for (int64_t oc = 0; oc < cout_g; ++oc) {
        const Acc b0 =
            bias ? load_as<Acc>(static_cast<const char*>(bias->data) + (g * cout_g + oc) * bias->strides[0] * eb,
                                bias->dtype)
                 : Acc{};
        std::fill(acc.begin() + oc * plane, acc.begin() + (oc + 1) * plane, b0);
      }
      for (int64_t ic = 0; ic < cin_g; ++ic) {
        const int64_t ci = g * cin_g + ic;
        for (int64_t i0 = 0; i0 < x.size[2]; ++i0)
          for (int64_t i1 = 0; i1 < x.size[3]; ++i1)
            for (int64_t i2 = 0; i2 < x.size[4]; ++i2) {
              const Acc v = load_as<Acc>(x.at(n, ci, i0, i1, i2), x.dtype);
              for (int64_t oc = 0; oc < cout_g; ++oc) {
                Acc* dst = acc.data() + oc * plane;
                for (int64_t k0 = 0; k0 < w.size[2]; ++k0) {
                  const int64_t o0 = i0 * a.stride[0] - a.pad[0] + k0 * a.dil[0];
                  if (o0 < 0 || o0 >= y.size[2]) continue;
                  for (int64_t k1 = 0; k1 < w.size[3]; ++k1) {
                    const int64_t o1 = i1 * a.stride[1] - a.pad[1] + k1 * a.dil[1];
                    if (o1 < 0 || o1 >= y.size[3]) continue;
                    for (int64_t k2 = 0; k2 < w.size[4]; ++k2) {
                      const int64_t o2 = i2 * a.stride[2] - a.pad[2] + k2 * a.dil[2];
                      if (o2 < 0 || o2 >= y.size[4]) continue;
                      dst[(o0 * y.size[3] + o1) * y.size[4] + o2] +=
                          v * load_as<Acc>(w.at(ci, oc, k0, k1, k2), w.dtype);
                    }
                  }
                }
              }
            }
      }
      for (int64_t oc = 0; oc < cout_g; ++oc)
        for (int64_t o0 = 0; o0 < y.size[2]; ++o0)
          for (int64_t o1 = 0; o1 < y.size[3]; ++o1)
            for (int64_t o2 = 0; o2 < y.size[4]; ++o2)
              store_from<Acc>(const_cast<char*>(y.at(n, g * cout_g + oc, o0, o1, o2)), y.dtype,
                              acc[static_cast<size_t>(oc * plane + (o0 * y.size[3] + o1) * y.size[4] + o2)]);
    }
}

// convolution.out(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, *, out);
// the shape function has expanded the int lists to one value per spatial dim.
axle_status convolution(void*, const axle_kernel_call* c) {
  const axle_tensor_view& in = arg_tensor(c, 0);
  const axle_tensor_view& wt = arg_tensor(c, 1);
  const axle_tensor_view* bias = arg_is_none(c, 2) ? nullptr : &arg_tensor(c, 2);
  const bool transposed = arg_bool(c, 6);
  ConvArgs a;
  bool dilated = false;
  for (int64_t i = 0; i < c->args[3].u.ints.count && i < 3; ++i) {
    a.stride[i] = c->args[3].u.ints.items[i];
    a.pad[i] = c->args[4].u.ints.items[i];
    a.dil[i] = c->args[5].u.ints.items[i];
    dilated = dilated || a.dil[i] != 1;
  }
  a.groups = arg_int(c, 8);
  const axle_dtype dt = in.dtype;
  if (numel(in) > 0) {                // torch dispatches on the dtype only when there is input to convolve
    const bool three = in.ndim == 5;  // torch's 3-d kernels have their own names
    const char* kernel = transposed ? (three ? "slow_conv_transpose3d_out_cpu" : "slow_conv_transpose2d_out_cpu")
                                    : (three ? "compute_columns3d" : "slow_conv2d_cpu");
    if (transposed && dt != AXLE_DTYPE_INT64 && !is_floating(dt)) return not_implemented(c, kernel, dt);
    if (dt == AXLE_DTYPE_FLOAT16) return not_implemented(c, kernel, dt);
    if (dilated && dt != AXLE_DTYPE_INT64 && !is_floating(dt)) return not_implemented(c, "slow_conv_dilated<>", dt);
  }
  const View5 x = view5(in), w = view5(wt), y = view5(c->outputs[0]);
  if (is_floating(dt)) {
    if (transposed)
      conv_transposed<double>(x, w, bias, y, a);
    else
      conv_forward<double>(x, w, bias, y, a);
  } else {
    if (transposed)
      conv_transposed<int64_t>(x, w, bias, y, a);
    else
      conv_forward<int64_t>(x, w, bias, y, a);
  }
  return AXLE_OK;
}

// ---------------------------------------------------------------- pooling

using Pool4 = PoolView<4>;  // pool_view.h

// Calls fn(n, c, oh, ow) for every element of a 4-d pooling output.
template <typename Fn>
void for_each_output(const Pool4& y, Fn&& fn) {
  for (int64_t n = 0; n < y.size[0]; ++n)
    for (int64_t ch = 0; ch < y.size[1]; ++ch)
      for (int64_t oh = 0; oh < y.size[2]; ++oh)
        for (int64_t ow = 0; ow < y.size[3]; ++ow) fn(n, ch, oh, ow);
}

// The maximum of x[n, ch] over rows h0, h0 + dh, ... < h1 and columns w0, w0 + dw, ... < w1,
// as torch's CPU loops take it: the first maximum wins, a NaN replaces the running maximum.
// Stores it in y[n, ch, oh, ow] and its flat index h * W + w in ix[n, ch, oh, ow].
void store_window_max(const Pool4& x, const Pool4& y, const Pool4& ix, int64_t n, int64_t ch, int64_t oh, int64_t ow,
                      int64_t h0, int64_t h1, int64_t dh, int64_t w0, int64_t w1, int64_t dw) {
  const int64_t W = x.size[3];
  int64_t best = h0 * W + w0;
  double maxval = -std::numeric_limits<double>::infinity();
  for (int64_t h = h0; h < h1; h += dh)
    for (int64_t w = w0; w < w1; w += dw) {
      const double v = load_as<double>(x.at(n, ch, h, w), x.dtype);
      if (v > maxval || std::isnan(v)) {
        maxval = v;
        best = h * W + w;
      }
    }
  store_from<double>(y.at(n, ch, oh, ow), y.dtype, maxval);
  *reinterpret_cast<int64_t*>(ix.at(n, ch, oh, ow)) = best;
}

// max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode).
axle_status max_pool2d_with_indices(void*, const axle_kernel_call* c) {
  const Pool4 x = pool_view<4>(arg_tensor(c, 0)), y = pool_view<4>(c->outputs[0]), ix = pool_view<4>(c->outputs[1]);
  if (x.dtype == AXLE_DTYPE_FLOAT16) return not_implemented(c, "max_pool2d", x.dtype);
  const int64_t kh = list_at(c, 1, 0), kw = list_at(c, 1, 1), sh = list_at(c, 2, 0), sw = list_at(c, 2, 1);
  const int64_t ph = list_at(c, 3, 0), pw = list_at(c, 3, 1), dh = list_at(c, 4, 0), dw = list_at(c, 4, 1);
  const int64_t H = x.size[2], W = x.size[3];
  for_each_output(y, [&](int64_t n, int64_t ch, int64_t oh, int64_t ow) {
    int64_t h0 = oh * sh - ph, w0 = ow * sw - pw;
    const int64_t h1 = std::min(h0 + (kh - 1) * dh + 1, H), w1 = std::min(w0 + (kw - 1) * dw + 1, W);
    while (h0 < 0) h0 += dh;
    while (w0 < 0) w0 += dw;
    store_window_max(x, y, ix, n, ch, oh, ow, h0, h1, dh, w0, w1, dw);
  });
  return AXLE_OK;
}

// avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
// torch's divisor rules; windows entirely in the padding give 0; int64 divides truncating.
axle_status avg_pool2d(void*, const axle_kernel_call* c) {
  const Pool4 x = pool_view<4>(arg_tensor(c, 0)), y = pool_view<4>(c->outputs[0]);
  if (x.dtype == AXLE_DTYPE_FLOAT16) return not_implemented(c, "avg_pool2d", x.dtype);
  const int64_t kh = list_at(c, 1, 0), kw = list_at(c, 1, 1), sh = list_at(c, 2, 0), sw = list_at(c, 2, 1);
  const int64_t ph = list_at(c, 3, 0), pw = list_at(c, 3, 1);
  const bool include_pad = arg_bool(c, 5);
  const bool has_divisor = !arg_is_none(c, 6);
  const int64_t divisor = has_divisor ? arg_int(c, 6) : 0;
  const bool integral = !is_floating(x.dtype);
  const int64_t H = x.size[2], W = x.size[3];
  for_each_output(y, [&](int64_t n, int64_t ch, int64_t oh, int64_t ow) {
    const plugin::PoolWindow hw = plugin::avg_pool_window(oh, sh, ph, kh, H);
    const plugin::PoolWindow ww = plugin::avg_pool_window(ow, sw, pw, kw, W);
    const int64_t h0 = hw.begin, h1 = hw.end, w0 = ww.begin, w1 = ww.end;
    char* dst = y.at(n, ch, oh, ow);
    if (h0 >= h1 || w0 >= w1) {
      store_from<double>(dst, y.dtype, 0.0);
      return;
    }
    const int64_t factor = has_divisor ? divisor : plugin::avg_pool_divisor(hw, ww, include_pad);
    if (integral) {
      int64_t sum = 0;
      for (int64_t h = h0; h < h1; ++h)
        for (int64_t w = w0; w < w1; ++w) sum += load_as<int64_t>(x.at(n, ch, h, w), x.dtype);
      store_from<int64_t>(dst, y.dtype, sum / factor);
    } else {
      double sum = 0;
      for (int64_t h = h0; h < h1; ++h)
        for (int64_t w = w0; w < w1; ++w) sum += load_as<double>(x.at(n, ch, h, w), x.dtype);
      store_from<double>(dst, y.dtype, sum / static_cast<double>(factor));
    }
  });
  return AXLE_OK;
}

// Adaptive windows: [floor(o * in / out), ceil((o + 1) * in / out)).
int64_t start_index(int64_t o, int64_t out, int64_t in) { return (o * in) / out; }
int64_t end_index(int64_t o, int64_t out, int64_t in) { return ((o + 1) * in + out - 1) / out; }

axle_status adaptive_avg_pool2d(void*, const axle_kernel_call* c) {
  const Pool4 x = pool_view<4>(arg_tensor(c, 0)), y = pool_view<4>(c->outputs[0]);
  if (x.dtype == AXLE_DTYPE_FLOAT16 && numel(c->outputs[0]) > 0)
    return not_implemented(c, "adaptive_avg_pool2d", x.dtype);
  for_each_output(y, [&](int64_t n, int64_t ch, int64_t oh, int64_t ow) {
    const int64_t h0 = start_index(oh, y.size[2], x.size[2]), h1 = end_index(oh, y.size[2], x.size[2]);
    const int64_t w0 = start_index(ow, y.size[3], x.size[3]), w1 = end_index(ow, y.size[3], x.size[3]);
    double sum = 0;
    for (int64_t h = h0; h < h1; ++h)
      for (int64_t w = w0; w < w1; ++w) sum += load_as<double>(x.at(n, ch, h, w), x.dtype);
    store_from<double>(y.at(n, ch, oh, ow), y.dtype, sum / static_cast<double>((h1 - h0) * (w1 - w0)));
  });
  return AXLE_OK;
}

axle_status adaptive_max_pool2d(void*, const axle_kernel_call* c) {
  const Pool4 x = pool_view<4>(arg_tensor(c, 0)), y = pool_view<4>(c->outputs[0]), ix = pool_view<4>(c->outputs[1]);
  if (x.dtype == AXLE_DTYPE_FLOAT16) return not_implemented(c, "adaptive_max_pool2d", x.dtype);
  for_each_output(y, [&](int64_t n, int64_t ch, int64_t oh, int64_t ow) {
    const int64_t h0 = start_index(oh, y.size[2], x.size[2]), h1 = end_index(oh, y.size[2], x.size[2]);
    const int64_t w0 = start_index(ow, y.size[3], x.size[3]), w1 = end_index(ow, y.size[3], x.size[3]);
    store_window_max(x, y, ix, n, ch, oh, ow, h0, h1, 1, w0, w1, 1);
  });
  return AXLE_OK;
}

const KernelEntry kConvPoolKernels[] = {
    {"convolution.out", &convolution, AXLE_HERE},
    {"max_pool2d_with_indices", &max_pool2d_with_indices, AXLE_HERE},
    {"avg_pool2d", &avg_pool2d, AXLE_HERE},
    {"_adaptive_avg_pool2d", &adaptive_avg_pool2d, AXLE_HERE},
    {"adaptive_max_pool2d", &adaptive_max_pool2d, AXLE_HERE},
};

}  // namespace

axle_status register_conv_pool(const axle_registrar* r) { return register_kernels(r, "cpu", kConvPoolKernels); }

}  // namespace axle::reference
