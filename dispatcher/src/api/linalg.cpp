// The C++ API of the linear algebra ops: thin wrappers calling the declared ops.
#include <axle/ops/linalg.h>

#include "op_handle.h"

namespace axle {

namespace {
std::tuple<Tensor, Tensor, Tensor> three(Stack s) {
  return {std::move(s[0].tensor()), std::move(s[1].tensor()), std::move(s[2].tensor())};
}
}  // namespace

std::tuple<Tensor, Tensor, Tensor> linalg_lu_factor_ex(const Tensor& A, bool pivot, bool check_errors) {
  return three(detail::call(AXLE_OP("linalg_lu_factor_ex"), A, pivot, check_errors));
}
std::tuple<Tensor, Tensor> linalg_lu_factor(const Tensor& A, bool pivot) {
  return detail::call_two(AXLE_OP("linalg_lu_factor"), A, pivot);
}
std::tuple<Tensor, Tensor, Tensor> linalg_lu(const Tensor& A, bool pivot) {
  return three(detail::call(AXLE_OP("linalg_lu"), A, pivot));
}
std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU_data, const Tensor& LU_pivots, bool unpack_data,
                                             bool unpack_pivots) {
  return three(detail::call(AXLE_OP("lu_unpack"), LU_data, LU_pivots, unpack_data, unpack_pivots));
}
Tensor linalg_lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  return detail::call_one(AXLE_OP("linalg_lu_solve"), LU, pivots, B, left, adjoint);
}
Tensor linalg_solve_triangular(const Tensor& self, const Tensor& B, bool upper, bool left, bool unitriangular) {
  return detail::call_one(AXLE_OP("linalg_solve_triangular"), self, B, upper, left, unitriangular);
}
Tensor linalg_det(const Tensor& A) { return detail::call_one(AXLE_OP("linalg_det"), A); }
Tensor det(const Tensor& self) { return detail::call_one(AXLE_OP("det"), self); }
std::tuple<Tensor, Tensor> linalg_slogdet(const Tensor& A) { return detail::call_two(AXLE_OP("linalg_slogdet"), A); }
std::tuple<Tensor, Tensor> slogdet(const Tensor& self) { return detail::call_two(AXLE_OP("slogdet"), self); }
Tensor logdet(const Tensor& self) { return detail::call_one(AXLE_OP("logdet"), self); }
std::tuple<Tensor, Tensor> linalg_inv_ex(const Tensor& A, bool check_errors) {
  return detail::call_two(AXLE_OP("linalg_inv_ex"), A, check_errors);
}
Tensor linalg_inv(const Tensor& A) { return detail::call_one(AXLE_OP("linalg_inv"), A); }
Tensor inverse(const Tensor& self) { return detail::call_one(AXLE_OP("inverse"), self); }
std::tuple<Tensor, Tensor> linalg_solve_ex(const Tensor& A, const Tensor& B, bool left, bool check_errors) {
  return detail::call_two(AXLE_OP("linalg_solve_ex"), A, B, left, check_errors);
}
Tensor linalg_solve(const Tensor& A, const Tensor& B, bool left) {
  return detail::call_one(AXLE_OP("linalg_solve"), A, B, left);
}
Tensor linalg_matrix_power(const Tensor& self, int64_t n) {
  return detail::call_one(AXLE_OP("linalg_matrix_power"), self, n);
}
Tensor matrix_power(const Tensor& self, int64_t n) { return detail::call_one(AXLE_OP("matrix_power"), self, n); }
std::tuple<Tensor, Tensor> linalg_cholesky_ex(const Tensor& self, bool upper, bool check_errors) {
  return detail::call_two(AXLE_OP("linalg_cholesky_ex"), self, upper, check_errors);
}
Tensor linalg_cholesky(const Tensor& self, bool upper) {
  return detail::call_one(AXLE_OP("linalg_cholesky"), self, upper);
}
Tensor cholesky(const Tensor& self, bool upper) { return detail::call_one(AXLE_OP("cholesky"), self, upper); }
Tensor cholesky_solve(const Tensor& self, const Tensor& input2, bool upper) {
  return detail::call_one(AXLE_OP("cholesky_solve"), self, input2, upper);
}
Tensor cholesky_inverse(const Tensor& self, bool upper) {
  return detail::call_one(AXLE_OP("cholesky_inverse"), self, upper);
}
std::tuple<Tensor, Tensor> triangular_solve(const Tensor& self, const Tensor& A, bool upper, bool transpose,
                                            bool unitriangular) {
  return detail::call_two(AXLE_OP("triangular_solve"), self, A, upper, transpose, unitriangular);
}
std::tuple<Tensor, Tensor> linalg_qr(const Tensor& A, const std::string& mode) {
  return detail::call_two(AXLE_OP("linalg_qr"), A, mode);
}
std::tuple<Tensor, Tensor> qr(const Tensor& self, bool some) { return detail::call_two(AXLE_OP("qr"), self, some); }
std::tuple<Tensor, Tensor> linalg_eigh(const Tensor& self, const std::string& UPLO) {
  return detail::call_two(AXLE_OP("linalg_eigh"), self, UPLO);
}
Tensor linalg_eigvalsh(const Tensor& self, const std::string& UPLO) {
  return detail::call_one(AXLE_OP("linalg_eigvalsh"), self, UPLO);
}
std::tuple<Tensor, Tensor, Tensor> linalg_svd(const Tensor& A, bool full_matrices) {
  return three(detail::call(AXLE_OP("linalg_svd"), A, full_matrices, Value()));
}
Tensor linalg_svdvals(const Tensor& A) { return detail::call_one(AXLE_OP("linalg_svdvals"), A, Value()); }
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& self, bool some, bool compute_uv) {
  return three(detail::call(AXLE_OP("svd"), self, some, compute_uv));
}
Tensor linalg_pinv(const Tensor& self, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  return detail::call_one(AXLE_OP("linalg_pinv.atol_rtol_float"), self, Value(atol), Value(rtol), hermitian);
}
Tensor pinverse(const Tensor& self, double rcond) { return detail::call_one(AXLE_OP("pinverse"), self, rcond); }
Tensor linalg_matrix_rank(const Tensor& self, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  return detail::call_one(AXLE_OP("linalg_matrix_rank.atol_rtol_float"), self, Value(atol), Value(rtol), hermitian);
}
Tensor nuclear_norm(const Tensor& self, bool keepdim) {
  return detail::call_one(AXLE_OP("nuclear_norm"), self, keepdim);
}
Tensor nuclear_norm(const Tensor& self, const IntList& dim, bool keepdim) {
  return detail::call_one(AXLE_OP("nuclear_norm.dim"), self, dim, keepdim);
}
Tensor linalg_cond(const Tensor& self, const std::optional<Scalar>& p) {
  return detail::call_one(AXLE_OP("linalg_cond"), self, p ? Value(*p) : Value());
}
Tensor linalg_cond(const Tensor& self, const std::string& p) {
  return detail::call_one(AXLE_OP("linalg_cond.p_str"), self, p);
}
std::tuple<Tensor, Tensor, Tensor, Tensor> linalg_lstsq(const Tensor& self, const Tensor& b,
                                                        std::optional<double> rcond,
                                                        const std::optional<std::string>& driver) {
  Stack s = detail::call(AXLE_OP("linalg_lstsq"), self, b, Value(rcond), driver ? Value(*driver) : Value());
  return {std::move(s[0].tensor()), std::move(s[1].tensor()), std::move(s[2].tensor()), std::move(s[3].tensor())};
}
Tensor linalg_matrix_exp(const Tensor& self) { return detail::call_one(AXLE_OP("linalg_matrix_exp"), self); }
Tensor matrix_exp(const Tensor& self) { return detail::call_one(AXLE_OP("matrix_exp"), self); }
Tensor linalg_multi_dot(const std::vector<Tensor>& tensors) {
  return detail::call_one(AXLE_OP("linalg_multi_dot"), tensors);
}

}  // namespace axle
