// max_pool2d_with_indices and its backward on our own loops (oneDNN's pooling
// keeps a workspace of its own, not torch's indices): what training runs.
// float32, 3-d or 4-d, any strides; one (n, c) plane per task, planes split
// across threads. Forward: the first maximum wins and a NaN replaces it, as
// torch's loops take it; the index is h * W + w within the plane. Backward:
// the gradient of each output added at its index, after every index was
// checked to lie in its plane (otherwise declined before writing: the
// composite reports it).
#include "kernels.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace axle::cpu {
namespace {

using plugin::arg_tensor;

constexpr int64_t kParallelElements = int64_t{1} << 15;

// A 3-d or 4-d view as [N, C, H, W] element strides (N = 1 for 3-d).
struct Planes {
  int64_t n = 1, c = 1, h = 0, w = 0;
  int64_t sn = 0, sc = 0, sh = 0, sw = 0;
  static bool of(const axle_tensor_view& v, Planes* p) {
    if (v.ndim != 3 && v.ndim != 4) return false;
    const int lead = v.ndim - 3;
    p->n = lead ? v.sizes[0] : 1;
    p->sn = lead ? v.strides[0] : 0;
    p->c = v.sizes[lead], p->sc = v.strides[lead];
    p->h = v.sizes[lead + 1], p->sh = v.strides[lead + 1];
    p->w = v.sizes[lead + 2], p->sw = v.strides[lead + 2];
    return true;
  }
  int64_t plane(int64_t i) const { return (i / c) * sn + (i % c) * sc; }  // i = n * C + c
};

struct Window {
  int64_t kernel[2], stride[2], pad[2], dilation[2];
};

bool window(const axle_kernel_call* c, int first, Window* w) {
  for (int a = 0; a < 4; ++a) {
    const std::vector<int64_t> v = plugin::arg_ints(c, first + a);
    if (v.empty()) return false;
    for (int d = 0; d < 2; ++d) {
      const int64_t x = v.size() == 1 ? v[0] : v[static_cast<size_t>(d)];
      int64_t* field = a == 0 ? w->kernel : a == 1 ? w->stride : a == 2 ? w->pad : w->dilation;
      field[d] = x;
    }
  }
  for (int d = 0; d < 2; ++d)
    if (w->kernel[d] < 1 || w->stride[d] < 1 || w->dilation[d] < 1 || w->pad[d] < 0) return false;
  return true;
}

template <typename Fn>
void for_planes(int64_t planes, int64_t work, Fn&& fn) {
  const int threads = work >= kParallelElements ? thread_count() : 1;
  if (threads == 1) {
    for (int64_t p = 0; p < planes; ++p) fn(p);
    return;
  }
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t p = 0; p < planes; ++p) fn(p);
}

// One kernel offset (kh, kw) over a plane: for the outputs (oh, ow) whose
// window element at that offset lies inside the input, at row oh * s0 + off0
// and column ow * s1 + off1 (oh in [oh0, oh1], ow in [ow0, ow1]), the element
// replaces m and best (its flat position) when larger or NaN, as torch's loops
// take it. Selects, not branches, vectorized over ow: random data mispredicts
// about one comparison per window.
struct Offset {
  int64_t s0, off0, oh0, oh1, s1, off1, ow0, ow1;
};
__attribute__((target_clones("avx512f", "avx2", "default"))) void max_offset(const float* __restrict plane, int64_t sh,
                                                                             int64_t sw, int64_t in_w, int64_t out_w,
                                                                             Offset o, float* __restrict m,
                                                                             int64_t* __restrict best) {
  for (int64_t oh = o.oh0; oh <= o.oh1; ++oh) {
    const int64_t h = oh * o.s0 + o.off0;
    const float* row = plane + h * sh;
    float* mr = m + oh * out_w;
    int64_t* br = best + oh * out_w;
#pragma omp simd
    for (int64_t ow = o.ow0; ow <= o.ow1; ++ow) {
      const int64_t ww = ow * o.s1 + o.off1;
      const float v = row[ww * sw];
      const bool take = (v > mr[ow]) | (v != v);
      mr[ow] = take ? v : mr[ow];
      br[ow] = take ? h * in_w + ww : br[ow];
    }
  }
}

// The 2 x 2 windows with stride 2 of a plane of w-element rows, out_h x out_w
// dense outputs: window (oh, ow) covers row[2 ow], row[2 ow + 1] of input row
// 2 oh and the same two of row 2 oh + 1, taken in that order with
// max_offset's comparison (the first maximum, or the last NaN).
__attribute__((target_clones("avx512f", "avx2", "default"))) void pool_2x2(const float* __restrict plane, int64_t w,
                                                                           int64_t out_h, int64_t out_w,
                                                                           float* __restrict out,
                                                                           int64_t* __restrict idx) {
  for (int64_t oh = 0; oh < out_h; ++oh) {
    const int64_t first = 2 * oh * w;
    const float* __restrict row = plane + first;
    const float* __restrict next = row + w;
    float* __restrict o = out + oh * out_w;
    int64_t* __restrict ix = idx + oh * out_w;
#pragma omp simd
    for (int64_t ow = 0; ow < out_w; ++ow) {
      const float a = row[2 * ow], b = row[2 * ow + 1], c = next[2 * ow], d = next[2 * ow + 1];
      float m = a;
      int64_t k = 0;
      bool take = (b > m) | (b != b);
      m = take ? b : m;
      k = take ? 1 : k;
      take = (c > m) | (c != c);
      m = take ? c : m;
      k = take ? w : k;
      take = (d > m) | (d != d);
      m = take ? d : m;
      k = take ? w + 1 : k;
      o[ow] = m;
      ix[ow] = first + 2 * ow + k;
    }
  }
}

// The outputs whose element at offset `off` (k * dilation - pad) lies in [0, size): [*lo, *hi].
void valid_outputs(int64_t off, int64_t stride, int64_t size, int64_t outputs, int64_t* lo, int64_t* hi) {
  *lo = off >= 0 ? 0 : (-off + stride - 1) / stride;
  *hi = size - 1 - off < 0 ? -1 : std::min(outputs - 1, (size - 1 - off) / stride);
}

// max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode) -> (out, indices)
axle_status max_pool_forward(const axle_kernel_call* c) {
  const axle_tensor_view &x = arg_tensor(c, 0), &y = c->outputs[0], &ix = c->outputs[1];
  Planes in, out, idx;
  Window w;
  if (x.dtype != AXLE_DTYPE_FLOAT32 || y.dtype != AXLE_DTYPE_FLOAT32 || ix.dtype != AXLE_DTYPE_INT64 ||
      !Planes::of(x, &in) || !Planes::of(y, &out) || !Planes::of(ix, &idx) || !window(c, 1, &w) || out.n != in.n ||
      out.c != in.c)
    return AXLE_DECLINED;
  const float* src = static_cast<const float*>(x.data);
  float* dst = static_cast<float*>(y.data);
  int64_t* where = static_cast<int64_t*>(ix.data);
  const Window win = w;  // locals: the stores below cannot alias them
  const Planes pin = in, pout = out, pidx = idx;
  const int64_t area = pout.h * pout.w;
  // Each window's first valid position (row first_h, column first_w) is its
  // index until a larger value (or a NaN) replaces it.
  std::vector<int64_t> first_h(static_cast<size_t>(pout.h)), first_w(static_cast<size_t>(pout.w));
  for (int d = 0; d < 2; ++d) {
    std::vector<int64_t>& first = d == 0 ? first_h : first_w;
    for (size_t o = 0; o < first.size(); ++o) {
      int64_t start = static_cast<int64_t>(o) * win.stride[d] - win.pad[d];
      while (start < 0) start += win.dilation[d];
      first[o] = start;
    }
  }
  const bool dense_out = pout.sw == 1 && pout.sh == pout.w && pidx.sw == 1 && pidx.sh == pidx.w;
  // 2 x 2 windows that tile the input (stride 2, no padding or dilation, each
  // window inside the input: a classifier's pooling) over dense rows: one
  // output row at a time, vectorized over its windows (pool_2x2). The
  // per-offset passes below cost more than the work on small planes (64 x 64 x
  // 24 x 24: 5.4 ms, here 2.3 ms).
  if (win.kernel[0] == 2 && win.kernel[1] == 2 && win.stride[0] == 2 && win.stride[1] == 2 && win.pad[0] == 0 &&
      win.pad[1] == 0 && win.dilation[0] == 1 && win.dilation[1] == 1 && pout.h * 2 <= pin.h && pout.w * 2 <= pin.w &&
      pin.sw == 1 && pin.sh == pin.w && dense_out) {
    for_planes(in.n * in.c, plugin::numel(x), [&](int64_t p) {
      pool_2x2(src + pin.plane(p), pin.w, pout.h, pout.w, dst + pout.plane(p), where + pidx.plane(p));
    });
    return AXLE_OK;
  }
  for_planes(in.n * in.c, plugin::numel(x), [&](int64_t p) {
    thread_local std::vector<float> m;
    thread_local std::vector<int64_t> best;
    m.assign(static_cast<size_t>(area), -INFINITY);
    best.resize(static_cast<size_t>(area));
    for (int64_t oh = 0; oh < pout.h; ++oh) {
      const int64_t row = first_h[static_cast<size_t>(oh)] * pin.w;
      for (int64_t ow = 0; ow < pout.w; ++ow)
        best[static_cast<size_t>(oh * pout.w + ow)] = row + first_w[static_cast<size_t>(ow)];
    }
    const float* plane = src + pin.plane(p);
    for (int64_t kh = 0; kh < win.kernel[0]; ++kh)
      for (int64_t kw = 0; kw < win.kernel[1]; ++kw) {
        Offset o{win.stride[0], kh * win.dilation[0] - win.pad[0], 0, 0,
                 win.stride[1], kw * win.dilation[1] - win.pad[1], 0, 0};
        valid_outputs(o.off0, o.s0, pin.h, pout.h, &o.oh0, &o.oh1);
        valid_outputs(o.off1, o.s1, pin.w, pout.w, &o.ow0, &o.ow1);
        if (o.oh0 <= o.oh1 && o.ow0 <= o.ow1)
          max_offset(plane, pin.sh, pin.sw, pin.w, pout.w, o, m.data(), best.data());
      }
    float* dst_plane = dst + pout.plane(p);
    int64_t* idx_plane = where + pidx.plane(p);
    if (dense_out) {
      std::copy(m.begin(), m.end(), dst_plane);
      std::copy(best.begin(), best.end(), idx_plane);
      return;
    }
    for (int64_t oh = 0; oh < pout.h; ++oh)
      for (int64_t ow = 0; ow < pout.w; ++ow) {
        dst_plane[oh * pout.sh + ow * pout.sw] = m[static_cast<size_t>(oh * pout.w + ow)];
        idx_plane[oh * pidx.sh + ow * pidx.sw] = best[static_cast<size_t>(oh * pout.w + ow)];
      }
  });
  return AXLE_OK;
}

// max_pool2d_with_indices_backward(grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices)
axle_status max_pool_backward(const axle_kernel_call* c) {
  const axle_tensor_view &g = arg_tensor(c, 0), &ix = arg_tensor(c, 7), &gi = c->outputs[0];
  Planes go, idx, out;
  if (g.dtype != AXLE_DTYPE_FLOAT32 || gi.dtype != AXLE_DTYPE_FLOAT32 || ix.dtype != AXLE_DTYPE_INT64 ||
      !Planes::of(g, &go) || !Planes::of(ix, &idx) || !Planes::of(gi, &out) || go.n != out.n || go.c != out.c ||
      idx.n != go.n || idx.c != go.c || idx.h != go.h || idx.w != go.w || plugin::views_overlap(gi, g) ||
      plugin::views_overlap(gi, ix))
    return AXLE_DECLINED;
  const int64_t planes = out.n * out.c, area = out.h * out.w;
  const int64_t* where = static_cast<const int64_t*>(ix.data);
  // Every index inside its plane, checked before anything is written (a flag
  // per plane, no early exit: the loop stays branch-free).
  bool valid = true;
  for (int64_t p = 0; p < planes; ++p) {
    const int64_t* pi = where + idx.plane(p);
    bool ok = true;
    for (int64_t oh = 0; oh < idx.h; ++oh)
      for (int64_t ow = 0; ow < idx.w; ++ow) {
        const int64_t k = pi[oh * idx.sh + ow * idx.sw];
        ok &= (k >= 0) & (k < area);
      }
    valid &= ok;
  }
  if (!valid) return AXLE_DECLINED;
  const float* src = static_cast<const float*>(g.data);
  float* dst = static_cast<float*>(gi.data);
  // A dense plane (the usual case) takes the flat index as it is: no division per element.
  const bool dense = out.sw == 1 && out.sh == out.w;
  for_planes(planes, plugin::numel(gi), [&](int64_t p) {
    float* plane = dst + out.plane(p);
    const float* pg = src + go.plane(p);
    const int64_t* pi = where + idx.plane(p);
    if (dense) {
      std::fill(plane, plane + area, 0.f);
      for (int64_t oh = 0; oh < go.h; ++oh)
        for (int64_t ow = 0; ow < go.w; ++ow) plane[pi[oh * idx.sh + ow * idx.sw]] += pg[oh * go.sh + ow * go.sw];
      return;
    }
    for (int64_t h = 0; h < out.h; ++h)
      for (int64_t w = 0; w < out.w; ++w) plane[h * out.sh + w * out.sw] = 0.f;
    for (int64_t oh = 0; oh < go.h; ++oh)
      for (int64_t ow = 0; ow < go.w; ++ow) {
        const int64_t k = pi[oh * idx.sh + ow * idx.sw];
        plane[(k / out.w) * out.sh + (k % out.w) * out.sw] += pg[oh * go.sh + ow * go.sw];
      }
  });
  return AXLE_OK;
}

axle_status max_pool2d_with_indices(void*, const axle_kernel_call* c) {
  return guarded(c, [&] { return max_pool_forward(c); });
}
axle_status max_pool2d_with_indices_backward(void*, const axle_kernel_call* c) {
  return guarded(c, [&] { return max_pool_backward(c); });
}

const KernelEntry kKernels[] = {
    {"max_pool2d_with_indices", &max_pool2d_with_indices, AXLE_HERE},
    {"max_pool2d_with_indices_backward", &max_pool2d_with_indices_backward, AXLE_HERE},
};

}  // namespace

axle_status register_conv_pool_max(const axle_registrar* r) { return plugin::register_kernels(r, "cpu", kKernels); }

}  // namespace axle::cpu
