// Samples for matmul and the BLAS-like products (dispatcher/src/ops/blas.cpp).
#include "samples.h"

namespace axle::conformance {
namespace {

std::vector<Sample> matmul_samples(SampleContext& c) {
  const Layout T = Layout::Transposed;
  std::vector<Sample> out = {
      ok({c.make({4}), c.make({4})}, "dot"),
      ok({c.make({3, 4}), c.make({4})}, "matrix-vector"),
      ok({c.make({4}), c.make({4, 5})}, "vector-matrix"),
      ok({c.make({3, 4}), c.make({4, 5})}, "matrix-matrix"),
      ok({c.make({3, 4}, T), c.make({4, 5}, T)}, "transposed operands"),
      ok({c.make({2, 3, 4}), c.make({4, 5})}, "batched x matrix"),
      ok({c.make({2, 1, 3, 4}), c.make({5, 4, 2})}, "broadcast batch"),
      ok({c.make({0, 4}), c.make({4, 3})}, "zero rows"),
      ok({c.make({3, 0}), c.make({0, 2})}, "zero inner dim"),
      fails({c.make({3, 4}), c.make({5, 2})}, "inner dims differ", "ShapeError"),
      fails({c.make({}), c.make({3})}, "0-d operand", "ShapeError"),
  };
  // 16-bit results: PyTorch accumulates in float32 and rounds partial sums.
  if (c.dtype() == kBFloat16) loosen(out, 2e-2, 0.2);
  if (c.dtype() == kFloat16) loosen(out, 2e-3, 0.05);
  return out;
}

const Layout C = Layout::Contiguous, T = Layout::Transposed, S = Layout::Stepped, E = Layout::Expanded,
             O = Layout::Offset;
// Products run on every dtype torch's CPU kernels support (bool is rejected everywhere).
const std::vector<DType> kProductDTypes = {kFloat32, kFloat64, kBFloat16, kInt8, kInt32, kInt64, kBool};

DType other_dtype(const SampleContext& c) { return c.dtype() == kFloat32 ? kFloat64 : kFloat32; }

std::vector<Sample> mm_samples(SampleContext& c) {
  if (c.dtype() == kBool) return {fails({c.make({2, 3}), c.make({3, 2})}, "bool", "DTypeError")};
  return {
      ok({c.make({3, 4}), c.make({4, 5})}, "[3, 4] x [4, 5]"),
      ok({c.make({7, 1}), c.make({1, 3})}, "inner dim 1"),
      ok({c.make({3, 4}, T), c.make({4, 5}, T)}, "transposed operands"),
      ok({c.make({3, 5}, S), c.make({5, 2}, O)}, "stepped x offset"),
      ok({c.make({4, 3}, E), c.make({3, 2})}, "expanded rows"),
      ok({c.make({0, 4}), c.make({4, 3})}, "zero rows"),
      ok({c.make({3, 0}), c.make({0, 2})}, "zero inner dim gives zeros"),
      fails({c.make({3, 4}), c.make({5, 2})}, "inner dims differ", "ShapeError"),
      fails({c.make({4}), c.make({4, 2})}, "1-d self", "ShapeError"),
      fails({c.make({2, 3, 4}), c.make({4, 2})}, "3-d self", "ShapeError"),
      fails({c.make({3, 4}), c.make({4, 2}, C, other_dtype(c))}, "dtypes differ", "DTypeError"),
  };
}

std::vector<Sample> bmm_samples(SampleContext& c) {
  if (c.dtype() == kBool) return {fails({c.make({1, 2, 3}), c.make({1, 3, 2})}, "bool", "DTypeError")};
  return {
      ok({c.make({2, 3, 4}), c.make({2, 4, 5})}, "[2, 3, 4] x [2, 4, 5]"),
      ok({c.make({3, 1, 5}), c.make({3, 5, 1})}, "row x column"),
      ok({c.make({2, 3, 4}, T), c.make({2, 4, 5}, S)}, "transposed x stepped"),
      ok({c.make({3, 2, 4}, E), c.make({3, 4, 2}, O)}, "expanded batch x offset"),
      ok({c.make({0, 3, 4}), c.make({0, 4, 5})}, "zero batch"),
      ok({c.make({2, 3, 0}), c.make({2, 0, 5})}, "zero inner dim"),
      fails({c.make({2, 3, 4}), c.make({3, 4, 5})}, "batch sizes differ", "ShapeError"),
      fails({c.make({2, 3, 4}), c.make({2, 3, 5})}, "inner dims differ", "ShapeError"),
      fails({c.make({3, 4}), c.make({4, 5})}, "2-d operands", "ShapeError"),
      fails({c.make({2, 3, 4}), c.make({2, 4, 5}, C, other_dtype(c))}, "dtypes differ", "DTypeError"),
  };
}

std::vector<Sample> addmm_samples(SampleContext& c) {
  if (c.dtype() == kBool) return {fails({c.make({2, 2}), c.make({2, 3}), c.make({3, 2})}, "bool", "DTypeError")};
  std::vector<Sample> out = {
      ok({c.make({3, 5}), c.make({3, 4}), c.make({4, 5})}, "same-shape self"),
      ok({c.make({5}), c.make({3, 4}), c.make({4, 5})}, "self [5] broadcasts"),
      ok({c.make({3, 1}), c.make({3, 4}, T), c.make({4, 5}, S)}, "self [3, 1], transposed x stepped"),
      ok({c.make({}), c.make({3, 4}), c.make({4, 5})}, "0-d self"),
      ok({c.make({3, 5}), c.make({3, 4}), c.make({4, 5}), 2, 3}, "beta 2, alpha 3"),
      ok({c.make({3, 5}), c.make({3, 4}), c.make({4, 5}), 0, 1}, "beta 0"),
      ok({c.make({0, 5}), c.make({0, 4}), c.make({4, 5})}, "zero rows"),
      ok({c.make({2, 3}), c.make({2, 0}), c.make({0, 3})}, "zero inner dim: beta * self"),
      fails({c.make({4}), c.make({3, 4}), c.make({4, 5})}, "self [4] does not broadcast", "ShapeError"),
      fails({c.make({1, 3, 5}), c.make({3, 4}), c.make({4, 5})}, "3-d self", "ShapeError"),
      fails({c.make({3, 5}), c.make({4}), c.make({4, 5})}, "1-d mat1", "ShapeError"),
      fails({c.make({3, 5}), c.make({3, 4}), c.make({3, 5})}, "inner dims differ", "ShapeError"),
      fails({c.make({3, 5}), c.make({3, 4}), c.make({4, 5}, C, other_dtype(c))}, "dtypes differ", "DTypeError"),
  };
  if (is_floating_point(c.dtype()))
    out.push_back(ok({c.make({3, 5}), c.make({3, 4}), c.make({4, 5}), 0.5, -1.5}, "beta 0.5, alpha -1.5"));
  return out;
}

std::vector<Sample> baddbmm_samples(SampleContext& c) {
  if (c.dtype() == kBool)
    return {fails({c.make({1, 2, 2}), c.make({1, 2, 3}), c.make({1, 3, 2})}, "bool", "DTypeError")};
  std::vector<Sample> out = {
      ok({c.make({2, 3, 5}), c.make({2, 3, 4}), c.make({2, 4, 5})}, "same-shape self"),
      ok({c.make({5}), c.make({2, 3, 4}), c.make({2, 4, 5})}, "self [5] broadcasts"),
      ok({c.make({3, 1}), c.make({2, 3, 4}, T), c.make({2, 4, 5}, E)}, "self [3, 1], transposed x expanded"),
      ok({c.make({}), c.make({2, 3, 4}), c.make({2, 4, 5}, O)}, "0-d self"),
      ok({c.make({2, 3, 5}), c.make({2, 3, 4}), c.make({2, 4, 5}), 2, 3}, "beta 2, alpha 3"),
      ok({c.make({2, 3, 5}), c.make({2, 3, 4}), c.make({2, 4, 5}), 0, 1}, "beta 0"),
      ok({c.make({0, 3, 5}), c.make({0, 3, 4}), c.make({0, 4, 5})}, "zero batch"),
      fails({c.make({3, 3, 5}), c.make({2, 3, 4}), c.make({2, 4, 5})}, "self does not broadcast", "ShapeError"),
      fails({c.make({3, 5}), c.make({2, 3, 4}), c.make({3, 4, 5})}, "batch sizes differ", "ShapeError"),
      fails({c.make({3, 5}), c.make({3, 4}), c.make({4, 5})}, "2-d batches", "IndexError"),
      fails({c.make({2, 3, 5}), c.make({2, 3, 4}), c.make({2, 4, 5}, C, other_dtype(c))}, "batch dtypes differ",
            "DTypeError"),
  };
  if (is_floating_point(c.dtype())) {
    out.push_back(ok({c.make({2, 3, 5}), c.make({2, 3, 4}), c.make({2, 4, 5}), 0.5, -1.5}, "beta 0.5, alpha -1.5"));
    out.push_back(ok({c.make({2, 3, 5}, C, other_dtype(c)), c.make({2, 3, 4}), c.make({2, 4, 5})},
                     "self of another dtype is converted"));
  }
  return out;
}

std::vector<Sample> dot_samples(SampleContext& c) {
  if (c.dtype() == kBool) return {fails({c.make({3}), c.make({3})}, "bool", "DTypeError")};
  return {
      ok({c.make({5}), c.make({5})}, "[5] . [5]"),
      ok({c.make({7}, S), c.make({7}, O)}, "stepped . offset"),
      ok({c.make({4}, E), c.make({4})}, "expanded (stride 0)"),
      ok({c.make({0}), c.make({0})}, "empty: 0"),
      fails({c.make({2, 3}), c.make({2, 3})}, "2-d", "ShapeError"),
      fails({c.make({}), c.make({})}, "0-d", "ShapeError"),
      fails({c.make({4}), c.make({5})}, "sizes differ", "ShapeError"),
      fails({c.make({4}), c.make({4}, C, other_dtype(c))}, "dtypes differ", "DTypeError"),
  };
}

std::vector<Sample> outer_samples(SampleContext& c) {
  return {
      ok({c.make({4}), c.make({5})}, "[4] x [5]"),
      ok({c.make({3}, S), c.make({2}, O)}, "stepped x offset"),
      ok({c.make({0}), c.make({3})}, "empty"),
      ok({c.make({3}), c.make({4}, C, kInt32)}, "mixed dtype with int32 (promoted)"),
      fails({c.make({2, 3}), c.make({3})}, "2-d self", "ShapeError"),
      fails({c.make({3}), c.make({})}, "0-d vec2", "ShapeError"),
  };
}

std::vector<Sample> linear_samples(SampleContext& c) {
  return {
      ok({c.make({3, 4}), c.make({5, 4}), c.make({5})}, "2-d input with bias (addmm)"),
      ok({c.make({3, 4}), c.make({5, 4})}, "no bias"),
      ok({c.make({4}), c.make({5, 4}), c.make({5})}, "1-d input"),
      ok({c.make({3, 4}), c.make({4})}, "1-d weight"),
      ok({c.make({4}), c.make({4}), c.make({})}, "1-d input and weight, 0-d bias"),
      ok({c.make({2, 3, 4}), c.make({5, 4}), c.make({5})}, "contiguous 3-d input"),
      ok({c.make({2, 3, 4}, T), c.make({5, 4}), c.make({3, 5})}, "non-contiguous 3-d input, [3, 5] bias"),
      ok({c.make({2, 3, 2, 4}), c.make({5, 4}, T), c.make({2, 5})}, "4-d input, transposed weight"),
      ok({c.make({0, 4}), c.make({5, 4}), c.make({5})}, "zero rows"),
      fails({c.make({2, 3, 4}), c.make({5, 4}), c.make({3, 5})}, "contiguous 3-d input, [3, 5] bias", "ShapeError"),
      fails({c.make({3, 4}), c.make({4, 5})}, "weight of the wrong shape", "ShapeError"),
      fails({c.make({3, 4}), c.make({2, 5, 4})}, "3-d weight", "ShapeError"),
      fails({c.make({3, 4}), c.make({5, 4}), c.make({4})}, "bias of the wrong size", "ShapeError"),
      fails({c.make({}), c.make({4})}, "0-d input", "ShapeError"),
      fails({c.make({3, 4}), c.make({4}), c.make({})}, "2-d input, 1-d weight, bias (addmm needs a matrix)",
            "ShapeError"),
      fails({c.make({3, 4}), c.make({5, 4}, C, other_dtype(c))}, "weight dtype differs", "DTypeError"),
  };
}

// linear_backward(self, grad_output, weight, output_mask): the cpu plugin's
// tiles of 8 columns and 32-wide slices of K (a tail of columns, two slices)
// and its matmul path above K = 64.
std::vector<Sample> linear_backward_samples(SampleContext& c) {
  const IntList all{1, 1, 1};
  return {
      ok({c.make({3, 4}), c.make({3, 5}), c.make({5, 4}), all}, "[3, 4] input, 5 outputs"),
      ok({c.make({2, 3, 6}), c.make({2, 3, 19}), c.make({19, 6}), all}, "3-d input, 19 outputs (a tail of 3)"),
      ok({c.make({9, 40}), c.make({9, 16}), c.make({16, 40}), all}, "K 40: two slices"),
      ok({c.make({5, 70}), c.make({5, 9}), c.make({9, 70}), all}, "K 70"),
      ok({c.make({4, 6}), c.make({4, 8}), c.make({8, 6}, T), IntList{1, 0, 1}}, "transposed weight, mask: input, bias"),
      ok({c.make({4, 6}, T), c.make({4, 8}), c.make({8, 6}), IntList{0, 1, 0}}, "transposed input, mask: weight"),
      ok({c.make({4, 6}), c.make({4, 8}, S), c.make({8, 6}), IntList{0, 0, 1}}, "stepped grad_output, mask: bias"),
      ok({c.make({6}), c.make({3}), c.make({3, 6}), all}, "1-d input"),
      ok({c.make({0, 4}), c.make({0, 5}), c.make({5, 4}), all}, "zero rows"),
      ok({c.make({3, 4}), c.make({3, 0}), c.make({0, 4}), all}, "no outputs"),
      ok({c.make({2, 3, 0}), c.make({2, 3, 5}), c.make({5, 0}), all}, "no inputs"),
      fails({c.make({3, 4}), c.make({3, 6}), c.make({5, 4}), all}, "grad_output of another size", "ShapeError"),
      fails({c.make({3, 4}), c.make({3, 5}), c.make({5, 3}), all}, "weight of another in_features", "ShapeError"),
      fails({c.make({3, 4}), c.make({3, 4}), c.make({4}), all}, "1-d weight", "ShapeError"),
      fails({c.make({3, 4}), c.make({3, 5}), c.make({5, 4}, C, other_dtype(c)), all}, "weight dtype differs",
            "DTypeError"),
      fails({c.make({3, 4}), c.make({3, 5}), c.make({5, 4}), IntList{1, 1}}, "mask of 2", "ValueError"),
  };
}

}  // namespace

std::vector<OpSamples> blas_samples() {
  return {
      {"matmul", &matmul_samples, {kFloat32, kFloat64, kFloat16, kBFloat16, kInt32, kInt64}, 16},
      {"mm", &mm_samples, kProductDTypes, 16},
      {"bmm", &bmm_samples, kProductDTypes, 16},
      {"addmm", &addmm_samples, kProductDTypes, 16},
      {"baddbmm", &baddbmm_samples, kProductDTypes, 16},
      {"dot", &dot_samples, kProductDTypes, 16},
      {"outer", &outer_samples},
      {"linear", &linear_samples, {kFloat32, kFloat64, kBFloat16, kInt32, kInt64}, 16},
      {"linear_backward", &linear_backward_samples, {kFloat32, kFloat64, kBFloat16}, 16},
  };
}

}  // namespace axle::conformance
