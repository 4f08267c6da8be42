// Internal to the autograd layer: what its files share. The recorder
// (record.cpp) is the dispatcher's autograd hook and the core's view hook; the
// engine (engine.cpp) runs backward; op_node.cpp holds the node of a recorded
// call and the formulas' context; accumulate.cpp the leaves' AccumulateGrad.
#pragma once

#include <axle/autograd.h>
#include <axle/derivative.h>
#include <axle/ops.h>

#include "derivatives/derivatives.h"

#include <string>

namespace axle::autograd {

using derivatives::expandable_to;
using derivatives::sum_to;

inline AutogradMeta* meta_of(const Tensor& t) { return t.defined() ? t.unsafe_impl().autograd.get() : nullptr; }
// A view made in grad mode whose storage was written in place since its
// history was made (by an op on its base or on another view of it).
inline bool stale_view(const Tensor& t, const AutogradMeta& m) {
  return m.is_view && m.base.defined() && t._version() != m.view_version;
}
inline bool requires_grad(const Tensor& t) {
  const AutogradMeta* m = meta_of(t);
  return m && (m->requires_grad || m->grad_fn || (stale_view(t, *m) && requires_grad(m->base)));
}
// Makes a stale view's history again from its base's (a view node), as torch
// regenerates a view's grad_fn.
void refresh_view(const Tensor& t, AutogradMeta& m);
// Only floating tensors carry gradients (torch: floating and complex).
inline bool differentiable(DType d) { return is_floating_point(d); }

// The tensor's autograd state, created when absent.
AutogradMeta& ensure_meta(const Tensor& t);
// Where t's gradient goes: its grad_fn's input, or its leaf accumulator
// (created on first use). AutogradError-free; NotImplementedError for a view
// whose base changed in place after it was made.
Edge gradient_edge(const Tensor& t);
// Makes `fn` (output `output_nr`) the tensor's grad_fn.
void set_history(const Tensor& t, const std::shared_ptr<Node>& fn, uint32_t output_nr);
// A tensor sharing t's storage and geometry, without autograd state.
Tensor alias_of(const Tensor& t);
// A view's node: its gradient placed in its base's positions (views.cpp).
std::shared_ptr<Node> make_view_node(const Tensor& base, const Tensor& view);
// After `fn` recorded an in-place op on `view` (its input slot `self_slot`):
// the base's grad_fn becomes CopySlices around fn, the view's a view node of
// the updated base (views.cpp).
void rebase_history(const Tensor& view, const std::shared_ptr<Node>& fn, size_t self_slot);
// The tensor a view (made in grad mode) views, else t itself.
const Tensor& root_base(const Tensor& t);
// Installs the dispatcher's autograd hook and the core's view hook (once).
void activate();
// The next node's sequence number (later nodes run first when both are ready).
uint64_t next_sequence_nr();
// "MulBackward0" for op "mul.Tensor" (and its in-place variant "mul_").
std::string node_name(const std::string& op_name);

// Adds `g` into m.grad as torch's AccumulateGrad: the first gradient is kept
// (copied unless nobody else holds it), later ones added in place, or out of
// place when grad mode is on (create_graph: .grad keeps its history).
void accumulate_grad(AutogradMeta& m, Tensor g);
// A leaf's tensor hooks (register_hook), which may replace `g`.
void run_leaf_hooks(const AutogradMeta& m, Tensor& g);

// The leaf's gradient accumulator.
class AccumulateGrad : public Node {
 public:
  explicit AccumulateGrad(Tensor variable);
  std::string name() const override { return "AccumulateGrad"; }
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override;
  const Tensor& variable() const { return variable_; }

 private:
  Tensor variable_;
};

}  // namespace axle::autograd
