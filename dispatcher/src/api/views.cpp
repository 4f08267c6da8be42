// The C++ API of the view and shape-movement ops (axle/ops/views.h): each calls
// its declared operator (dispatcher/src/ops/views.cpp) through the dispatcher.
#include <axle/ops.h>

#include "op_handle.h"

namespace axle {

namespace {
std::vector<Tensor> list(const Stack& out) { return out[0].tensors(); }
Value opt(std::optional<int64_t> v) { return v ? Value(*v) : Value(); }
}  // namespace

Tensor view(const Tensor& self, const IntList& size) { return detail::call_one(AXLE_OP("view"), self, size); }
Tensor flatten(const Tensor& self, int64_t start_dim, int64_t end_dim) {
  return detail::call_one(AXLE_OP("flatten.using_ints"), self, start_dim, end_dim);
}
Tensor unflatten(const Tensor& self, int64_t dim, const IntList& sizes) {
  return detail::call_one(AXLE_OP("unflatten.int"), self, dim, sizes);
}
Tensor permute(const Tensor& self, const IntList& dims) { return detail::call_one(AXLE_OP("permute"), self, dims); }
Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1) {
  return detail::call_one(AXLE_OP("transpose.int"), self, dim0, dim1);
}
Tensor t(const Tensor& self) { return detail::call_one(AXLE_OP("t"), self); }
Tensor squeeze(const Tensor& self) { return detail::call_one(AXLE_OP("squeeze"), self); }
Tensor squeeze(const Tensor& self, int64_t dim) { return detail::call_one(AXLE_OP("squeeze.dim"), self, dim); }
Tensor unsqueeze(const Tensor& self, int64_t dim) { return detail::call_one(AXLE_OP("unsqueeze"), self, dim); }
Tensor expand(const Tensor& self, const IntList& size, bool implicit) {
  return detail::call_one(AXLE_OP("expand"), self, size, implicit);
}
Tensor expand_as(const Tensor& self, const Tensor& other) {
  return detail::call_one(AXLE_OP("expand_as"), self, other);
}
Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  return detail::call_one(AXLE_OP("narrow"), self, dim, start, length);
}
Tensor slice(const Tensor& self, int64_t dim, std::optional<int64_t> start, std::optional<int64_t> end, int64_t step) {
  return detail::call_one(AXLE_OP("slice.Tensor"), self, dim, opt(start), opt(end), step);
}
Tensor select(const Tensor& self, int64_t dim, int64_t index) {
  return detail::call_one(AXLE_OP("select.int"), self, dim, index);
}
std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim) {
  return list(detail::call(AXLE_OP("split.Tensor"), self, split_size, dim));
}
std::vector<Tensor> split(const Tensor& self, const IntList& split_sizes, int64_t dim) {
  return list(detail::call(AXLE_OP("split.sizes"), self, split_sizes, dim));
}
std::vector<Tensor> split_with_sizes(const Tensor& self, const IntList& split_sizes, int64_t dim) {
  return list(detail::call(AXLE_OP("split_with_sizes"), self, split_sizes, dim));
}
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  return list(detail::call(AXLE_OP("chunk"), self, chunks, dim));
}
std::vector<Tensor> unbind(const Tensor& self, int64_t dim) {
  return list(detail::call(AXLE_OP("unbind.int"), self, dim));
}
Tensor movedim(const Tensor& self, int64_t source, int64_t destination) {
  return detail::call_one(AXLE_OP("movedim.int"), self, source, destination);
}
Tensor movedim(const Tensor& self, const IntList& source, const IntList& destination) {
  return detail::call_one(AXLE_OP("movedim.intlist"), self, source, destination);
}
Tensor as_strided(const Tensor& self, const IntList& size, const IntList& stride, std::optional<int64_t> offset) {
  return detail::call_one(AXLE_OP("as_strided"), self, size, stride, opt(offset));
}
Tensor flip(const Tensor& self, const IntList& dims) { return detail::call_one(AXLE_OP("flip"), self, dims); }
Tensor roll(const Tensor& self, const IntList& shifts, const IntList& dims) {
  return detail::call_one(AXLE_OP("roll"), self, shifts, dims);
}
Tensor repeat(const Tensor& self, const IntList& repeats) { return detail::call_one(AXLE_OP("repeat"), self, repeats); }
Tensor tril(const Tensor& self, int64_t diagonal) { return detail::call_one(AXLE_OP("tril"), self, diagonal); }
Tensor triu(const Tensor& self, int64_t diagonal) { return detail::call_one(AXLE_OP("triu"), self, diagonal); }
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) { return detail::call_one(AXLE_OP("cat"), tensors, dim); }
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
  return detail::call_one(AXLE_OP("stack"), tensors, dim);
}

}  // namespace axle
