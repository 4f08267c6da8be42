// Compositions of the linalg family over its decompositions: the functions of
// singular values or eigenvalues (linalg_pinv / pinverse, linalg_matrix_rank,
// nuclear_norm, linalg_cond), least squares through QR (linalg_lstsq, for
// full-rank inputs), the matrix exponential (scaling and squaring with a
// degree-13 Pade approximant) and linalg_multi_dot. All are composites whose
// ops autograd records, but for the pinv overloads, which have a formula of
// their own.
#include "../derivatives/derivatives.h"
#include "linalg_util.h"

#include <cmath>
#include <limits>

namespace axle::shape {
namespace {

using linalg::batch_sizes;
using linalg::check_at_least_2d;
using linalg::check_float;
using linalg::check_square;
using linalg::mT;

TensorOptions like(const Tensor& t) { return TensorOptions().dtype(t.dtype()).device(t.device()); }

double eps(DType d) { return d == kFloat32 ? std::numeric_limits<float>::epsilon() : 2.220446049250313e-16; }

Tensor svdvals(const Tensor& a) { return call_op(AXLE_OP("linalg_svdvals"), {a, Value()})[0].tensor(); }

// atol / rtol as tensors (None: undefined) and torch's defaults: rtol =
// eps * max(m, n) when neither is given, 0 when only atol is.
struct Tolerances {
  Tensor atol, rtol;
};
Tolerances tolerances(const Tensor& a, const Value& atol, const Value& rtol) {
  auto as_tensor = [&](const Value& v) {
    if (v.is_none()) return Tensor();
    if (v.is_tensor()) return v.tensor();
    return full({}, v.to_double(), like(a));
  };
  Tolerances t{as_tensor(atol), as_tensor(rtol)};
  if (!t.rtol.defined())
    t.rtol = full({}, t.atol.defined() ? 0.0 : eps(a.dtype()) * static_cast<double>(std::max(a.size(-2), a.size(-1))),
                  like(a));
  if (!t.atol.defined()) t.atol = zeros({}, like(a));
  return t;
}

// The singular values (hermitian: |eigenvalues|) that count, as a bool mask
// [..., k]: s > max(atol, rtol * max(s)).
Tensor significant(const Tensor& s, const Tolerances& t) {
  const Tensor top = s.size(-1) ? amax(s, {-1}, true) : zeros(batch_sizes(s, 0), like(s));
  const Tensor tol = call_op(AXLE_OP("maximum"), {unsqueeze(t.atol, -1), unsqueeze(t.rtol, -1) * top})[0].tensor();
  return s > tol;
}

void check_pinv_input(const Tensor& a) {
  const std::string what = std::string("linalg.pinv(") + torch_type_name(a.dtype()) + "{" + shape::str(a.sizes()) +
                           "}): expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble types";
  AXLE_CHECK(a.dim() >= 2, ShapeError, what);
  AXLE_CHECK(a.dtype() == kFloat32 || a.dtype() == kFloat64, DTypeError, what);
}

Tensor pinv(const Tensor& a, const Value& atol, const Value& rtol, bool hermitian) {
  check_pinv_input(a);
  const Tolerances t = tolerances(a, atol, rtol);
  if (hermitian) {
    const Stack e = call_op(AXLE_OP("linalg_eigh"), {a, "L"});
    const Tensor &w = e[0].tensor(), &v = e[1].tensor();
    const Tensor keep = significant(detail::call_one(AXLE_OP("abs"), w), t);
    const Tensor inv = where(keep, detail::call_one(AXLE_OP("reciprocal"), w), zeros({}, like(a)));
    return matmul(v * unsqueeze(inv, -2), mT(v));
  }
  const Stack usv = call_op(AXLE_OP("linalg_svd"), {a, false, Value()});
  const Tensor &u = usv[0].tensor(), &s = usv[1].tensor(), &vh = usv[2].tensor();
  const Tensor keep = significant(s, t);
  const Tensor inv = where(keep, detail::call_one(AXLE_OP("reciprocal"), s), zeros({}, like(a)));
  return matmul(mT(vh) * unsqueeze(inv, -2), mT(u));
}

Tensor matrix_rank(const Tensor& a, const Value& atol, const Value& rtol, bool hermitian) {
  check_at_least_2d("linalg.matrix_rank", a);
  check_float("linalg.matrix_rank", a);
  const Tensor s = hermitian
                       ? detail::call_one(AXLE_OP("abs"), call_op(AXLE_OP("linalg_eigvalsh"), {a, "L"})[0].tensor())
                       : svdvals(a);
  return sum(significant(s, tolerances(a, atol, rtol)), {-1}, false, kInt64);
}

Stack nuclear_norm_dim(const Tensor& a, const IntList& dims, bool keepdim) {
  AXLE_CHECK(dims.size() == 2, ShapeError, "nuclear_norm: dim must be a 2-tuple");
  const int64_t d0 = wrap_dim(dims[0], a.dim(), "nuclear_norm"), d1 = wrap_dim(dims[1], a.dim(), "nuclear_norm");
  AXLE_CHECK(d0 != d1, ShapeError, "nuclear_norm: dims must be different. Got (", dims[0], ", ", dims[1], ")");
  IntList order;
  for (int64_t d = 0; d < a.dim(); ++d)
    if (d != d0 && d != d1) order.push_back(d);
  order.push_back(d0);
  order.push_back(d1);
  Tensor r = sum(svdvals(a.permute(order)), {-1});
  if (keepdim) {
    r = unsqueeze(r, std::min(d0, d1));
    r = unsqueeze(r, std::max(d0, d1));
  }
  return {r};
}

// The matrix norms linalg_cond needs besides the 2-norms.
Tensor matrix_norm(const Tensor& a, const Value& p) {
  if (!p.is_tensor() && !p.is_none() && !p.is_scalar()) {
    if (p.str() == "fro") return detail::call_one(AXLE_OP("sqrt"), sum(a * a, {-2, -1}));
    return sum(svdvals(a), {-1});  // "nuc"
  }
  const double ord = p.to_double();
  const Tensor abs = detail::call_one(AXLE_OP("abs"), a);
  const Tensor sums = sum(abs, {std::isinf(ord) ? -1 : -2});  // inf: rows, 1: columns
  return ord > 0 ? amax(sums, {-1}) : amin(sums, {-1});
}

Stack cond(const Tensor& a, const Value& p) {
  std::string name = "None";
  bool two = p.is_none();
  if (p.is_scalar()) {
    const double ord = p.to_double();
    name = std::isinf(ord) ? (ord > 0 ? "inf" : "-inf") : std::to_string(static_cast<int64_t>(ord));
    AXLE_CHECK(std::fabs(ord) == 2 || std::fabs(ord) == 1 || std::isinf(ord), ValueError,
               "linalg.cond got an invalid norm type: ", p.repr());
    two = std::fabs(ord) == 2;
  } else if (!p.is_none()) {
    name = p.str();
    AXLE_CHECK(name == "fro" || name == "nuc", ValueError, "linalg.cond got an invalid norm type: ", name);
  }
  check_at_least_2d("linalg.cond", a);
  check_float("linalg.cond", a);
  if (two) {
    const Tensor s = svdvals(a);
    const Tensor hi = narrow(s, -1, 0, 1), lo = narrow(s, -1, s.size(-1) - 1, 1);
    const bool inverse = p.is_scalar() && p.to_double() < 0;
    return {squeeze(inverse ? lo / hi : hi / lo, -1)};
  }
  const std::string op = "linalg.cond(ord=" + name + ")";
  check_square(op.c_str(), a);
  const Tensor inv = call_op(AXLE_OP("linalg_inv_ex"), {a, false})[0].tensor();
  return {matrix_norm(a, p) * matrix_norm(inv, p)};
}

// linalg_lstsq for full-rank A through QR: tall A = Q R gives X = R^-1 Q^T B,
// wide A^T = Q R the minimum-norm X = Q R^-T B. Outputs follow the driver, as
// torch: residuals (gels, gelsd, gelss; m > n), rank (not gels), singular
// values (gelsd, gelss); empty where not computed.
Stack lstsq(const Stack& s) {
  const char* op = "torch.linalg.lstsq";
  const Tensor& a = s[0].tensor();
  const Tensor& b0 = s[1].tensor();
  const std::string driver = s[3].is_none() ? "gelsy" : s[3].str();
  AXLE_CHECK(a.dim() >= 2, ShapeError, op, ": input must have at least 2 dimensions.");
  AXLE_CHECK(b0.dim() >= 1, ShapeError, op, ": other must have at least 1 dimension.");
  check_float("linalg.lstsq", a);
  AXLE_CHECK(a.dtype() == b0.dtype(), DTypeError, op,
             ": Expected input and other to have the same dtype, but got input's dtype ", torch_type_name(a.dtype()),
             " and other's dtype ", torch_type_name(b0.dtype()));
  const bool vec = linalg::vector_rhs(a, b0);
  const Tensor b = vec ? unsqueeze(b0, -1) : b0;
  AXLE_CHECK(a.dim() >= b.dim() && a.dim() - b.dim() <= 1, ShapeError, op,
             ": input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) <= 1");
  AXLE_CHECK(a.size(-2) == b.size(-2), ShapeError, op, ": input.size(-2) should match other.size(-2)");
  AXLE_CHECK(driver == "gels" || driver == "gelsy" || driver == "gelsd" || driver == "gelss", ValueError, op,
             ": parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
  const int64_t m = a.size(-2), n = a.size(-1);
  auto tri = [](const Tensor& r, const Tensor& rhs, bool upper) {
    return detail::call_one(AXLE_OP("linalg_solve_triangular"), r, rhs, upper, true, false);
  };
  Tensor x;
  if (m >= n) {
    const Stack qr = call_op(AXLE_OP("linalg_qr"), {a, "reduced"});
    x = tri(qr[1].tensor(), matmul(mT(qr[0].tensor()), b), true);
  } else {
    const Stack qr = call_op(AXLE_OP("linalg_qr"), {mT(a), "reduced"});
    x = matmul(qr[0].tensor(), tri(mT(qr[1].tensor()), b, false));
  }
  const TensorOptions o = like(a);
  Tensor residuals = zeros({0}, o);
  if (m > n && driver != "gelsy") {
    const Tensor r = matmul(a, x) - b;
    residuals = sum(r * r, {-2});
  }
  Tensor rank = zeros({0}, TensorOptions().dtype(kInt64).device(a.device()));
  Tensor sv = zeros({0}, o);
  if (driver != "gels") {  // the rank from the singular values, computed once
    const Value rcond = s[2].is_none() ? Value() : Value(s[2].to_double());
    const Tensor values = svdvals(a);
    rank = sum(significant(values, tolerances(a, Value(), rcond)), {-1}, false, kInt64);
    if (driver == "gelsd" || driver == "gelss") sv = values;
  }
  if (vec) x = squeeze(x, -1);
  return {x, residuals, rank, sv};
}

// exp(A) = exp(A / 2^s)^(2^s) with Higham's degree-13 Pade approximant (the
// scale from the largest 1-norm in the batch).
Stack matrix_exp_of(const Tensor& a) {
  check_square("linalg.matrix_exp", a);
  AXLE_CHECK(a.dtype() == kFloat32 || a.dtype() == kFloat64, DTypeError,
             "matrix_exp: Expected a floating point or complex tensor as input. Got ", torch_type_name(a.dtype()));
  const int64_t n = a.size(-1);
  if (a.numel() == 0) return {a.clone()};
  const Tensor norms = amax(sum(detail::call_one(AXLE_OP("abs"), a), {-2}), {-1});
  const double norm = amax(norms.reshape({-1}), {0}).to(kFloat64).cpu().item<double>();
  const double theta13 = 5.371920351148152;
  const int64_t sq = norm > theta13 ? static_cast<int64_t>(std::ceil(std::log2(norm / theta13))) : 0;
  const Tensor x = sq ? a * std::ldexp(1.0, static_cast<int>(-sq)) : a;
  static const double b[] = {64764752532480000.0,
                             32382376266240000.0,
                             7771770303897600.0,
                             1187353796428800.0,
                             129060195264000.0,
                             10559470521600.0,
                             670442572800.0,
                             33522128640.0,
                             1323241920.0,
                             40840800.0,
                             960960.0,
                             16380.0,
                             182.0,
                             1.0};
  const Tensor id = expand(linalg::eye_like(a, n), a.sizes());
  const Tensor x2 = matmul(x, x), x4 = matmul(x2, x2), x6 = matmul(x4, x2);
  const Tensor u =
      matmul(x, matmul(x6, x6 * b[13] + x4 * b[11] + x2 * b[9]) + x6 * b[7] + x4 * b[5] + x2 * b[3] + id * b[1]);
  const Tensor v = matmul(x6, x6 * b[12] + x4 * b[10] + x2 * b[8]) + x6 * b[6] + x4 * b[4] + x2 * b[2] + id * b[0];
  Tensor r = call_op(AXLE_OP("linalg_solve"), {v - u, v + u, true})[0].tensor();
  for (int64_t i = 0; i < sq; ++i) r = matmul(r, r);
  return {r};
}

Stack multi_dot(const Stack& s) {
  const std::vector<Tensor>& ts = s[0].tensors();
  const size_t n = ts.size();
  AXLE_CHECK(n >= 2, ShapeError, "multi_dot(): expected at least 2 tensors but got ", n);
  AXLE_CHECK(ts[0].dim() == 1 || ts[0].dim() == 2, ShapeError,
             "multi_dot(): the first tensor must be 1D or 2D but got ", ts[0].dim(), "D");
  AXLE_CHECK(ts[n - 1].dim() == 1 || ts[n - 1].dim() == 2, ShapeError,
             "multi_dot(): the last tensor must be 1D or 2D but got ", ts[n - 1].dim(), "D");
  std::vector<Tensor> ms(ts.begin(), ts.end());
  for (size_t i = 1; i + 1 < n; ++i)
    AXLE_CHECK(ts[i].dim() == 2, ShapeError, "multi_dot(): tensor ", i, " must be 2D but got ", ts[i].dim(), "D");
  for (size_t i = 1; i < n; ++i)
    AXLE_CHECK(ts[i].dtype() == ts[0].dtype(), DTypeError,
               "multi_dot(): all tensors must have be the same dtype but tensor 0 is ", dtype_name(ts[0].dtype()),
               " and tensor ", i, " ", dtype_name(ts[i].dtype()));
  const bool row = ms[0].dim() == 1, col = ms[n - 1].dim() == 1;
  if (row) ms[0] = unsqueeze(ms[0], 0);
  if (col) ms[n - 1] = unsqueeze(ms[n - 1], -1);
  for (size_t i = 0; i + 1 < n; ++i)
    AXLE_CHECK(ms[i].size(1) == ms[i + 1].size(0), ShapeError, "multi_dot(): tensors ", i, " and ", i + 1,
               " with shapes ", shape::str(ms[i].sizes()), " and ", shape::str(ms[i + 1].sizes()),
               " cannot be multiplied");
  Tensor r = ms[0];
  for (size_t i = 1; i < n; ++i) r = matmul(r, ms[i]);
  if (row && col) return {reshape(r, {})};
  if (row) return {squeeze(r, 0)};
  if (col) return {squeeze(r, -1)};
  return {r};
}

}  // namespace

std::vector<OpDecl> linalg_spectral_ops() {
  const Derivative decomposes = {.decomposes = true};
  const Derivative integer = {.none = "integer output"};
  const Derivative pinv_derivative = {.vjp = &derivatives::linalg_pinv, .saves = save_arg(0) | save_output(0)};
  return {
      {.schema = "linalg_pinv.atol_rtol_float(Tensor self, *, float? atol=None, float? rtol=None, bool "
                 "hermitian=False) -> Tensor",
       .composite = [](const Stack& s) -> Stack { return {pinv(s[0].tensor(), s[1], s[2], s[3].to_bool())}; },
       .doc = "The pseudo-inverse from the SVD (hermitian: eigh), dropping singular values at most max(atol, rtol * "
              "largest) (rtol defaults to eps * max(m, n)).",
       .derivative = pinv_derivative},
      {.schema = "linalg_pinv.atol_rtol_tensor(Tensor self, *, Tensor? atol=None, Tensor? rtol=None, bool "
                 "hermitian=False) -> Tensor",
       .composite = [](const Stack& s) -> Stack { return {pinv(s[0].tensor(), s[1], s[2], s[3].to_bool())}; },
       .doc = "linalg_pinv with tolerance tensors (broadcast over the batch).",
       .derivative = pinv_derivative},
      {.schema = "linalg_pinv(Tensor self, float rcond, bool hermitian=False) -> Tensor",
       .composite = [](const Stack& s) -> Stack { return {pinv(s[0].tensor(), 0.0, s[1], s[2].to_bool())}; },
       .doc = "linalg_pinv with rtol = rcond (atol 0).",
       .derivative = pinv_derivative},
      {.schema = "linalg_pinv.rcond_tensor(Tensor self, Tensor rcond, bool hermitian=False) -> Tensor",
       .composite = [](const Stack& s) -> Stack { return {pinv(s[0].tensor(), 0.0, s[1], s[2].to_bool())}; },
       .doc = "linalg_pinv with rtol = rcond, a tensor.",
       .derivative = pinv_derivative},
      {.schema = "pinverse(Tensor self, float rcond=1.0000000000000001e-15) -> Tensor",
       .composite = [](const Stack& s) -> Stack { return {pinv(s[0].tensor(), 0.0, s[1], false)}; },
       .doc = "linalg_pinv(self, rcond).",
       .derivative = pinv_derivative},
      {.schema = "linalg_matrix_rank.atol_rtol_float(Tensor self, *, float? atol=None, float? rtol=None, bool "
                 "hermitian=False) -> Tensor",
       .composite = [](const Stack& s) -> Stack { return {matrix_rank(s[0].tensor(), s[1], s[2], s[3].to_bool())}; },
       .doc = "The number of singular values (hermitian: |eigenvalues|) above max(atol, rtol * largest).",
       .derivative = integer},
      {.schema = "linalg_matrix_rank.atol_rtol_tensor(Tensor input, *, Tensor? atol=None, Tensor? rtol=None, bool "
                 "hermitian=False) -> Tensor",
       .composite = [](const Stack& s) -> Stack { return {matrix_rank(s[0].tensor(), s[1], s[2], s[3].to_bool())}; },
       .doc = "linalg_matrix_rank with tolerance tensors.",
       .derivative = integer},
      {.schema = "linalg_matrix_rank(Tensor self, float tol, bool hermitian=False) -> Tensor",
       .composite = [](const Stack& s) -> Stack { return {matrix_rank(s[0].tensor(), s[1], 0.0, s[2].to_bool())}; },
       .doc = "linalg_matrix_rank with atol = tol (rtol 0).",
       .derivative = integer},
      {.schema = "linalg_matrix_rank.tol_tensor(Tensor input, Tensor tol, bool hermitian=False) -> Tensor",
       .composite = [](const Stack& s) -> Stack { return {matrix_rank(s[0].tensor(), s[1], 0.0, s[2].to_bool())}; },
       .doc = "linalg_matrix_rank with atol = tol, a tensor.",
       .derivative = integer},
      {.schema = "nuclear_norm(Tensor self, bool keepdim=False) -> Tensor",
       .composite = [](const Stack& s) -> Stack {
         const Tensor& a = s[0].tensor();
         AXLE_CHECK(a.dim() == 2, ShapeError,
                    "nuclear_norm: Expected a tensor with 2 dimensions, but got a tensor with ", a.dim(), " dimension",
                    a.dim() == 1 ? "" : "s", " instead.");
         return nuclear_norm_dim(a, {0, 1}, s[1].to_bool());
       },
       .doc = "The sum of the singular values of a matrix.",
       .derivative = decomposes},
      {.schema = "nuclear_norm.dim(Tensor self, int[2] dim, bool keepdim=False) -> Tensor",
       .composite = [](const Stack& s) { return nuclear_norm_dim(s[0].tensor(), s[1].int_list(), s[2].to_bool()); },
       .doc = "The sum of the singular values of the matrices over two dims.",
       .derivative = decomposes},
      {.schema = "linalg_cond(Tensor self, Scalar? p=None) -> Tensor",
       .composite = [](const Stack& s) { return cond(s[0].tensor(), s[1]); },
       .doc = "The condition number in norm p: None / 2 / -2 from the singular values; 1, -1, inf, -inf as "
              "norm(A) * norm(A^-1) (square A).",
       .derivative = decomposes},
      {.schema = "linalg_cond.p_str(Tensor self, str p) -> Tensor",
       .composite = [](const Stack& s) { return cond(s[0].tensor(), s[1]); },
       .doc = "linalg_cond in the 'fro' or 'nuc' norm (square A).",
       .derivative = decomposes},
      {.schema = "linalg_lstsq(Tensor self, Tensor b, float? rcond=None, *, str? driver=None) -> (Tensor solution, "
                 "Tensor residuals, Tensor rank, Tensor singular_values)",
       .composite = &lstsq,
       .doc = "Least squares (full-rank A) through QR; minimum norm for a wide A. residuals / rank / singular_values "
              "as torch's driver (default gelsy) computes them, empty otherwise.",
       .derivative = decomposes},
      {.schema = "linalg_matrix_exp(Tensor self) -> Tensor",
       .composite = [](const Stack& s) { return matrix_exp_of(s[0].tensor()); },
       .doc = "The matrix exponential (scaling and squaring, degree-13 Pade).",
       .derivative = decomposes},
      {.schema = "matrix_exp(Tensor self) -> Tensor",
       .composite = [](const Stack& s) { return matrix_exp_of(s[0].tensor()); },
       .doc = "linalg_matrix_exp.",
       .derivative = decomposes},
      {.schema = "linalg_multi_dot(Tensor[] tensors) -> Tensor",
       .composite = &multi_dot,
       .doc = "The product of a chain of matrices (the first may be a row vector, the last a column vector).",
       .derivative = decomposes},
  };
}

}  // namespace axle::shape
