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
// unscaling) are not supported and say so.
#include "shape_util.h"

#include <axle/ops.h>

namespace axle::shape {
namespace {

const std::vector<Tensor>& list_arg(const Stack& a, size_t i) { return a[i].tensors(); }

// Checks the lists: one gradient (and buffer, with momentum) per parameter, of
// its size, dtype and device; floating dtypes; no AMP arguments.
void check_fused_sgd(const char* op, const Stack& a) {
  const std::vector<Tensor>& params = list_arg(a, 0);
  const std::vector<Tensor>& grads = list_arg(a, 1);
  const std::vector<Tensor>& bufs = list_arg(a, 2);
  const double momentum = a[4].to_double();
  AXLE_CHECK(a[10].is_none() && a[11].is_none(), NotImplementedError, op,
             ": grad_scale and found_inf (AMP gradient unscaling) are not supported");
  AXLE_CHECK(grads.size() == params.size(), ShapeError, op, ": expected one gradient per parameter (", params.size(),
             "), got ", grads.size());
  AXLE_CHECK(bufs.size() == params.size() || (momentum == 0 && bufs.empty()), ShapeError, op,
             ": expected one momentum buffer per parameter (", params.size(), ")",
             momentum == 0 ? " or none without momentum" : "", ", got ", bufs.size());
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
    same(grads[i], "gradient");
    if (!bufs.empty()) same(bufs[i], "momentum buffer");
  }
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
  };
}

}  // namespace axle::shape
