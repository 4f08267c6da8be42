// C++ API of the reductions in dispatcher/src/ops/reduction.cpp (libtorch's
// names and signatures): sum, mean, prod, amax/amin, max/min, argmax/argmin, var/std, norm,
// logsumexp, all/any, cumsum/cumprod, count_nonzero, topk, sort, argsort.
#pragma once

#include <axle/dispatcher.h>
#include <axle/tensor.h>

#include <optional>
#include <string>
#include <tuple>

namespace axle {

AXLE_API Tensor sum(const Tensor& t, std::optional<DType> dtype = {});
AXLE_API Tensor sum(const Tensor& t, const IntList& dim, bool keepdim = false, std::optional<DType> dtype = {});
AXLE_API Tensor mean(const Tensor& t, std::optional<DType> dtype = {});
AXLE_API Tensor mean(const Tensor& t, const IntList& dim, bool keepdim = false, std::optional<DType> dtype = {});
AXLE_API Tensor prod(const Tensor& self, std::optional<DType> dtype = {});
AXLE_API Tensor prod(const Tensor& self, int64_t dim, bool keepdim = false, std::optional<DType> dtype = {});
AXLE_API Tensor amax(const Tensor& self, const IntList& dim = {}, bool keepdim = false);
AXLE_API Tensor amin(const Tensor& self, const IntList& dim = {}, bool keepdim = false);
AXLE_API Tensor max(const Tensor& self);
AXLE_API std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim = false);
AXLE_API Tensor min(const Tensor& self);
AXLE_API std::tuple<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim = false);
AXLE_API Tensor max(const Tensor& self, const Tensor& other);  // max.other = maximum
AXLE_API Tensor min(const Tensor& self, const Tensor& other);  // min.other = minimum
AXLE_API Tensor argmax(const Tensor& self, std::optional<int64_t> dim = {}, bool keepdim = false);
AXLE_API Tensor argmin(const Tensor& self, std::optional<int64_t> dim = {}, bool keepdim = false);

AXLE_API Tensor var(const Tensor& self, bool unbiased = true);
AXLE_API Tensor var(const Tensor& self, const IntList& dim, bool unbiased = true, bool keepdim = false);
AXLE_API Tensor var(const Tensor& self, std::optional<IntList> dim, std::optional<int64_t> correction,
                    bool keepdim = false);
AXLE_API Tensor std(const Tensor& self, bool unbiased = true);
AXLE_API Tensor std(const Tensor& self, const IntList& dim, bool unbiased = true, bool keepdim = false);
AXLE_API Tensor std(const Tensor& self, std::optional<IntList> dim, std::optional<int64_t> correction,
                    bool keepdim = false);

// The vector p-norm (norm.Scalar / norm.ScalarOpt_dim); a string p as torch.norm ("fro").
AXLE_API Tensor norm(const Tensor& self, const Scalar& p = 2);
AXLE_API Tensor norm(const Tensor& self, std::optional<Scalar> p, const IntList& dim, bool keepdim = false);
AXLE_API Tensor norm(const Tensor& self, const std::string& p, std::optional<IntList> dim = {}, bool keepdim = false);
AXLE_API Tensor norm(const Tensor& self, const char* p, std::optional<IntList> dim = {}, bool keepdim = false);
AXLE_API Tensor logsumexp(const Tensor& self, const IntList& dim, bool keepdim = false);

AXLE_API Tensor all(const Tensor& self);
AXLE_API Tensor all(const Tensor& self, int64_t dim, bool keepdim = false);
AXLE_API Tensor any(const Tensor& self);
AXLE_API Tensor any(const Tensor& self, int64_t dim, bool keepdim = false);
AXLE_API Tensor cumsum(const Tensor& self, int64_t dim, std::optional<DType> dtype = {});
AXLE_API Tensor cumprod(const Tensor& self, int64_t dim, std::optional<DType> dtype = {});
AXLE_API Tensor count_nonzero(const Tensor& self, const IntList& dim);
AXLE_API Tensor count_nonzero(const Tensor& self, std::optional<int64_t> dim = {});

AXLE_API std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim = -1, bool largest = true,
                                         bool sorted = true);
AXLE_API std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim = -1, bool descending = false);
AXLE_API std::tuple<Tensor, Tensor> sort(const Tensor& self, std::optional<bool> stable, int64_t dim = -1,
                                         bool descending = false);
AXLE_API Tensor argsort(const Tensor& self, int64_t dim = -1, bool descending = false);
AXLE_API Tensor argsort(const Tensor& self, bool stable, int64_t dim = -1, bool descending = false);

}  // namespace axle
