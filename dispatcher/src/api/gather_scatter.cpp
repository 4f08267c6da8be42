// C++ API of the gather/scatter family: each wrapper calls its declared operator.
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
  return std::move(call_op(AXLE_OP("index_select"), detail::stack_of(self, dim, index))[0].tensor());
}
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad) {
  return std::move(call_op(AXLE_OP("gather"), detail::stack_of(self, dim, index, sparse_grad))[0].tensor());
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return std::move(call_op(AXLE_OP("scatter.src"), detail::stack_of(self, dim, index, src))[0].tensor());
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return std::move(call_op(AXLE_OP("scatter.value"), detail::stack_of(self, dim, index, value))[0].tensor());
}
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  call_op(AXLE_OP("scatter_.src"), detail::stack_of(self, dim, index, src));
  return self;
}
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  call_op(AXLE_OP("scatter_.value"), detail::stack_of(self, dim, index, value));
  return self;
}
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return std::move(call_op(AXLE_OP("scatter_add"), detail::stack_of(self, dim, index, src))[0].tensor());
}
Tensor& scatter_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  call_op(AXLE_OP("scatter_add_"), detail::stack_of(self, dim, index, src));
  return self;
}
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  return std::move(call_op(AXLE_OP("masked_fill.Scalar"), detail::stack_of(self, mask, value))[0].tensor());
}
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  return std::move(call_op(AXLE_OP("masked_fill.Tensor"), detail::stack_of(self, mask, value))[0].tensor());
}
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value) {
  call_op(AXLE_OP("masked_fill_.Scalar"), detail::stack_of(self, mask, value));
  return self;
}
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Tensor& value) {
  call_op(AXLE_OP("masked_fill_.Tensor"), detail::stack_of(self, mask, value));
  return self;
}
Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  return std::move(call_op(AXLE_OP("where.self"), detail::stack_of(condition, self, other))[0].tensor());
}
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx, bool scale_grad_by_freq,
                 bool sparse) {
  return std::move(call_op(AXLE_OP("embedding"), detail::stack_of(weight, indices, padding_idx, scale_grad_by_freq, sparse))[0].tensor());
}
Tensor one_hot(const Tensor& self, int64_t num_classes) {
  return std::move(call_op(AXLE_OP("one_hot"), detail::stack_of(self, num_classes))[0].tensor());
}
Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices) {
  return std::move(call_op(AXLE_OP("index.Tensor"), detail::stack_of(self, optional_list(indices)))[0].tensor());
}
Tensor& index_put_(Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                   bool accumulate) {
  call_op(AXLE_OP("index_put_"), detail::stack_of(self, optional_list(indices), values, accumulate));
  return self;
}

}  // namespace axle
