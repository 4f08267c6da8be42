// C++ API of the random family (libtorch's names); declarations:
// dispatcher/src/ops/random.cpp. Without a generator the device's default
// generator draws (manual_seed seeds them all).
#pragma once

#include <axle/dispatcher.h>
#include <axle/generator.h>
#include <axle/tensor.h>
#include <axle/tensor_options.h>

#include <optional>

namespace axle {

AXLE_API Tensor rand(const IntList& size, const TensorOptions& options = {},
                     const std::optional<Generator>& generator = std::nullopt);
AXLE_API Tensor randn(const IntList& size, const TensorOptions& options = {},
                      const std::optional<Generator>& generator = std::nullopt);

}  // namespace axle
