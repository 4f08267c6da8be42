// Backward of one recorded call: the formula (OpDecl::derivative) runs on a
// VjpContext over the node's saved values; the engine then checks and reduces
// what it returns.
#include "op_node.h"

namespace axle::autograd {

void SavedTensor::save(const Tensor& t, bool is_output, const std::shared_ptr<Node>& node, uint32_t output_nr) {
  if (!t.defined()) return;
  is_output_ = is_output;
  version_ = t._version();
  if (is_output) {
    data_ = alias_of(t);
    had_history_ = requires_grad(t);
    grad_fn_ = node;
    output_nr_ = output_nr;
  } else if (const AutogradMeta* m = meta_of(t); m && m->is_view && m->base.defined()) {
    // As torch's SavedVariable: the data and the history, not the view's
    // state, whose base may hold this node (`a[0].mul_(a[1])`, `y.mul_(y[0])`).
    data_ = alias_of(t);
    view_history_ = requires_grad(t) ? m->grad_fn : nullptr;
    output_nr_ = m->output_nr;
  } else {
    data_ = t;
  }
}

Tensor SavedTensor::unpack(const Node& owner) const {
  if (released_)
    throw AutogradError(
        "Trying to backward through the graph a second time (or directly access saved tensors after they have "
        "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
        "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if "
        "you need to access saved tensors after calling backward.");
  if (!data_.defined()) return data_;
  if (data_._version() != version_) {
    std::string producer = is_output_ ? detail::concat("output ", output_nr_, " of ", owner.name())
                                      : std::string("an input of ") + owner.name();
    throw AutogradError(detail::concat(
        "one of the variables needed for gradient computation has been modified by an inplace operation: [",
        dtype_name(data_.dtype()), " ", shape_string(data_.sizes()), "], which is ", producer, ", is at version ",
        data_._version(), "; expected version ", version_, " instead."));
  }
  if (view_history_ && is_grad_enabled()) {  // create_graph: the view's history again
    Tensor t = alias_of(data_);
    set_history(t, view_history_, output_nr_);
    return t;
  }
  if (is_output_ && had_history_ && is_grad_enabled()) {
    if (std::shared_ptr<Node> fn = grad_fn_.lock()) {
      Tensor t = alias_of(data_);
      set_history(t, fn, output_nr_);
      return t;
    }
  }
  return data_;
}

namespace {

class OpContext final : public VjpContext {
 public:
  OpContext(OpNode& node, std::vector<Tensor>& grads)
      : node_(node),
        grads_(grads),
        results_(node.next_edges().size()),
        inputs_(node.next_edges().size()),
        outputs_(node.num_outputs()) {}

  const Value& arg(size_t i) const override { return node_.args_.at(i); }
  const Tensor& input(size_t i) const override { return unpack_input(slot(i, 0)); }
  const Tensor& input(size_t i, size_t k) const override { return unpack_input(slot(i, k)); }
  const Tensor& result(size_t i) const override {
    AXLE_INTERNAL_ASSERT(i < outputs_.size() && i < node_.saved_outputs_.size() && node_.saved_outputs_[i].defined(),
                         node_.op_.name, ": its derivative reads output ", i, " without saving it");
    if (!outputs_[i].defined()) outputs_[i] = node_.saved_outputs_[i].unpack(node_);
    return outputs_[i];
  }
  const Tensor& grad(size_t i) const override {
    AXLE_INTERNAL_ASSERT(i < grads_.size(), node_.op_.name, ": no output ", i);
    if (grads_[i].defined()) return grads_[i];
    // No gradient reached output i: zeros of its shape, kept apart so has_grad still tells.
    if (zeros_.empty()) zeros_.resize(grads_.size());
    if (!zeros_[i].defined()) {
      const Node::OutputMeta& m = node_.output_meta(i);
      zeros_[i] = zeros(m.sizes, TensorOptions().dtype(m.dtype).device(m.device));
    }
    return zeros_[i];
  }
  bool has_grad(size_t i) const override { return i < grads_.size() && grads_[i].defined(); }
  bool has_tensor(size_t i) const override {
    const int s = node_.first_slot_.at(i);
    return s >= 0 && node_.slots_[s].defined;
  }
  bool has_tensor(size_t i, size_t k) const override {
    const int s = node_.first_slot_.at(i);
    return s >= 0 && node_.slots_[s + k].defined;
  }
  bool needs(size_t i) const override {
    const int s = node_.first_slot_.at(i);
    return s >= 0 && node_.next_edges()[s].valid();
  }
  const IntList& sizes(size_t i) const override { return node_.slots_[slot(i, 0)].sizes; }
  const IntList& sizes(size_t i, size_t k) const override { return node_.slots_[slot(i, k)].sizes; }
  DType dtype(size_t i) const override { return node_.slots_[slot(i, 0)].dtype; }
  Device device(size_t i) const override { return node_.slots_[slot(i, 0)].device; }
  size_t list_size(size_t i) const override {
    // Up to the next tensor argument's first slot.
    const size_t begin = slot(i, 0);
    for (size_t a = i + 1; a < node_.first_slot_.size(); ++a)
      if (node_.first_slot_[a] >= 0) return static_cast<size_t>(node_.first_slot_[a]) - begin;
    return node_.slots_.size() - begin;
  }
  void set(size_t i, Tensor g) override { results_[slot(i, 0)] = std::move(g); }
  void set(size_t i, size_t k, Tensor g) override { results_[slot(i, k)] = std::move(g); }

  std::vector<Tensor> take() { return std::move(results_); }

 private:
  size_t slot(size_t i, size_t k) const {
    AXLE_INTERNAL_ASSERT(i < node_.first_slot_.size() && node_.first_slot_[i] >= 0, node_.op_.name, ": argument ", i,
                         " is not a tensor");
    return static_cast<size_t>(node_.first_slot_[i]) + k;
  }
  const Tensor& unpack_input(size_t s) const {
    if (s < node_.slots_.size() && !node_.slots_[s].defined) return inputs_[s];  // a None element
    AXLE_INTERNAL_ASSERT(s < node_.slots_.size() && node_.slots_[s].saved.defined(), node_.op_.name,
                         ": its derivative reads an input it does not save");
    if (!inputs_[s].defined()) inputs_[s] = node_.slots_[s].saved.unpack(node_);
    return inputs_[s];
  }

  OpNode& node_;
  std::vector<Tensor>& grads_;
  mutable std::vector<Tensor> zeros_;  // grad(i)'s zeros for outputs no gradient reached
  std::vector<Tensor> results_;
  mutable std::vector<Tensor> inputs_;
  mutable std::vector<Tensor> outputs_;
};

}  // namespace

std::vector<Tensor> OpNode::apply(std::vector<Tensor>&& grads) {
  grads.resize(num_outputs());
  OpContext c(*this, grads);
  derivative_.vjp(c);
  return c.take();
}

void OpNode::release() {
  for (Slot& s : slots_) s.saved.release();
  for (SavedTensor& s : saved_outputs_) s.release();
}

}  // namespace axle::autograd
