// Functions with a hand-written backward (torch.autograd.Function): forward
// runs below autograd, then one node records the call; its backward is the
// user's. Saved tensors are kept as the recorder keeps an op's (version
// checked; outputs without their own history, so no cycle through the node).
#include "op_node.h"

#include <algorithm>

namespace axle::autograd {

AutogradContext::AutogradContext() = default;
AutogradContext::~AutogradContext() = default;

void AutogradContext::save_for_backward(std::vector<Tensor> tensors) { to_save_ = std::move(tensors); }

std::vector<Tensor> AutogradContext::get_saved_variables() const {
  if (!saved_) return to_save_;  // still in forward, or nothing was recorded
  std::vector<Tensor> out;
  for (const SavedTensor& s : *saved_) out.push_back(s.unpack(*node_));
  return out;
}

void AutogradContext::mark_non_differentiable(const std::vector<Tensor>& outputs) {
  non_differentiable_.insert(non_differentiable_.end(), outputs.begin(), outputs.end());
}

namespace {

class CustomNode final : public Node {
 public:
  CustomNode(std::string name, std::shared_ptr<AutogradContext> ctx, BackwardFn backward)
      : name_(std::move(name)), ctx_(std::move(ctx)), backward_(std::move(backward)) {}
  std::string name() const override { return name_; }
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    grads.resize(num_outputs());
    if (ctx_->materialize_grads())
      for (size_t i = 0; i < grads.size(); ++i)
        if (!grads[i].defined()) {
          const OutputMeta& m = output_meta(i);
          grads[i] = zeros(m.sizes, TensorOptions().dtype(m.dtype).device(m.device));
        }
    std::vector<Tensor> out = backward_(*ctx_, grads);
    AXLE_CHECK(out.size() >= next_edges().size(), AutogradError, "function ", name_,
               " returned an incorrect number of ", "gradients (expected ", next_edges().size(), ", got ", out.size(),
               ")");
    out.resize(next_edges().size());
    for (size_t i = 0; i < out.size(); ++i)
      if (out[i].defined() && !next_edges()[i].valid()) out[i] = Tensor();  // an input that needs none
    return out;
  }
  void release() override {
    for (SavedTensor& s : saved_) s.release();
  }
  std::vector<SavedTensor> saved_;

 private:
  std::string name_;
  std::shared_ptr<AutogradContext> ctx_;
  BackwardFn backward_;
};

}  // namespace

struct FunctionRecorder {
  static std::vector<Tensor> run(const std::string& name, const std::vector<Tensor>& inputs, ForwardFn& forward,
                                 BackwardFn& backward, std::shared_ptr<AutogradContext> ctx) {
    if (!ctx) ctx = std::make_shared<AutogradContext>();
    bool any = false;
    for (const Tensor& t : inputs) {
      const bool needs = t.defined() && differentiable(t.dtype()) && requires_grad(t);
      ctx->needs_.push_back(needs);
      any |= needs;
    }
    any &= is_grad_enabled();
    std::vector<Tensor> outputs;
    {
      AutoGradMode off(false);
      outputs = forward(*ctx, inputs);
    }
    if (!any) return outputs;
    activate();
    auto node = std::make_shared<CustomNode>(name, ctx, std::move(backward));
    for (size_t i = 0; i < inputs.size(); ++i) node->add_next_edge(ctx->needs_[i] ? gradient_edge(inputs[i]) : Edge{});
    auto marked = [&](const Tensor& t) {
      return std::any_of(ctx->non_differentiable_.begin(), ctx->non_differentiable_.end(),
                         [&](const Tensor& m) { return m.defined() && m.is_same(t); });
    };
    for (size_t j = 0; j < outputs.size(); ++j) {
      Tensor& t = outputs[j];
      if (!t.defined()) {
        node->add_output_meta(Node::OutputMeta{});
        continue;
      }
      // An input returned as is: the output is a new alias with this node's history.
      for (const Tensor& in : inputs)
        if (in.defined() && in.is_same(t)) t = alias_of(t);
      node->add_output_meta({t.sizes(), t.dtype(), t.device()});
      if (differentiable(t.dtype()) && !marked(t)) set_history(t, node, static_cast<uint32_t>(j));
    }
    for (const Tensor& s : ctx->to_save_) {
      SavedTensor& saved = node->saved_.emplace_back();
      auto out = std::find_if(outputs.begin(), outputs.end(), [&](const Tensor& o) { return o.is_same(s); });
      if (out != outputs.end())
        saved.save(s, true, node, static_cast<uint32_t>(out - outputs.begin()));
      else
        saved.save(s, false, nullptr, 0);
    }
    ctx->to_save_.clear();
    ctx->saved_ = &node->saved_;
    ctx->node_ = node.get();
    return outputs;
  }
};

std::vector<Tensor> apply_function(const std::string& name, const std::vector<Tensor>& inputs, ForwardFn forward,
                                   BackwardFn backward, std::shared_ptr<AutogradContext> ctx) {
  return FunctionRecorder::run(name, inputs, forward, backward, std::move(ctx));
}

}  // namespace axle::autograd
