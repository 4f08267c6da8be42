// C++ API of the indexing family: each wrapper calls its declared operator.
#include <axle/ops.h>

#include "op_handle.h"

namespace axle {

namespace {
Value optional_list(const std::vector<std::optional<Tensor>>& indices) {
  std::vector<Tensor> list;
  list.reserve(indices.size());
  for (const std::optional<Tensor>& t : indices) list.push_back(t ? *t : Tensor());
  return list;
}
}  // namespace

Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  return detail::call_one(AXLE_OP("index_select"), self, dim, index);
}
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad) {
  return detail::call_one(AXLE_OP("gather"), self, dim, index, sparse_grad);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return detail::call_one(AXLE_OP("scatter.src"), self, dim, index, src);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return detail::call_one(AXLE_OP("scatter.value"), self, dim, index, value);
}
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  detail::call(AXLE_OP("scatter_.src"), self, dim, index, src);
  return self;
}
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  detail::call(AXLE_OP("scatter_.value"), self, dim, index, value);
  return self;
}
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return detail::call_one(AXLE_OP("scatter_add"), self, dim, index, src);
}
Tensor& scatter_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  detail::call(AXLE_OP("scatter_add_"), self, dim, index, src);
  return self;
}
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  return detail::call_one(AXLE_OP("masked_fill.Scalar"), self, mask, value);
}
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  return detail::call_one(AXLE_OP("masked_fill.Tensor"), self, mask, value);
}
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value) {
  detail::call(AXLE_OP("masked_fill_.Scalar"), self, mask, value);
  return self;
}
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Tensor& value) {
  detail::call(AXLE_OP("masked_fill_.Tensor"), self, mask, value);
  return self;
}
Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  return detail::call_one(AXLE_OP("where.self"), condition, self, other);
}
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx, bool scale_grad_by_freq,
                 bool sparse) {
  return detail::call_one(AXLE_OP("embedding"), weight, indices, padding_idx, scale_grad_by_freq, sparse);
}
Tensor one_hot(const Tensor& self, int64_t num_classes) {
  return detail::call_one(AXLE_OP("one_hot"), self, num_classes);
}
Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  return detail::call_one(AXLE_OP("index.Tensor"), self, optional_list(indices));
}
Tensor& index_put_(Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                   bool accumulate) {
  detail::call(AXLE_OP("index_put_"), self, optional_list(indices), values, accumulate);
  return self;
}

Tensor nonzero(const Tensor& t) { return detail::call_one(AXLE_OP("nonzero"), t); }

}  // namespace axle
