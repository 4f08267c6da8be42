// The engine: runs a backward graph from its roots in dependency order on the
// calling thread (torch's engine, without the per-device worker threads: each
// formula's ops are queued on the device of its tensors by the dispatcher).
// A node runs once all the gradients flowing into it are summed; what it
// returns is checked against the metadata of the tensor it is for (reduced
// to its shape if broadcast, cast to its dtype, on its device), then added
// into the next node's inputs. Saved values are freed as nodes finish unless
// the graph is kept. autograd::grad captures gradients instead of
// accumulating them and runs only the nodes its inputs need.
#include "internal.h"

#include <queue>
#include <unordered_map>

namespace axle::autograd {

namespace {

struct NodeState {
  int dependencies = 0;
  bool needed = false;  // runs, or has captures
  bool runs = false;    // feeds a needed node, or accumulates into a leaf's .grad
  std::vector<Tensor> inputs;
  std::vector<bool> owned;                            // inputs[i] made by Node::add_into, held by nobody else
  std::vector<std::pair<uint32_t, size_t>> captures;  // (input_nr, result index)
};

Tensor checked_gradient(const Node& node, size_t index, Tensor g, const Node::OutputMeta& m) {
  if (g.sizes() != m.sizes) {
    if (!expandable_to(m.sizes, g.sizes()))
      throw ShapeError(detail::concat("Function ", node.name(), " returned an invalid gradient at index ", index,
                                      " - got ", shape_string(g.sizes()), " but expected shape compatible with ",
                                      shape_string(m.sizes)));
    g = sum_to(g, m.sizes);
  }
  if (g.device() != m.device)
    throw DeviceError(detail::concat("Function ", node.name(), " returned an invalid gradient at index ", index,
                                     " - expected device ", m.device, " but got ", g.device()));
  if (g.dtype() != m.dtype) g = g.to(m.dtype);
  return g;
}

void add_into(Tensor& slot, Tensor g) {
  if (!slot.defined())
    slot = std::move(g);
  else
    slot = add(slot, g);
}

struct ByPriority {
  bool operator()(const Node* a, const Node* b) const { return a->sequence_nr() < b->sequence_nr(); }
};

}  // namespace

class Engine {
 public:
  // roots[i] receives root_grads[i]. With `captures`, returns the gradient
  // flowing into each captured edge (undefined where none did) and runs only
  // what they need; `accumulate`: AccumulateGrad nodes run (backward).
  static std::vector<Tensor> run(const std::vector<Edge>& roots, std::vector<Tensor> root_grads, bool keep_graph,
                                 bool create_graph, const std::vector<Edge>& captures, bool accumulate) {
    std::unordered_map<Node*, NodeState> state;
    // Every node reachable from the roots, children before parents.
    std::vector<Node*> post_order;
    {
      // One root at a time: a root marked visited before its turn could be the
      // child of another root (a multi-output node seeded through one output
      // and reached through a view of another) and land after its parent.
      std::vector<std::pair<Node*, size_t>> stack;
      for (const Edge& r : roots) {
        if (!r.valid() || !state.emplace(r.fn.get(), NodeState{}).second) continue;
        stack.emplace_back(r.fn.get(), 0);
        while (!stack.empty()) {
          auto& [n, next] = stack.back();
          if (next < n->next_edges().size()) {
            Node* child = n->next_edges()[next++].fn.get();
            if (child && state.emplace(child, NodeState{}).second) stack.emplace_back(child, 0);
          } else {
            post_order.push_back(n);
            stack.pop_back();
          }
        }
      }
    }
    for (size_t i = 0; i < captures.size(); ++i)
      if (captures[i].valid()) {
        auto it = state.find(captures[i].fn.get());
        if (it != state.end()) it->second.captures.emplace_back(captures[i].input_nr, i);
      }
    for (Node* n : post_order) {
      NodeState& s = state[n];
      s.runs = accumulate && dynamic_cast<AccumulateGrad*>(n) != nullptr;
      for (const Edge& e : n->next_edges())
        if (e.valid() && state[e.fn.get()].needed) s.runs = true;
      s.needed = s.runs || !s.captures.empty();
    }
    for (Node* n : post_order) {
      if (!state[n].needed) continue;
      for (const Edge& e : n->next_edges())
        if (e.valid() && state[e.fn.get()].needed) ++state[e.fn.get()].dependencies;
    }
    for (size_t i = 0; i < roots.size(); ++i) {
      if (!roots[i].valid()) continue;
      NodeState& s = state[roots[i].fn.get()];
      if (!s.needed) continue;
      s.inputs.resize(roots[i].fn->num_outputs());
      add_into(s.inputs[roots[i].input_nr], std::move(root_grads[i]));
    }
    std::priority_queue<Node*, std::vector<Node*>, ByPriority> ready;
    for (Node* n : post_order)
      if (state[n].needed && state[n].dependencies == 0) ready.push(n);

    std::vector<Tensor> captured(captures.size());
    AutoGradMode mode(create_graph);
    while (!ready.empty()) {
      Node* n = ready.top();
      ready.pop();
      NodeState& s = state[n];
      std::vector<Tensor> grads = std::move(s.inputs);
      grads.resize(n->num_outputs());
      for (auto& [nr, hook] : n->pre_hooks_)
        if (nr < grads.size() && grads[nr].defined())
          if (Tensor r = hook(grads[nr]); r.defined()) grads[nr] = std::move(r);
      for (auto [nr, index] : s.captures)
        if (nr < grads.size()) captured[index] = grads[nr];
      std::vector<Tensor> out;
      if (s.runs && !create_graph && n->next_edges().size() == 1 && n->next_edges()[0].valid()) {
        // A view's gradient added straight into its base's gradient (Node::add_into).
        const Edge& e = n->next_edges()[0];
        NodeState& c = state[e.fn.get()];
        if (c.needed) {
          c.inputs.resize(e.fn->num_outputs());
          c.owned.resize(e.fn->num_outputs(), false);
          bool owned = c.owned[e.input_nr];
          if (n->add_into(grads, c.inputs[e.input_nr], owned)) {
            c.owned[e.input_nr] = owned;
            if (!keep_graph) n->release();
            if (--c.dependencies == 0) ready.push(e.fn.get());
            continue;
          }
        }
      }
      if (s.runs) {
        out = n->apply(std::move(grads));
        if (!keep_graph) n->release();
      }
      for (size_t j = 0; j < n->next_edges().size(); ++j) {
        const Edge& e = n->next_edges()[j];
        if (!e.valid()) continue;
        NodeState& c = state[e.fn.get()];
        if (!c.needed) continue;
        if (j < out.size() && out[j].defined()) {
          c.inputs.resize(e.fn->num_outputs());
          add_into(c.inputs[e.input_nr], checked_gradient(*n, j, std::move(out[j]), e.fn->output_meta(e.input_nr)));
          if (e.input_nr < c.owned.size()) c.owned[e.input_nr] = false;
        }
        if (--c.dependencies == 0) ready.push(e.fn.get());
      }
    }
    return captured;
  }
};

namespace {

// The roots' gradients: given ones checked against their outputs, else ones
// for one-element outputs.
std::vector<Tensor> root_gradients(const std::vector<Tensor>& outputs, const std::vector<Tensor>& given) {
  AXLE_CHECK(given.empty() || given.size() == outputs.size(), ValueError, "grad_tensors (", given.size(),
             ") must have the same length as tensors (", outputs.size(), ")");
  std::vector<Tensor> grads;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& o = outputs[i];
    AXLE_CHECK(o.defined(), ValueError, "backward: tensor ", i, " is undefined");
    if (!requires_grad(o))
      throw AutogradError(
          detail::concat("element ", i, " of tensors does not require grad and does not have a grad_fn"));
    const Tensor g = i < given.size() ? given[i] : Tensor();
    if (!g.defined()) {
      if (o.numel() != 1) throw AutogradError("grad can be implicitly created only for scalar outputs");
      grads.push_back(ones(o.sizes(), TensorOptions().dtype(o.dtype()).device(o.device())));
      continue;
    }
    AXLE_CHECK(g.sizes() == o.sizes(), ShapeError, "Mismatch in shape: grad_output[", i, "] has a shape of ",
               shape_string(g.sizes()), " and output[", i, "] has a shape of ", shape_string(o.sizes()), ".");
    AXLE_CHECK(g.device() == o.device(), DeviceError, "invalid gradient at index ", i, " - expected device ",
               o.device(), " but got ", g.device());
    grads.push_back(g.dtype() == o.dtype() ? g : g.to(o.dtype()));
  }
  return grads;
}

std::vector<Edge> root_edges(const std::vector<Tensor>& outputs) {
  std::vector<Edge> edges;
  for (const Tensor& o : outputs) edges.push_back(gradient_edge(o));
  return edges;
}

// Where the gradient of input t arrives: its grad_fn's input, or its
// accumulator (null edge when t is a leaf no graph uses).
Edge input_edge(const Tensor& t) {
  AutogradMeta* m = meta_of(t);
  if (!m) return {};
  if (m->grad_fn) return {m->grad_fn, m->output_nr};
  return {m->accumulator.lock(), 0};
}

}  // namespace

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, std::optional<bool> retain_graph, bool create_graph,
                         bool allow_unused) {
  std::vector<Tensor> roots = root_gradients(outputs, grad_outputs);
  const std::vector<Edge> edges = root_edges(outputs);  // an output that is an input gets its accumulator here
  std::vector<Edge> captures;
  for (size_t i = 0; i < inputs.size(); ++i) {
    AXLE_CHECK(inputs[i].defined() && requires_grad(inputs[i]), AutogradError, "One of the differentiated Tensors (", i,
               ") does not require grad");
    captures.push_back(input_edge(inputs[i]));
  }
  std::vector<Tensor> result =
      Engine::run(edges, std::move(roots), retain_graph.value_or(create_graph), create_graph, captures, false);
  for (size_t i = 0; i < result.size(); ++i)
    if (!result[i].defined() && !allow_unused)
      throw AutogradError(detail::concat("One of the differentiated Tensors (", i,
                                         ") appears to not have been used in the graph. Set allow_unused=True if "
                                         "this is the desired behavior."));
  return result;
}

void backward(const std::vector<Tensor>& tensors, const std::vector<Tensor>& grad_tensors,
              std::optional<bool> retain_graph, bool create_graph, const std::vector<Tensor>& inputs) {
  std::vector<Tensor> grads = root_gradients(tensors, grad_tensors);
  const bool keep = retain_graph.value_or(create_graph);
  if (inputs.empty()) {
    Engine::run(root_edges(tensors), std::move(grads), keep, create_graph, {}, true);
    return;
  }
  // Only into `inputs`: captured, then accumulated as AccumulateGrad does.
  const std::vector<Edge> edges = root_edges(tensors);
  std::vector<Edge> captures;
  for (const Tensor& t : inputs) {
    AXLE_CHECK(t.defined() && requires_grad(t), AutogradError, "backward: an input does not require grad");
    captures.push_back(input_edge(t));
  }
  std::vector<Tensor> result = Engine::run(edges, std::move(grads), keep, create_graph, captures, false);
  AutoGradMode mode(create_graph);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!result[i].defined()) continue;
    AutogradMeta& m = ensure_meta(inputs[i]);
    if (!m.grad_fn) run_leaf_hooks(m, result[i]);  // a non-leaf's hooks ran in the engine
    accumulate_grad(m, std::move(result[i]));
  }
}

}  // namespace axle::autograd
