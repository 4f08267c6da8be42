// C++ API of the creation family (libtorch's names and signatures); declarations:
// dispatcher/src/ops/creation.cpp. from_blob and scalar_to_tensor wrap memory or
// a scalar without calling an op.
#pragma once

#include <axle/dispatcher.h>
#include <axle/tensor.h>
#include <axle/tensor_options.h>

#include <functional>

namespace axle {

AXLE_API Tensor empty(const IntList& size, const TensorOptions& options = {});
AXLE_API Tensor zeros(const IntList& size, const TensorOptions& options = {});
AXLE_API Tensor ones(const IntList& size, const TensorOptions& options = {});
AXLE_API Tensor full(const IntList& size, const Scalar& fill_value, const TensorOptions& options = {});
AXLE_API Tensor arange(const Scalar& end, const TensorOptions& options = {});
AXLE_API Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step = 1,
                       const TensorOptions& options = {});
AXLE_API Tensor empty_like(const Tensor& t, const TensorOptions& options = {});
// Wraps external memory; `deleter` runs when the last tensor using it dies.
AXLE_API Tensor from_blob(void* data, const IntList& sizes, const IntList& strides, std::function<void(void*)> deleter,
                          const TensorOptions& options = {});
AXLE_API Tensor from_blob(void* data, const IntList& sizes, const TensorOptions& options = {});
// A 0-dim "wrapped number" tensor for a C++ scalar (lower promotion priority).
AXLE_API Tensor scalar_to_tensor(const Scalar& s, const Device& device = Device("cpu"));

}  // namespace axle
