// The C++ API of the linear algebra ops (libtorch's names and signatures); see
// dispatcher/src/ops/linalg*.cpp for their declarations and rules. Matrices
// are the last two dims; leading dims are batch dims.
#pragma once

#include <axle/dispatcher.h>
#include <axle/tensor.h>

#include <optional>
#include <string>
#include <tuple>

namespace axle {

// LU with partial pivoting: (LU, pivots, info), (LU, pivots), (P, L, U).
AXLE_API std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A, bool pivot = true,
                                                                bool check_errors = false);
AXLE_API std::tuple<Tensor, Tensor> linalg_lu_factor(const Tensor& A, bool pivot = true);
AXLE_API std::tuple<Tensor, Tensor, Tensor> linalg_lu(const Tensor& A, bool pivot = true);
AXLE_API std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU_data, const Tensor& LU_pivots,
                                                      bool unpack_data = true, bool unpack_pivots = true);
AXLE_API Tensor linalg_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left = true,
                                bool adjoint = false);
AXLE_API Tensor linalg_solve_triangular(const Tensor& self, const Tensor& B, bool upper, bool left = true,
                                        bool unitriangular = false);
// Determinants, inverses, solves and powers (composites of the LU factorization).
AXLE_API Tensor linalg_det(const Tensor& A);
AXLE_API Tensor det(const Tensor& self);
AXLE_API std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& A);
AXLE_API std::tuple<Tensor, Tensor> slogdet(const Tensor& self);
AXLE_API Tensor logdet(const Tensor& self);
AXLE_API std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor& A, bool check_errors = false);
AXLE_API Tensor linalg_inv(const Tensor& A);
AXLE_API Tensor inverse(const Tensor& self);
AXLE_API std::tuple<Tensor, Tensor> linalg_solve_ex(const Tensor& A, const Tensor& B, bool left = true,
                                                    bool check_errors = false);
AXLE_API Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left = true);
AXLE_API Tensor linalg_matrix_power(const Tensor& self, int64_t n);
AXLE_API Tensor matrix_power(const Tensor& self, int64_t n);
// Cholesky and the triangular solves built on it.
AXLE_API std::tuple<Tensor, Tensor> linalg_cholesky_ex(const Tensor& self, bool upper = false,
                                                       bool check_errors = false);
AXLE_API Tensor linalg_cholesky(const Tensor& self, bool upper = false);
AXLE_API Tensor cholesky(const Tensor& self, bool upper = false);
AXLE_API Tensor cholesky_solve(const Tensor& self, const Tensor& input2, bool upper = false);
AXLE_API Tensor cholesky_inverse(const Tensor& self, bool upper = false);
AXLE_API std::tuple<Tensor, Tensor> triangular_solve(const Tensor& self, const Tensor& A, bool upper = true,
                                                     bool transpose = false, bool unitriangular = false);
// Orthogonal decompositions.
AXLE_API std::tuple<Tensor, Tensor> linalg_qr(const Tensor& A, const std::string& mode = "reduced");
AXLE_API std::tuple<Tensor, Tensor> qr(const Tensor& self, bool some = true);
AXLE_API std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& self, const std::string& UPLO = "L");
AXLE_API Tensor linalg_eigvalsh(const Tensor& self, const std::string& UPLO = "L");
AXLE_API std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, bool full_matrices = true);
AXLE_API Tensor linalg_svdvals(const Tensor& A);
AXLE_API std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& self, bool some = true, bool compute_uv = true);
// Functions of the singular values, least squares, exponential, chains of products.
AXLE_API Tensor linalg_pinv(const Tensor& self, std::optional<double> atol = std::nullopt,
                            std::optional<double> rtol = std::nullopt, bool hermitian = false);
AXLE_API Tensor pinverse(const Tensor& self, double rcond = 1e-15);
AXLE_API Tensor linalg_matrix_rank(const Tensor& self, std::optional<double> atol = std::nullopt,
                                   std::optional<double> rtol = std::nullopt, bool hermitian = false);
AXLE_API Tensor nuclear_norm(const Tensor& self, bool keepdim = false);
AXLE_API Tensor nuclear_norm(const Tensor& self, const IntList& dim, bool keepdim = false);
AXLE_API Tensor linalg_cond(const Tensor& self, const std::optional<Scalar>& p = std::nullopt);
AXLE_API Tensor linalg_cond(const Tensor& self, const std::string& p);
AXLE_API std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_lstsq(
    const Tensor& self, const Tensor& b, std::optional<double> rcond = std::nullopt,
    const std::optional<std::string>& driver = std::nullopt);
AXLE_API Tensor linalg_matrix_exp(const Tensor& self);
AXLE_API Tensor matrix_exp(const Tensor& self);
AXLE_API Tensor linalg_multi_dot(const std::vector<Tensor>& tensors);

}  // namespace axle
