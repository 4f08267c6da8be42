// The C++ API of the view and shape-movement ops (axle/ops/views.h): each calls
// its declared operator (dispatcher/src/ops/views.cpp) through the dispatcher.
#include <axle/ops.h>

#include "op_handle.h"

namespace axle {

namespace {
Tensor one(const Stack& out) { return out[0].tensor(); }
std::vector<Tensor> list(const Stack& out) { return out[0].tensors(); }
Value opt(std::optional<int64_t> v) { return v ? Value(*v) : Value(); }
}  // namespace

Tensor view(const Tensor& self, const IntList& size) { return one(call_op(AXLE_OP("view"), detail::stack_of(self, size))); }
Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  return one(call_op(AXLE_OP("flatten.using_ints"), detail::stack_of(self, start_dim, end_dim)));
}
Tensor unflatten(const Tensor& self, int64_t dim, const IntList& sizes) {
  return one(call_op(AXLE_OP("unflatten.int"), detail::stack_of(self, dim, sizes)));
}
Tensor permute(const Tensor& self, const IntList& dims) { return one(call_op(AXLE_OP("permute"), detail::stack_of(self, dims))); }
Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  return one(call_op(AXLE_OP("transpose.int"), detail::stack_of(self, dim0, dim1)));
}
Tensor t(const Tensor& self) { return one(call_op(AXLE_OP("t"), detail::stack_of(self))); }
Tensor squeeze(const Tensor& self) { return one(call_op(AXLE_OP("squeeze"), detail::stack_of(self))); }
Tensor squeeze(const Tensor& self, int64_t dim) { return one(call_op(AXLE_OP("squeeze.dim"), detail::stack_of(self, dim))); }
Tensor unsqueeze(const Tensor& self, int64_t dim) { return one(call_op(AXLE_OP("unsqueeze"), detail::stack_of(self, dim))); }
Tensor expand(const Tensor& self, const IntList& size, bool implicit) {
  return one(call_op(AXLE_OP("expand"), detail::stack_of(self, size, implicit)));
}
Tensor expand_as(const Tensor& self, const Tensor& other) { return one(call_op(AXLE_OP("expand_as"), detail::stack_of(self, other))); }
Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  return one(call_op(AXLE_OP("narrow"), detail::stack_of(self, dim, start, length)));
}
Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
  return one(call_op(AXLE_OP("slice.Tensor"), detail::stack_of(self, dim, opt(start), opt(end), step)));
}
Tensor select(const Tensor& self, int64_t dim, int64_t index) {
  return one(call_op(AXLE_OP("select.int"), detail::stack_of(self, dim, index)));
}
std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim) {
  return list(call_op(AXLE_OP("split.Tensor"), detail::stack_of(self, split_size, dim)));
}
std::vector<Tensor> split(const Tensor& self, const IntList& split_sizes, int64_t dim) {
  return list(call_op(AXLE_OP("split.sizes"), detail::stack_of(self, split_sizes, dim)));
}
std::vector<Tensor> split_with_sizes(const Tensor& self, const IntList& split_sizes, int64_t dim) {
  return list(call_op(AXLE_OP("split_with_sizes"), detail::stack_of(self, split_sizes, dim)));
}
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  return list(call_op(AXLE_OP("chunk"), detail::stack_of(self, chunks, dim)));
}
std::vector<Tensor> unbind(const Tensor& self, int64_t dim) {
  return list(call_op(AXLE_OP("unbind.int"), detail::stack_of(self, dim)));
}
Tensor movedim(const Tensor& self, int64_t source, int64_t destination) {
  return one(call_op(AXLE_OP("movedim.int"), detail::stack_of(self, source, destination)));
}
Tensor movedim(const Tensor& self, const IntList& source, const IntList& destination) {
  return one(call_op(AXLE_OP("movedim.intlist"), detail::stack_of(self, source, destination)));
}
Tensor as_strided(const Tensor& self, const IntList& size, const IntList& stride, std::optional<int64_t> offset) {
  return one(call_op(AXLE_OP("as_strided"), detail::stack_of(self, size, stride, opt(offset))));
}
Tensor flip(const Tensor& self, const IntList& dims) { return one(call_op(AXLE_OP("flip"), detail::stack_of(self, dims))); }
Tensor roll(const Tensor& self, const IntList& shifts, const IntList& dims) {
  return one(call_op(AXLE_OP("roll"), detail::stack_of(self, shifts, dims)));
}
Tensor repeat(const Tensor& self, const IntList& repeats) { return one(call_op(AXLE_OP("repeat"), detail::stack_of(self, repeats))); }
Tensor tril(const Tensor& self, int64_t diagonal) { return one(call_op(AXLE_OP("tril"), detail::stack_of(self, diagonal))); }
Tensor triu(const Tensor& self, int64_t diagonal) { return one(call_op(AXLE_OP("triu"), detail::stack_of(self, diagonal))); }
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) { return one(call_op(AXLE_OP("cat"), detail::stack_of(tensors, dim))); }
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) { return one(call_op(AXLE_OP("stack"), detail::stack_of(tensors, dim))); }

}  // namespace axle
