// Nodes of the backward graph, per-tensor autograd state, and the helpers the
// recorder and the engine share (gradient edges, histories, sum_to).
#include "internal.h"

#include <atomic>
#include <cctype>

namespace axle::autograd {

namespace {
std::atomic<uint64_t> g_sequence_nr{0};
}  // namespace

uint64_t next_sequence_nr() { return g_sequence_nr.fetch_add(1, std::memory_order_relaxed); }

Node::Node() : sequence_nr_(next_sequence_nr()) {}
Node::~Node() = default;
void Node::add_pre_hook(uint32_t output_nr, Hook hook) { pre_hooks_.emplace_back(output_nr, std::move(hook)); }

AutogradMeta::~AutogradMeta() = default;

AutogradMeta& ensure_meta(const Tensor& t) {
  auto& slot = t.unsafe_impl().autograd;
  if (!slot) slot = std::make_shared<AutogradMeta>();
  return *slot;
}

void refresh_view(const Tensor& t, AutogradMeta& m) {
  if (!m.is_view || t._version() == m.view_version) return;
  // The base (or another view of it) was written in place since this view's
  // history was made: the view now reads the base's new values.
  if (!m.base.defined())
    throw NotImplementedError(
        detail::concat("a view of a tensor that requires grad is used after its base was "
                       "modified in place (",
                       t.toString(), "): take the view again after the in-place operation"));
  if (requires_grad(m.base)) {
    m.grad_fn = make_view_node(m.base, t);
    m.output_nr = 0;
    m.requires_grad = false;
  }
  m.view_version = t._version();
}

Edge gradient_edge(const Tensor& t) {
  AutogradMeta& m = ensure_meta(t);
  refresh_view(t, m);
  if (m.grad_fn) return {m.grad_fn, m.output_nr};
  std::shared_ptr<Node> acc = m.accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t);
    m.accumulator = acc;
  }
  return {acc, 0};
}

void set_history(const Tensor& t, const std::shared_ptr<Node>& fn, uint32_t output_nr) {
  AutogradMeta& m = ensure_meta(t);
  m.grad_fn = fn;
  m.output_nr = output_nr;
  m.requires_grad = false;
  m.no_grad_view = false;  // recorded: made by an op with grad mode on (its kernel may have run with it off)
}

Tensor alias_of(const Tensor& t) {
  auto impl = std::make_shared<TensorImpl>();
  const TensorImpl& src = t.unsafe_impl();
  impl->storage = src.storage;
  impl->sizes = src.sizes;
  impl->strides = src.strides;
  impl->storage_offset = src.storage_offset;
  impl->dtype = src.dtype;
  impl->wrapped_number = src.wrapped_number;
  return Tensor(std::move(impl));
}

std::string node_name(const std::string& op_name) {
  std::string base = op_name.substr(0, op_name.find('.'));
  if (const size_t ns = base.find("::"); ns != std::string::npos) base = base.substr(ns + 2);
  while (!base.empty() && base.back() == '_') base.pop_back();
  std::string out;
  bool upper = true;
  for (char ch : base) {
    if (ch == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(ch))) : ch;
    upper = false;
  }
  return out + "Backward0";
}

}  // namespace axle::autograd
