// C++ API of the reductions (axle/ops/reduction.h): each calls its declared op.
#include <axle/ops.h>

#include "op_handle.h"

namespace axle {

Tensor prod(const Tensor& self, std::optional<DType> dtype) { return detail::call_one(AXLE_OP("prod"), self, dtype); }
Tensor prod(const Tensor& self, int64_t dim, bool keepdim, std::optional<DType> dtype) {
  return detail::call_one(AXLE_OP("prod.dim_int"), self, dim, keepdim, dtype);
}
Tensor amax(const Tensor& self, const IntList& dim, bool keepdim) {
  return detail::call_one(AXLE_OP("amax"), self, dim, keepdim);
}
Tensor amin(const Tensor& self, const IntList& dim, bool keepdim) {
  return detail::call_one(AXLE_OP("amin"), self, dim, keepdim);
}
Tensor max(const Tensor& self) { return detail::call_one(AXLE_OP("max"), self); }
std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim) {
  return detail::call_two(AXLE_OP("max.dim"), self, dim, keepdim);
}
Tensor min(const Tensor& self) { return detail::call_one(AXLE_OP("min"), self); }
std::tuple<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim) {
  return detail::call_two(AXLE_OP("min.dim"), self, dim, keepdim);
}
Tensor max(const Tensor& self, const Tensor& other) { return detail::call_one(AXLE_OP("max.other"), self, other); }
Tensor min(const Tensor& self, const Tensor& other) { return detail::call_one(AXLE_OP("min.other"), self, other); }
Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return detail::call_one(AXLE_OP("argmax"), self, dim, keepdim);
}
Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return detail::call_one(AXLE_OP("argmin"), self, dim, keepdim);
}

Tensor var(const Tensor& self, bool unbiased) { return detail::call_one(AXLE_OP("var"), self, unbiased); }
Tensor var(const Tensor& self, const IntList& dim, bool unbiased, bool keepdim) {
  return detail::call_one(AXLE_OP("var.dim"), self, dim, unbiased, keepdim);
}
Tensor var(const Tensor& self, std::optional<IntList> dim, std::optional<int64_t> correction, bool keepdim) {
  return detail::call_one(AXLE_OP("var.correction"), self, dim, correction, keepdim);
}
Tensor std(const Tensor& self, bool unbiased) { return detail::call_one(AXLE_OP("std"), self, unbiased); }
Tensor std(const Tensor& self, const IntList& dim, bool unbiased, bool keepdim) {
  return detail::call_one(AXLE_OP("std.dim"), self, dim, unbiased, keepdim);
}
Tensor std(const Tensor& self, std::optional<IntList> dim, std::optional<int64_t> correction, bool keepdim) {
  return detail::call_one(AXLE_OP("std.correction"), self, dim, correction, keepdim);
}

Tensor norm(const Tensor& self, const Scalar& p) { return detail::call_one(AXLE_OP("norm.Scalar"), self, p); }
Tensor norm(const Tensor& self, std::optional<Scalar> p, const IntList& dim, bool keepdim) {
  return detail::call_one(AXLE_OP("norm.ScalarOpt_dim"), self, p, dim, keepdim);
}
Tensor norm(const Tensor& self, const std::string& p, std::optional<IntList> dim, bool keepdim) {
  return detail::call_one(AXLE_OP("norm.str"), self, p, dim, keepdim);
}
Tensor norm(const Tensor& self, const char* p, std::optional<IntList> dim, bool keepdim) {
  return norm(self, std::string(p), std::move(dim), keepdim);
}
Tensor logsumexp(const Tensor& self, const IntList& dim, bool keepdim) {
  return detail::call_one(AXLE_OP("logsumexp"), self, dim, keepdim);
}

Tensor all(const Tensor& self) { return detail::call_one(AXLE_OP("all"), self); }
Tensor all(const Tensor& self, int64_t dim, bool keepdim) {
  return detail::call_one(AXLE_OP("all.dim"), self, dim, keepdim);
}
Tensor any(const Tensor& self) { return detail::call_one(AXLE_OP("any"), self); }
Tensor any(const Tensor& self, int64_t dim, bool keepdim) {
  return detail::call_one(AXLE_OP("any.dim"), self, dim, keepdim);
}
Tensor cumsum(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return detail::call_one(AXLE_OP("cumsum"), self, dim, dtype);
}
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return detail::call_one(AXLE_OP("cumprod"), self, dim, dtype);
}
Tensor count_nonzero(const Tensor& self, const IntList& dim) {
  return detail::call_one(AXLE_OP("count_nonzero.dim_IntList"), self, dim);
}
Tensor count_nonzero(const Tensor& self, std::optional<int64_t> dim) {
  return detail::call_one(AXLE_OP("count_nonzero"), self, dim);
}

std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  return detail::call_two(AXLE_OP("topk"), self, k, dim, largest, sorted);
}
std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending) {
  return detail::call_two(AXLE_OP("sort"), self, dim, descending);
}
std::tuple<Tensor, Tensor> sort(const Tensor& self, std::optional<bool> stable, int64_t dim, bool descending) {
  return detail::call_two(AXLE_OP("sort.stable"), self, stable, dim, descending);
}
Tensor argsort(const Tensor& self, int64_t dim, bool descending) {
  return detail::call_one(AXLE_OP("argsort"), self, dim, descending);
}
Tensor argsort(const Tensor& self, bool stable, int64_t dim, bool descending) {
  return detail::call_one(AXLE_OP("argsort.stable"), self, stable, dim, descending);
}

Tensor sum(const Tensor& t, std::optional<DType> dtype) { return detail::call_one(AXLE_OP("sum"), t, dtype); }
Tensor sum(const Tensor& t, const IntList& dim, bool keepdim, std::optional<DType> dtype) {
  return detail::call_one(AXLE_OP("sum.dim_IntList"), t, dim, keepdim, dtype);
}
Tensor mean(const Tensor& t, std::optional<DType> dtype) { return detail::call_one(AXLE_OP("mean"), t, dtype); }
Tensor mean(const Tensor& t, const IntList& dim, bool keepdim, std::optional<DType> dtype) {
  return detail::call_one(AXLE_OP("mean.dim"), t, dim, keepdim, dtype);
}

}  // namespace axle
