// Grid sampling: grid_sampler_2d / grid_sampler_3d and their backward ops over
// strided inputs. Interpolation 0 bilinear (trilinear in 3-d), 1 nearest
// (round half to even), 2 bicubic (2-d only, A = -0.75); padding 0 zeros,
// 1 border, 2 reflection; align_corners maps -1 and 1 to the corner pixels'
// centres (else to their outer edges). Computes in the input's dtype (float32
// or float64, torch's CPU kernels; Half and BFloat16 are refused as there).
// The shape rules are in dispatcher/src/ops/conv_pool_grid_sample.cpp.
#include "kernels.h"

#include <cmath>
#include <vector>

namespace axle::reference {

using namespace axle::plugin;

namespace {

// A 4-d or 5-d view padded to 5 dims after its first two (a 2-d input [N, C, H, W]
// reads as [N, C, 1, H, W]; a grid [N, H, W, 2] as [N, 1, H, W, 2]).
struct View5 {
  char* data;
  axle_dtype dtype;
  int64_t esize, size[5], stride[5];
  char* at(int64_t a, int64_t b, int64_t c, int64_t d, int64_t e) const {
    return data + (a * stride[0] + b * stride[1] + c * stride[2] + d * stride[3] + e * stride[4]) * esize;
  }
};

View5 view5(const axle_tensor_view& v, bool grid) {
  View5 r{
      static_cast<char*>(v.data), v.dtype, static_cast<int64_t>(dtype_size(v.dtype)), {1, 1, 1, 1, 1}, {0, 0, 0, 0, 0}};
  // Input-like views gain their unit dim at 2, grids at 1.
  const int32_t gap = v.ndim == 5 ? -1 : grid ? 1 : 2;
  for (int32_t d = 0, o = 0; d < v.ndim; ++d, ++o) {
    if (o == gap) ++o;
    r.size[o] = v.sizes[d];
    r.stride[o] = v.strides[d];
  }
  return r;
}

// torch's grid_sampler_unnormalize: grid coordinate in [-1, 1] to a pixel index;
// *g the derivative.
template <typename T>
T unnormalize(T coord, int64_t size, bool align, T* g) {
  if (align) {
    *g = static_cast<T>(size - 1) / 2;
    return (coord + 1) / 2 * static_cast<T>(size - 1);
  }
  *g = static_cast<T>(size) / 2;
  return ((coord + 1) * static_cast<T>(size) - 1) / 2;
}

template <typename T>
T clip(T in, int64_t size, T* g) {
  const T limit = static_cast<T>(size - 1);
  if (in < 0) {
    *g = 0;
    return 0;
  }
  if (in > limit) {
    *g = 0;
    return limit;
  }
  *g = 1;
  return in;
}

// Reflects `in` into [twice_low / 2, twice_high / 2] (halves, so -0.5 is exact).
template <typename T>
T reflect(T in, int64_t twice_low, int64_t twice_high, T* g) {
  if (twice_low == twice_high) {
    *g = 0;
    return 0;
  }
  const T lo = static_cast<T>(twice_low) / 2, span = static_cast<T>(twice_high - twice_low) / 2;
  T sign = 1;
  in -= lo;
  if (in < 0) {
    sign = -1;
    in = -in;
  }
  const T extra = std::fmod(in, span);
  const int64_t flips = static_cast<int64_t>(std::floor(in / span));
  if (flips % 2 == 0) {
    *g = sign;
    return extra + lo;
  }
  *g = -sign;
  return span - extra + lo;
}

// torch's compute_coordinates: the padding mode applied to a pixel index.
template <typename T>
T pad_coordinate(T x, int64_t size, int64_t padding, bool align, T* g) {
  *g = 1;
  if (padding == 1) return clip(x, size, g);
  if (padding == 2) {
    T gr = 1, gc = 1;
    x = align ? reflect(x, 0, 2 * (size - 1), &gr) : reflect(x, -1, 2 * size - 1, &gr);
    x = clip(x, size, &gc);
    *g = gr * gc;
  }
  return x;
}

struct Params {
  int64_t mode, padding;
  bool align;
  int dims;  // 2 or 3
};

// Sizes of the sampled input by coordinate axis: [0] x (W), [1] y (H), [2] z (D).
struct Extent {
  int64_t s[3];
};

template <typename T>
T cubic1(T x, T a) {  // |x| <= 1
  return ((a + 2) * x - (a + 3)) * x * x + 1;
}
template <typename T>
T cubic2(T x, T a) {  // 1 < |x| < 2
  return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}
template <typename T>
void cubic_coefficients(T t, T* w, T* dw) {
  const T a = static_cast<T>(-0.75);
  w[0] = cubic2(t + 1, a);
  w[1] = cubic1(t, a);
  w[2] = cubic1(1 - t, a);
  w[3] = cubic2(2 - t, a);
  auto d1 = [a](T x) { return 3 * (a + 2) * x * x - 2 * (a + 3) * x; };
  auto d2 = [a](T x) { return 3 * a * x * x - 10 * a * x + 8 * a; };
  dw[0] = d2(t + 1);
  dw[1] = d1(t);
  dw[2] = -d1(1 - t);
  dw[3] = -d2(2 - t);
}

// One sample point: visits each input element it reads as fn(z, y, x, weight,
// dweight[3]) (in-bounds elements only), dweight the weight's derivative by each
// grid coordinate (chain rule through unnormalize and padding included).
template <typename T, typename Fn>
void for_each_tap(const Params& p, const Extent& e, const T* coord, Fn&& fn) {
  T pos[3] = {0, 0, 0}, mult[3] = {1, 1, 1};
  if (p.mode == 2) {  // bicubic: padding applies to each tap, not to the position
    for (int k = 0; k < 2; ++k) pos[k] = unnormalize(coord[k], e.s[k], p.align, &mult[k]);
    const T fx = std::floor(pos[0]), fy = std::floor(pos[1]);
    T wx[4], dwx[4], wy[4], dwy[4];
    cubic_coefficients(pos[0] - fx, wx, dwx);
    cubic_coefficients(pos[1] - fy, wy, dwy);
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i) {
        T unused;
        const auto x = static_cast<int64_t>(pad_coordinate(fx - 1 + i, e.s[0], p.padding, p.align, &unused));
        const auto y = static_cast<int64_t>(pad_coordinate(fy - 1 + j, e.s[1], p.padding, p.align, &unused));
        if (x < 0 || x >= e.s[0] || y < 0 || y >= e.s[1]) continue;
        const T d[3] = {dwx[i] * wy[j] * mult[0], wx[i] * dwy[j] * mult[1], 0};
        fn(int64_t{0}, y, x, wx[i] * wy[j], d);
      }
    return;
  }
  for (int k = 0; k < p.dims; ++k) {
    T gu = 1, gp = 1;
    pos[k] = pad_coordinate(unnormalize(coord[k], e.s[k], p.align, &gu), e.s[k], p.padding, p.align, &gp);
    mult[k] = gu * gp;
  }
  if (p.mode == 1) {
    int64_t idx[3] = {0, 0, 0};
    for (int k = 0; k < p.dims; ++k) {
      idx[k] = static_cast<int64_t>(std::nearbyint(pos[k]));
      if (idx[k] < 0 || idx[k] >= e.s[k]) return;
    }
    const T zero[3] = {0, 0, 0};
    fn(idx[2], idx[1], idx[0], T(1), zero);
    return;
  }
  int64_t base[3] = {0, 0, 0};
  T frac[3] = {0, 0, 0};
  for (int k = 0; k < p.dims; ++k) {
    base[k] = static_cast<int64_t>(std::floor(pos[k]));
    frac[k] = pos[k] - static_cast<T>(base[k]);
  }
  for (int corner = 0; corner < (1 << p.dims); ++corner) {
    int64_t idx[3] = {0, 0, 0};
    T w[3] = {1, 1, 1}, dw[3] = {0, 0, 0};
    bool inside = true;
    for (int k = 0; k < p.dims; ++k) {
      const int b = (corner >> k) & 1;
      idx[k] = base[k] + b;
      w[k] = b ? frac[k] : 1 - frac[k];
      dw[k] = b ? 1 : -1;
      inside = inside && idx[k] >= 0 && idx[k] < e.s[k];
    }
    if (!inside) continue;
    T d[3] = {0, 0, 0};
    for (int k = 0; k < p.dims; ++k) {
      d[k] = dw[k] * mult[k];
      for (int j = 0; j < p.dims; ++j)
        if (j != k) d[k] *= w[j];
    }
    fn(idx[2], idx[1], idx[0], w[0] * w[1] * w[2], d);
  }
}

Params params(const axle_kernel_call* c, int first, int dims) {
  return {arg_int(c, first), arg_int(c, first + 1), arg_bool(c, first + 2), dims};
}

template <typename T>
void sample_forward(const View5& x, const View5& g, const View5& y, const Params& p) {
  const Extent e{{x.size[4], x.size[3], x.size[2]}};
  for (int64_t n = 0; n < y.size[0]; ++n)
    for (int64_t od = 0; od < y.size[2]; ++od)
      for (int64_t oh = 0; oh < y.size[3]; ++oh)
        for (int64_t ow = 0; ow < y.size[4]; ++ow) {
          T coord[3] = {0, 0, 0};
          for (int k = 0; k < p.dims; ++k) coord[k] = load_as<T>(g.at(n, od, oh, ow, k), g.dtype);
          for (int64_t ch = 0; ch < y.size[1]; ++ch) {
            T acc = 0;
            for_each_tap<T>(p, e, coord, [&](int64_t z, int64_t yy, int64_t xx, T w, const T*) {
              acc += w * load_as<T>(x.at(n, ch, z, yy, xx), x.dtype);
            });
            store_from<T>(y.at(n, ch, od, oh, ow), y.dtype, acc);
          }
        }
}

// grad_input (when gx has data) accumulated densely, grad_grid (when gg has data)
// summed over channels.
template <typename T>
void sample_backward(const View5& gy, const View5& x, const View5& g, const View5& gx, const View5& gg,
                     const Params& p) {
  const Extent e{{x.size[4], x.size[3], x.size[2]}};
  const int64_t C = x.size[1], D = x.size[2], H = x.size[3], W = x.size[4];
  std::vector<T> acc(gx.data ? static_cast<size_t>(x.size[0] * C * D * H * W) : 0, T(0));
  for (int64_t n = 0; n < gy.size[0]; ++n)
    for (int64_t od = 0; od < gy.size[2]; ++od)
      for (int64_t oh = 0; oh < gy.size[3]; ++oh)
        for (int64_t ow = 0; ow < gy.size[4]; ++ow) {
          T coord[3] = {0, 0, 0}, gc[3] = {0, 0, 0};
          for (int k = 0; k < p.dims; ++k) coord[k] = load_as<T>(g.at(n, od, oh, ow, k), g.dtype);
          for (int64_t ch = 0; ch < C; ++ch) {
            const T go = load_as<T>(gy.at(n, ch, od, oh, ow), gy.dtype);
            for_each_tap<T>(p, e, coord, [&](int64_t z, int64_t yy, int64_t xx, T w, const T* d) {
              if (gx.data) acc[static_cast<size_t>((((n * C + ch) * D + z) * H + yy) * W + xx)] += w * go;
              if (gg.data) {
                const T v = load_as<T>(x.at(n, ch, z, yy, xx), x.dtype);
                for (int k = 0; k < p.dims; ++k) gc[k] += v * d[k] * go;
              }
            });
          }
          if (gg.data)
            for (int k = 0; k < p.dims; ++k) store_from<T>(gg.at(n, od, oh, ow, k), gg.dtype, gc[k]);
        }
  if (gx.data)
    for (int64_t n = 0; n < x.size[0]; ++n)
      for (int64_t ch = 0; ch < C; ++ch)
        for (int64_t z = 0; z < D; ++z)
          for (int64_t yy = 0; yy < H; ++yy)
            for (int64_t xx = 0; xx < W; ++xx)
              store_from<T>(gx.at(n, ch, z, yy, xx), gx.dtype,
                            acc[static_cast<size_t>((((n * C + ch) * D + z) * H + yy) * W + xx)]);
}

axle_status refuse(const axle_kernel_call* c, int dims, axle_dtype d) {
  return fail(c, AXLE_ERROR_DTYPE,
              std::string(c->op_name) + ": grid_sampler_" + std::to_string(dims) + "d_cpu not implemented for " +
                  torch_type_name(d));
}

// grid_sampler_{2,3}d(input, grid, interpolation_mode, padding_mode, align_corners)
template <int Dims>
axle_status grid_sampler(void*, const axle_kernel_call* c) {
  const View5 x = view5(arg_tensor(c, 0), false), g = view5(arg_tensor(c, 1), true);
  const View5 y = view5(c->outputs[0], false);
  const Params p = params(c, 2, Dims);
  if (x.dtype == AXLE_DTYPE_FLOAT32)
    sample_forward<float>(x, g, y, p);
  else if (x.dtype == AXLE_DTYPE_FLOAT64)
    sample_forward<double>(x, g, y, p);
  else
    return refuse(c, Dims, x.dtype);
  return AXLE_OK;
}

// grid_sampler_{2,3}d_backward(grad_output, input, grid, interpolation_mode,
// padding_mode, align_corners, output_mask)
template <int Dims>
axle_status grid_sampler_backward(void*, const axle_kernel_call* c) {
  const View5 gy = view5(arg_tensor(c, 0), false), x = view5(arg_tensor(c, 1), false);
  const View5 g = view5(arg_tensor(c, 2), true);
  const View5 gx = view5(c->outputs[0], false), gg = view5(c->outputs[1], true);
  const Params p = params(c, 3, Dims);
  if (x.dtype == AXLE_DTYPE_FLOAT32)
    sample_backward<float>(gy, x, g, gx, gg, p);
  else if (x.dtype == AXLE_DTYPE_FLOAT64)
    sample_backward<double>(gy, x, g, gx, gg, p);
  else
    return refuse(c, Dims, x.dtype);
  return AXLE_OK;
}

const KernelEntry kGridSampleKernels[] = {
    {"grid_sampler_2d", &grid_sampler<2>, AXLE_HERE},
    {"grid_sampler_2d_backward", &grid_sampler_backward<2>, AXLE_HERE},
    {"grid_sampler_3d", &grid_sampler<3>, AXLE_HERE},
    {"grid_sampler_3d_backward", &grid_sampler_backward<3>, AXLE_HERE},
};

}  // namespace

axle_status register_conv_pool_grid_sample(const axle_registrar* r) {
  return register_kernels(r, "cpu", kGridSampleKernels);
}

}  // namespace axle::reference
