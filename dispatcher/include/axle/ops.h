// The C++ operator API (libtorch's names), as an umbrella header like the
// ATen header of all functions: it includes the header of every op family, axle/ops/<family>.h
// (declarations in dispatcher/src/ops/<family>.cpp, wrappers in
// dispatcher/src/api/<family>.cpp), and TensorOptions. The only things declared
// here belong to no op family: version() and the host-side comparisons
// equal/allclose.
#pragma once

#include <axle/dispatcher.h>
#include <axle/tensor.h>
#include <axle/tensor_options.h>

#include <string>

// One header per op family:
#include <axle/ops/activations.h>
#include <axle/ops/blas.h>
#include <axle/ops/conv_pool.h>
#include <axle/ops/copy.h>
#include <axle/ops/creation.h>
#include <axle/ops/indexing.h>
#include <axle/ops/linalg.h>
#include <axle/ops/nn.h>
#include <axle/ops/pointwise.h>
#include <axle/ops/random.h>
#include <axle/ops/reduction.h>
#include <axle/ops/views.h>

namespace axle {

AXLE_API std::string version();

// torch.equal: same sizes and equal values (any dtypes; NaN equals nothing).
// torch.allclose: |a - b| <= atol + rtol * |b| everywhere, a and b broadcast
// (ShapeError when they cannot), of one dtype (DTypeError otherwise); NaN is
// close to nothing. Both compare on the host (axle::compare).
AXLE_API bool equal(const Tensor& a, const Tensor& b);
AXLE_API bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8);

}  // namespace axle
