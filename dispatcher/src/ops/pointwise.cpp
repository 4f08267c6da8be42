// Pointwise ops: add, sub, mul, div (broadcast + promotion), their in-place
// forms, comparisons, logical and bitwise ops with the shifts, and unary math.
#include "../api/op_handle.h"
#include "../derivatives/derivatives.h"
#include "pointwise_util.h"
#include "shape_util.h"

#include <axle/ops.h>

#include <string_view>

namespace axle::shape {
namespace {

void binary_common(ShapeContext& c) {
  const Tensor& a = c.arg(0).tensor();
  const Tensor& b = c.arg(1).tensor();
  // The common case, same sizes and dtype: nothing to broadcast or promote.
  if (a.defined() && b.defined() && a.dtype() == b.dtype() && a.sizes() == b.sizes()) {
    // Built in place: a temporary OutputSpec copies the sizes once more (~30
    // instructions a call). Clang 14 (the fuzzing build) lacks aggregate
    // initialization from parentheses, so it assigns the fields instead.
#if defined(__cpp_aggregate_paren_init)
    c.outputs.emplace_back(a.sizes(), a.dtype());
#else
    OutputSpec& o = c.outputs.emplace_back();
    o.sizes = a.sizes();
    o.dtype = a.dtype();
#endif
    return;
  }
  c.outputs.push_back(OutputSpec{broadcast(a.sizes(), b.sizes()), result_type({&a, &b})});
}

void check_alpha(ShapeContext& c) {
  const Value& alpha = c.args[2];
  const DType dt = c.outputs[0].dtype;
  AXLE_CHECK(!(is_integral(dt, true) && alpha.tag() == Value::Tag::Double), DTypeError, c.op,
             ": For integral input tensors, argument alpha must not be a floating point number.");
  AXLE_CHECK(!(dt == kBool && alpha.tag() != Value::Tag::Bool && alpha.to_double() != 1.0), DTypeError, c.op,
             ": Boolean alpha only supported for Boolean results.");
}

void add_shape(ShapeContext& c) {
  binary_common(c);
  check_alpha(c);
}

void sub_shape(ShapeContext& c) {
  const bool a = c.arg(0).tensor().dtype() == kBool, b = c.arg(1).tensor().dtype() == kBool;
  AXLE_CHECK(!(a && b), DTypeError, c.op,
             ": Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` "
             "operator instead.");
  AXLE_CHECK(
      !(a || b), DTypeError, c.op,
      ": Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, "
      "use the `~` or `logical_not()` operator instead.");
  binary_common(c);
  check_alpha(c);
}

// Comparisons: broadcast; compared in the promoted type; the result is bool.
void compare_shape(ShapeContext& c) {
  binary_common(c);
  c.outputs[0].dtype = kBool;
}

// Binary ops torch does not implement for bool results (remainder, fmod, pow).
void no_bool_binary_shape(ShapeContext& c) {
  binary_common(c);
  AXLE_CHECK(c.outputs[0].dtype != kBool, DTypeError, c.op, ": not implemented for bool tensors");
}

// pow.Tensor_Tensor: a Python int exponent arrives as a wrapped number; torch binds
// it to pow.Tensor_Scalar, which refuses negative integer powers of integers.
void pow_shape(ShapeContext& c) {
  no_bool_binary_shape(c);
  const Tensor& e = c.arg(1).tensor();
  if (e.unsafe_impl().wrapped_number && e.device().is_cpu() && is_integral(e.dtype(), true))
    AXLE_CHECK(!is_integral(c.arg(0).tensor().dtype(), true) || e.item().to_int() >= 0, ValueError, c.op,
               ": Integers to negative integer powers are not allowed.");
}

// Bitwise ops: integral and bool only.
void bitwise_shape(ShapeContext& c) {
  binary_common(c);
  AXLE_CHECK(!is_floating_point(c.outputs[0].dtype), DTypeError, c.op, ": not implemented for ",
             dtype_name(c.outputs[0].dtype), " (integral and bool tensors only)");
}

// Shifts: integral only, as torch's lshift_cpu / rshift_cpu (no bool, no floating).
void shift_shape(ShapeContext& c) {
  binary_common(c);
  const DType d = c.outputs[0].dtype;
  const bool left = std::string_view(c.op).starts_with("bitwise_left");
  AXLE_CHECK(is_integral(d, false), DTypeError, c.op, ": \"", left ? "lshift_cpu" : "rshift_cpu",
             "\" not implemented for '", torch_type_name(d), "'");
}

// The shifts' Scalar overloads (scalar_other / scalar_self, pointwise_util.h): the
// number takes the tensor's dtype.
constexpr char kLshift[] = "bitwise_left_shift.Tensor", kRshift[] = "bitwise_right_shift.Tensor",
               kLshiftInplace[] = "bitwise_left_shift_.Tensor", kRshiftInplace[] = "bitwise_right_shift_.Tensor";

void div_shape(ShapeContext& c) {
  binary_common(c);
  if (!is_floating_point(c.outputs[0].dtype)) c.outputs[0].dtype = get_default_dtype();
}

void neg_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  AXLE_CHECK(t.dtype() != kBool, DTypeError, c.op,
             ": Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use "
             "the `~` or `logical_not()` operator instead.");
  c.outputs = {{t.sizes(), t.dtype()}};
}

// Same dtype, bool rejected (abs, floor, ceil, trunc), as torch's CPU kernels.
void no_bool_unary_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  AXLE_CHECK(t.dtype() != kBool, DTypeError, c.op, ": not implemented for bool tensors");
  c.outputs = {{t.sizes(), t.dtype()}};
}

void same_unary_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  c.outputs = {{t.sizes(), t.dtype()}};
}

void frac_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  AXLE_CHECK(is_floating_point(t.dtype()), DTypeError, c.op, ": not implemented for ", dtype_name(t.dtype()),
             " (floating dtypes only)");
  c.outputs = {{t.sizes(), t.dtype()}};
}

// square of bool gives int64, as torch (it is pow(self, 2)).
void square_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  c.outputs = {{t.sizes(), t.dtype() == kBool ? kInt64 : t.dtype()}};
}

void relu_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  AXLE_CHECK(t.dtype() != kBool, DTypeError, c.op, ": Boolean inputs not supported for relu");
  c.outputs = {{t.sizes(), t.dtype()}};
}

}  // namespace

void float_unary_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  c.outputs = {{t.sizes(), float_or_default(t.dtype())}};
}

std::vector<OpDecl> pointwise_ops() {
  return {
      {.schema = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
       .shape = &add_shape,
       .doc = "self + alpha * other, broadcast and promoted.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::add}},
      {.schema = "sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
       .shape = &sub_shape,
       .doc = "self - alpha * other, broadcast and promoted.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::sub}},
      {.schema = "mul.Tensor(Tensor self, Tensor other) -> Tensor",
       .shape = &binary_common,
       .doc = "self * other.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::mul, .saves = save_arg(0) | save_arg(1)}},
      {.schema = "div.Tensor(Tensor self, Tensor other) -> Tensor",
       .shape = &div_shape,
       .doc = "True division; integer inputs give the default float dtype.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::div, .saves = save_arg(0) | save_arg(1)}},
      {.schema = "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
       .shape = &inplace<&add_shape>,
       .doc = "In-place add.",
       .kernel_op = "add.Tensor",
       .flags = kPointwise},
      {.schema = "sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
       .shape = &inplace<&sub_shape>,
       .doc = "In-place sub.",
       .kernel_op = "sub.Tensor",
       .flags = kPointwise},
      {.schema = "mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
       .shape = &inplace<&binary_common>,
       .doc = "In-place mul.",
       .kernel_op = "mul.Tensor",
       .flags = kPointwise},
      {.schema = "div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
       .shape = &inplace<&div_shape>,
       .doc = "In-place div.",
       .kernel_op = "div.Tensor",
       .flags = kPointwise},
      {.schema = "eq.Tensor(Tensor self, Tensor other) -> Tensor",
       .shape = &compare_shape,
       .doc = "self == other (bool).",
       .flags = kPointwise,
       .derivative = {.none = "comparison: bool output"}},
      {.schema = "ne.Tensor(Tensor self, Tensor other) -> Tensor",
       .shape = &compare_shape,
       .doc = "self != other (bool).",
       .flags = kPointwise,
       .derivative = {.none = "comparison: bool output"}},
      {.schema = "lt.Tensor(Tensor self, Tensor other) -> Tensor",
       .shape = &compare_shape,
       .doc = "self < other (bool).",
       .flags = kPointwise,
       .derivative = {.none = "comparison: bool output"}},
      {.schema = "le.Tensor(Tensor self, Tensor other) -> Tensor",
       .shape = &compare_shape,
       .doc = "self <= other (bool).",
       .flags = kPointwise,
       .derivative = {.none = "comparison: bool output"}},
      {.schema = "gt.Tensor(Tensor self, Tensor other) -> Tensor",
       .shape = &compare_shape,
       .doc = "self > other (bool).",
       .flags = kPointwise,
       .derivative = {.none = "comparison: bool output"}},
      {.schema = "ge.Tensor(Tensor self, Tensor other) -> Tensor",
       .shape = &compare_shape,
       .doc = "self >= other (bool).",
       .flags = kPointwise,
       .derivative = {.none = "comparison: bool output"}},
      {.schema = "maximum(Tensor self, Tensor other) -> Tensor",
       .shape = &binary_common,
       .doc = "Elementwise max; NaN propagates.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::maximum, .saves = save_arg(0) | save_arg(1)}},
      {.schema = "minimum(Tensor self, Tensor other) -> Tensor",
       .shape = &binary_common,
       .doc = "Elementwise min; NaN propagates.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::minimum, .saves = save_arg(0) | save_arg(1)}},
      {.schema = "atan2(Tensor self, Tensor other) -> Tensor",
       .shape = &div_shape,
       .doc = "atan(self / other) in the right quadrant.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::atan2, .saves = save_arg(0) | save_arg(1)}},
      {.schema = "remainder.Tensor(Tensor self, Tensor other) -> Tensor",
       .shape = &no_bool_binary_shape,
       .doc = "Python's modulo: the result has the sign of other.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::remainder, .saves = save_arg(0) | save_arg(1)}},
      {.schema = "fmod.Tensor(Tensor self, Tensor other) -> Tensor",
       .shape = &no_bool_binary_shape,
       .doc = "C's fmod: the result has the sign of self.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::fmod, .saves = save_arg(0) | save_arg(1)}},
      {.schema = "pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor",
       .shape = &pow_shape,
       .doc = "self ** exponent (integer powers wrap; negative integer exponents give 0 unless |self| is 1).",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::pow_tensor_tensor, .saves = save_arg(0) | save_arg(1) | save_output(0)}},
      {.schema = "logical_and(Tensor self, Tensor other) -> Tensor",
       .shape = &compare_shape,
       .doc = "self != 0 and other != 0.",
       .flags = kPointwise,
       .derivative = {.none = "bool output"}},
      {.schema = "logical_or(Tensor self, Tensor other) -> Tensor",
       .shape = &compare_shape,
       .doc = "self != 0 or other != 0.",
       .flags = kPointwise,
       .derivative = {.none = "bool output"}},
      {.schema = "logical_xor(Tensor self, Tensor other) -> Tensor",
       .shape = &compare_shape,
       .doc = "(self != 0) != (other != 0).",
       .flags = kPointwise,
       .derivative = {.none = "bool output"}},
      {.schema = "bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor",
       .shape = &bitwise_shape,
       .doc = "self & other.",
       .flags = kPointwise,
       .derivative = {.none = "integer or bool output"}},
      {.schema = "bitwise_or.Tensor(Tensor self, Tensor other) -> Tensor",
       .shape = &bitwise_shape,
       .doc = "self | other.",
       .flags = kPointwise,
       .derivative = {.none = "integer or bool output"}},
      {.schema = "bitwise_xor.Tensor(Tensor self, Tensor other) -> Tensor",
       .shape = &bitwise_shape,
       .doc = "self ^ other.",
       .flags = kPointwise,
       .derivative = {.none = "integer or bool output"}},
      {.schema = "bitwise_left_shift.Tensor(Tensor self, Tensor other) -> Tensor",
       .shape = &shift_shape,
       .doc = "self << other (integers; counts taken modulo the computation's width, as torch 1.13).",
       .flags = kPointwise,
       .derivative = {.none = "integer output"}},
      {.schema = "bitwise_left_shift.Tensor_Scalar(Tensor self, Scalar other) -> Tensor",
       .composite = &scalar_other<kLshift>,
       .doc = "self << other, other a number.",
       .derivative = {.none = "integer output"}},
      {.schema = "bitwise_left_shift.Scalar_Tensor(Scalar self, Tensor other) -> Tensor",
       .composite = &scalar_self<kLshift>,
       .doc = "self << other, self a number.",
       .derivative = {.none = "integer output"}},
      {.schema = "bitwise_right_shift.Tensor(Tensor self, Tensor other) -> Tensor",
       .shape = &shift_shape,
       .doc = "self >> other, arithmetic (integers; counts taken modulo the computation's width, as torch 1.13).",
       .flags = kPointwise,
       .derivative = {.none = "integer output"}},
      {.schema = "bitwise_right_shift.Tensor_Scalar(Tensor self, Scalar other) -> Tensor",
       .composite = &scalar_other<kRshift>,
       .doc = "self >> other, other a number.",
       .derivative = {.none = "integer output"}},
      {.schema = "bitwise_right_shift.Scalar_Tensor(Scalar self, Tensor other) -> Tensor",
       .composite = &scalar_self<kRshift>,
       .doc = "self >> other, self a number.",
       .derivative = {.none = "integer output"}},
      {.schema = "bitwise_left_shift_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
       .shape = &inplace<&shift_shape>,
       .doc = "In-place bitwise_left_shift.",
       .kernel_op = "bitwise_left_shift.Tensor",
       .flags = kPointwise},
      {.schema = "bitwise_left_shift_.Tensor_Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
       .composite = &scalar_other<kLshiftInplace>,
       .doc = "In-place bitwise_left_shift by a number.",
       .derivative = {.none = "integer output"}},
      {.schema = "bitwise_right_shift_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)",
       .shape = &inplace<&shift_shape>,
       .doc = "In-place bitwise_right_shift.",
       .kernel_op = "bitwise_right_shift.Tensor",
       .flags = kPointwise},
      {.schema = "bitwise_right_shift_.Tensor_Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)",
       .composite = &scalar_other<kRshiftInplace>,
       .doc = "In-place bitwise_right_shift by a number.",
       .derivative = {.none = "integer output"}},
      {.schema = "neg(Tensor self) -> Tensor",
       .shape = &neg_shape,
       .doc = "-self.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::neg}},
      {.schema = "exp(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "e ** self.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::exp, .saves = save_output(0)}},
      {.schema = "exp2(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "2 ** self.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::exp2, .saves = save_output(0)}},
      {.schema = "expm1(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "exp(self) - 1, accurate near 0.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::expm1, .saves = save_output(0)}},
      {.schema = "log(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "Natural logarithm.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::log, .saves = save_arg(0)}},
      {.schema = "log2(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "Base-2 logarithm.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::log2, .saves = save_arg(0)}},
      {.schema = "log10(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "Base-10 logarithm.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::log10, .saves = save_arg(0)}},
      {.schema = "log1p(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "log(1 + self), accurate near 0.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::log1p, .saves = save_arg(0)}},
      {.schema = "sqrt(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "Square root.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::sqrt, .saves = save_output(0)}},
      {.schema = "rsqrt(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "1 / sqrt(self).",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::rsqrt, .saves = save_output(0)}},
      {.schema = "reciprocal(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "1 / self.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::reciprocal, .saves = save_output(0)}},
      {.schema = "sin(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "Sine.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::sin, .saves = save_arg(0)}},
      {.schema = "cos(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "Cosine.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::cos, .saves = save_arg(0)}},
      {.schema = "tan(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "Tangent.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::tan, .saves = save_output(0)}},
      {.schema = "asin(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "Arcsine.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::asin, .saves = save_arg(0)}},
      {.schema = "acos(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "Arccosine.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::acos, .saves = save_arg(0)}},
      {.schema = "atan(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "Arctangent.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::atan, .saves = save_arg(0)}},
      {.schema = "sinh(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "Hyperbolic sine.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::sinh, .saves = save_arg(0)}},
      {.schema = "cosh(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "Hyperbolic cosine.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::cosh, .saves = save_arg(0)}},
      {.schema = "tanh(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "Hyperbolic tangent.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::tanh, .saves = save_output(0)}},
      {.schema = "sigmoid(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "1 / (1 + exp(-self)).",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::sigmoid, .saves = save_output(0)}},
      {.schema = "erf(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "Error function.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::erf, .saves = save_arg(0)}},
      {.schema = "erfc(Tensor self) -> Tensor",
       .shape = &float_unary_shape,
       .doc = "Complementary error function.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::erfc, .saves = save_arg(0)}},
      {.schema = "abs(Tensor self) -> Tensor",
       .shape = &no_bool_unary_shape,
       .doc = "|self|.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::abs, .saves = save_arg(0)}},
      {.schema = "sign(Tensor self) -> Tensor",
       .shape = &same_unary_shape,
       .doc = "-1, 0 or 1 (bool stays bool).",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::zero_self}},
      {.schema = "floor(Tensor self) -> Tensor",
       .shape = &no_bool_unary_shape,
       .doc = "Round down (integers unchanged).",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::zero_self}},
      {.schema = "ceil(Tensor self) -> Tensor",
       .shape = &no_bool_unary_shape,
       .doc = "Round up (integers unchanged).",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::zero_self}},
      {.schema = "trunc(Tensor self) -> Tensor",
       .shape = &no_bool_unary_shape,
       .doc = "Round toward zero (integers unchanged).",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::zero_self}},
      {.schema = "frac(Tensor self) -> Tensor",
       .shape = &frac_shape,
       .doc = "self - trunc(self) (floating only).",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::identity}},
      {.schema = "square(Tensor self) -> Tensor",
       .shape = &square_shape,
       .doc = "self * self (bool gives int64).",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::square, .saves = save_arg(0)}},
      {.schema = "relu(Tensor self) -> Tensor",
       .shape = &relu_shape,
       .doc = "max(self, 0).",
       .flags = kNNFunctional | kPointwise,
       .derivative = {.vjp = &derivatives::relu, .saves = save_output(0)}},
  };
}

}  // namespace axle::shape
