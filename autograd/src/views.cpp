// Views and in-place writes through them (torch's view + in-place rebase).
//
// A view made while grad mode is on remembers its root base (AutogradMeta::base).
// Its gradient lands in the base's positions of the storage: a ViewNode
// (torch's AsStridedBackward0) is its grad_fn when the base requires grad.
//
// An in-place op on a view rewrites part of the base, so the base's history
// changes: CopySlices becomes the base's grad_fn. It takes the gradient of the
// whole base, runs the in-place op's node on the view's part of it, puts the
// gradient for the view's old values back into that part and passes the rest
// to the base's previous history; the op's other inputs get theirs as usual.
// The view's grad_fn becomes a ViewNode of the updated base. A view whose base
// was written in place after it was made gets a fresh ViewNode when it is used
// next (its version tells), as torch regenerates it.
#include "internal.h"

#include <algorithm>

namespace axle::autograd {

namespace {

// The element span [lo, hi] a view geometry reaches in its storage; false when
// a size is 0 (nothing reached).
bool span(const IntList& sizes, const IntList& strides, int64_t offset, int64_t* lo, int64_t* hi) {
  *lo = *hi = offset;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 0) return false;
    const int64_t reach = (sizes[d] - 1) * strides[d];
    (reach < 0 ? *lo : *hi) += reach;
  }
  return true;
}

struct Geometry {
  IntList sizes, strides;
  int64_t offset = 0;
  explicit Geometry(const Tensor& t) : sizes(t.sizes()), strides(t.strides()), offset(t.storage_offset()) {}
  // Row-major contiguous (size-1 dims' strides aside).
  bool dense() const {
    int64_t expected = 1;
    for (size_t d = sizes.size(); d-- > 0;) {
      if (sizes[d] != 1 && strides[d] != expected) return false;
      expected *= sizes[d];
    }
    return true;
  }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    return n;
  }
};

// Whether two elements of a view (broadcast dims already reduced to size 1)
// share a storage position: as_strided windows, unfold with step < size.
bool self_overlapping(const IntList& sizes, const IntList& strides) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size) of the dims that step
  for (size_t d = 0; d < sizes.size(); ++d)
    if (sizes[d] > 1) dims.emplace_back(strides[d] < 0 ? -strides[d] : strides[d], sizes[d]);
  std::sort(dims.begin(), dims.end());
  int64_t extent = 0;  // the inner dims' span, in elements
  for (const auto& [stride, size] : dims) {
    if (stride <= extent) return true;
    extent += stride * (size - 1);
  }
  return false;
}

// g laid into `buffer` at the view's positions: copied, or added position by
// position where the view's elements share positions (their gradients sum).
void place(Tensor& buffer, const IntList& sizes, const IntList& strides, int64_t offset, const Tensor& g,
           bool accumulate) {
  if (!self_overlapping(sizes, strides)) {
    Tensor part = as_strided(buffer, sizes, strides, offset);
    accumulate ? part.add_(g) : part.copy_(g);
    return;
  }
  const Tensor positions = as_strided(
      arange(0, buffer.numel(), 1, TensorOptions().dtype(kInt64).device(buffer.device())), sizes, strides, offset);
  index_put_(buffer, {std::optional<Tensor>(reshape(positions.contiguous(), {-1}))}, reshape(g.contiguous(), {-1}),
             true);
}

class ViewNode final : public Node {
 public:
  ViewNode(const Tensor& base, const Tensor& view) : base_(base), view_(view) {
    next_.push_back(gradient_edge(base));
    outputs_.push_back({view.sizes(), view.dtype(), view.device()});
  }
  std::string name() const override { return "AsStridedBackward0"; }
  // Broadcast dimensions of the view (stride 0) summed into one position: the
  // gradient's shape on the view's own storage positions.
  Tensor reduced(Tensor g, IntList* sizes) const {
    *sizes = view_.sizes;
    IntList dims;
    for (size_t d = 0; d < sizes->size(); ++d)
      if (view_.strides[d] == 0 && (*sizes)[d] > 1) {
        dims.push_back(static_cast<int64_t>(d));
        (*sizes)[d] = 1;
      }
    return dims.empty() ? g : sum(g, dims, true);
  }
  // The view is the whole base re-shaped (view / reshape / flatten of a
  // contiguous tensor): the base's gradient is the view's, re-shaped, with no
  // base-sized buffer.
  bool reshape_of_base() const {
    return view_.offset == base_.offset && view_.numel() == base_.numel() && view_.dense() && base_.dense();
  }
  bool base_broadcast() const {
    for (size_t d = 0; d < base_.sizes.size(); ++d)
      if (base_.strides[d] == 0 && base_.sizes[d] > 1) return true;
    return false;
  }
  // The view's part of the base's gradient, added in place: the first view's
  // gradient makes the base-shaped buffer (zeros around its part), the next
  // ones of the same base (chunk's q, k, v) add into theirs, with no
  // base-sized zeros and sums per view.
  bool add_into(std::vector<Tensor>& grads, Tensor& slot, bool& owned) override {
    if (grads.empty() || !grads[0].defined() || base_broadcast()) return false;
    if (slot.defined() && (!owned || slot.sizes() != base_.sizes || slot.strides() != base_.strides ||
                           slot.dtype() != grads[0].dtype() || slot.device() != grads[0].device()))
      return false;
    if (!slot.defined() && reshape_of_base()) {
      slot = reshape(grads[0].contiguous(), base_.sizes);
      owned = false;  // may share the incoming gradient's memory: never added into
      return true;
    }
    int64_t lo = 0, hi = 0;
    if (!span(base_.sizes, base_.strides, base_.offset, &lo, &hi)) return false;
    // Adding into a slot through a view whose elements share positions would
    // lose all but one of them: the engine sums apply()'s result instead.
    // (Checked before grads[0] is taken: false leaves it to apply().)
    if (slot.defined()) {
      IntList stepping = view_.sizes;
      for (size_t d = 0; d < stepping.size(); ++d)
        if (view_.strides[d] == 0) stepping[d] = 1;
      if (self_overlapping(stepping, view_.strides)) return false;
    }
    IntList sizes;
    const Tensor g = reduced(std::move(grads[0]), &sizes);
    if (!slot.defined()) {
      Tensor buffer = zeros({hi - lo + 1}, TensorOptions().dtype(g.dtype()).device(g.device()));
      place(buffer, sizes, view_.strides, view_.offset - lo, g, false);
      slot = as_strided(buffer, base_.sizes, base_.strides, base_.offset - lo);
      owned = true;
      return true;
    }
    Tensor part = as_strided(slot, sizes, view_.strides, slot.storage_offset() + view_.offset - base_.offset);
    part.add_(g);
    return true;
  }
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    Tensor g = std::move(grads.at(0));
    if (!g.defined()) return {Tensor()};
    if (reshape_of_base()) return {reshape(g.contiguous(), base_.sizes)};
    IntList sizes;
    g = reduced(std::move(g), &sizes);
    int64_t lo = 0, hi = 0;
    if (!span(base_.sizes, base_.strides, base_.offset, &lo, &hi))
      return {zeros(base_.sizes, TensorOptions().dtype(g.dtype()).device(g.device()))};
    Tensor buffer = zeros({hi - lo + 1}, TensorOptions().dtype(g.dtype()).device(g.device()));
    place(buffer, sizes, view_.strides, view_.offset - lo, g, false);
    // A broadcast base (stride 0) reads each position several times: each of
    // its elements gets an equal share, which its own expand sums back.
    int64_t repeats = 1;
    for (size_t d = 0; d < base_.sizes.size(); ++d)
      if (base_.strides[d] == 0) repeats *= base_.sizes[d];
    if (repeats > 1) buffer = buffer / scalar_to_tensor(Scalar(static_cast<double>(repeats)));
    return {as_strided(buffer, base_.sizes, base_.strides, base_.offset - lo)};
  }

 private:
  Geometry base_, view_;
};

class CopySlices final : public Node {
 public:
  // Before the base's history is replaced: `fn` recorded the in-place op on
  // `view`, its input slot `self_slot` being the view.
  CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn, size_t self_slot)
      : base_(base), view_(view), fn_(std::move(fn)), self_slot_(self_slot) {
    next_.push_back(requires_grad(base) ? gradient_edge(base) : Edge{});
    for (size_t i = 0; i < fn_->next_edges().size(); ++i)
      if (i != self_slot_) next_.push_back(fn_->next_edges()[i]);
    outputs_.push_back({base.sizes(), base.dtype(), base.device()});
  }
  std::string name() const override { return "CopySlices"; }
  std::vector<Tensor> apply(std::vector<Tensor>&& grads) override {
    const Tensor g = std::move(grads.at(0));
    std::vector<Tensor> out(next_.size());
    if (!g.defined()) return out;
    const TensorOptions options = TensorOptions().dtype(g.dtype()).device(g.device());
    int64_t lo = 0, hi = 0;
    if (!span(base_.sizes, base_.strides, base_.offset, &lo, &hi)) {
      out[0] = zeros(base_.sizes, options);
      return out;
    }
    // The base's gradient laid out as the base is, so the view's part of it
    // is the view's geometry in the same buffer.
    const Tensor buffer = zeros({hi - lo + 1}, options);
    Tensor result = as_strided(buffer, base_.sizes, base_.strides, base_.offset - lo);
    result.copy_(g);
    Tensor part = as_strided(buffer, view_.sizes, view_.strides, view_.offset - lo);
    std::vector<Tensor> res = fn_->apply({clone(part)});
    if (self_slot_ < res.size() && res[self_slot_].defined())
      part.copy_(res[self_slot_]);
    else
      part.zero_();
    out[0] = result;
    for (size_t i = 0, k = 1; i < res.size(); ++i)
      if (i != self_slot_ && k < out.size()) out[k++] = std::move(res[i]);
    return out;
  }
  void release() override { fn_->release(); }

 private:
  Geometry base_, view_;
  std::shared_ptr<Node> fn_;
  size_t self_slot_;
};

}  // namespace

std::shared_ptr<Node> make_view_node(const Tensor& base, const Tensor& view) {
  // A view of a view whose history is its own view node (no recorded op in
  // between, nothing written since) is placed in the root base directly: the
  // views of one base then add into one gradient (add_into) instead of one
  // base-sized buffer per level (reshape then transpose of chunk's q, k, v).
  if (const AutogradMeta* m = meta_of(base); m && m->is_view && m->base.defined() &&
                                             dynamic_cast<const ViewNode*>(m->grad_fn.get()) &&
                                             base._version() == m->view_version && requires_grad(m->base))
    return std::make_shared<ViewNode>(m->base, view);
  return std::make_shared<ViewNode>(base, view);
}

void rebase_history(const Tensor& view, const std::shared_ptr<Node>& fn, size_t self_slot) {
  AutogradMeta& m = ensure_meta(view);
  const Tensor base = m.base;
  auto copy_slices = std::make_shared<CopySlices>(base, view, fn, self_slot);
  set_history(base, copy_slices, 0);
  set_history(view, make_view_node(base, view), 0);
  m.view_version = view._version();
}

const Tensor& root_base(const Tensor& t) {
  const AutogradMeta* m = meta_of(t);
  return m && m->base.defined() ? m->base : t;
}

}  // namespace axle::autograd
