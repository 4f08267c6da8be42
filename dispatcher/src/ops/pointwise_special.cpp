// Special functions of the pointwise family: lgamma, digamma, polygamma,
// mvlgamma (a composite of lgamma), erfinv, the modified Bessel functions i0,
// special_i1 and their exp-scaled forms, special_erfcx, special_ndtri, the
// regularized incomplete gamma functions igamma / igammac, special_zeta, and the in-place
// forms torch has. Integer and bool inputs give the default float dtype, where
// torch's take them (igamma / igammac refuse integers, mvlgamma bool).
#include "../api/op_handle.h"
#include "../derivatives/derivatives.h"
#include "pointwise_util.h"
#include "shape_util.h"

#include <axle/ops.h>

#include <cmath>
#include <numbers>
#include <string>

namespace axle::shape {
namespace {

// polygamma(int n, Tensor self)
void polygamma_shape(ShapeContext& c) {
  AXLE_CHECK(c.arg(0).to_int() >= 0, ValueError, c.op, ": polygamma(n, x) does not support negative n.");
  const Tensor& t = c.arg(1).tensor();
  c.outputs = {{t.sizes(), float_or_default(t.dtype())}};
}

// igamma / igammac: broadcast and promoted; floating results only (torch's CPU kernels).
void igamma_shape(ShapeContext& c) {
  const Tensor& a = c.arg(0).tensor();
  const Tensor& b = c.arg(1).tensor();
  const DType d = result_type({&a, &b});
  std::string kernel = c.op;  // torch's kernel name: "igamma_cpu" (igamma_ too)
  if (kernel.back() == '_') kernel.pop_back();
  AXLE_CHECK(is_floating_point(d), DTypeError, c.op, ": \"", kernel, "_cpu\" not implemented for '", torch_type_name(d),
             "'");
  c.outputs = {{broadcast(a.sizes(), b.sizes()), d}};
}

// special_zeta(x, q): broadcast and promoted; integer and bool results give the default float dtype.
void zeta_shape(ShapeContext& c) {
  const Tensor& a = c.arg(0).tensor();
  const Tensor& b = c.arg(1).tensor();
  const DType d = result_type({&a, &b});
  c.outputs = {{broadcast(a.sizes(), b.sizes()), float_or_default(d)}};
}

constexpr char kZeta[] = "special_zeta";

// mvlgamma(x, p) = sum over j < p of lgamma(x - j/2) + p (p - 1) / 4 * log(pi).
void mvlgamma_check(const char* op, const Tensor& x, int64_t p) {
  AXLE_CHECK(x.dtype() != kBool, DTypeError, op, ": The input tensor may not be a boolean tensor.");
  AXLE_CHECK(p >= 1, ValueError, op, ": p has to be greater than or equal to 1, got ", p);
}

Tensor mvlgamma_of(const char* op, const Tensor& x, int64_t p) {
  mvlgamma_check(op, x, p);
  const Tensor xf = is_floating_point(x.dtype()) ? x : x.to(get_default_dtype());
  Tensor out = lgamma(xf);
  for (int64_t j = 1; j < p; ++j) out = out + lgamma(xf - Scalar(0.5 * static_cast<double>(j)));
  return out + Scalar(static_cast<double>(p * (p - 1)) * 0.25 * std::log(std::numbers::pi));
}

Stack mvlgamma_composite(const Stack& a) { return {mvlgamma_of("mvlgamma", a[0].tensor(), a[1].to_int())}; }

// The result written into self (torch refuses a float result into an integer self).
Stack write_back(const char* op, const Tensor& self, const Tensor& result) {
  check_castable(op, result.dtype(), self.dtype());
  return detail::call(AXLE_OP("copy_"), self, result);
}

// The in-place composites compute from a copy of self: what autograd saves of it
// must not be the tensor they overwrite.
Stack mvlgamma_inplace(const Stack& a) {
  const Tensor& self = a[0].tensor();
  return write_back("mvlgamma_", self, mvlgamma_of("mvlgamma_", clone(self), a[1].to_int()));
}

// polygamma_(Tensor self, int n): torch's in-place form takes its arguments the
// other way round from polygamma(n, self).
Stack polygamma_inplace(const Stack& a) {
  const Tensor& self = a[0].tensor();
  return write_back("polygamma_", self, detail::call_one(AXLE_OP("polygamma"), a[1], clone(self)));
}

}  // namespace

std::vector<OpDecl> pointwise_special_ops() {
  return {
      {.schema = "lgamma(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "log |Gamma(self)| (inf at the poles 0, -1, -2, ...).",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::lgamma, .saves = save_arg(0)}},
      {.schema = "digamma(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "psi(self) = d/dx lgamma(x) (-inf at +0, NaN at the negative integers).",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::digamma, .saves = save_arg(0)}},
      {.schema = "polygamma(int n, Tensor self) -> Tensor",
       .shape = &polygamma_shape,
       .doc = "The n-th derivative of digamma (n >= 0).",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::polygamma, .saves = save_arg(1)}},
      {.schema = "mvlgamma(Tensor self, int p) -> Tensor",
       .composite = &mvlgamma_composite,
       .doc = "Multivariate log-gamma of dimension p: sum of lgamma(self - j/2), j < p, plus p(p-1)/4 log(pi).",
       .derivative = {.decomposes = true}},
      {.schema = "erfinv(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "The inverse error function on [-1, 1] (+-inf at +-1, NaN outside).",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::erfinv, .saves = save_output(0)}},
      {.schema = "i0(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "The modified Bessel function of the first kind of order 0.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::i0, .saves = save_arg(0)}},
      {.schema = "special_i1(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "The modified Bessel function of the first kind of order 1.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::special_i1, .saves = save_arg(0) | save_output(0)}},
      {.schema = "special_i0e(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "exp(-|self|) * i0(self), finite for large arguments.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::special_i0e, .saves = save_arg(0) | save_output(0)}},
      {.schema = "special_i1e(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "exp(-|self|) * special_i1(self), finite for large arguments.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::special_i1e, .saves = save_arg(0) | save_output(0)}},
      {.schema = "special_erfcx(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "The scaled complementary error function exp(self^2) * erfc(self).",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::special_erfcx, .saves = save_arg(0) | save_output(0)}},
      {.schema = "special_ndtri(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "The standard normal quantile function (inverse of ndtr) on [0, 1].",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::special_ndtri, .saves = save_output(0)}},
      {.schema = "igamma(Tensor self, Tensor other) -> Tensor",
       .shape = &igamma_shape,
       .doc = "The regularized lower incomplete gamma function P(self, other).",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::igamma, .saves = save_arg(0) | save_arg(1)}},
      {.schema = "igammac(Tensor self, Tensor other) -> Tensor",
       .shape = &igamma_shape,
       .doc = "The regularized upper incomplete gamma function Q(self, other) = 1 - P(self, other).",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::igammac, .saves = save_arg(0) | save_arg(1)}},
      {.schema = "special_zeta(Tensor self, Tensor other) -> Tensor",
       .shape = &zeta_shape,
       .doc = "The Hurwitz zeta function: the sum over k >= 0 of (other + k)^-self.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::special_zeta, .saves = save_arg(0) | save_arg(1)}},
      {.schema = "special_zeta.self_scalar(Scalar self, Tensor other) -> Tensor",
       .composite = &scalar_self<kZeta>,
       .doc = "special_zeta with self a number.",
       .derivative = {.decomposes = true}},
      {.schema = "special_zeta.other_scalar(Tensor self, Scalar other) -> Tensor",
       .composite = &scalar_other<kZeta>,
       .doc = "special_zeta with other a number.",
       .derivative = {.decomposes = true}},
      {.schema = "lgamma_(Tensor(a!) self) -> Tensor(a!)",
       .shape = &inplace<&float_unary_shape>,
       .doc = "In-place lgamma.",
       .kernel_op = "lgamma",
       .flags = kPointwise},
      {.schema = "digamma_(Tensor(a!) self) -> Tensor(a!)",
       .shape = &inplace<&float_unary_shape>,
       .doc = "In-place digamma.",
       .kernel_op = "digamma",
       .flags = kPointwise},
      {.schema = "polygamma_(Tensor(a!) self, int n) -> Tensor(a!)",
       .composite = &polygamma_inplace,
       .doc = "In-place polygamma(n, self).",
       .derivative = {.decomposes = true}},
      {.schema = "mvlgamma_(Tensor(a!) self, int p) -> Tensor(a!)",
       .composite = &mvlgamma_inplace,
       .doc = "In-place mvlgamma.",
       .derivative = {.decomposes = true}},
      {.schema = "erfinv_(Tensor(a!) self) -> Tensor(a!)",
       .shape = &inplace<&float_unary_shape>,
       .doc = "In-place erfinv.",
       .kernel_op = "erfinv",
       .flags = kPointwise},
      {.schema = "i0_(Tensor(a!) self) -> Tensor(a!)",
       .shape = &inplace<&float_unary_shape>,
       .doc = "In-place i0.",
       .kernel_op = "i0",
       .flags = kPointwise},
      {.schema = "igamma_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
       .shape = &inplace<&igamma_shape>,
       .doc = "In-place igamma.",
       .kernel_op = "igamma",
       .flags = kPointwise},
      {.schema = "igammac_(Tensor(a!) self, Tensor other) -> Tensor(a!)",
       .shape = &inplace<&igamma_shape>,
       .doc = "In-place igammac.",
       .kernel_op = "igammac",
       .flags = kPointwise},
  };
}

}  // namespace axle::shape
