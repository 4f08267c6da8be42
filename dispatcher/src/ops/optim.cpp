// Optimizer updates as declared ops, with aten's names and schemas: one call
// updates every parameter of a group in place (torch's `fused` optimizer
// kernels). _fused_sgd_ is torch.optim.SGD's update, the single-tensor
// algorithm's math per element:
//   g = grad (negated when maximize) + weight_decay * param
//   buf = g at the first step, else momentum * buf + (1 - dampening) * g
//   g = g + momentum * buf (nesterov) or buf          (momentum != 0)
//   param -= lr * g
// A kernel does it in one pass over param, grad and buffer instead of the five
// ops (and the weight-decayed gradient's allocation) of the composite here,
// which serves every device without one. grad_scale / found_inf (torch's AMP
// unscaling) are not supported and say so. _fused_adam_ / _fused_adamw_ are
// torch.optim.Adam / AdamW's updates with torch 2.x's fused schemas (the step
// counts in a Tensor[] argument). _fused_adadelta_ (axle's own name:
// torch has no fused Adadelta) is torch.optim.Adadelta's update in the same
// form, its composite the single-tensor algorithm's ops.
#include "shape_util.h"

#include <axle/ops.h>

#include <cmath>

namespace axle::shape {
namespace {

const std::vector<Tensor>& list_arg(const Stack& a, size_t i) { return a[i].tensors(); }

// Checks an optimizer op's lists: floating parameters, and per parameter one
// tensor of its size, dtype and device in each list (args[k] named what);
// a list named with `optional` may also be empty.
struct StateList {
  size_t arg;
  const char* what;
  bool optional = false;
};
void check_lists(const char* op, const Stack& a, std::initializer_list<StateList> lists) {
  const std::vector<Tensor>& params = list_arg(a, 0);
  for (const StateList& l : lists) {
    const size_t n = list_arg(a, l.arg).size();
    AXLE_CHECK(n == params.size() || (l.optional && n == 0), ShapeError, op, ": expected one ", l.what,
               " per parameter (", params.size(), ")", l.optional ? " or none" : "", ", got ", n);
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const Tensor& p = params[i];
    AXLE_CHECK(p.defined() && is_floating_point(p.dtype()), DTypeError, op, ": expected floating parameters, got ",
               p.defined() ? dtype_name(p.dtype()) : "an undefined tensor", " at ", i);
    auto same = [&](const Tensor& t, const char* what) {
      AXLE_CHECK(t.defined() && t.sizes() == p.sizes(), ShapeError, op, ": expected the ", what, " of parameter ", i,
                 " to have its size ", str(p.sizes()), ", got ", t.defined() ? str(t.sizes()) : "undefined");
      AXLE_CHECK(t.dtype() == p.dtype(), DTypeError, op, ": expected the ", what, " of parameter ", i,
                 " to have its dtype ", dtype_name(p.dtype()), ", got ", dtype_name(t.dtype()));
      AXLE_CHECK(t.device() == params[0].device(), DeviceError, op, ": expected every tensor on ", params[0].device(),
                 ", got the ", what, " of parameter ", i, " on ", t.device());
    };
    same(p, "parameter");
    for (const StateList& l : lists)
      if (!list_arg(a, l.arg).empty()) same(list_arg(a, l.arg)[i], l.what);
  }
}

// One gradient (and buffer, with momentum) per parameter; no AMP arguments.
void check_fused_sgd(const char* op, const Stack& a) {
  AXLE_CHECK(a[10].is_none() && a[11].is_none(), NotImplementedError, op,
             ": grad_scale and found_inf (AMP gradient unscaling) are not supported");
  // Without momentum the buffers may be left out.
  check_lists(op, a, {{1, "gradient"}, {2, "momentum buffer", a[4].to_double() == 0}});
}

void fused_sgd_shape(ShapeContext& c) {
  check_fused_sgd(c.op, c.args);
  c.outputs.clear();
}

Stack fused_sgd_composite(const Stack& a) {
  check_fused_sgd("_fused_sgd_", a);
  const double weight_decay = a[3].to_double(), momentum = a[4].to_double(), lr = a[5].to_double();
  const double dampening = a[6].to_double();
  const bool nesterov = a[7].to_bool(), maximize = a[8].to_bool(), first = a[9].to_bool();
  const std::vector<Tensor>& params = list_arg(a, 0);
  for (size_t i = 0; i < params.size(); ++i) {
    Tensor p = params[i];
    Tensor g = maximize ? neg(list_arg(a, 1)[i]) : list_arg(a, 1)[i];
    if (weight_decay != 0) g = add(g, p, weight_decay);
    if (momentum != 0) {
      Tensor buf = list_arg(a, 2)[i];
      if (first)
        buf.copy_(g);
      else
        buf.mul_(scalar_to_tensor(Scalar(momentum))).add_(g, 1 - dampening);
      g = nesterov ? add(g, buf, momentum) : buf;
    }
    p.add_(g, -lr);
  }
  return {};
}

// _fused_adadelta_(self, grads, square_avgs, acc_deltas, *, lr, rho, eps,
// weight_decay, maximize): torch.optim.Adadelta's single-tensor update.
void check_fused_adadelta(const char* op, const Stack& a) {
  check_lists(op, a, {{1, "gradient"}, {2, "square average"}, {3, "accumulated delta"}});
}

void fused_adadelta_shape(ShapeContext& c) {
  check_fused_adadelta(c.op, c.args);
  c.outputs.clear();
}

Stack fused_adadelta_composite(const Stack& a) {
  check_fused_adadelta("_fused_adadelta_", a);
  const double lr = a[4].to_double(), rho = a[5].to_double(), eps = a[6].to_double(), weight_decay = a[7].to_double();
  const bool maximize = a[8].to_bool();
  const std::vector<Tensor>& params = list_arg(a, 0);
  const Tensor rho_t = scalar_to_tensor(Scalar(rho)), keep = scalar_to_tensor(Scalar(1 - rho));
  for (size_t i = 0; i < params.size(); ++i) {
    Tensor p = params[i];
    Tensor g = maximize ? neg(list_arg(a, 1)[i]) : list_arg(a, 1)[i];
    if (weight_decay != 0) g = add(g, p, weight_decay);
    Tensor square_avg = list_arg(a, 2)[i], acc_delta = list_arg(a, 3)[i];
    // torch's order: v = v * rho + ((g * (1 - rho)) * g), as addcmul_.
    square_avg.mul_(rho_t).add_(mul(mul(g, keep), g));
    const Tensor std = sqrt(add(square_avg, scalar_to_tensor(Scalar(eps))));
    const Tensor delta = mul(div(sqrt(add(acc_delta, scalar_to_tensor(Scalar(eps)))), std), g);
    acc_delta.mul_(rho_t).add_(mul(mul(delta, keep), delta));
    p.add_(delta, -lr);
  }
  return {};
}

// _fused_adam_ / _fused_adamw_(self, grads, exp_avgs, exp_avg_sqs,
// max_exp_avg_sqs, state_steps, *, lr, beta1, beta2, weight_decay, eps,
// amsgrad, maximize, grad_scale, found_inf): torch's fused Adam(W) schemas,
// torch.optim.Adam(W)'s single-tensor math. state_steps holds each
// parameter's step count (already incremented, as torch's caller does).
void check_fused_adam(const char* op, const Stack& a) {
  AXLE_CHECK(a[13].is_none() && a[14].is_none(), NotImplementedError, op,
             ": grad_scale and found_inf (AMP gradient unscaling) are not supported");
  const bool amsgrad = a[11].to_bool();
  check_lists(op, a,
              {{1, "gradient"}, {2, "first moment"}, {3, "second moment"}, {4, "maximum second moment", !amsgrad}});
  const std::vector<Tensor>& steps = list_arg(a, 5);
  AXLE_CHECK(steps.size() == list_arg(a, 0).size(), ShapeError, op, ": expected one step count per parameter (",
             list_arg(a, 0).size(), "), got ", steps.size());
  for (size_t i = 0; i < steps.size(); ++i)
    AXLE_CHECK(steps[i].defined() && steps[i].numel() == 1, ShapeError, op, ": expected a one-element step count for ",
               "parameter ", i, ", got ", steps[i].defined() ? str(steps[i].sizes()) : "undefined");
}

void fused_adam_shape(ShapeContext& c) {
  check_fused_adam(c.op, c.args);
  c.outputs.clear();
}

template <bool kAdamW>
Stack fused_adam_composite(const Stack& a) {
  const char* op = kAdamW ? "_fused_adamw_" : "_fused_adam_";
  check_fused_adam(op, a);
  const double lr = a[6].to_double(), beta1 = a[7].to_double(), beta2 = a[8].to_double();
  const double weight_decay = a[9].to_double(), eps = a[10].to_double();
  const bool amsgrad = a[11].to_bool(), maximize = a[12].to_bool();
  const std::vector<Tensor>& params = list_arg(a, 0);
  auto s = [](double v) { return scalar_to_tensor(Scalar(v)); };
  for (size_t i = 0; i < params.size(); ++i) {
    Tensor p = params[i];
    Tensor g = maximize ? neg(list_arg(a, 1)[i]) : list_arg(a, 1)[i];
    if (kAdamW)
      p.mul_(s(1 - lr * weight_decay));  // decoupled weight decay
    else if (weight_decay != 0)
      g = add(g, p, weight_decay);
    Tensor m = list_arg(a, 2)[i], v = list_arg(a, 3)[i];
    m.mul_(s(beta1)).add_(g, 1 - beta1);
    v.mul_(s(beta2)).add_(mul(mul(g, s(1 - beta2)), g));  // torch's addcmul_ order
    const double step = list_arg(a, 5)[i].item<double>();
    const double step_size = lr / (1 - std::pow(beta1, step));
    const double bias_correction2_sqrt = std::sqrt(1 - std::pow(beta2, step));
    Tensor second = v;
    if (amsgrad) {
      second = list_arg(a, 4)[i];
      second.copy_(max(second, v));  // max.other = maximum
    }
    const Tensor denom = add(div(sqrt(second), s(bias_correction2_sqrt)), s(eps));
    p.add_(div(mul(m, s(-step_size)), denom));  // torch's addcdiv_ order
  }
  return {};
}

}  // namespace

std::vector<OpDecl> optim_ops() {
  return {
      {.schema = "_fused_sgd_(Tensor(a!)[] self, Tensor(b!)[] grads, Tensor(c!)[] momentum_buffer_list, *, float "
                 "weight_decay, float momentum, float lr, float dampening, bool nesterov, bool maximize, bool "
                 "is_first_step, Tensor? grad_scale=None, Tensor? found_inf=None) -> ()",
       .shape = &fused_sgd_shape,
       .composite = &fused_sgd_composite,
       .doc = "torch.optim.SGD's update of every parameter in self, in place: weight decay, (Nesterov) momentum "
              "into momentum_buffer_list (set to the gradient when is_first_step; empty without momentum), then "
              "param -= lr * update.",
       .derivative = {.none = "an optimizer update, run without grad"}},
      {.schema = "_fused_adam_(Tensor(a!)[] self, Tensor(b!)[] grads, Tensor(c!)[] exp_avgs, Tensor(d!)[] "
                 "exp_avg_sqs, Tensor(e!)[] max_exp_avg_sqs, Tensor[] state_steps, *, float lr, float beta1, float "
                 "beta2, float weight_decay, float eps, bool amsgrad, bool maximize, Tensor? grad_scale=None, Tensor? "
                 "found_inf=None) -> ()",
       .shape = &fused_adam_shape,
       .composite = &fused_adam_composite<false>,
       .doc = "torch.optim.Adam's update of every parameter in self, in place: weight decay into the gradient, the "
              "moments, AMSGrad's running maximum, bias corrections from state_steps (already incremented), "
              "param -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps).",
       .derivative = {.none = "an optimizer update, run without grad"}},
      {.schema = "_fused_adamw_(Tensor(a!)[] self, Tensor(b!)[] grads, Tensor(c!)[] exp_avgs, Tensor(d!)[] "
                 "exp_avg_sqs, Tensor(e!)[] max_exp_avg_sqs, Tensor[] state_steps, *, float lr, float beta1, float "
                 "beta2, float weight_decay, float eps, bool amsgrad, bool maximize, Tensor? grad_scale=None, Tensor? "
                 "found_inf=None) -> ()",
       .shape = &fused_adam_shape,
       .composite = &fused_adam_composite<true>,
       .doc = "torch.optim.AdamW's update: _fused_adam_'s with decoupled weight decay (param *= 1 - lr * "
              "weight_decay first).",
       .derivative = {.none = "an optimizer update, run without grad"}},
      // axle's own op (torch has no fused Adadelta), in _fused_sgd_'s form.
      {.schema = "_fused_adadelta_(Tensor(a!)[] self, Tensor[] grads, Tensor(b!)[] square_avgs, Tensor(c!)[] "
                 "acc_deltas, *, float lr, float rho, float eps, float weight_decay, bool maximize) -> ()",
       .shape = &fused_adadelta_shape,
       .composite = &fused_adadelta_composite,
       .doc = "torch.optim.Adadelta's update of every parameter in self, in place: g (negated when maximize, plus "
              "weight_decay * param), v = rho v + (1 - rho) g^2, delta = sqrt(u + eps) / sqrt(v + eps) * g, u = rho u "
              "+ (1 - rho) delta^2, param -= lr * delta (v: square_avgs, u: acc_deltas).",
       .derivative = {.none = "an optimizer update, run without grad"}},
  };
}

}  // namespace axle::shape
