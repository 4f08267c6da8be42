// The C++ API of matmul and the BLAS-like products (libtorch's names and signatures); see
// dispatcher/src/ops/blas.cpp for their declarations and rules.
#pragma once

#include <axle/dispatcher.h>
#include <axle/tensor.h>

#include <optional>

namespace axle {

AXLE_API Tensor matmul(const Tensor& a, const Tensor& b);
AXLE_API Tensor mm(const Tensor& self, const Tensor& mat2);
AXLE_API Tensor bmm(const Tensor& self, const Tensor& mat2);
AXLE_API Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
                      const Scalar& alpha = 1);
AXLE_API Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
                        const Scalar& alpha = 1);
AXLE_API Tensor dot(const Tensor& self, const Tensor& tensor);
AXLE_API Tensor outer(const Tensor& self, const Tensor& vec2);
AXLE_API Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = {});

}  // namespace axle
