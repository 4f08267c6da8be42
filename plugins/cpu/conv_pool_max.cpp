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
  for_planes(in.n * in.c, plugin::numel(x), [&](int64_t p) {
    const float* plane = src + in.plane(p);
    float* o = dst + out.plane(p);
    int64_t* oi = where + idx.plane(p);
    for (int64_t oh = 0; oh < out.h; ++oh) {
      int64_t h0 = oh * w.stride[0] - w.pad[0];
      const int64_t h1 = std::min(h0 + (w.kernel[0] - 1) * w.dilation[0] + 1, in.h);
      while (h0 < 0) h0 += w.dilation[0];
      for (int64_t ow = 0; ow < out.w; ++ow) {
        int64_t w0 = ow * w.stride[1] - w.pad[1];
        const int64_t w1 = std::min(w0 + (w.kernel[1] - 1) * w.dilation[1] + 1, in.w);
        while (w0 < 0) w0 += w.dilation[1];
        int64_t best = h0 * in.w + w0;
        float m = -INFINITY;
        for (int64_t h = h0; h < h1; h += w.dilation[0])
          for (int64_t ww = w0; ww < w1; ww += w.dilation[1]) {
            const float v = plane[h * in.sh + ww * in.sw];
            if (v > m || v != v) {
              m = v;
              best = h * in.w + ww;
            }
          }
        o[oh * out.sh + ow * out.sw] = m;
        oi[oh * idx.sh + ow * idx.sw] = best;
      }
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
  bool valid = true;  // every index inside its plane, before anything is written
  for (int64_t p = 0; p < planes && valid; ++p) {
    const int64_t* pi = where + idx.plane(p);
    for (int64_t oh = 0; oh < idx.h && valid; ++oh)
      for (int64_t ow = 0; ow < idx.w; ++ow) {
        const int64_t k = pi[oh * idx.sh + ow * idx.sw];
        if (k < 0 || k >= area) {
          valid = false;
          break;
        }
      }
  }
  if (!valid) return AXLE_DECLINED;
  const float* src = static_cast<const float*>(g.data);
  float* dst = static_cast<float*>(gi.data);
  for_planes(planes, plugin::numel(gi), [&](int64_t p) {
    float* plane = dst + out.plane(p);
    for (int64_t h = 0; h < out.h; ++h)
      for (int64_t w = 0; w < out.w; ++w) plane[h * out.sh + w * out.sw] = 0.f;
    const float* pg = src + go.plane(p);
    const int64_t* pi = where + idx.plane(p);
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
