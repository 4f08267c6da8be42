// Samples for the LU and Cholesky ops of the linalg family
// (dispatcher/src/ops/linalg.cpp, linalg_cholesky.cpp). The matrices are
// well-conditioned (a random part in [-1, 1] plus 2n times a permutation, so
// that LU has to pivot), symmetric positive-definite for Cholesky: the float64
// gradient suite differentiates every sample. Singular and other
// data-dependent errors whose values matter are in tests/python/test_linalg.py.
#include "linalg_matrices.h"

namespace axle::conformance {
namespace {

using namespace linalg_samples_util;

std::vector<Sample> int_input(SampleContext& c, Stack rest = {}) {
  Stack args = {c.make({3, 3}, C, kInt64)};
  args.insert(args.end(), rest.begin(), rest.end());
  return {fails(args, "int64 input", "DTypeError")};
}

// Square-matrix ops of one argument (det, inv, slogdet, ...).
std::vector<Sample> square_samples(SampleContext& c, const Stack& extra = {}) {
  auto with = [&](Tensor a) {
    Stack s = {std::move(a)};
    s.insert(s.end(), extra.begin(), extra.end());
    return s;
  };
  std::vector<Sample> out = {
      ok(with(well(c, {3, 3})), "3 x 3"),
      ok(with(well(c, {1, 1})), "1 x 1"),
      ok(with(well(c, {2, 4, 4})), "batch of 2"),
      ok(with(well(c, {2, 1, 3, 3})), "two batch dims"),
      ok(with(well(c, {4, 4}, T)), "transposed"),
      ok(with(well(c, {3, 3}, S)), "stepped"),
      ok(with(well(c, {2, 3, 3}, E)), "expanded batch"),
      ok(with(well(c, {3, 3}, O)), "offset"),
      ok(with(well(c, {0, 3, 3})), "empty batch"),
      fails(with(c.make({3})), "1-d input", "ShapeError"),
      fails(with(c.make({2, 3})), "not square", "ShapeError"),
  };
  return out;
}

std::vector<Sample> lu_factor_ex_samples(SampleContext& c) {
  std::vector<Sample> out = square_samples(c);
  out.push_back(ok({rect(c, {4, 3})}, "tall 4 x 3"));
  out.push_back(ok({rect(c, {2, 3, 5}, T)}, "wide 3 x 5, transposed"));
  out.erase(out.end() - 3);  // lu_factor takes rectangular matrices
  out.push_back(ok({well(c, {3, 3}), true, true}, "check_errors"));
  out.push_back(fails({well(c, {3, 3}), false}, "pivot=False", "NotImplementedError"));
  return out;
}

std::vector<Sample> lu_factor_samples(SampleContext& c) {
  return {
      ok({well(c, {3, 3})}, "3 x 3"),
      ok({well(c, {2, 4, 4}, T)}, "batch, transposed"),
      ok({rect(c, {4, 2})}, "tall"),
      fails({zeros({2, 3, 3}, TensorOptions().dtype(c.dtype()).device(c.device()))}, "singular", "LinAlgError"),
      fails({c.make({3})}, "1-d input", "ShapeError"),
  };
}

std::vector<Sample> lu_samples(SampleContext& c) {
  return {
      ok({well(c, {3, 3})}, "3 x 3"), ok({well(c, {2, 4, 4}, S)}, "batch, stepped"),   ok({rect(c, {5, 3})}, "tall"),
      ok({rect(c, {2, 3})}, "wide"),  fails({c.make({3})}, "1-d input", "ShapeError"),
  };
}

// lu_factor's LU and pivots of `a`.
Stack factors(const Tensor& a) {
  auto [lu, piv] = linalg_lu_factor(a);
  return {lu, piv};
}

std::vector<Sample> lu_unpack_samples(SampleContext& c) {
  const Stack sq = factors(well(c, {3, 3})), batch = factors(well(c, {2, 4, 4})), tall = factors(rect(c, {5, 3})),
              wide = factors(rect(c, {2, 2, 4}));
  const Tensor lu_t = as_layout(c, sq[0].tensor(), T);
  return {
      ok({sq[0], sq[1]}, "3 x 3"),
      ok({lu_t, sq[1]}, "transposed LU"),
      ok({batch[0], batch[1]}, "batch"),
      ok({tall[0], tall[1]}, "tall"),
      ok({wide[0], wide[1]}, "wide, batch"),
      ok({sq[0], sq[1], false, true}, "unpack_data=False"),
      ok({batch[0], batch[1], true, false}, "unpack_pivots=False"),
      fails({sq[0], sq[1].tensor().to(kInt64)}, "int64 pivots", "DTypeError"),
      fails({c.make({3}), sq[1]}, "1-d LU", "ShapeError"),
  };
}

std::vector<Sample> lu_solve_samples(SampleContext& c) {
  const Stack sq = factors(well(c, {3, 3})), batch = factors(well(c, {2, 3, 3}));
  return {
      ok({sq[0], sq[1], c.make({3, 2})}, "AX = B"),
      ok({sq[0], sq[1], c.make({3, 2}, T), true, true}, "A^T X = B, transposed B"),
      ok({sq[0], sq[1], c.make({2, 3}), false}, "XA = B"),
      ok({sq[0], sq[1], c.make({4, 3}), false, true}, "X A^T = B"),
      ok({batch[0], batch[1], c.make({3, 4})}, "batched LU, one B"),
      ok({sq[0], sq[1], c.make({2, 3, 1}, S)}, "one LU, batched stepped B"),
      fails({sq[0], sq[1], c.make({3})}, "1-d B", "ShapeError"),
      fails({sq[0], sq[1], c.make({2, 3})}, "incompatible shapes", "ShapeError"),
      fails({sq[0], sq[1], c.make({3, 2}, C, other(c))}, "dtypes differ", "DTypeError"),
  };
}

std::vector<Sample> solve_triangular_samples(SampleContext& c) {
  return {
      ok({tri(c, {3, 3}), c.make({3, 2}), true}, "upper, left"),
      ok({tri(c, {3, 3}), c.make({3, 2}), false}, "lower, left"),
      ok({tri(c, {3, 3}, T), c.make({2, 3}), true, false}, "upper, right, transposed A"),
      ok({tri(c, {4, 4}), c.make({1, 4}, S), false, false}, "lower, right, stepped B"),
      ok({tri(c, {3, 3}), c.make({3, 3}), true, true, true}, "unitriangular"),
      ok({tri(c, {2, 1, 3, 3}), c.make({4, 3, 2}), false, true, false}, "broadcast batch"),
      ok({tri(c, {2, 3, 3}, E), c.make({3, 1}, O), true}, "expanded A, offset B"),
      ok({tri(c, {3, 3}), c.make({3, 0}), true}, "no columns"),
      fails({tri(c, {3, 3}), c.make({3}), true}, "1-d B", "ShapeError"),
      fails({c.make({2, 3}), c.make({2, 3}), true}, "A not square", "ShapeError"),
      fails({tri(c, {3, 3}), c.make({2, 3}), true}, "incompatible shapes", "ShapeError"),
      fails({c.make({3, 3}, C, kInt64), c.make({3, 3}, C, kInt64), true}, "int64", "DTypeError"),
  };
}

std::vector<Sample> det_samples(SampleContext& c) {
  std::vector<Sample> out = square_samples(c);
  for (Sample& s : int_input(c)) out.push_back(s);
  return out;
}

std::vector<Sample> logdet_samples(SampleContext& c) {
  std::vector<Sample> out = det_samples(c);
  out.push_back(ok({spd(c, {2, 3, 3})}, "positive-definite batch"));
  return out;
}

std::vector<Sample> inv_samples(SampleContext& c) {
  std::vector<Sample> out = det_samples(c);
  out.push_back(
      fails({zeros({2, 3, 3}, TensorOptions().dtype(c.dtype()).device(c.device()))}, "singular", "LinAlgError"));
  return out;
}

std::vector<Sample> inv_ex_samples(SampleContext& c) {
  std::vector<Sample> out = square_samples(c);
  out.push_back(ok({well(c, {3, 3}), true}, "check_errors"));
  out.push_back(fails({zeros({3, 3}, TensorOptions().dtype(c.dtype()).device(c.device())), true},
                      "singular, check_errors", "LinAlgError"));
  return out;
}

std::vector<Sample> solve_samples(SampleContext& c) {
  return {
      ok({well(c, {3, 3}), c.make({3, 2})}, "AX = B"),
      ok({well(c, {3, 3}), c.make({3})}, "vector B"),
      ok({well(c, {2, 3, 3}), c.make({2, 3})}, "batch of vectors"),
      ok({well(c, {3, 3, 3}), c.make({3, 3})}, "[3, 3] B for [3, 3, 3] A: vectors, as torch"),
      ok({well(c, {2, 1, 3, 3}, T), c.make({4, 3, 2}, S)}, "broadcast batch, transposed A, stepped B"),
      ok({well(c, {3, 3}), c.make({2, 3}), false}, "XA = B"),
      ok({well(c, {2, 3, 3}, E), c.make({3, 1}, O)}, "expanded A, offset B"),
      fails({c.make({3}), c.make({3})}, "1-d A", "ShapeError"),
      fails({c.make({2, 3}), c.make({2})}, "A not square", "ShapeError"),
      fails({well(c, {3, 3}), c.make({2, 3})}, "incompatible shapes", "ShapeError"),
      fails({well(c, {3, 3}), c.make({3}), false}, "vector B with left=False", "ShapeError"),
      fails({well(c, {3, 3}), c.make({3, 2}, C, other(c))}, "dtypes differ", "DTypeError"),
      fails({zeros({3, 3}, TensorOptions().dtype(c.dtype()).device(c.device())), c.make({3, 1})}, "singular",
            "LinAlgError"),
  };
}

std::vector<Sample> solve_ex_samples(SampleContext& c) {
  return {
      ok({well(c, {3, 3}), c.make({3, 2})}, "AX = B"),
      ok({well(c, {2, 3, 3}), c.make({3}), true, true}, "vector B, check_errors"),
      ok({well(c, {3, 3}, T), c.make({4, 3}), false}, "XA = B"),
      fails({zeros({3, 3}, TensorOptions().dtype(c.dtype()).device(c.device())), c.make({3, 1}), true, true},
            "singular, check_errors", "LinAlgError"),
  };
}

std::vector<Sample> matrix_power_samples(SampleContext& c) {
  if (!is_floating_point(c.dtype()))
    return {
        ok({c.make({3, 3}, C, {}, -2, 3), 3}, "cube"),
        ok({c.make({2, 2, 2}, T), 0}, "n = 0"),
        fails({c.make({3, 3}), -1}, "n = -1 of an integer matrix", "DTypeError"),
    };
  return {
      ok({well(c, {3, 3}), 0}, "n = 0"),
      ok({well(c, {3, 3}), 1}, "n = 1"),
      ok({well(c, {2, 3, 3}, T), 2}, "n = 2, batch, transposed"),
      ok({c.make({3, 3}, S, {}, -1, 1), 5}, "n = 5, stepped"),
      ok({well(c, {3, 3}), -1}, "n = -1"),
      ok({well(c, {2, 2, 2}), -3}, "n = -3, batch"),
      ok({well(c, {0, 2, 2}), 3}, "empty batch"),
      fails({c.make({2, 3}), 2}, "not square", "ShapeError"),
      fails({c.make({3}), 2}, "1-d", "ShapeError"),
  };
}

std::vector<Sample> cholesky_ex_samples(SampleContext& c) {
  return {
      ok({spd(c, {3, 3})}, "3 x 3"),
      ok({spd(c, {3, 3}), true}, "upper"),
      ok({spd(c, {2, 4, 4}, T)}, "batch, transposed"),
      ok({spd(c, {3, 3}, S), false, true}, "stepped, check_errors"),
      ok({spd(c, {2, 3, 3}, E)}, "expanded batch"),
      ok({spd(c, {1, 1}, O), true}, "1 x 1, offset, upper"),
      ok({spd(c, {0, 2, 2})}, "empty batch"),
      fails({c.make({3})}, "1-d", "ShapeError"),
      fails({c.make({2, 3})}, "not square", "ShapeError"),
      fails({c.make({3, 3}, C, kInt64)}, "int64", "DTypeError"),
  };
}

std::vector<Sample> cholesky_samples(SampleContext& c) {
  std::vector<Sample> out = cholesky_ex_samples(c);
  out.erase(out.begin() + 3);  // check_errors is linalg_cholesky_ex's
  const Tensor neg = identity(c, 3, 3) * -1.0;
  out.push_back(fails({neg}, "not positive-definite", "LinAlgError"));
  out.push_back(fails({as_layout(c, neg.expand({2, 3, 3}), C)}, "not positive-definite batch", "LinAlgError"));
  return out;
}

// The Cholesky factor of an SPD matrix (upper: U of A = U^T U).
Tensor factor(SampleContext& c, const IntList& sizes, bool upper, Layout layout = C) {
  return as_layout(c, call_op("linalg_cholesky", {spd(c, sizes), upper})[0].tensor(), layout);
}

std::vector<Sample> cholesky_solve_samples(SampleContext& c) {
  return {
      ok({c.make({3, 2}), factor(c, {3, 3}, false)}, "lower"),
      ok({c.make({3, 2}, T), factor(c, {3, 3}, true), true}, "upper, transposed B"),
      ok({c.make({4, 1, 3, 2}), factor(c, {2, 3, 3}, false, S)}, "broadcast batch, stepped factor"),
      ok({c.make({3, 1}, O), factor(c, {2, 3, 3}, true, T), true}, "batched transposed factor"),
      fails({c.make({3}), factor(c, {3, 3}, false)}, "1-d B", "ShapeError"),
      fails({c.make({2, 3}), factor(c, {3, 3}, false)}, "incompatible shapes", "ShapeError"),
      fails({c.make({3, 2}), c.make({3, 2})}, "A not square", "ShapeError"),
      fails({c.make({3, 2}, C, other(c)), factor(c, {3, 3}, false)}, "dtypes differ", "DTypeError"),
  };
}

std::vector<Sample> cholesky_inverse_samples(SampleContext& c) {
  return {
      ok({factor(c, {3, 3}, false)}, "lower"),
      ok({factor(c, {3, 3}, true), true}, "upper"),
      ok({factor(c, {2, 4, 4}, false, T)}, "batch, transposed"),
      ok({factor(c, {3, 3}, true, S), true}, "stepped, upper"),
      ok({factor(c, {0, 2, 2}, false)}, "empty batch"),
      fails({c.make({3})}, "1-d", "ShapeError"),
      fails({c.make({2, 3})}, "not square", "ShapeError"),
      fails({c.make({3, 3}, C, kInt64)}, "int64", "DTypeError"),
  };
}

std::vector<Sample> triangular_solve_samples(SampleContext& c) {
  return {
      ok({c.make({3, 2}), tri(c, {3, 3})}, "upper (default)"),
      ok({c.make({3, 2}), tri(c, {3, 3}), false}, "lower"),
      ok({c.make({3, 2}, T), tri(c, {3, 3}, S), true, true}, "transpose, transposed b, stepped A"),
      ok({c.make({3, 3}), tri(c, {3, 3}), false, true, true}, "lower, transpose, unitriangular"),
      ok({c.make({4, 1, 3, 2}), tri(c, {2, 3, 3}, E)}, "broadcast batch"),
      fails({c.make({3}), tri(c, {3, 3})}, "1-d b", "ShapeError"),
      fails({c.make({2, 3}), tri(c, {3, 3})}, "incompatible shapes", "ShapeError"),
      fails({c.make({3, 2}), c.make({3, 2})}, "A not square", "ShapeError"),
      fails({c.make({3, 2}, C, other(c)), tri(c, {3, 3})}, "dtypes differ", "DTypeError"),
  };
}

}  // namespace

std::vector<OpSamples> linalg_samples() {
  const std::vector<DType> power_dtypes = {kFloat32, kFloat64, kInt64};
  return {
      {"linalg_lu_factor_ex", &lu_factor_ex_samples, kLinalgDTypes, kScale},
      {"linalg_lu_factor", &lu_factor_samples, kLinalgDTypes, kScale},
      {"linalg_lu", &lu_samples, kLinalgDTypes, kScale},
      {"lu_unpack", &lu_unpack_samples, kLinalgDTypes, kScale},
      {"linalg_lu_solve", &lu_solve_samples, kLinalgDTypes, kScale},
      {"linalg_solve_triangular", &solve_triangular_samples, kLinalgDTypes, kScale},
      {"linalg_det", &det_samples, kLinalgDTypes, kScale},
      {"det", &det_samples, kLinalgDTypes, kScale},
      {"linalg_slogdet", &det_samples, kLinalgDTypes, kScale},
      {"slogdet", &det_samples, kLinalgDTypes, kScale},
      {"logdet", &logdet_samples, kLinalgDTypes, kScale},
      {"linalg_inv_ex", &inv_ex_samples, kLinalgDTypes, kScale},
      {"linalg_inv", &inv_samples, kLinalgDTypes, kScale},
      {"inverse", &inv_samples, kLinalgDTypes, kScale},
      {"linalg_solve_ex", &solve_ex_samples, kLinalgDTypes, kScale},
      {"linalg_solve", &solve_samples, kLinalgDTypes, kScale},
      {"linalg_matrix_power", &matrix_power_samples, power_dtypes, kScale},
      {"matrix_power", &matrix_power_samples, power_dtypes, kScale},
      {"linalg_cholesky_ex", &cholesky_ex_samples, kLinalgDTypes, kScale},
      {"linalg_cholesky", &cholesky_samples, kLinalgDTypes, kScale},
      {"cholesky", &cholesky_samples, kLinalgDTypes, kScale},
      {"cholesky_solve", &cholesky_solve_samples, kLinalgDTypes, kScale},
      {"cholesky_inverse", &cholesky_inverse_samples, kLinalgDTypes, kScale},
      {"triangular_solve", &triangular_solve_samples, kLinalgDTypes, kScale},
  };
}

}  // namespace axle::conformance
