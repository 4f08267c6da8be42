// C++ API of the indexing family (libtorch's names and signatures): index
// tensors are int64 (index_select and embedding also take int32); out-of-range
// index values raise IndexError. Declarations: dispatcher/src/ops/indexing.cpp.
#pragma once

#include <axle/dispatcher.h>
#include <axle/tensor.h>

#include <optional>
#include <vector>

namespace axle {

AXLE_API Tensor nonzero(const Tensor& t);
AXLE_API Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index);
AXLE_API Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad = false);
AXLE_API Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
AXLE_API Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
AXLE_API Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
AXLE_API Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
AXLE_API Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
AXLE_API Tensor& scatter_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
AXLE_API Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value);
// `value` is a 0-dim tensor.
AXLE_API Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value);
AXLE_API Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value);
AXLE_API Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Tensor& value);
AXLE_API Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other);
AXLE_API Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx = -1,
                          bool scale_grad_by_freq = false, bool sparse = false);
AXLE_API Tensor one_hot(const Tensor& self, int64_t num_classes = -1);
// Advanced indexing self[indices]: one entry per leading dim of self; nullopt is a
// full slice (Python's `:`), an int64 tensor picks positions, a bool/uint8 mask
// selects its true positions over as many dims as it has.
AXLE_API Tensor index(const Tensor& self, const std::vector<std::optional<Tensor>>& indices);
AXLE_API Tensor& index_put_(Tensor& self, const std::vector<std::optional<Tensor>>& indices, const Tensor& values,
                            bool accumulate = false);

}  // namespace axle
