// The Tensor methods of autograd (torch's names, messages and rules).
#include "internal.h"

namespace axle {

using autograd::AutogradMeta;
using autograd::meta_of;

Tensor& Tensor::requires_grad_(bool requires_grad) {
  AutogradMeta* m = meta_of(*this);
  if (m && m->grad_fn) {
    if (!requires_grad)
      throw AutogradError(
          "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a "
          "subgraph that doesn't require differentiation use var_no_grad = var.detach().");
    return *this;
  }
  if (requires_grad) {
    AXLE_CHECK(autograd::differentiable(dtype()), DTypeError,
               "only Tensors of floating point and complex dtype can require gradients (got ", dtype_name(dtype()),
               ")");
    autograd::activate();
    autograd::ensure_meta(*this).requires_grad = true;
  } else if (m) {
    m->requires_grad = false;
  }
  return *this;
}

bool Tensor::requires_grad() const { return autograd::requires_grad(*this); }

const Tensor& Tensor::grad() const {
  static const Tensor undefined;
  const AutogradMeta* m = meta_of(*this);
  return m ? m->grad : undefined;
}

void Tensor::set_grad(const Tensor& g) {
  if (!g.defined()) {
    if (AutogradMeta* m = meta_of(*this)) m->grad = Tensor();
    return;
  }
  AXLE_CHECK(g.device() == device(), DeviceError, "assigned grad has data located on ", g.device(),
             " while the tensor is on ", device());
  AXLE_CHECK(g.dtype() == dtype(), DTypeError, "assigned grad has data of type ", dtype_name(g.dtype()),
             " while the tensor is of type ", dtype_name(dtype()));
  AXLE_CHECK(g.sizes() == sizes(), ShapeError, "assigned grad has shape ", shape_string(g.sizes()),
             " while the tensor has shape ", shape_string(sizes()));
  autograd::ensure_meta(*this).grad = g;
}

std::shared_ptr<autograd::Node> Tensor::grad_fn() const {
  AutogradMeta* m = meta_of(*this);
  if (!m) return nullptr;
  autograd::refresh_view(*this, *m);
  return m->grad_fn;
}

bool Tensor::is_leaf() const { return grad_fn() == nullptr; }

void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph, bool create_graph) const {
  autograd::backward({*this}, {gradient}, retain_graph, create_graph);
}

Tensor Tensor::detach() const { return autograd::alias_of(*this); }

Tensor& Tensor::detach_() {
  AutogradMeta* m = meta_of(*this);
  if (m && m->is_view)
    throw NotImplementedError(
        "Can't detach views in-place. Use detach() instead (or clone it first if you need in-place).");
  if (m) {
    m->grad_fn = nullptr;
    m->requires_grad = false;
    m->output_nr = 0;
  }
  return *this;
}

void Tensor::retain_grad() const {
  if (!requires_grad()) throw AutogradError("can't retain_grad on Tensor that has requires_grad=False");
  AutogradMeta& m = autograd::ensure_meta(*this);
  if (!m.grad_fn || m.retains_grad) return;  // leaves keep their gradient anyway
  m.retains_grad = true;
  std::weak_ptr<AutogradMeta> weak = unsafe_impl().autograd;
  m.grad_fn->add_pre_hook(m.output_nr, [weak](const Tensor& g) {
    if (std::shared_ptr<AutogradMeta> meta = weak.lock(); meta && meta->retains_grad)
      autograd::accumulate_grad(*meta, g);
    return Tensor();
  });
}

bool Tensor::retains_grad() const {
  const AutogradMeta* m = meta_of(*this);
  return m && m->retains_grad;
}

namespace autograd {

void register_hook(const Tensor& t, Hook hook) {
  if (!t.requires_grad()) throw AutogradError("cannot register a hook on a tensor that doesn't require gradient");
  AutogradMeta& m = ensure_meta(t);
  if (m.grad_fn)
    m.grad_fn->add_pre_hook(m.output_nr, std::move(hook));
  else
    m.leaf_hooks.push_back(std::move(hook));
}

}  // namespace autograd
}  // namespace axle
