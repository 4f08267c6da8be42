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

// torch's checks before an in-place write of `t` by a recorded call; true
// when t is a view whose base's history the write rebases (CopySlices).
[[noreturn]] void refuse_no_grad_view(const OpEntry& op) {
  throw AutogradError(detail::concat(
      op.name,
      ": a view was created in no_grad mode and is being modified inplace with grad mode enabled. Given that this "
      "use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view "
      "and the inplace either both inside the no_grad block (if you don't want the inplace to be tracked) or both "
      "outside (if you want the inplace to be tracked)."));
}

bool check_inplace(const OpEntry& op, const Tensor& t) {
  const AutogradMeta* m = meta_of(t);
  if (m && m->no_grad_view) refuse_no_grad_view(op);
  if (m && m->requires_grad && !m->grad_fn)
    throw AutogradError(detail::concat(op.name,
                                       ": a leaf Variable that requires grad is being used in an in-place "
                                       "operation."));
  if (m && m->is_view && m->base.defined()) {
    const AutogradMeta* b = meta_of(m->base);
    if (b && b->requires_grad && !b->grad_fn)
      throw AutogradError(detail::concat(op.name,
                                         ": a view of a leaf Variable that requires grad is being used in an "
                                         "in-place operation."));
    if (requires_grad(m->base) && !requires_grad(t))
      throw AutogradError(detail::concat(op.name,
                                         ": a view was created in no_grad mode (or with its base not requiring "
                                         "grad) and is being modified in-place with grad mode enabled; take the "
                                         "view again with grad mode on"));
    return true;
  }
  if (!requires_grad(t) && t.storage().use_count() > 1)
    throw NotImplementedError(
        detail::concat(op.name,
                       ": an in-place operation would make a tensor that shares its storage with views made "
                       "with grad mode off require grad; take the views with grad mode on, or write a fresh tensor "
                       "(e.g. build it with cat or stack)"));
  return false;
}

// An op writing a Tensor[] (the fused optimizer updates) records nothing: an
// element that requires grad is refused as torch's in-place checks refuse it.
void refuse_written_lists(const OpEntry& op, const Stack& args) {
  for (size_t i : op.written) {
    if (args[i].tag() != Value::Tag::TensorList) continue;
    for (const Tensor& t : args[i].tensors()) {
      if (!requires_grad(t)) continue;
      check_inplace(op, t);
      throw NotImplementedError(detail::concat(op.name,
                                               " writes a Tensor[] argument, whose history autograd does not "
                                               "record, and one of its tensors requires grad"));
    }
  }
}

Stack record(const OpEntry& op, Stack& args, const std::vector<Tensor>* out) {
  const Derivative& d = *op.derivative;
  refuse_written_lists(op, args);
  if (out != nullptr || op.writes_out_args)
    throw AutogradError(detail::concat(op.name,
                                       "(): functions with out=... arguments don't support automatic "
                                       "differentiation, but one of the arguments requires grad."));
  // State updated as a side effect (running statistics) gets no history: it
  // must not require grad, as torch requires of batch norm's running statistics.
  for (size_t i : op.side_effects)
    if (args[i].is_tensor() && args[i].tensor().defined() && requires_grad(args[i].tensor()))
      throw NotImplementedError(detail::concat(op.name, " updates its argument '", op.schema.arguments[i].name,
                                               "' in place, which autograd does not record, and it requires grad"));
  if (d.decomposes) {
    AXLE_INTERNAL_ASSERT(op.decl.composite != nullptr, op.name, " decomposes but has no composite");
    return op.decl.composite(args);  // its ops record themselves
  }
  if (d.none) {
    for (size_t i : op.written)
      if (args[i].is_tensor() && requires_grad(args[i].tensor()))
        throw NotImplementedError(detail::concat(op.name, " is not differentiable (", d.none,
                                                 ") and would write a tensor that requires grad"));
    AutoGradMode off(false);
    return detail::dispatch_below_autograd(op, args, nullptr);
  }
  if (!d.vjp) throw NotImplementedError(detail::concat("the derivative for '", op.name, "' is not implemented."));
  // Past the refusals above self is the only written argument with history.
  const bool rebases = !op.written.empty() && op.written.front() == 0 && check_inplace(op, args[0].tensor());

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
    if (inplace && rebases && args[0].tensor().is_same(t)) {
      rebase_history(t, node, static_cast<size_t>(node->first_slot_[0]));
      continue;
    }
    set_history(t, node, static_cast<uint32_t>(j));
    if (view && !inplace) {
      AutogradMeta& m = ensure_meta(t);
      m.is_view = true;
      m.view_version = t._version();
      for (const Value& v : args)
        if (v.is_tensor() && v.tensor().defined() && v.tensor().storage() == t.storage()) {
          m.base = root_base(v.tensor());
          break;
        }
    }
  }
  for (size_t j = 0; j < outputs.size() && j < 16; ++j)
    if ((d.saves & save_output(static_cast<int>(j))) && outputs[j].is_tensor())
      node->saved_outputs_[j].save(outputs[j].tensor(), true, node, static_cast<uint32_t>(j));
  return outputs;
}

bool autograd_hook(const OpEntry& op, Stack& args, const std::vector<Tensor>* out, Stack& result) {
  if (!is_grad_enabled()) return false;
  if (!any_requires_grad(args)) {
    // Nothing to record, but a write into a view made in no_grad mode is refused all the same.
    for (size_t i : op.written) {
      if (args[i].tag() == Value::Tag::TensorList) {
        for (const Tensor& t : args[i].tensors())
          if (const AutogradMeta* m = meta_of(t); m && m->no_grad_view) refuse_no_grad_view(op);
      } else if (const AutogradMeta* m = meta_of(args[i].tensor()); m && m->no_grad_view) {
        refuse_no_grad_view(op);
      }
    }
    return false;
  }
  result = record(op, args, out);
  return true;
}

// Every view made with grad mode on remembers its root base (an in-place
// write through it rebases the base's history); one of a base that requires
// grad gets a view node as its grad_fn. One made in no_grad mode of a base
// that requires grad is marked (no_grad_view).
Tensor view_hook(const Tensor& base, Tensor view) {
  if (!differentiable(base.dtype())) return view;
  const AutogradMeta* bm = meta_of(base);
  if (!is_grad_enabled()) {
    // Marked, not tied: such a view never gets a history of its own.
    if (bm && (bm->no_grad_view || requires_grad(base))) ensure_meta(view).no_grad_view = true;
    return view;
  }
  if (bm && bm->no_grad_view) {
    ensure_meta(view).no_grad_view = true;  // a view of such a view, taken with grad mode on
    return view;
  }
  const Tensor& root = root_base(base);
  if (requires_grad(base)) set_history(view, make_view_node(base, view), 0);
  AutogradMeta& m = ensure_meta(view);
  m.is_view = true;
  m.view_version = view._version();
  m.base = root;
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
