// The fused optimizer updates (dispatcher/src/ops/optim.cpp) on our own loops.
// _fused_sgd_: one pass per parameter reads param, gradient and momentum
// buffer and writes param and buffer, where the single-tensor algorithm makes
// five passes and allocates the weight-decayed gradient (a ResNet-18 step: 11
// million parameters, memory-bound). Each element goes through torch's
// sequence of operations (same roundings except for contraction into FMA).
// _fused_adadelta_ likewise: one pass over param, gradient and the two running
// averages where the single-tensor algorithm makes about fourteen.
// float32 and float64, each parameter dense with its gradient and buffer in
// its layout; the rest is declined (the composite serves it).
#include "kernels.h"

#include <cmath>

namespace axle::cpu {
namespace {

using plugin::arg_bool;
using plugin::arg_double;
using plugin::arg_is_none;

#define AXLE_OPTIM_LOOP __attribute__((target_clones("avx512f", "avx2", "default")))

struct SgdParams {
  double weight_decay, momentum, lr, dampening;
  bool nesterov, maximize, first;
};

// The loop with the branches of the update fixed (kDecay: weight decay != 0;
// kMomentum: momentum != 0), so each compiles to straight vector code.
template <typename T, bool kDecay, bool kMomentum>
AXLE_OPTIM_LOOP void sgd_loop(T* __restrict p, const T* __restrict g, T* __restrict buf, int64_t n,
                              const SgdParams& s) {
  const T wd = static_cast<T>(s.weight_decay), m = static_cast<T>(s.momentum), neg_lr = static_cast<T>(-s.lr);
  const T keep = static_cast<T>(1 - s.dampening), sign = s.maximize ? T(-1) : T(1);
  const bool nesterov = s.nesterov, first = s.first;
  for (int64_t i = 0; i < n; ++i) {
    T d = sign * g[i];
    if constexpr (kDecay) d = d + wd * p[i];
    if constexpr (kMomentum) {
      const T b = first ? d : buf[i] * m + keep * d;
      buf[i] = b;
      d = nesterov ? d + m * b : b;
    }
    p[i] = p[i] + neg_lr * d;
  }
}

template <typename T>
void sgd_range(T* p, const T* g, T* buf, int64_t n, const SgdParams& s) {
  const bool decay = s.weight_decay != 0, momentum = s.momentum != 0;
  if (decay && momentum) return sgd_loop<T, true, true>(p, g, buf, n, s);
  if (decay) return sgd_loop<T, true, false>(p, g, buf, n, s);
  if (momentum) return sgd_loop<T, false, true>(p, g, buf, n, s);
  sgd_loop<T, false, false>(p, g, buf, n, s);
}

// Whether param i can be updated as flat memory: dense, its gradient and
// buffer of its layout and dtype, no two of them overlapping (the loop reads
// them through restrict pointers).
bool flat(const axle_tensor_view& p, const axle_tensor_view& g, const axle_tensor_view* buf) {
  const Shape ps = Shape::of(p);
  if (p.dtype != AXLE_DTYPE_FLOAT32 && p.dtype != AXLE_DTYPE_FLOAT64) return false;
  if (!ps.is_dense() || ps.has_zero_stride() || g.dtype != p.dtype || !ps.same_layout(Shape::of(g)) ||
      plugin::views_overlap(p, g))
    return false;
  return !buf || (buf->dtype == p.dtype && ps.same_layout(Shape::of(*buf)) && !plugin::views_overlap(*buf, p) &&
                  !plugin::views_overlap(*buf, g));
}

// _fused_sgd_(self, grads, momentum_buffer_list, *, weight_decay, momentum, lr,
//             dampening, nesterov, maximize, is_first_step, grad_scale, found_inf)
axle_status fused_sgd(void*, const axle_kernel_call* c) {
  const axle_value &params = c->args[0], &grads = c->args[1], &bufs = c->args[2];
  const SgdParams s{arg_double(c, 3), arg_double(c, 4), arg_double(c, 5), arg_double(c, 6),
                    arg_bool(c, 7),   arg_bool(c, 8),   arg_bool(c, 9)};
  if (!arg_is_none(c, 10) || !arg_is_none(c, 11)) return plugin::decline(c, "grad_scale / found_inf");
  const int64_t count = params.u.tensors.count;
  const bool momentum = s.momentum != 0;
  if (grads.u.tensors.count != count || (momentum && bufs.u.tensors.count != count))
    return plugin::decline(c, "list lengths");
  // Every parameter is checked before any is written.
  for (int64_t i = 0; i < count; ++i)
    if (!flat(params.u.tensors.items[i], grads.u.tensors.items[i], momentum ? &bufs.u.tensors.items[i] : nullptr))
      return plugin::decline(c, "a parameter that is not dense with its gradient and buffer in its layout");
  for (int64_t i = 0; i < count; ++i) {
    const axle_tensor_view& p = params.u.tensors.items[i];
    const int64_t n = plugin::numel(p);
    if (n == 0) continue;
    void* buf = momentum ? bufs.u.tensors.items[i].data : nullptr;
    const int threads = n >= (int64_t{1} << 18) ? thread_count() : 1;
    parallel_ranges(n, threads, 16, [&](int64_t b, int64_t e) {
      if (p.dtype == AXLE_DTYPE_FLOAT32)
        sgd_range(static_cast<float*>(p.data) + b, static_cast<const float*>(grads.u.tensors.items[i].data) + b,
                  buf ? static_cast<float*>(buf) + b : nullptr, e - b, s);
      else
        sgd_range(static_cast<double*>(p.data) + b, static_cast<const double*>(grads.u.tensors.items[i].data) + b,
                  buf ? static_cast<double*>(buf) + b : nullptr, e - b, s);
    });
  }
  return AXLE_OK;
}

struct AdadeltaParams {
  double lr, rho, eps, weight_decay;
  bool maximize;
};

// torch.optim.Adadelta's single-tensor update per element, in its order.
template <typename T, bool kDecay>
AXLE_OPTIM_LOOP void adadelta_loop(T* __restrict p, const T* __restrict g, T* __restrict v, T* __restrict u, int64_t n,
                                   const AdadeltaParams& s) {
  const T rho = static_cast<T>(s.rho), keep = static_cast<T>(1 - s.rho), eps = static_cast<T>(s.eps);
  const T wd = static_cast<T>(s.weight_decay), neg_lr = static_cast<T>(-s.lr), sign = s.maximize ? T(-1) : T(1);
  for (int64_t i = 0; i < n; ++i) {
    T d = sign * g[i];
    if constexpr (kDecay) d = d + wd * p[i];
    const T sq = v[i] * rho + d * keep * d;
    v[i] = sq;
    const T delta = std::sqrt(u[i] + eps) / std::sqrt(sq + eps) * d;
    u[i] = u[i] * rho + delta * keep * delta;
    p[i] = p[i] + neg_lr * delta;
  }
}

template <typename T>
void adadelta_range(T* p, const T* g, T* v, T* u, int64_t n, const AdadeltaParams& s) {
  if (s.weight_decay != 0) return adadelta_loop<T, true>(p, g, v, u, n, s);
  adadelta_loop<T, false>(p, g, v, u, n, s);
}

// _fused_adadelta_(self, grads, square_avgs, acc_deltas, *, lr, rho, eps, weight_decay, maximize)
axle_status fused_adadelta(void*, const axle_kernel_call* c) {
  const axle_value &params = c->args[0], &grads = c->args[1], &vs = c->args[2], &us = c->args[3];
  const AdadeltaParams s{arg_double(c, 4), arg_double(c, 5), arg_double(c, 6), arg_double(c, 7), arg_bool(c, 8)};
  const int64_t count = params.u.tensors.count;
  if (grads.u.tensors.count != count || vs.u.tensors.count != count || us.u.tensors.count != count)
    return plugin::decline(c, "list lengths");
  // Every parameter is checked before any is written.
  for (int64_t i = 0; i < count; ++i) {
    const axle_tensor_view &p = params.u.tensors.items[i], &g = grads.u.tensors.items[i];
    const axle_tensor_view &v = vs.u.tensors.items[i], &u = us.u.tensors.items[i];
    if (!flat(p, g, &v) || !flat(p, g, &u) || plugin::views_overlap(u, v))
      return plugin::decline(c, "a parameter that is not dense with its gradient and state in its layout");
  }
  for (int64_t i = 0; i < count; ++i) {
    const axle_tensor_view& p = params.u.tensors.items[i];
    const int64_t n = plugin::numel(p);
    if (n == 0) continue;
    void *g = grads.u.tensors.items[i].data, *v = vs.u.tensors.items[i].data, *u = us.u.tensors.items[i].data;
    const int threads = n >= (int64_t{1} << 18) ? thread_count() : 1;
    parallel_ranges(n, threads, 16, [&](int64_t b, int64_t e) {
      if (p.dtype == AXLE_DTYPE_FLOAT32)
        adadelta_range(static_cast<float*>(p.data) + b, static_cast<const float*>(g) + b, static_cast<float*>(v) + b,
                       static_cast<float*>(u) + b, e - b, s);
      else
        adadelta_range(static_cast<double*>(p.data) + b, static_cast<const double*>(g) + b, static_cast<double*>(v) + b,
                       static_cast<double*>(u) + b, e - b, s);
    });
  }
  return AXLE_OK;
}

const KernelEntry kKernels[] = {
    {"_fused_sgd_", &fused_sgd, AXLE_HERE},
    {"_fused_adadelta_", &fused_adadelta, AXLE_HERE},
};

}  // namespace

axle_status register_optim(const axle_registrar* r) { return plugin::register_kernels(r, "cpu", kKernels); }

}  // namespace axle::cpu
