// AccumulateGrad: the node that adds a leaf's gradient into its .grad, as
// torch's: the first gradient is taken as is when nobody else holds it (else a
// copy), later ones are added in place; with create_graph (grad mode on during
// backward) out of place, so .grad keeps its own history.
#include "internal.h"

namespace axle::autograd {

AccumulateGrad::AccumulateGrad(Tensor variable) : variable_(std::move(variable)) {
  outputs_.push_back({variable_.sizes(), variable_.dtype(), variable_.device()});
  sequence_nr_ = UINT64_MAX;  // run as soon as ready
}

void accumulate_grad(AutogradMeta& m, Tensor g) {
  if (!m.grad.defined()) {
    if (is_grad_enabled()) {
      m.grad = std::move(g);
    } else {
      // Taken as is only when this is the one handle on it, its memory is its
      // own and dense (later accumulations write it in place).
      const bool own = g.use_count() == 1 && g.storage().use_count() == 1 && g.is_contiguous() && !meta_of(g);
      m.grad = own ? std::move(g) : clone(alias_of(g));
    }
  } else if (is_grad_enabled()) {
    m.grad = add(m.grad, g);
  } else {
    m.grad.add_(g);
  }
}

void run_leaf_hooks(const AutogradMeta& m, Tensor& g) {
  for (const Hook& hook : m.leaf_hooks)
    if (Tensor r = hook(g); r.defined()) g = std::move(r);
}

std::vector<Tensor> AccumulateGrad::apply(std::vector<Tensor>&& grads) {
  Tensor g = std::move(grads.at(0));
  if (!g.defined()) return {};
  AutogradMeta& m = ensure_meta(variable_);
  run_leaf_hooks(m, g);
  accumulate_grad(m, std::move(g));
  return {};
}

}  // namespace axle::autograd
