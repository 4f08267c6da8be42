// C++ API of the copy family (libtorch's names); declarations:
// dispatcher/src/ops/copy.cpp. Tensor::copy_, contiguous and to are methods
// (axle/tensor.h).
#pragma once

#include <axle/dispatcher.h>
#include <axle/tensor.h>

namespace axle {

AXLE_API Tensor clone(const Tensor& t);
AXLE_API Tensor reshape(const Tensor& t, const IntList& shape);

}  // namespace axle
