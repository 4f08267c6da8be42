// Formulas of the views family and of the copy family's copies
// (dispatcher/src/ops/views.cpp, copy.cpp). Views made by the core without a
// formula (narrow, split, ...) decompose into core views, which the autograd
// layer differentiates as strided views of their base.
#include "derivatives.h"

#include <algorithm>

namespace axle::derivatives {

namespace {
const Tensor& g(VjpContext& c) { return c.grad(0); }
}  // namespace

void view(VjpContext& c) { c.set(0, reshape(g(c), c.sizes(0))); }
void reshape(VjpContext& c) { c.set(0, axle::reshape(g(c), c.sizes(0))); }

void permute(VjpContext& c) {
  const IntList& dims = c.arg(1).int_list();
  const int64_t n = static_cast<int64_t>(dims.size());
  IntList inverse(dims.size(), 0);
  for (int64_t i = 0; i < n; ++i) inverse[wrap_dim(dims[i], n)] = i;
  c.set(0, axle::permute(g(c), inverse));
}

void transpose(VjpContext& c) {
  if (c.sizes(0).empty()) return c.set(0, g(c));
  c.set(0, axle::transpose(g(c), c.arg(1).to_int(), c.arg(2).to_int()));
}

void t(VjpContext& c) { c.set(0, c.sizes(0).size() < 2 ? g(c) : axle::t(g(c))); }
void squeeze(VjpContext& c) { c.set(0, axle::reshape(g(c), c.sizes(0))); }
void unsqueeze(VjpContext& c) { c.set(0, axle::reshape(g(c), c.sizes(0))); }
void expand(VjpContext& c) { c.set(0, sum_to(g(c), c.sizes(0))); }

void select(VjpContext& c) {
  // Zeros around the gradient along dim, built out of place (cat), so that
  // higher-order gradients can differentiate it.
  const IntList& sizes = c.sizes(0);
  const int64_t dim = wrap_dim(c.arg(1).to_int(), static_cast<int64_t>(sizes.size()));
  const int64_t n = sizes[dim];
  int64_t index = c.arg(2).to_int();
  if (index < 0) index += n;
  const TensorOptions opts = TensorOptions().dtype(g(c).dtype()).device(g(c).device());
  std::vector<Tensor> parts;
  IntList part = sizes;
  if (index > 0) {
    part[dim] = index;
    parts.push_back(zeros(part, opts));
  }
  parts.push_back(axle::unsqueeze(g(c), dim));
  if (index < n - 1) {
    part[dim] = n - 1 - index;
    parts.push_back(zeros(part, opts));
  }
  c.set(0, parts.size() == 1 ? parts[0] : cat(parts, dim));
}

void flip(VjpContext& c) { c.set(0, axle::flip(g(c), c.arg(1).int_list())); }
void tril(VjpContext& c) { c.set(0, axle::tril(g(c), c.arg(1).to_int())); }
void triu(VjpContext& c) { c.set(0, axle::triu(g(c), c.arg(1).to_int())); }

void roll(VjpContext& c) {
  IntList shifts = c.arg(1).int_list();
  for (int64_t& s : shifts) s = -s;
  c.set(0, axle::roll(g(c), shifts, c.arg(2).int_list()));
}

void repeat(VjpContext& c) {
  // The gradient of each copy sums into the source: view the gradient as
  // (repeat_0, size_0, repeat_1, size_1, ...) and sum the repeat dims.
  const IntList& repeats = c.arg(1).int_list();
  IntList src = c.sizes(0);
  while (src.size() < repeats.size()) src.insert(src.begin(), 1);
  IntList split;
  IntList dims;
  for (size_t i = 0; i < repeats.size(); ++i) {
    dims.push_back(static_cast<int64_t>(split.size()));
    split.push_back(repeats[i]);
    split.push_back(src[i]);
  }
  Tensor r = axle::reshape(g(c), split);
  r = dims.empty() ? r : sum(r, dims);
  c.set(0, axle::reshape(r, c.sizes(0)));
}

void cat(VjpContext& c) {
  const size_t n = c.list_size(0);
  // cat skips legacy empty [0] tensors; find the dim from a real one.
  int64_t ndim = 0;
  bool only_legacy_empty = true;
  for (size_t k = 0; k < n; ++k) {
    ndim = std::max<int64_t>(ndim, static_cast<int64_t>(c.sizes(0, k).size()));
    only_legacy_empty &= c.sizes(0, k).size() == 1 && c.sizes(0, k)[0] == 0;
  }
  if (only_legacy_empty) return;  // nothing flows into empty tensors
  const int64_t dim = wrap_dim(c.arg(1).to_int(), ndim);
  int64_t offset = 0;
  for (size_t k = 0; k < n; ++k) {
    const IntList& s = c.sizes(0, k);
    if (static_cast<int64_t>(s.size()) != ndim) continue;  // a skipped empty tensor
    c.set(0, k, narrow(g(c), dim, offset, s[dim]));
    offset += s[dim];
  }
}

void stack(VjpContext& c) {
  const size_t n = c.list_size(0);
  const int64_t dim = wrap_dim(c.arg(1).to_int(), static_cast<int64_t>(c.sizes(0, 0).size()) + 1);
  for (size_t k = 0; k < n; ++k) c.set(0, k, axle::select(g(c), dim, static_cast<int64_t>(k)));
}

void copy_(VjpContext& c) {
  // self is overwritten: no gradient reaches its old value; src's comes back
  // to its device (the engine casts the dtype and reduces broadcasting).
  if (c.needs(0)) c.set(0, zeros_for(c, 0));
  if (c.needs(1)) c.set(1, g(c).device() == c.device(1) ? g(c) : g(c).to(c.device(1)));
}

void clone(VjpContext& c) { c.set(0, g(c)); }

void to_copy(VjpContext& c) { c.set(0, g(c).device() == c.device(0) ? g(c) : g(c).to(c.device(0))); }

}  // namespace axle::derivatives
