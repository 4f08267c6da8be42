// Samples for the orthogonal decompositions of the linalg family and their
// compositions (dispatcher/src/ops/linalg_decomp.cpp, linalg_spectral.cpp).
// Forms without a derivative (torch refuses it too: Q of mode 'r', the complete
// Q of a tall matrix, no eigenvectors or singular vectors) are not sampled, as
// the gradient checks differentiate every sample; tests/python/test_linalg.py
// has them.
#include "linalg_matrices.h"

#include <limits>

namespace axle::conformance {
namespace {

using namespace linalg_samples_util;

// Symmetric (r + r^T): distinct eigenvalues.
Tensor sym(SampleContext& c, const IntList& sizes, Layout layout = C) {
  const Tensor r = c.make(sizes, C, {}, -1, 1);
  return as_layout(c, r + r.transpose(-1, -2), layout);
}

std::vector<Sample> linalg_qr_samples(SampleContext& c) {
  std::vector<Sample> out = {
      ok({rect(c, {3, 3})}, "3 x 3"),
      ok({rect(c, {5, 3})}, "tall"),
      ok({rect(c, {3, 5})}, "wide"),
      ok({rect(c, {2, 4, 3}, T)}, "batch, transposed"),
      ok({rect(c, {4, 4}, S), "complete"}, "square, complete, stepped"),
      ok({rect(c, {2, 5}, O), "complete"}, "wide, complete, offset"),
      ok({rect(c, {2, 3, 3}, E)}, "expanded batch"),
      ok({rect(c, {0, 3, 2})}, "empty batch"),
      fails({c.make({3})}, "1-d", "ShapeError"),
      fails({c.make({3, 3}, C, kInt64)}, "int64", "DTypeError"),
      fails({c.make({3, 3}), "full"}, "unknown mode", "ValueError"),
  };
  return out;
}

std::vector<Sample> qr_samples(SampleContext& c) {
  std::vector<Sample> out = {
      ok({rect(c, {4, 3})}, "tall"),
      ok({rect(c, {2, 3, 5}, T)}, "wide batch, transposed"),
      ok({rect(c, {3, 3}), false}, "square, some=False"),
      fails({c.make({3})}, "1-d", "ShapeError"),
  };
  return out;
}

std::vector<Sample> eigh_samples(SampleContext& c) {
  return {
      ok({sym(c, {3, 3})}, "3 x 3"),
      ok({sym(c, {2, 4, 4}, T), "U"}, "batch, transposed, upper"),
      ok({c.make({3, 3}, S, {}, -1, 1)}, "not symmetric: the lower triangle, stepped"),
      ok({c.make({3, 3}, O, {}, -1, 1), "U"}, "not symmetric: the upper triangle, offset"),
      ok({sym(c, {2, 3, 3}, E)}, "expanded batch"),
      ok({sym(c, {1, 1})}, "1 x 1"),
      ok({sym(c, {0, 2, 2})}, "empty batch"),
      fails({c.make({3})}, "1-d", "ShapeError"),
      fails({c.make({2, 3})}, "not square", "ShapeError"),
      fails({c.make({3, 3}, C, kInt64)}, "int64", "DTypeError"),
      fails({sym(c, {3, 3}), "X"}, "UPLO X", "ValueError"),
  };
}

std::vector<Sample> linalg_eigh_kernel_samples(SampleContext& c) {
  std::vector<Sample> out = eigh_samples(c);
  return out;
}

std::vector<Sample> svd_kernel_samples(SampleContext& c) {
  std::vector<Sample> out = {
      ok({c.make({3, 3}, C, {}, -1, 1)}, "3 x 3"),
      ok({c.make({5, 3}, C, {}, -1, 1)}, "tall"),
      ok({c.make({2, 3, 5}, T, {}, -1, 1)}, "wide batch, transposed"),
      ok({c.make({4, 3}, S, {}, -1, 1), true}, "tall, full_matrices, stepped"),
      ok({c.make({2, 3}, O, {}, -1, 1), true}, "wide, full_matrices, offset"),
      ok({c.make({2, 3, 3}, E, {}, -1, 1)}, "expanded batch"),
      ok({c.make({0, 3, 2})}, "empty batch"),
      fails({c.make({3})}, "1-d", "ShapeError"),
      fails({c.make({3, 3}, C, kInt64)}, "int64", "DTypeError"),
  };
  return out;
}

std::vector<Sample> linalg_svd_samples(SampleContext& c) {
  return {
      ok({c.make({3, 3}, C, {}, -1, 1)}, "3 x 3 (full_matrices)"),
      ok({c.make({4, 3}, T, {}, -1, 1)}, "tall, transposed"),
      ok({c.make({2, 3, 5}, C, {}, -1, 1), false}, "wide batch, reduced"),
      ok({c.make({2, 3}, S, {}, -1, 1)}, "wide, stepped"),
      fails({c.make({3})}, "1-d", "ShapeError"),
      fails({c.make({3, 3}, C, kInt64)}, "int64", "DTypeError"),
  };
}

std::vector<Sample> svdvals_samples(SampleContext& c) {
  return {
      ok({c.make({3, 3}, C, {}, -1, 1)}, "3 x 3"),
      ok({c.make({4, 3}, T, {}, -1, 1)}, "tall, transposed"),
      ok({c.make({2, 3, 5}, S, {}, -1, 1)}, "wide batch, stepped"),
      fails({c.make({3})}, "1-d", "ShapeError"),
      fails({c.make({3, 3}, C, kInt64)}, "int64", "DTypeError"),
  };
}

std::vector<Sample> old_svd_samples(SampleContext& c) {
  std::vector<Sample> out = {
      ok({c.make({3, 3}, C, {}, -1, 1)}, "3 x 3"),
      ok({c.make({2, 5, 3}, T, {}, -1, 1)}, "tall batch, transposed"),
      ok({c.make({3, 4}, C, {}, -1, 1), false}, "wide, some=False"),
      fails({c.make({3})}, "1-d", "ShapeError"),
  };
  return out;
}

// A full-rank m x n matrix with distinct singular values.
Tensor full_rank(SampleContext& c, const IntList& sizes, Layout layout = C) { return rect(c, sizes, layout); }

std::vector<Sample> pinv_samples(SampleContext& c) {
  return {
      ok({full_rank(c, {3, 3})}, "3 x 3"),
      ok({full_rank(c, {4, 2}, T)}, "tall, transposed"),
      ok({full_rank(c, {2, 2, 5})}, "wide batch"),
      ok({full_rank(c, {3, 3}), Value(), 0.1}, "rtol 0.1"),
      ok({spd(c, {3, 3}, S), Value(), Value(), true}, "hermitian, stepped"),
      // (a 1-d input: torch's aten overload fails with an IndexError, torch.linalg.pinv as axle;
      // tests/python/test_linalg.py has it)
      fails({c.make({3, 3}, C, kInt64)}, "int64", "DTypeError"),
  };
}

std::vector<Sample> pinv_rcond_samples(SampleContext& c) {
  return {
      ok({full_rank(c, {3, 4}), 1e-3}, "rcond 1e-3"),
      ok({spd(c, {2, 3, 3}), 1e-3, true}, "hermitian batch"),
  };
}

// A 0-d tolerance (or a batch of them) of the dtype under test.
Tensor tol(SampleContext& c, double v, const IntList& sizes = {}) {
  return full(sizes, v, TensorOptions().dtype(c.dtype()).device(c.device()));
}

// (hermitian forms: in the float overloads, where torch's gradient decides; with tolerance
// tensors torch's autograd cannot run, and finite differences see only the triangle read.)
std::vector<Sample> pinv_tensor_samples(SampleContext& c) {
  return {
      ok({full_rank(c, {3, 3}), tol(c, 0.5)}, "atol tensor"),
      ok({full_rank(c, {2, 4, 3}), Value(), tol(c, 0.1, {2})}, "rtol per batch element"),
  };
}

std::vector<Sample> pinv_rcond_tensor_samples(SampleContext& c) {
  return {
      ok({full_rank(c, {3, 4}), tol(c, 1e-3)}, "rcond tensor"),
      ok({full_rank(c, {2, 3, 3}), tol(c, 0.1, {2})}, "rcond per batch element"),
  };
}

std::vector<Sample> matrix_rank_tensor_samples(SampleContext& c) {
  return {
      ok({full_rank(c, {3, 3}), tol(c, 100.0)}, "atol tensor"),
      ok({full_rank(c, {2, 4, 3}), Value(), tol(c, 0.5, {2})}, "rtol per batch element"),
      ok({spd(c, {3, 3}), Value(), Value(), true}, "hermitian"),
  };
}

std::vector<Sample> matrix_rank_tol_tensor_samples(SampleContext& c) {
  return {
      ok({full_rank(c, {3, 3}), tol(c, 0.5)}, "tol tensor"),
      ok({spd(c, {2, 3, 3}), tol(c, 100.0, {2}), true}, "hermitian, tol per batch element"),
  };
}

std::vector<Sample> pinverse_samples(SampleContext& c) {
  return {
      ok({full_rank(c, {3, 3})}, "3 x 3"),
      ok({full_rank(c, {2, 4, 2}, T), 1e-3}, "tall batch, rcond 1e-3, transposed"),
      fails({c.make({3})}, "1-d", "ShapeError"),
  };
}

std::vector<Sample> matrix_rank_samples(SampleContext& c) {
  // Rank 1 with exact zero singular values: [[2, 0, 0], [1, 0, 0], [0, 0, 0], [0, 0, 0]].
  Tensor r1 = zeros({4, 3}, TensorOptions().dtype(c.dtype()).device(c.device()));
  narrow(narrow(r1, 1, 0, 1), 0, 0, 1).fill_(2);
  narrow(narrow(r1, 1, 0, 1), 0, 1, 1).fill_(1);
  return {
      ok({full_rank(c, {3, 3})}, "full rank"),
      ok({r1}, "rank 1"),
      ok({as_layout(c, r1.expand({2, 4, 3}), C), Value(), 0.5}, "rtol 0.5, batch"),
      ok({full_rank(c, {4, 4}), 100.0}, "atol 100"),
      ok({spd(c, {3, 3}), Value(), Value(), true}, "hermitian"),
      fails({c.make({3})}, "1-d", "ShapeError"),
      fails({c.make({3, 3}, C, kInt64)}, "int64", "DTypeError"),
  };
}

std::vector<Sample> matrix_rank_tol_samples(SampleContext& c) {
  return {
      ok({full_rank(c, {3, 3}), 0.5}, "tol 0.5"),
      ok({spd(c, {2, 3, 3}), 100.0, true}, "tol 100, hermitian"),
  };
}

std::vector<Sample> nuclear_norm_samples(SampleContext& c) {
  return {
      ok({c.make({3, 4}, C, {}, -1, 1)}, "3 x 4"),
      ok({c.make({4, 3}, T, {}, -1, 1), true}, "transposed, keepdim"),
      fails({c.make({3})}, "1-d", "ShapeError"),
      fails({c.make({2, 3, 4})}, "3-d", "ShapeError"),
  };
}

std::vector<Sample> nuclear_norm_dim_samples(SampleContext& c) {
  return {
      ok({c.make({2, 3, 4}, C, {}, -1, 1), IntList{0, 2}}, "dims (0, 2)"),
      ok({c.make({3, 2, 4}, S, {}, -1, 1), IntList{-1, 0}, true}, "dims (-1, 0), keepdim, stepped"),
      fails({c.make({2, 3, 4}), IntList{1, 1}}, "repeated dim", "ShapeError"),
  };
}

std::vector<Sample> cond_samples(SampleContext& c) {
  std::vector<Sample> out = {
      ok({well(c, {3, 3})}, "2-norm"),
      ok({c.make({2, 3, 4}, C, {}, -1, 1)}, "non-square batch, 2-norm"),
      ok({well(c, {3, 3}, T), -2}, "p = -2, transposed"),
      ok({well(c, {2, 3, 3}), 1}, "p = 1"),
      ok({well(c, {3, 3}), -1}, "p = -1"),
      ok({well(c, {3, 3}, S), std::numeric_limits<double>::infinity()}, "p = inf"),
      ok({well(c, {3, 3}), -std::numeric_limits<double>::infinity()}, "p = -inf"),
      fails({well(c, {3, 3}), 3}, "p = 3", "ValueError"),
      fails({c.make({2, 3}), 1}, "p = 1, not square", "ShapeError"),
      fails({c.make({3})}, "1-d", "ShapeError"),
  };
  return out;
}

std::vector<Sample> cond_str_samples(SampleContext& c) {
  return {
      ok({well(c, {3, 3}), "fro"}, "fro"),
      ok({well(c, {2, 3, 3}, T), "nuc"}, "nuc, batch"),
      fails({c.make({2, 3}), "fro"}, "fro, not square", "ShapeError"),
      fails({well(c, {3, 3}), "max"}, "unknown norm", "ValueError"),
  };
}

std::vector<Sample> lstsq_samples(SampleContext& c) {
  return {
      ok({full_rank(c, {5, 3}), c.make({5, 2})}, "tall (gelsy)"),
      ok({full_rank(c, {3, 3}, T), c.make({3, 1})}, "square, transposed"),
      ok({full_rank(c, {2, 3, 5}), c.make({2, 3, 2})}, "wide batch: minimum norm"),
      ok({full_rank(c, {5, 3}), c.make({5})}, "vector b"),
      ok({full_rank(c, {2, 5, 3}), c.make({1, 5, 2}, S)}, "broadcast batch, stepped b"),
      ok({full_rank(c, {5, 3}), c.make({5, 2}), Value(), "gelsd"}, "gelsd: residuals and singular values"),
      ok({full_rank(c, {2, 4, 3}), c.make({2, 4, 1}), Value(), "gels"}, "gels"),
      ok({full_rank(c, {4, 3}), c.make({4, 2}), 1e-8, "gelss"}, "gelss, rcond"),
      fails({c.make({5}), c.make({5, 2})}, "1-d A", "ShapeError"),
      fails({full_rank(c, {5, 3}), c.make({4, 2})}, "rows differ", "ShapeError"),
      fails({full_rank(c, {5, 3}), c.make({5, 2}, C, other(c))}, "dtypes differ", "DTypeError"),
      fails({full_rank(c, {5, 3}), c.make({5, 2}), Value(), "lu"}, "unknown driver", "ValueError"),
  };
}

std::vector<Sample> matrix_exp_samples(SampleContext& c) {
  return {
      ok({c.make({3, 3}, C, {}, -1, 1)}, "small norm"),
      ok({c.make({2, 4, 4}, T, {}, -3, 3)}, "batch, scaled and squared, transposed"),
      ok({c.make({3, 3}, S, {}, -0.01, 0.01)}, "tiny norm, stepped"),
      ok({c.make({1, 1}, O)}, "1 x 1, offset"),
      ok({c.make({2, 3, 3}, E, {}, -1, 1)}, "expanded batch"),
      ok({c.make({0, 2, 2})}, "empty batch"),
      fails({c.make({2, 3})}, "not square", "ShapeError"),
      fails({c.make({3})}, "1-d", "ShapeError"),
      fails({c.make({3, 3}, C, kInt64)}, "int64", "DTypeError"),
  };
}

std::vector<Sample> multi_dot_samples(SampleContext& c) {
  return {
      ok({std::vector<Tensor>{c.make({2, 3}), c.make({3, 4})}}, "two matrices"),
      ok({std::vector<Tensor>{c.make({3}), c.make({3, 4}, T), c.make({4, 2})}}, "row vector first"),
      ok({std::vector<Tensor>{c.make({2, 3}), c.make({3, 4}, S), c.make({4})}}, "column vector last"),
      ok({std::vector<Tensor>{c.make({3}), c.make({3, 2}), c.make({2})}}, "vector ends: 0-d"),
      ok({std::vector<Tensor>{c.make({2, 3}), c.make({3, 0}), c.make({0, 2})}}, "zero inner size"),
      fails({std::vector<Tensor>{c.make({2, 3})}}, "one tensor", "ShapeError"),
      fails({std::vector<Tensor>{c.make({2, 2, 3}), c.make({3, 4})}}, "3-d first", "ShapeError"),
      fails({std::vector<Tensor>{c.make({2, 3}), c.make({2, 3, 3}), c.make({3, 4})}}, "3-d middle", "ShapeError"),
      fails({std::vector<Tensor>{c.make({2, 3}), c.make({4, 2})}}, "sizes differ", "ShapeError"),
      fails({std::vector<Tensor>{c.make({2, 3}), c.make({3, 4}, C, other(c))}}, "dtypes differ", "DTypeError"),
  };
}

}  // namespace

std::vector<OpSamples> linalg_decomp_samples() {
  return {
      {"linalg_qr", &linalg_qr_samples, kLinalgDTypes, kScale},
      {"qr", &qr_samples, kLinalgDTypes, kScale},
      {"_linalg_eigh", &linalg_eigh_kernel_samples, kLinalgDTypes, kScale},
      {"linalg_eigh", &eigh_samples, kLinalgDTypes, kScale},
      {"linalg_eigvalsh", &eigh_samples, kLinalgDTypes, kScale},
      {"_linalg_svd", &svd_kernel_samples, kLinalgDTypes, kScale},
      {"linalg_svd", &linalg_svd_samples, kLinalgDTypes, kScale},
      {"linalg_svdvals", &svdvals_samples, kLinalgDTypes, kScale},
      {"svd", &old_svd_samples, kLinalgDTypes, kScale},
      {"linalg_pinv.atol_rtol_float", &pinv_samples, kLinalgDTypes, kScale},
      {"linalg_pinv", &pinv_rcond_samples, kLinalgDTypes, kScale},
      {"pinverse", &pinverse_samples, kLinalgDTypes, kScale},
      {"linalg_pinv.atol_rtol_tensor", &pinv_tensor_samples, kLinalgDTypes, kScale},
      {"linalg_pinv.rcond_tensor", &pinv_rcond_tensor_samples, kLinalgDTypes, kScale},
      {"linalg_matrix_rank.atol_rtol_tensor", &matrix_rank_tensor_samples, kLinalgDTypes, kScale},
      {"linalg_matrix_rank.tol_tensor", &matrix_rank_tol_tensor_samples, kLinalgDTypes, kScale},
      {"linalg_matrix_rank.atol_rtol_float", &matrix_rank_samples, kLinalgDTypes, kScale},
      {"linalg_matrix_rank", &matrix_rank_tol_samples, kLinalgDTypes, kScale},
      {"nuclear_norm", &nuclear_norm_samples, kLinalgDTypes, kScale},
      {"nuclear_norm.dim", &nuclear_norm_dim_samples, kLinalgDTypes, kScale},
      {"linalg_cond", &cond_samples, kLinalgDTypes, kScale},
      {"linalg_cond.p_str", &cond_str_samples, kLinalgDTypes, kScale},
      {"linalg_lstsq", &lstsq_samples, kLinalgDTypes, kScale},
      {"linalg_matrix_exp", &matrix_exp_samples, kLinalgDTypes, kScale},
      {"matrix_exp", &matrix_exp_samples, kLinalgDTypes, kScale},
      {"linalg_multi_dot", &multi_dot_samples, kLinalgDTypes, kScale},
  };
}

}  // namespace axle::conformance
