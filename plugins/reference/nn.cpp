// NN kernels: softmax / log_softmax, batch_norm, layer_norm, rms_norm,
// group_norm, upsample_nearest2d, upsample_bilinear2d and pad. The numeric
// kernels read their (any-strided) inputs into contiguous double buffers in
// logical order, compute in double and store into the output's dtype; the
// gathers (nearest, pad) copy element bytes, so integers stay exact.
#include "kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace axle::reference {

using namespace axle::plugin;

namespace {

std::vector<int64_t> contiguous_strides(int32_t ndim, const int64_t* sizes) {
  std::vector<int64_t> s(static_cast<size_t>(ndim));
  int64_t acc = 1;
  for (int32_t d = ndim - 1; d >= 0; --d) {
    s[static_cast<size_t>(d)] = acc;
    acc *= sizes[d];
  }
  return s;
}

// The view's values as doubles, contiguous in logical order.
std::vector<double> load_dense(const axle_tensor_view& t) {
  std::vector<double> buf(static_cast<size_t>(numel(t)));
  const std::vector<int64_t> strides = contiguous_strides(t.ndim, t.sizes);
  const axle_tensor_view d = {
      sizeof(axle_tensor_view), buf.data(), AXLE_DTYPE_FLOAT64, t.ndim, t.sizes, strides.data(), 0, 0};
  map_elements<double, 1>(d, {&t}, [](double v) { return v; });
  return buf;
}

// An optional 1-d parameter (weight, bias, ...) as n doubles; `fallback` when None.
std::vector<double> load_param(const axle_kernel_call* c, int i, size_t n, double fallback) {
  if (arg_is_none(c, i)) return std::vector<double>(n, fallback);
  return load_dense(arg_tensor(c, i));
}

// Stores a contiguous logical-order buffer into the (any-strided) output.
void store_dense(const axle_tensor_view& out, const std::vector<double>& buf) {
  const std::vector<int64_t> strides = contiguous_strides(out.ndim, out.sizes);
  const axle_tensor_view d = {sizeof(axle_tensor_view),
                              const_cast<double*>(buf.data()),
                              AXLE_DTYPE_FLOAT64,
                              out.ndim,
                              out.sizes,
                              strides.data(),
                              0,
                              0};
  map_elements<double, 1>(out, {&d}, [](double v) { return v; });
}

// Rounds a double through a dtype (softmax's input is converted to `dtype` first).
double round_through(double v, axle_dtype d) {
  unsigned char tmp[8];
  store_from<double>(tmp, d, v);
  return load_as<double>(tmp, d);
}

int64_t prod(const int64_t* sizes, int32_t from, int32_t to) {
  int64_t p = 1;
  for (int32_t d = from; d < to; ++d) p *= sizes[d];
  return p;
}

// ------------------------------------------------------------ softmax / log_softmax
template <bool Log>
axle_status softmax_kernel(void*, const axle_kernel_call* c) {
  const axle_tensor_view& in = arg_tensor(c, 0);
  const axle_tensor_view& out = c->outputs[0];
  if (numel(out) == 0) return AXLE_OK;
  const int32_t dim = static_cast<int32_t>(arg_int(c, 1));
  std::vector<double> x = load_dense(in);
  if (in.dtype != out.dtype)
    for (double& v : x) v = round_through(v, out.dtype);
  const int64_t outer = in.ndim == 0 ? 1 : prod(in.sizes, 0, dim);
  const int64_t n = in.ndim == 0 ? 1 : in.sizes[dim];
  const int64_t inner = in.ndim == 0 ? 1 : prod(in.sizes, dim + 1, in.ndim);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      double* p = x.data() + o * n * inner + i;
      double m = -INFINITY;
      for (int64_t k = 0; k < n; ++k) m = std::isnan(p[k * inner]) ? p[k * inner] : std::max(m, p[k * inner]);
      double sum = 0;
      for (int64_t k = 0; k < n; ++k) sum += std::exp(p[k * inner] - m);
      const double log_sum = std::log(sum);
      for (int64_t k = 0; k < n; ++k) {
        double& v = p[k * inner];
        v = Log ? v - m - log_sum : std::exp(v - m) / sum;
      }
    }
  }
  store_dense(out, x);
  return AXLE_OK;
}

// ------------------------------------------------------------ batch_norm
axle_status batch_norm(void*, const axle_kernel_call* c) {
  const axle_tensor_view& in = arg_tensor(c, 0);
  const axle_tensor_view& out = c->outputs[0];
  if (numel(out) == 0) return AXLE_OK;
  const int64_t n = in.sizes[0], channels = in.sizes[1], spatial = prod(in.sizes, 2, in.ndim);
  const size_t C = static_cast<size_t>(channels);
  const bool training = arg_bool(c, 5);
  const double eps = arg_double(c, 7);
  std::vector<double> x = load_dense(in);
  const std::vector<double> w = load_param(c, 1, C, 1), b = load_param(c, 2, C, 0);
  std::vector<double> mean(C, 0), var(C, 0);
  if (training) {
    const double count = static_cast<double>(n * spatial);
    for (int64_t ch = 0; ch < channels; ++ch) {
      double s = 0, ss = 0;
      for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < spatial; ++k) s += x[static_cast<size_t>((i * channels + ch) * spatial + k)];
      const double mu = s / count;
      for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < spatial; ++k) {
          const double d = x[static_cast<size_t>((i * channels + ch) * spatial + k)] - mu;
          ss += d * d;
        }
      mean[static_cast<size_t>(ch)] = mu;
      var[static_cast<size_t>(ch)] = ss / count;
    }
  } else {
    mean = load_dense(arg_tensor(c, 3));
    var = load_dense(arg_tensor(c, 4));
  }
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ch = 0; ch < channels; ++ch) {
      const size_t cc = static_cast<size_t>(ch);
      const double scale = w[cc] / std::sqrt(var[cc] + eps);
      double* p = x.data() + (i * channels + ch) * spatial;
      for (int64_t k = 0; k < spatial; ++k) p[k] = (p[k] - mean[cc]) * scale + b[cc];
    }
  store_dense(out, x);
  return AXLE_OK;
}

// ------------------------------------------------------------ layer_norm / rms_norm
template <bool Rms>
axle_status row_norm(void*, const axle_kernel_call* c) {
  const axle_tensor_view& in = arg_tensor(c, 0);
  const axle_tensor_view& out = c->outputs[0];
  if (numel(out) == 0) return AXLE_OK;
  const int32_t k = static_cast<int32_t>(c->args[1].u.ints.count);
  const int64_t inner = prod(in.sizes, in.ndim - k, in.ndim), outer = numel(in) / inner;
  const double eps = arg_double(c, Rms ? 3 : 4);
  std::vector<double> x = load_dense(in);
  const std::vector<double> w = load_param(c, 2, static_cast<size_t>(inner), 1);
  const std::vector<double> b =
      Rms ? std::vector<double>(static_cast<size_t>(inner), 0) : load_param(c, 3, static_cast<size_t>(inner), 0);
  for (int64_t o = 0; o < outer; ++o) {
    double* p = x.data() + o * inner;
    double mean = 0, ss = 0;
    if (!Rms) {
      for (int64_t i = 0; i < inner; ++i) mean += p[i];
      mean /= static_cast<double>(inner);
    }
    for (int64_t i = 0; i < inner; ++i) ss += (p[i] - mean) * (p[i] - mean);
    const double rstd = 1.0 / std::sqrt(ss / static_cast<double>(inner) + eps);
    for (int64_t i = 0; i < inner; ++i)
      p[i] = (p[i] - mean) * rstd * w[static_cast<size_t>(i)] + b[static_cast<size_t>(i)];
  }
  store_dense(out, x);
  return AXLE_OK;
}

// ------------------------------------------------------------ group_norm
axle_status group_norm(void*, const axle_kernel_call* c) {
  const axle_tensor_view& in = arg_tensor(c, 0);
  const axle_tensor_view& out = c->outputs[0];
  if (numel(out) == 0) return AXLE_OK;
  const int64_t n = in.sizes[0], channels = in.sizes[1], spatial = prod(in.sizes, 2, in.ndim);
  const int64_t groups = arg_int(c, 1), per = channels / groups;
  const double eps = arg_double(c, 4);
  std::vector<double> x = load_dense(in);
  const std::vector<double> w = load_param(c, 2, static_cast<size_t>(channels), 1);
  const std::vector<double> b = load_param(c, 3, static_cast<size_t>(channels), 0);
  const int64_t len = per * spatial;
  for (int64_t i = 0; i < n * groups; ++i) {
    double* p = x.data() + i * len;  // a group's channels are adjacent
    double mean = 0, ss = 0;
    for (int64_t k = 0; k < len; ++k) mean += p[k];
    mean /= static_cast<double>(len);
    for (int64_t k = 0; k < len; ++k) ss += (p[k] - mean) * (p[k] - mean);
    const double rstd = 1.0 / std::sqrt(ss / static_cast<double>(len) + eps);
    for (int64_t k = 0; k < len; ++k) {
      const size_t ch = static_cast<size_t>((i % groups) * per + k / spatial);
      p[k] = (p[k] - mean) * rstd * w[ch] + b[ch];
    }
  }
  store_dense(out, x);
  return AXLE_OK;
}

// ------------------------------------------------------------ upsample
std::optional<double> opt_double(const axle_kernel_call* c, int i) {
  if (arg_is_none(c, i)) return std::nullopt;
  return arg_double(c, i);
}

// torch 1.13's nearest_idx (float arithmetic, as its CPU kernel).
int64_t nearest_idx(int64_t o, int64_t in, int64_t out, std::optional<double> scale) {
  if (out == in) return o;
  if (out == 2 * in) return o >> 1;
  const float s =
      (scale && *scale > 0) ? static_cast<float>(1.0 / *scale) : static_cast<float>(in) / static_cast<float>(out);
  return std::min(static_cast<int64_t>(std::floor(static_cast<float>(o) * s)), in - 1);
}

axle_status upsample_nearest2d(void*, const axle_kernel_call* c) {
  const axle_tensor_view& in = arg_tensor(c, 0);
  const axle_tensor_view& out = c->outputs[0];
  if (numel(out) == 0) return AXLE_OK;
  const int64_t oh = out.sizes[2], ow = out.sizes[3];
  std::vector<int64_t> hmap(static_cast<size_t>(oh)), wmap(static_cast<size_t>(ow));
  for (int64_t i = 0; i < oh; ++i) hmap[static_cast<size_t>(i)] = nearest_idx(i, in.sizes[2], oh, opt_double(c, 2));
  for (int64_t i = 0; i < ow; ++i) wmap[static_cast<size_t>(i)] = nearest_idx(i, in.sizes[3], ow, opt_double(c, 3));
  const int64_t es = static_cast<int64_t>(dtype_size(in.dtype));
  for (int64_t n = 0; n < out.sizes[0]; ++n)
    for (int64_t ch = 0; ch < out.sizes[1]; ++ch)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t x = 0; x < ow; ++x) {
          const int64_t src = n * in.strides[0] + ch * in.strides[1] + hmap[static_cast<size_t>(y)] * in.strides[2] +
                              wmap[static_cast<size_t>(x)] * in.strides[3];
          const int64_t dst = n * out.strides[0] + ch * out.strides[1] + y * out.strides[2] + x * out.strides[3];
          std::memcpy(static_cast<char*>(out.data) + dst * es, static_cast<const char*>(in.data) + src * es,
                      static_cast<size_t>(es));
        }
  return AXLE_OK;
}

struct LinearTap {
  int64_t i0, i1;
  double l0, l1;
};

// torch's area_pixel_compute_scale / area_pixel_compute_source_index, in the
// kernel's compute type S (float for float32 / bfloat16, double for float64).
template <typename S>
std::vector<LinearTap> linear_taps(int64_t in, int64_t out, bool align_corners, std::optional<double> scale) {
  S s;
  if (align_corners)
    s = out > 1 ? static_cast<S>(in - 1) / static_cast<S>(out - 1) : S(0);
  else
    s = (scale && *scale > 0) ? static_cast<S>(1.0 / *scale) : static_cast<S>(in) / static_cast<S>(out);
  std::vector<LinearTap> taps(static_cast<size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    S src = align_corners ? s * static_cast<S>(o) : s * (static_cast<S>(o) + S(0.5)) - S(0.5);
    if (src < 0) src = 0;
    const int64_t i0 = std::min(static_cast<int64_t>(src), in - 1);
    const S l1 = std::min(src - static_cast<S>(i0), S(1));
    taps[static_cast<size_t>(o)] = {i0, i0 + (i0 < in - 1 ? 1 : 0), static_cast<double>(S(1) - l1),
                                    static_cast<double>(l1)};
  }
  return taps;
}

axle_status upsample_bilinear2d(void*, const axle_kernel_call* c) {
  const axle_tensor_view& in = arg_tensor(c, 0);
  const axle_tensor_view& out = c->outputs[0];
  if (numel(out) == 0) return AXLE_OK;
  const bool align = arg_bool(c, 2);
  const int64_t ih = in.sizes[2], iw = in.sizes[3], oh = out.sizes[2], ow = out.sizes[3];
  const bool dbl = in.dtype == AXLE_DTYPE_FLOAT64;
  const std::vector<LinearTap> th =
      dbl ? linear_taps<double>(ih, oh, align, opt_double(c, 3)) : linear_taps<float>(ih, oh, align, opt_double(c, 3));
  const std::vector<LinearTap> tw =
      dbl ? linear_taps<double>(iw, ow, align, opt_double(c, 4)) : linear_taps<float>(iw, ow, align, opt_double(c, 4));
  const std::vector<double> x = load_dense(in);
  const int64_t planes = in.sizes[0] * in.sizes[1];
  std::vector<double> y(static_cast<size_t>(planes * oh * ow));
  for (int64_t p = 0; p < planes; ++p) {
    const double* src = x.data() + p * ih * iw;
    double* dst = y.data() + p * oh * ow;
    for (int64_t r = 0; r < oh; ++r) {
      const LinearTap& h = th[static_cast<size_t>(r)];
      for (int64_t q = 0; q < ow; ++q) {
        const LinearTap& w = tw[static_cast<size_t>(q)];
        dst[r * ow + q] = h.l0 * (w.l0 * src[h.i0 * iw + w.i0] + w.l1 * src[h.i0 * iw + w.i1]) +
                          h.l1 * (w.l0 * src[h.i1 * iw + w.i0] + w.l1 * src[h.i1 * iw + w.i1]);
      }
    }
  }
  store_dense(out, y);
  return AXLE_OK;
}

// ------------------------------------------------------------ pad
// Per output dim, the source index of each output index (-1: the constant).
axle_status pad(void*, const axle_kernel_call* c) {
  const axle_tensor_view& in = arg_tensor(c, 0);
  const axle_tensor_view& out = c->outputs[0];
  if (numel(out) == 0) return AXLE_OK;
  const axle_value& pads = c->args[1];
  const std::string mode = c->args[2].u.str;
  const int32_t nd = out.ndim, k = static_cast<int32_t>(pads.u.ints.count / 2);
  std::vector<std::vector<int64_t>> src(static_cast<size_t>(nd));
  for (int32_t d = 0; d < nd; ++d) {
    const int64_t size = in.sizes[d], lo = d >= nd - k ? pads.u.ints.items[2 * (nd - 1 - d)] : 0;
    std::vector<int64_t>& m = src[static_cast<size_t>(d)];
    m.resize(static_cast<size_t>(out.sizes[d]));
    for (int64_t o = 0; o < out.sizes[d]; ++o) {
      int64_t i = o - lo;
      if (mode == "reflect") {
        i = i < 0 ? -i : i >= size ? 2 * (size - 1) - i : i;
      } else if (mode == "replicate") {
        i = std::min(std::max<int64_t>(i, 0), size - 1);
      } else if (mode == "circular") {
        i = ((i % size) + size) % size;
      } else if (i < 0 || i >= size) {
        i = -1;
      }
      m[static_cast<size_t>(o)] = i;
    }
  }
  const int64_t es = static_cast<int64_t>(dtype_size(in.dtype));
  unsigned char fill[8];
  store_from<double>(fill, out.dtype, arg_is_none(c, 3) ? 0.0 : arg_double(c, 3));
  std::vector<int64_t> idx(static_cast<size_t>(nd), 0);
  for (int64_t t = 0, total = numel(out); t < total; ++t) {
    int64_t s = 0, o = 0;
    bool inside = true;
    for (int32_t d = 0; d < nd; ++d) {
      const size_t ud = static_cast<size_t>(d);
      const int64_t i = src[ud][static_cast<size_t>(idx[ud])];
      inside = inside && i >= 0;
      s += i * in.strides[d];
      o += idx[ud] * out.strides[d];
    }
    std::memcpy(static_cast<char*>(out.data) + o * es,
                inside ? static_cast<const void*>(static_cast<const char*>(in.data) + s * es) : fill,
                static_cast<size_t>(es));
    for (int32_t d = nd - 1; d >= 0; --d) {  // odometer
      const size_t ud = static_cast<size_t>(d);
      if (++idx[ud] < out.sizes[d]) break;
      idx[ud] = 0;
    }
  }
  return AXLE_OK;
}

const KernelEntry kNNKernels[] = {
    {"softmax.int", &softmax_kernel<false>, AXLE_HERE},
    {"log_softmax.int", &softmax_kernel<true>, AXLE_HERE},
    {"batch_norm", &batch_norm, AXLE_HERE},
    {"layer_norm", &row_norm<false>, AXLE_HERE},
    {"rms_norm", &row_norm<true>, AXLE_HERE},
    {"group_norm", &group_norm, AXLE_HERE},
    {"upsample_nearest2d", &upsample_nearest2d, AXLE_HERE},
    {"upsample_bilinear2d", &upsample_bilinear2d, AXLE_HERE},
    {"pad", &pad, AXLE_HERE},
};

}  // namespace

axle_status register_nn(const axle_registrar* r) { return plugin::register_kernels(r, "cpu", kNNKernels); }

}  // namespace axle::reference
