// The fused optimizer updates (dispatcher/src/ops/optim.cpp) on our own loops.
// _fused_sgd_: one pass per parameter reads param, gradient and momentum
// buffer and writes param and buffer, where the single-tensor algorithm makes
// five passes and allocates the weight-decayed gradient (a ResNet-18 step: 11
// million parameters, memory-bound). Each element goes through torch's
// sequence of operations, with the same roundings (no contraction into FMA).
// _fused_adadelta_ and _fused_adam_ / _fused_adamw_ likewise: one pass over
// param, gradient and the optimizer's state where the single-tensor algorithm
// makes about fourteen (Adadelta) or twelve (Adam).
// float32 and float64, each parameter dense with its gradient and buffer in
// its layout; the rest is declined (the composite serves it).
#include "kernels.h"

#include <cmath>
#include <initializer_list>

namespace axle::cpu {
namespace {

using plugin::arg_bool;
using plugin::arg_double;
using plugin::arg_is_none;

// No contraction into FMA: each element rounds as the composite's ops do.
#define AXLE_OPTIM_LOOP __attribute__((target_clones("avx512f", "avx2", "default"), optimize("fp-contract=off")))

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

// Whether a parameter can be updated as flat memory: p dense, float32 or
// float64, and its tensors in the other lists (the gradient, the optimizer's
// state; nullptr: a list not given) of its dtype and layout, no two of them
// overlapping (the loops read them through restrict pointers).
bool flat(const axle_tensor_view& p, std::initializer_list<const axle_tensor_view*> others) {
  const Shape ps = Shape::of(p);
  if ((p.dtype != AXLE_DTYPE_FLOAT32 && p.dtype != AXLE_DTYPE_FLOAT64) || !ps.is_dense() || ps.has_zero_stride())
    return false;
  for (auto it = others.begin(); it != others.end(); ++it) {
    const axle_tensor_view* t = *it;
    if (!t) continue;
    if (t->dtype != p.dtype || !ps.same_layout(Shape::of(*t)) || plugin::views_overlap(p, *t)) return false;
    for (auto before = others.begin(); before != it; ++before)
      if (*before && plugin::views_overlap(**before, *t)) return false;
  }
  return true;
}

// Tensor i of a list argument, nullptr when the list is empty.
const axle_tensor_view* item(const axle_value& list, int64_t i) {
  return i < list.u.tensors.count ? &list.u.tensors.items[i] : nullptr;
}

// Element b of tensor i of a list as T*, nullptr when the list is empty.
template <typename T>
T* at(const axle_value& list, int64_t i, int64_t b) {
  const axle_tensor_view* t = item(list, i);
  return t ? static_cast<T*>(t->data) + b : nullptr;
}

// update(T{}, i, b, e) over the element ranges [b, e) of every nonempty
// parameter i (split across threads from 256 Ki elements), T float or double
// as the parameter's dtype.
template <typename Update>
void for_each_range(const axle_value& params, Update&& update) {
  for (int64_t i = 0; i < params.u.tensors.count; ++i) {
    const axle_tensor_view& p = params.u.tensors.items[i];
    const int64_t n = plugin::numel(p);
    if (n == 0) continue;
    parallel_ranges(n, n >= (int64_t{1} << 18) ? thread_count() : 1, 16, [&](int64_t b, int64_t e) {
      if (p.dtype == AXLE_DTYPE_FLOAT32)
        update(float{}, i, b, e);
      else
        update(double{}, i, b, e);
    });
  }
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
    if (!flat(params.u.tensors.items[i], {item(grads, i), momentum ? item(bufs, i) : nullptr}))
      return plugin::decline(c, "a parameter that is not dense with its gradient and buffer in its layout");
  for_each_range(params, [&](auto zero, int64_t i, int64_t b, int64_t e) {
    using T = decltype(zero);
    sgd_range(at<T>(params, i, b), at<T>(grads, i, b), momentum ? at<T>(bufs, i, b) : nullptr, e - b, s);
  });
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
  for (int64_t i = 0; i < count; ++i)
    if (!flat(params.u.tensors.items[i], {item(grads, i), item(vs, i), item(us, i)}))
      return plugin::decline(c, "a parameter that is not dense with its gradient and state in its layout");
  for_each_range(params, [&](auto zero, int64_t i, int64_t b, int64_t e) {
    using T = decltype(zero);
    adadelta_range(at<T>(params, i, b), at<T>(grads, i, b), at<T>(vs, i, b), at<T>(us, i, b), e - b, s);
  });
  return AXLE_OK;
}

struct AdamParams {
  double lr, beta1, beta2, weight_decay, eps;
  bool amsgrad, maximize, adamw;
};

// torch.optim.Adam(W)'s single-tensor update per element, in its order;
// step_size = lr / (1 - beta1^t) and bc2 = sqrt(1 - beta2^t) per parameter.
// kDecay: 0 none, 1 L2 into the gradient (Adam), 2 decoupled (AdamW).
template <typename T, bool kAmsgrad, int kDecay>
AXLE_OPTIM_LOOP void adam_loop(T* __restrict p, const T* __restrict g, T* __restrict m, T* __restrict v,
                               T* __restrict vmax, int64_t n, const AdamParams& s, double step_size, double bc2) {
  const T b1 = static_cast<T>(s.beta1), keep1 = static_cast<T>(1 - s.beta1), b2 = static_cast<T>(s.beta2);
  const T keep2 = static_cast<T>(1 - s.beta2), eps = static_cast<T>(s.eps), sign = s.maximize ? T(-1) : T(1);
  const T wd = static_cast<T>(s.weight_decay), shrink = static_cast<T>(1 - s.lr * s.weight_decay);
  const T neg_step = static_cast<T>(-step_size), c2 = static_cast<T>(bc2);
  for (int64_t i = 0; i < n; ++i) {
    T param = p[i];
    T d = sign * g[i];
    if constexpr (kDecay == 2) param = param * shrink;
    if constexpr (kDecay == 1) d = d + wd * param;
    const T mi = m[i] * b1 + keep1 * d;
    const T vi = v[i] * b2 + d * keep2 * d;
    m[i] = mi;
    v[i] = vi;
    T second = vi;
    if constexpr (kAmsgrad) {
      second = (vmax[i] < vi || vi != vi) ? vi : vmax[i];  // torch.maximum: NaN wins
      vmax[i] = second;
    }
    const T denom = std::sqrt(second) / c2 + eps;
    p[i] = param + mi * neg_step / denom;
  }
}

template <typename T, bool kAmsgrad>
void adam_range(T* p, const T* g, T* m, T* v, T* vmax, int64_t n, const AdamParams& s, double step_size, double bc2) {
  if (s.adamw) return adam_loop<T, kAmsgrad, 2>(p, g, m, v, vmax, n, s, step_size, bc2);
  if (s.weight_decay != 0) return adam_loop<T, kAmsgrad, 1>(p, g, m, v, vmax, n, s, step_size, bc2);
  adam_loop<T, kAmsgrad, 0>(p, g, m, v, vmax, n, s, step_size, bc2);
}

// _fused_adam_ / _fused_adamw_(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, lr, beta1,
//                              beta2, weight_decay, eps, amsgrad, maximize, grad_scale, found_inf)
template <bool kAdamW>
axle_status fused_adam(void*, const axle_kernel_call* c) {
  const axle_value &params = c->args[0], &grads = c->args[1], &ms = c->args[2], &vs = c->args[3];
  const axle_value &vmaxs = c->args[4], &steps = c->args[5];
  const AdamParams s{arg_double(c, 6),  arg_double(c, 7), arg_double(c, 8), arg_double(c, 9),
                     arg_double(c, 10), arg_bool(c, 11),  arg_bool(c, 12),  kAdamW};
  if (!arg_is_none(c, 13) || !arg_is_none(c, 14)) return plugin::decline(c, "grad_scale / found_inf");
  const int64_t count = params.u.tensors.count;
  if (grads.u.tensors.count != count || ms.u.tensors.count != count || vs.u.tensors.count != count ||
      steps.u.tensors.count != count || (s.amsgrad && vmaxs.u.tensors.count != count))
    return plugin::decline(c, "list lengths");
  // Every parameter is checked before any is written.
  for (int64_t i = 0; i < count; ++i) {
    if (!flat(params.u.tensors.items[i],
              {item(grads, i), item(ms, i), item(vs, i), s.amsgrad ? item(vmaxs, i) : nullptr}))
      return plugin::decline(c, "a parameter that is not dense with its gradient and state in its layout");
    const axle_tensor_view& t = steps.u.tensors.items[i];
    if (t.dtype != AXLE_DTYPE_FLOAT32 || plugin::numel(t) != 1)
      return plugin::decline(c, "a step count that is not one float32");
  }
  for_each_range(params, [&](auto zero, int64_t i, int64_t b, int64_t e) {
    using T = decltype(zero);
    const double step = *static_cast<const float*>(steps.u.tensors.items[i].data);
    const double step_size = s.lr / (1 - std::pow(s.beta1, step)), bc2 = std::sqrt(1 - std::pow(s.beta2, step));
    T *p = at<T>(params, i, b), *g = at<T>(grads, i, b), *m = at<T>(ms, i, b), *v = at<T>(vs, i, b);
    if (s.amsgrad)
      adam_range<T, true>(p, g, m, v, at<T>(vmaxs, i, b), e - b, s, step_size, bc2);
    else
      adam_range<T, false>(p, g, m, v, nullptr, e - b, s, step_size, bc2);
  });
  return AXLE_OK;
}

const KernelEntry kKernels[] = {
    {"_fused_sgd_", &fused_sgd, AXLE_HERE},
    {"_fused_adadelta_", &fused_adadelta, AXLE_HERE},
    {"_fused_adam_", &fused_adam<false>, AXLE_HERE},
    {"_fused_adamw_", &fused_adam<true>, AXLE_HERE},
};

}  // namespace

axle_status register_optim(const axle_registrar* r) { return plugin::register_kernels(r, "cpu", kKernels); }

}  // namespace axle::cpu
