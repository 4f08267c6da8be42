// The C++ API of the view and shape-movement ops (dispatcher/src/ops/views.cpp),
// libtorch's names and arguments. Ops that are Tensor methods only in libtorch
// (view, expand, expand_as, repeat) are free functions here. The view ops return
// views sharing self's storage exactly where libtorch's do.
#pragma once

#include <axle/tensor.h>

#include <optional>
#include <vector>

namespace axle {

AXLE_API Tensor view(const Tensor& self, const IntList& size);
AXLE_API Tensor flatten(const Tensor& self, int64_t start_dim = 0, int64_t end_dim = -1);
AXLE_API Tensor unflatten(const Tensor& self, int64_t dim, const IntList& sizes);
AXLE_API Tensor permute(const Tensor& self, const IntList& dims);
AXLE_API Tensor transpose(const Tensor& self, int64_t dim0, int64_t dim1);
AXLE_API Tensor t(const Tensor& self);
AXLE_API Tensor squeeze(const Tensor& self);
AXLE_API Tensor squeeze(const Tensor& self, int64_t dim);
AXLE_API Tensor unsqueeze(const Tensor& self, int64_t dim);
AXLE_API Tensor expand(const Tensor& self, const IntList& size, bool implicit = false);
AXLE_API Tensor expand_as(const Tensor& self, const Tensor& other);
AXLE_API Tensor narrow(const Tensor& self, int64_t dim, int64_t start, int64_t length);
AXLE_API Tensor slice(const Tensor& self, int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
                      std::optional<int64_t> end = std::nullopt, int64_t step = 1);
AXLE_API Tensor select(const Tensor& self, int64_t dim, int64_t index);
AXLE_API std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim = 0);
AXLE_API std::vector<Tensor> split(const Tensor& self, const IntList& split_sizes, int64_t dim = 0);
AXLE_API std::vector<Tensor> split_with_sizes(const Tensor& self, const IntList& split_sizes, int64_t dim = 0);
AXLE_API std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim = 0);
AXLE_API std::vector<Tensor> unbind(const Tensor& self, int64_t dim = 0);
AXLE_API Tensor movedim(const Tensor& self, int64_t source, int64_t destination);
AXLE_API Tensor movedim(const Tensor& self, const IntList& source, const IntList& destination);
AXLE_API Tensor as_strided(const Tensor& self, const IntList& size, const IntList& stride,
                           std::optional<int64_t> storage_offset = std::nullopt);
AXLE_API Tensor flip(const Tensor& self, const IntList& dims);
AXLE_API Tensor roll(const Tensor& self, const IntList& shifts, const IntList& dims = {});
AXLE_API Tensor repeat(const Tensor& self, const IntList& repeats);
AXLE_API Tensor tril(const Tensor& self, int64_t diagonal = 0);
AXLE_API Tensor triu(const Tensor& self, int64_t diagonal = 0);
AXLE_API Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);
AXLE_API Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);

}  // namespace axle
