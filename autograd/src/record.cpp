// The recorder: the dispatcher's autograd hook (autograd_hook.h) and the core's
// view hook. A call with grad mode on and an argument that requires grad runs
// below autograd (grad mode off, so composites and formulas inside record
// nothing) and gets a node holding what its derivative saves; its outputs get
// that node as grad_fn. Every other call returns false at once and the
// dispatcher runs it as before.
#include "autograd_hook.h"
#include "op_node.h"

#include <algorithm>
#include <mutex>

namespace axle::autograd {

namespace {

bool any_requires_grad(const Stack& args) {
  for (const Value& v : args) {
    if (v.is_tensor()) {
      if (requires_grad(v.tensor())) return true;
    } else if (v.tag() == Value::Tag::TensorList) {
      for (const Tensor& t : v.tensors())
        if (requires_grad(t)) return true;
    }
  }
  return false;
}

bool writes(const OpEntry& op, size_t i) {
  return std::find(op.written.begin(), op.written.end(), i) != op.written.end();
}

// torch's checks before an in-place write of `t` by a recorded call.
void check_inplace(const OpEntry& op, const Tensor& t) {
  const AutogradMeta* m = meta_of(t);
  if (m && m->requires_grad && !m->grad_fn)
    throw AutogradError(detail::concat(op.name,
                                       ": a leaf Variable that requires grad is being used in an in-place "
                                       "operation."));
  if (m && m->is_view)
    throw NotImplementedError(
        detail::concat(op.name,
                       ": an in-place operation on a view of a tensor that requires grad is not supported yet (torch "
                       "rebases the view's history onto its base); write the base, or clone the view first"));
  if (!requires_grad(t) && t.storage().use_count() > 1)
    throw NotImplementedError(
        detail::concat(op.name,
                       ": an in-place operation would make a tensor that shares its storage with others (a view) "
                       "require grad; axle does not yet track such views' bases (torch's CopySlices): write a fresh "
                       "tensor instead (e.g. build it with cat or stack)"));
}

Stack record(const OpEntry& op, Stack& args, const std::vector<Tensor>* out) {
  const Derivative& d = *op.derivative;
  const bool out_form =
      out != nullptr || std::any_of(op.written.begin(), op.written.end(), [](size_t i) { return i != 0; });
  if (out_form)
    throw AutogradError(detail::concat(op.name,
                                       "(): functions with out=... arguments don't support automatic "
                                       "differentiation, but one of the arguments requires grad."));
  if (d.decomposes) {
    AXLE_INTERNAL_ASSERT(op.decl.composite != nullptr, op.name, " decomposes but has no composite");
    return op.decl.composite(args);  // its ops record themselves
  }
  if (d.none) {
    for (size_t i : op.written)
      if (requires_grad(args[i].tensor()))
        throw NotImplementedError(detail::concat(op.name, " is not differentiable (", d.none,
                                                 ") and would write a tensor that requires grad"));
    AutoGradMode off(false);
    return detail::dispatch_below_autograd(op, args, nullptr);
  }
  if (!d.vjp) throw NotImplementedError(detail::concat("the derivative for '", op.name, "' is not implemented."));
  for (size_t i : op.written) check_inplace(op, args[i].tensor());

  auto node = std::make_shared<OpNode>(op, d);
  // Edges (taken before an in-place call replaces self's history) and metadata.
  node->first_slot_.assign(args.size(), -1);
  auto add_slot = [&](const Tensor& t) {
    node->add_next_edge(t.defined() && differentiable(t.dtype()) && requires_grad(t) ? gradient_edge(t) : Edge{});
    OpNode::Slot& slot = node->slots_.emplace_back();
    if (t.defined()) {
      slot.sizes = t.sizes();
      slot.dtype = t.dtype();
      slot.device = t.device();
      slot.defined = true;
    }
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const Value& v = args[i];
    if (v.is_tensor()) {
      node->first_slot_[i] = static_cast<int>(node->slots_.size());
      add_slot(v.tensor());
    } else if (v.tag() == Value::Tag::TensorList) {
      node->first_slot_[i] = static_cast<int>(node->slots_.size());
      for (const Tensor& t : v.tensors()) add_slot(t);
    }
  }
  // Saved inputs; an input the call overwrites is saved as a copy made first.
  for (size_t i = 0; i < args.size() && i < 16; ++i) {
    if (!(d.saves & save_arg(static_cast<int>(i))) || node->first_slot_[i] < 0) continue;
    const size_t s = node->first_slot_[i];
    if (args[i].is_tensor()) {
      node->slots_[s].saved.save(writes(op, i) ? clone(args[i].tensor()) : args[i].tensor(), false, nullptr, 0);
    } else {
      const std::vector<Tensor>& list = args[i].tensors();
      for (size_t k = 0; k < list.size(); ++k) node->slots_[s + k].saved.save(list[k], false, nullptr, 0);
    }
  }

  Stack outputs;
  {
    AutoGradMode off(false);
    outputs = detail::dispatch_below_autograd(op, args, nullptr);
  }

  node->args_.reserve(args.size());
  for (const Value& v : args) node->args_.push_back(v.is_tensor() || v.tag() == Value::Tag::TensorList ? Value() : v);
  node->saved_outputs_.resize(outputs.size());
  for (size_t j = 0; j < outputs.size(); ++j) {
    if (!outputs[j].is_tensor() || !outputs[j].tensor().defined()) {
      node->add_output_meta(Node::OutputMeta{});
      continue;
    }
    const Tensor& t = outputs[j].tensor();
    node->add_output_meta({t.sizes(), t.dtype(), t.device()});
    if (!differentiable(t.dtype())) continue;
    bool inplace = false, view = false, returned_input = false;
    for (size_t i = 0; i < args.size(); ++i) {
      const Value& v = args[i];
      if (!v.is_tensor() || !v.tensor().defined()) continue;
      if (v.tensor().is_same(t)) (writes(op, i) ? inplace : returned_input) = true;
      view |= v.tensor().storage() == t.storage();
    }
    // An op that returns an argument itself (contiguous of a contiguous
    // tensor, to() of the same dtype) changes nothing: as torch, the tensor keeps
    // its history (making this node its grad_fn would tie a cycle through the
    // node's edge back to the tensor).
    if (returned_input && !inplace) continue;
    set_history(t, node, static_cast<uint32_t>(j));
    if (view && !inplace) {
      AutogradMeta& m = ensure_meta(t);
      m.is_view = true;
      m.view_version = t._version();
    }
  }
  for (size_t j = 0; j < outputs.size() && j < 16; ++j)
    if ((d.saves & save_output(static_cast<int>(j))) && outputs[j].is_tensor())
      node->saved_outputs_[j].save(outputs[j].tensor(), true, node, static_cast<uint32_t>(j));
  return outputs;
}

bool autograd_hook(const OpEntry& op, Stack& args, const std::vector<Tensor>* out, Stack& result) {
  if (!is_grad_enabled() || !any_requires_grad(args)) return false;
  result = record(op, args, out);
  return true;
}

// ---------------------------------------------------------------- views made by the core
// A view made with make_view (Tensor::view, permute, select, ... called
// directly, indexing): its gradient lands in the base's positions of the
// storage (torch's AsStridedBackward). Dispatched view ops have formulas of
// their own and record above this.
class ViewNode final : public Node {
 public:
  ViewNode(const Tensor& base, const Tensor& view)
      : base_sizes_(base.sizes()),
        base_strides_(base.strides()),
        base_offset_(base.storage_offset()),
        view_sizes_(view.sizes()),
        view_strides_(view.strides()),
        view_offset_(view.storage_offset()) {
    next_.push_back(gradient_edge(base));
    outputs_.push_back({view.sizes(), view.dtype(), view.device()});
  }
  std::string name() const override { return "AsStridedBackward0"; }
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    Tensor g = std::move(grads.at(0));
    if (!g.defined()) return {Tensor()};
    // Broadcast dimensions (stride 0) sum into one position.
    IntList sizes = view_sizes_;
    IntList dims;
    for (size_t d = 0; d < sizes.size(); ++d)
      if (view_strides_[d] == 0 && sizes[d] > 1) {
        dims.push_back(static_cast<int64_t>(d));
        sizes[d] = 1;
      }
    if (!dims.empty()) g = sum(g, dims, true);
    int64_t lo = base_offset_, hi = base_offset_;
    for (size_t d = 0; d < base_sizes_.size(); ++d) {
      if (base_sizes_[d] == 0) return {zeros(base_sizes_, TensorOptions().dtype(g.dtype()).device(g.device()))};
      const int64_t span = (base_sizes_[d] - 1) * base_strides_[d];
      (span < 0 ? lo : hi) += span;
    }
    Tensor buffer = zeros({hi - lo + 1}, TensorOptions().dtype(g.dtype()).device(g.device()));
    as_strided(buffer, sizes, view_strides_, view_offset_ - lo).copy_(g);
    // A broadcast base (stride 0) reads each position several times: each of
    // its elements gets an equal share, which its own expand sums back.
    int64_t repeats = 1;
    for (size_t d = 0; d < base_sizes_.size(); ++d)
      if (base_strides_[d] == 0) repeats *= base_sizes_[d];
    if (repeats > 1) buffer = buffer / scalar_to_tensor(Scalar(static_cast<double>(repeats)));
    return {as_strided(buffer, base_sizes_, base_strides_, base_offset_ - lo)};
  }

 private:
  IntList base_sizes_, base_strides_;
  int64_t base_offset_;
  IntList view_sizes_, view_strides_;
  int64_t view_offset_;
};

Tensor view_hook(const Tensor& base, Tensor view) {
  if (!is_grad_enabled() || !requires_grad(base) || !differentiable(base.dtype())) return view;
  auto node = std::make_shared<ViewNode>(base, view);
  set_history(view, node, 0);
  AutogradMeta& m = ensure_meta(view);
  m.is_view = true;
  m.view_version = view._version();
  return view;
}

}  // namespace

void activate() {
  static std::once_flag once;
  std::call_once(once, [] {
    detail::set_view_hook(&view_hook);
    detail::set_autograd_hook(&autograd_hook);
  });
}

}  // namespace axle::autograd
