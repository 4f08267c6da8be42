// Automatic differentiation: a layer above the dispatcher (docs/design.md,
// "Autograd"). Tensors that require grad record a backward graph as ops run
// (one Node per call, holding what the op's derivative formula saves); backward
// walks it in dependency order and runs the formulas, which are axle ops, on the
// devices of the forward calls. PyTorch's names and rules: requires_grad_,
// backward, grad, grad_fn, is_leaf, detach, retain_grad, register_hook, grad
// mode per thread (NoGradGuard, AutoGradMode), autograd::grad.
#pragma once

#include <axle/export.h>
#include <axle/tensor.h>
#include <axle/value.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace axle {

// ---- grad mode (per thread; on by default)
AXLE_API bool is_grad_enabled();
AXLE_API void set_grad_enabled(bool enabled);

// Sets grad mode for a scope and restores it after (torch's AutoGradMode).
class AXLE_API AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : previous_(is_grad_enabled()) { set_grad_enabled(enabled); }
  ~AutoGradMode() { set_grad_enabled(previous_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool previous_;
};

// No recording in this scope (torch.no_grad, libtorch's NoGradGuard).
class AXLE_API NoGradGuard : public AutoGradMode {
 public:
  NoGradGuard() : AutoGradMode(false) {}
};

namespace autograd {

class Node;

// Where a gradient goes: input `input_nr` of node `fn` (a node's inputs are the
// gradients of its forward outputs).
struct Edge {
  std::shared_ptr<Node> fn;
  uint32_t input_nr = 0;
  bool valid() const { return fn != nullptr; }
};

// A tensor hook: sees the gradient and returns a replacement (or an undefined
// tensor to keep it). Tensor::register_hook.
using Hook = std::function<Tensor(const Tensor&)>;

// A node of the backward graph: one per recorded call (and one AccumulateGrad
// per leaf). Its inputs are the gradients of the forward call's outputs; apply
// returns one gradient per next edge.
class AXLE_API Node : public std::enable_shared_from_this<Node> {
 public:
  virtual ~Node();
  // "MulBackward0", "AccumulateGrad", as torch names them.
  virtual std::string name() const = 0;
  // Gradients of the forward outputs (undefined: none flowed) -> one per next edge.
  virtual std::vector<Tensor> apply(std::vector<Tensor>&& grads) = 0;
  // Drops the saved values (after a backward without retain_graph).
  virtual void release() {}
  // The engine's shortcut for a node with one next edge whose gradient is
  // mostly zeros (a view's: its part of its base): adds it into `slot`, the
  // next node's input, without making the whole gradient first; `owned`
  // says the engine made slot and no one else holds it (then it may be
  // written in place), and is set when this makes it. false: not taken (the
  // engine calls apply and adds its result). Used without create_graph only.
  virtual bool add_into(std::vector<Tensor>& grads, Tensor& slot, bool& owned) {
    (void)grads, (void)slot, (void)owned;
    return false;
  }

  const std::vector<Edge>& next_edges() const { return next_; }
  uint64_t sequence_nr() const { return sequence_nr_; }
  size_t num_outputs() const { return outputs_.size(); }
  // Hooks on the gradient of forward output `output_nr` (tensor hooks of non-leaves).
  void add_pre_hook(uint32_t output_nr, Hook hook);

  // What the engine knows of each forward output: to make zeros and check gradients.
  struct OutputMeta {
    IntList sizes;
    DType dtype = kFloat32;
    Device device;
  };
  const OutputMeta& output_meta(size_t i) const { return outputs_[i]; }
  // Building a node (recorders, custom functions): its next edges in order,
  // then one meta per forward output.
  void add_next_edge(Edge e) { next_.push_back(std::move(e)); }
  void add_output_meta(OutputMeta m) { outputs_.push_back(std::move(m)); }

 protected:
  Node();
  friend class Engine;
  std::vector<Edge> next_;
  std::vector<OutputMeta> outputs_;
  std::vector<std::pair<uint32_t, Hook>> pre_hooks_;
  uint64_t sequence_nr_;
};

// Per-tensor autograd state (TensorImpl::autograd).
struct AXLE_API AutogradMeta {
  bool requires_grad = false;  // a leaf that requires grad
  Tensor grad;
  std::shared_ptr<Node> grad_fn;  // non-leaves: the node that made the tensor
  uint32_t output_nr = 0;         // which output of grad_fn
  std::weak_ptr<Node> accumulator;
  bool retains_grad = false;
  std::vector<Hook> leaf_hooks;  // leaves: run before accumulation
  // A view made while grad mode is on: its root base (the tensor it and the
  // views it came from view), and the storage version its history was made
  // at (a later in-place change of the base makes that history stale: the
  // next use makes it again from the base's).
  bool is_view = false;
  uint32_t view_version = 0;
  Tensor base;
  // A view made in no_grad mode of a tensor that requires grad (or a view of
  // such a view): writing it in place with grad mode on is refused, as torch
  // (CreationMeta::NO_GRAD_MODE).
  bool no_grad_view = false;
  ~AutogradMeta();
};

// The gradients of `outputs` with respect to `inputs` (torch.autograd.grad):
// `grad_outputs` may be empty (or hold undefined tensors) for one-element
// outputs; retain_graph defaults to create_graph; an input the outputs do not
// depend on is an AutogradError unless allow_unused (then undefined).
AXLE_API std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                                  const std::vector<Tensor>& grad_outputs = {},
                                  std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                                  bool allow_unused = false);

// Accumulates the gradients of `tensors` into the leaves' .grad
// (torch.autograd.backward); with `inputs`, only into those.
AXLE_API void backward(const std::vector<Tensor>& tensors, const std::vector<Tensor>& grad_tensors = {},
                       std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                       const std::vector<Tensor>& inputs = {});

// Tensor hooks (torch's Tensor.register_hook): `hook` sees the gradient of
// `t` during every later backward and may replace it. On a leaf it runs before
// the gradient is accumulated into .grad.
AXLE_API void register_hook(const Tensor& t, Hook hook);

// ---- functions with a hand-written backward (torch.autograd.Function,
// libtorch's torch::autograd::Function<T>)
class SavedTensor;

// What a custom function's forward leaves for its backward.
class AXLE_API AutogradContext {
 public:
  AutogradContext();
  ~AutogradContext();
  AutogradContext(const AutogradContext&) = delete;
  AutogradContext& operator=(const AutogradContext&) = delete;
  // Tensors backward reads (inputs or outputs of forward): kept with their
  // version, an in-place change before backward is an AutogradError.
  void save_for_backward(std::vector<Tensor> tensors);
  std::vector<Tensor> get_saved_variables() const;
  // Outputs that get no gradient (indices, masks).
  void mark_non_differentiable(const std::vector<Tensor>& outputs);
  // Whether input i (of forward's tensor inputs) needs a gradient.
  bool needs_input_grad(size_t i) const { return i < needs_.size() && needs_[i]; }
  size_t num_inputs() const { return needs_.size(); }
  // Undefined gradients reach backward as zeros (default) or undefined.
  void set_materialize_grads(bool value) { materialize_grads_ = value; }
  bool materialize_grads() const { return materialize_grads_; }
  // Anything else backward needs (libtorch's ctx->saved_data).
  std::unordered_map<std::string, Value> saved_data;

 private:
  friend struct FunctionRecorder;
  std::vector<Tensor> to_save_;
  std::vector<SavedTensor>* saved_ = nullptr;  // the node's, once recorded
  const Node* node_ = nullptr;
  std::vector<Tensor> non_differentiable_;
  std::vector<bool> needs_;
  bool materialize_grads_ = true;
};

using ForwardFn = std::function<std::vector<Tensor>(AutogradContext& ctx, const std::vector<Tensor>& inputs)>;
// Returns one gradient per input (undefined: none); fewer is an error.
using BackwardFn = std::function<std::vector<Tensor>(AutogradContext& ctx, const std::vector<Tensor>& grads)>;

// Runs `forward` below autograd and, when an input requires grad, records a
// node named `name` whose backward is `backward`. `ctx`: the context to use
// (bindings keep their own object around it); a new one when null.
AXLE_API std::vector<Tensor> apply_function(const std::string& name, const std::vector<Tensor>& inputs,
                                            ForwardFn forward, BackwardFn backward,
                                            std::shared_ptr<AutogradContext> ctx = nullptr);

// libtorch's form: struct Scale : Function<Scale> { static std::vector<Tensor>
// forward(AutogradContext*, const std::vector<Tensor>&); static
// std::vector<Tensor> backward(AutogradContext*, const std::vector<Tensor>&); };
// Scale::apply({x}).
template <class T>
struct Function {
  static std::vector<Tensor> apply(const std::vector<Tensor>& inputs, const std::string& name = "CustomFunction") {
    return apply_function(
        name, inputs, [](AutogradContext& c, const std::vector<Tensor>& in) { return T::forward(&c, in); },
        [](AutogradContext& c, const std::vector<Tensor>& g) { return T::backward(&c, g); });
  }
};

// The built-in op names whose declaration says neither a formula, a decomposition nor
// why there is no gradient (the test that every op is accounted for reads it).
AXLE_API std::vector<std::string> ops_without_derivative();
// What op `name` declares: "formula", "decomposes", "none: <why>", or "" (nothing).
AXLE_API std::string derivative_of(std::string_view name);

}  // namespace autograd
}  // namespace axle
