// What the formulas share: scalars as tensors, undoing a reduction's shape,
// sum_to (also the engine's reduction of broadcast gradients).
#include "derivatives.h"

#include <algorithm>

namespace axle::derivatives {

Tensor scalar(const Scalar& s) { return scalar_to_tensor(s); }

Tensor zeros_for(const VjpContext& c, size_t i) {
  return zeros(c.sizes(i), TensorOptions().dtype(c.dtype(i)).device(c.device(i)));
}

bool expandable_to(const IntList& sizes, const IntList& target) {
  if (sizes.size() > target.size()) return false;
  const size_t lead = target.size() - sizes.size();
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] != target[lead + i] && sizes[i] != 1) return false;
  return true;
}

Tensor sum_to(const Tensor& g, const IntList& sizes) {
  if (g.sizes() == sizes) return g;
  const size_t lead = g.sizes().size() - sizes.size();
  IntList dims;
  for (size_t i = 0; i < lead; ++i) dims.push_back(static_cast<int64_t>(i));
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] == 1 && g.sizes()[lead + i] != 1) dims.push_back(static_cast<int64_t>(lead + i));
  Tensor r = dims.empty() ? g : sum(g, dims, /*keepdim=*/true);
  return r.sizes() == sizes ? r : reshape(r, sizes);
}

IntList reduced_dims(const Value& dim, int64_t ndim) {
  IntList dims;
  if (dim.is_none()) return dims;
  for (int64_t d : dim.int_list()) dims.push_back(wrap_dim(d, std::max<int64_t>(ndim, 1)));
  return dims;
}

Tensor unreduce(const Tensor& g, const IntList& sizes, IntList dims, bool keepdim) {
  const int64_t ndim = static_cast<int64_t>(sizes.size());
  if (dims.empty())
    for (int64_t d = 0; d < ndim; ++d) dims.push_back(d);
  Tensor r = g;
  if (!keepdim && ndim > 0) {
    std::sort(dims.begin(), dims.end());
    IntList shape = sizes;
    for (int64_t d : dims) shape[d] = 1;
    r = reshape(r, shape);
  }
  return r.sizes() == sizes ? r : expand(r, sizes);
}

}  // namespace axle::derivatives
