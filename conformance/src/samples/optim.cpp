// Samples for the fused optimizer updates (dispatcher/src/ops/optim.cpp): the
// written parameters and optimizer states are what the engine compares.
// Sizes below and above a vector width, a zero-size parameter, a transposed one
// (which the cpu plugin declines), every branch of the update, and the inputs
// that must fail.
#include "samples.h"

namespace axle::conformance {
namespace {

using TL = std::vector<Tensor>;
const Layout C = Layout::Contiguous, T = Layout::Transposed;

// _fused_sgd_(self, grads, momentum_buffer_list, *, weight_decay, momentum, lr,
//             dampening, nesterov, maximize, is_first_step, grad_scale, found_inf)
std::vector<Sample> fused_sgd_samples(SampleContext& c) {
  auto v = [&](IntList s, Layout l = C) { return c.make(s, l, {}, -2, 2); };
  // Three parameters with their gradients and buffers (fresh tensors per sample).
  auto three = [&]() {
    return std::array<TL, 3>{TL{v({3, 5}), v({37}), v({4, 4, 9})}, TL{v({3, 5}), v({37}), v({4, 4, 9})},
                             TL{v({3, 5}), v({37}), v({4, 4, 9})}};
  };
  auto call = [&](std::array<TL, 3> t, double wd, double m, double lr, double damp, bool nesterov, bool maximize,
                  bool first) {
    return Stack{t[0], t[1], t[2], wd, m, lr, damp, nesterov, maximize, first, Value(), Value()};
  };
  auto no_bufs = [&]() {
    auto t = three();
    t[2].clear();
    return t;
  };
  auto transposed = [&]() { return std::array<TL, 3>{TL{v({6, 4}, T)}, TL{v({6, 4})}, TL{v({6, 4}, T)}}; };
  auto empty = [&]() { return std::array<TL, 3>{TL{v({0, 3}), v({2})}, TL{v({0, 3}), v({2})}, TL{v({0, 3}), v({2})}}; };
  auto wrong = [&](int list, Tensor t) {
    auto a = three();
    a[list][1] = t;
    return a;
  };
  auto scaled = call(three(), 0, 0.9, 0.1, 0, false, false, false);
  scaled[10] = c.make({}, C, {}, 1, 2);
  return {
      ok(call(three(), 1e-2, 0.9, 0.1, 0, false, false, false), "momentum and weight decay"),
      ok(call(three(), 1e-2, 0.9, 0.1, 0, false, false, true), "first step: buffers set to the gradient"),
      ok(call(three(), 0, 0.8, 0.05, 0.25, false, false, false), "dampening"),
      ok(call(three(), 1e-3, 0.9, 0.1, 0, true, false, false), "nesterov"),
      ok(call(three(), 1e-3, 0.9, 0.1, 0, true, true, true), "nesterov, maximize, first step"),
      ok(call(no_bufs(), 0, 0, 0.5, 0, false, false, false), "plain SGD, no buffers"),
      ok(call(no_bufs(), 0.1, 0, 0.5, 0, false, true, false), "plain SGD, weight decay, maximize"),
      ok(call(three(), 0, 0, 0.5, 0, false, false, false), "buffers given without momentum: untouched"),
      ok(call(transposed(), 1e-2, 0.9, 0.1, 0, false, false, false), "transposed parameter and buffer"),
      ok(call(empty(), 1e-2, 0.9, 0.1, 0, false, false, false), "a zero-size parameter"),
      ok(call(std::array<TL, 3>{}, 1e-2, 0.9, 0.1, 0, false, false, false), "no parameters"),
      fails(call(wrong(1, v({36})), 0, 0.9, 0.1, 0, false, false, false), "a gradient of another size", "ShapeError"),
      fails(call(wrong(2, v({4})), 0, 0.9, 0.1, 0, false, false, false), "a buffer of another size", "ShapeError"),
      fails(call(wrong(1, c.make({37}, C, kInt64)), 0, 0.9, 0.1, 0, false, false, false), "an int64 gradient",
            "DTypeError"),
      fails(call(no_bufs(), 0, 0.9, 0.1, 0, false, false, false), "momentum without buffers", "ShapeError"),
      fails(scaled, "grad_scale", "NotImplementedError"),
  };
}

// _fused_adadelta_(self, grads, square_avgs, acc_deltas, *, lr, rho, eps, weight_decay, maximize)
std::vector<Sample> fused_adadelta_samples(SampleContext& c) {
  auto v = [&](IntList s, Layout l = C) { return c.make(s, l, {}, -2, 2); };
  auto avg = [&](IntList s, Layout l = C) { return c.make(s, l, {}, 0, 2); };  // the running averages are >= 0
  auto four = [&]() {
    return std::array<TL, 4>{TL{v({3, 5}), v({37}), v({4, 4, 9})}, TL{v({3, 5}), v({37}), v({4, 4, 9})},
                             TL{avg({3, 5}), avg({37}), avg({4, 4, 9})}, TL{avg({3, 5}), avg({37}), avg({4, 4, 9})}};
  };
  auto call = [&](std::array<TL, 4> t, double lr, double rho, double eps, double wd, bool maximize) {
    return Stack{t[0], t[1], t[2], t[3], lr, rho, eps, wd, maximize};
  };
  auto transposed = [&]() {
    return std::array<TL, 4>{TL{v({6, 4}, T)}, TL{v({6, 4})}, TL{avg({6, 4}, T)}, TL{avg({6, 4}, T)}};
  };
  auto wrong = [&](int list, Tensor t) {
    auto a = four();
    a[list][1] = t;
    return a;
  };
  auto zeros_state = [&]() {  // the first step: both averages start at zero
    auto a = four();
    for (int l : {2, 3})
      for (Tensor& t : a[l]) t = zeros(t.sizes(), TensorOptions().dtype(t.dtype()).device(t.device()));
    return a;
  };
  return {
      ok(call(four(), 1.0, 0.9, 1e-6, 0, false), "torch's defaults"),
      ok(call(zeros_state(), 1.0, 0.9, 1e-6, 0, false), "first step: zero averages"),
      ok(call(four(), 0.5, 0.95, 1e-3, 0.01, false), "weight decay"),
      ok(call(four(), 1.0, 0.9, 1e-6, 0.1, true), "weight decay, maximize"),
      ok(call(transposed(), 1.0, 0.9, 1e-6, 0, false), "transposed parameter and state"),
      ok(call(std::array<TL, 4>{}, 1.0, 0.9, 1e-6, 0, false), "no parameters"),
      fails(call(wrong(1, v({36})), 1.0, 0.9, 1e-6, 0, false), "a gradient of another size", "ShapeError"),
      fails(call(wrong(3, v({4})), 1.0, 0.9, 1e-6, 0, false), "an accumulated delta of another size", "ShapeError"),
      fails(call(wrong(2, c.make({37}, C, kInt64)), 1.0, 0.9, 1e-6, 0, false), "an int64 square average", "DTypeError"),
  };
}

// _fused_adam_ / _fused_adamw_(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, lr, beta1,
//                              beta2, weight_decay, eps, amsgrad, maximize, grad_scale, found_inf)
std::vector<Sample> fused_adam_samples(SampleContext& c) {
  auto v = [&](IntList s, Layout l = C) { return c.make(s, l, {}, -2, 2); };
  auto sq = [&](IntList s, Layout l = C) { return c.make(s, l, {}, 0, 2); };  // second moments are >= 0
  auto step = [&](double t) { return full({}, t, TensorOptions().dtype(kFloat32).device(c.device())); };
  const std::vector<IntList> shapes = {{3, 5}, {37}, {4, 4, 9}};
  // params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs (empty without amsgrad), steps
  auto lists = [&](bool amsgrad, double t) {
    std::array<TL, 6> a;
    for (const IntList& s : shapes) {
      a[0].push_back(v(s)), a[1].push_back(v(s)), a[2].push_back(v(s)), a[3].push_back(sq(s));
      if (amsgrad) a[4].push_back(sq(s));
      a[5].push_back(step(t));
    }
    return a;
  };
  auto call = [&](std::array<TL, 6> t, double lr, double b1, double b2, double wd, double eps, bool amsgrad,
                  bool maximize) {
    return Stack{t[0], t[1], t[2], t[3], t[4], t[5], lr, b1, b2, wd, eps, amsgrad, maximize, Value(), Value()};
  };
  auto transposed = [&]() {
    return std::array<TL, 6>{TL{v({6, 4}, T)}, TL{v({6, 4})}, TL{v({6, 4}, T)}, TL{sq({6, 4}, T)}, TL{}, TL{step(3)}};
  };
  auto wrong = [&](int list, Tensor t) {
    auto a = lists(false, 2);
    a[list][1] = t;
    return a;
  };
  auto scaled = call(lists(false, 1), 1e-3, 0.9, 0.999, 0, 1e-8, false, false);
  scaled[13] = c.make({}, C, {}, 1, 2);
  return {
      ok(call(lists(false, 1), 1e-3, 0.9, 0.999, 0, 1e-8, false, false), "torch's defaults, first step"),
      ok(call(lists(false, 7), 1e-2, 0.8, 0.9, 0.1, 1e-6, false, false), "weight decay, step 7"),
      ok(call(lists(true, 3), 1e-2, 0.9, 0.999, 0, 1e-8, true, false), "amsgrad"),
      ok(call(lists(true, 5), 1e-2, 0.5, 0.75, 0.05, 1e-4, true, true), "amsgrad, maximize, weight decay"),
      ok(call(transposed(), 1e-2, 0.9, 0.999, 0.01, 1e-8, false, false), "transposed parameter and state"),
      ok(call(std::array<TL, 6>{}, 1e-3, 0.9, 0.999, 0, 1e-8, false, false), "no parameters"),
      fails(call(wrong(1, v({36})), 1e-3, 0.9, 0.999, 0, 1e-8, false, false), "a gradient of another size",
            "ShapeError"),
      fails(call(wrong(3, c.make({37}, C, kInt64)), 1e-3, 0.9, 0.999, 0, 1e-8, false, false), "an int64 second moment",
            "DTypeError"),
      fails(call(lists(false, 1), 1e-3, 0.9, 0.999, 0, 1e-8, true, false), "amsgrad without maximum moments",
            "ShapeError"),
      fails(scaled, "grad_scale", "NotImplementedError"),
  };
}

}  // namespace

std::vector<OpSamples> optim_samples() {
  return {
      {"_fused_sgd_", &fused_sgd_samples, {kFloat32, kFloat64}, 1},
      {"_fused_adadelta_", &fused_adadelta_samples, {kFloat32, kFloat64}, 1},
      {"_fused_adam_", &fused_adam_samples, {kFloat32, kFloat64}, 1},
      {"_fused_adamw_", &fused_adam_samples, {kFloat32, kFloat64}, 1},
  };
}

}  // namespace axle::conformance
