// The C++ operator API (libtorch's names). Each function calls the declared
// operator through the dispatcher; see dispatcher/src/ops/ for declarations.
#pragma once

#include <axle/dispatcher.h>
#include <axle/tensor.h>

#include <optional>
#include <string>

namespace axle {

class AXLE_API TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions dtype(DType d) const { auto o = *this; o.dtype_ = d; return o; }
  TensorOptions device(const Device& d) const { auto o = *this; o.device_ = d; return o; }
  std::optional<DType> dtype_opt() const { return dtype_; }
  std::optional<Device> device_opt() const { return device_; }
  DType dtype() const { return dtype_.value_or(get_default_dtype()); }
  Device device() const { return device_.value_or(get_default_device()); }

 private:
  std::optional<DType> dtype_;
  std::optional<Device> device_;
};

AXLE_API std::string version();

// ---- creation
AXLE_API Tensor empty(const IntList& size, const TensorOptions& options = {});
AXLE_API Tensor zeros(const IntList& size, const TensorOptions& options = {});
AXLE_API Tensor ones(const IntList& size, const TensorOptions& options = {});
AXLE_API Tensor full(const IntList& size, const Scalar& fill_value, const TensorOptions& options = {});
AXLE_API Tensor arange(const Scalar& end, const TensorOptions& options = {});
AXLE_API Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step = 1, const TensorOptions& options = {});
AXLE_API Tensor empty_like(const Tensor& t, const TensorOptions& options = {});
// Wraps external memory; `deleter` runs when the last tensor using it dies.
AXLE_API Tensor from_blob(void* data, const IntList& sizes, const IntList& strides,
                          std::function<void(void*)> deleter, const TensorOptions& options = {});
AXLE_API Tensor from_blob(void* data, const IntList& sizes, const TensorOptions& options = {});
// A 0-dim "wrapped number" tensor for a C++ scalar (lower promotion priority).
AXLE_API Tensor scalar_to_tensor(const Scalar& s, const Device& device = Device("cpu"));

// ---- movement
AXLE_API Tensor clone(const Tensor& t);
AXLE_API Tensor reshape(const Tensor& t, const IntList& shape);

// ---- arithmetic
AXLE_API Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
AXLE_API Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha = 1);
AXLE_API Tensor mul(const Tensor& a, const Tensor& b);
AXLE_API Tensor div(const Tensor& a, const Tensor& b);
AXLE_API Tensor eq(const Tensor& a, const Tensor& b);
AXLE_API Tensor ne(const Tensor& a, const Tensor& b);
AXLE_API Tensor lt(const Tensor& a, const Tensor& b);
AXLE_API Tensor le(const Tensor& a, const Tensor& b);
AXLE_API Tensor gt(const Tensor& a, const Tensor& b);
AXLE_API Tensor ge(const Tensor& a, const Tensor& b);
AXLE_API Tensor neg(const Tensor& t);

// Unary math (declared with their dtype rules in dispatcher/src/ops/pointwise.cpp):
// axle::sqrt(t), axle::sigmoid(t), ... Each calls the operator of the same name.
#define AXLE_UNARY_MATH_OPS(X)                                                                                    \
  X(abs) X(sign) X(exp2) X(expm1) X(log) X(log2) X(log10) X(log1p) X(sqrt) X(rsqrt) X(reciprocal) X(sin) X(cos) \
  X(tan) X(asin) X(acos) X(atan) X(sinh) X(cosh) X(tanh) X(sigmoid) X(erf) X(erfc) X(floor) X(ceil) X(trunc)      \
  X(frac) X(square)
#define AXLE_DECLARE_UNARY(name) AXLE_API Tensor name(const Tensor& t);
AXLE_UNARY_MATH_OPS(AXLE_DECLARE_UNARY)
#undef AXLE_DECLARE_UNARY
AXLE_API Tensor exp(const Tensor& t);
AXLE_API Tensor relu(const Tensor& t);
AXLE_API Tensor sum(const Tensor& t, std::optional<DType> dtype = {});
AXLE_API Tensor sum(const Tensor& t, const IntList& dim, bool keepdim = false, std::optional<DType> dtype = {});
AXLE_API Tensor mean(const Tensor& t, std::optional<DType> dtype = {});
AXLE_API Tensor mean(const Tensor& t, const IntList& dim, bool keepdim = false, std::optional<DType> dtype = {});
AXLE_API Tensor matmul(const Tensor& a, const Tensor& b);
AXLE_API Tensor nonzero(const Tensor& t);

AXLE_API Tensor operator+(const Tensor& a, const Tensor& b);
AXLE_API Tensor operator-(const Tensor& a, const Tensor& b);
AXLE_API Tensor operator*(const Tensor& a, const Tensor& b);
AXLE_API Tensor operator/(const Tensor& a, const Tensor& b);
AXLE_API Tensor operator-(const Tensor& a);
AXLE_API Tensor operator+(const Tensor& a, const Scalar& b);
AXLE_API Tensor operator-(const Tensor& a, const Scalar& b);
AXLE_API Tensor operator*(const Tensor& a, const Scalar& b);
AXLE_API Tensor operator/(const Tensor& a, const Scalar& b);
AXLE_API Tensor operator+(const Scalar& a, const Tensor& b);
// Elementwise comparisons returning bool tensors, as in libtorch.
AXLE_API Tensor operator==(const Tensor& a, const Tensor& b);
AXLE_API Tensor operator!=(const Tensor& a, const Tensor& b);
AXLE_API Tensor operator<(const Tensor& a, const Tensor& b);
AXLE_API Tensor operator<=(const Tensor& a, const Tensor& b);
AXLE_API Tensor operator>(const Tensor& a, const Tensor& b);
AXLE_API Tensor operator>=(const Tensor& a, const Tensor& b);
AXLE_API Tensor operator*(const Scalar& a, const Tensor& b);

// Exact equality of shape, dtype and values (on the host); allclose for floats.
AXLE_API bool equal(const Tensor& a, const Tensor& b);
AXLE_API bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8);

}  // namespace axle

// The C++ API of further op families, one header each (axle/ops/<family>.h):
#include <axle/ops/views.h>
#include <axle/ops/activations.h>
#include <axle/ops/nn.h>
#include <axle/ops/blas.h>
#include <axle/ops/conv_pool.h>
#include <axle/ops/indexing.h>
#include <axle/ops/reduction.h>
