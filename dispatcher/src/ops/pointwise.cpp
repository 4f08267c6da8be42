// Pointwise ops: add, sub, mul, div (broadcast + promotion), their in-place
// forms, comparisons, and unary neg, exp, relu.
#include "shape_util.h"

#include <axle/ops.h>

namespace axle::shape {
namespace {

void binary_common(ShapeContext& c) {
  const Tensor& a = c.arg(0).tensor();
  const Tensor& b = c.arg(1).tensor();
  // The common case, same sizes and dtype: nothing to broadcast or promote.
  if (a.defined() && b.defined() && a.dtype() == b.dtype() && a.sizes() == b.sizes()) {
    c.outputs.emplace_back(a.sizes(), a.dtype());
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
  AXLE_CHECK(!(a || b), DTypeError, c.op,
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

void div_shape(ShapeContext& c) {
  binary_common(c);
  if (!is_floating_point(c.outputs[0].dtype)) c.outputs[0].dtype = get_default_dtype();
}

// In-place: the result must have self's shape and be castable to self's dtype.
template <ShapeFn Functional>
void inplace_shape(ShapeContext& c) {
  Functional(c);
  const Tensor& self = c.arg(0).tensor();
  AXLE_CHECK(c.outputs[0].sizes == self.sizes(), ShapeError, c.op, ": output with shape ", str(self.sizes()),
             " doesn't match the broadcast shape ", str(c.outputs[0].sizes));
  AXLE_CHECK(can_cast(c.outputs[0].dtype, self.dtype()), DTypeError, c.op, ": result type ",
             dtype_name(c.outputs[0].dtype), " can't be cast to the desired output type ", dtype_name(self.dtype()));
  c.outputs[0] = {self.sizes(), self.dtype(), 0};
}

void neg_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  AXLE_CHECK(t.dtype() != kBool, DTypeError, c.op,
             ": Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use "
             "the `~` or `logical_not()` operator instead.");
  c.outputs = {{t.sizes(), t.dtype()}};
}

// Unary float ops: integer and bool inputs produce the default float dtype.
void float_unary_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  c.outputs = {{t.sizes(), is_floating_point(t.dtype()) ? t.dtype() : get_default_dtype()}};
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

std::vector<OpDecl> pointwise_ops() {
  return {
      {"add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", &add_shape, nullptr,
       "self + alpha * other, broadcast and promoted."},
      {"sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", &sub_shape, nullptr,
       "self - alpha * other, broadcast and promoted."},
      {"mul.Tensor(Tensor self, Tensor other) -> Tensor", &binary_common, nullptr, "self * other."},
      {"div.Tensor(Tensor self, Tensor other) -> Tensor", &div_shape, nullptr,
       "True division; integer inputs give the default float dtype."},
      {"add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", &inplace_shape<&add_shape>,
       nullptr, "In-place add.", "add.Tensor"},
      {"sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", &inplace_shape<&sub_shape>,
       nullptr, "In-place sub.", "sub.Tensor"},
      {"mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", &inplace_shape<&binary_common>, nullptr,
       "In-place mul.", "mul.Tensor"},
      {"div_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", &inplace_shape<&div_shape>, nullptr,
       "In-place div.", "div.Tensor"},
      {"eq.Tensor(Tensor self, Tensor other) -> Tensor", &compare_shape, nullptr, "self == other (bool)."},
      {"ne.Tensor(Tensor self, Tensor other) -> Tensor", &compare_shape, nullptr, "self != other (bool)."},
      {"lt.Tensor(Tensor self, Tensor other) -> Tensor", &compare_shape, nullptr, "self < other (bool)."},
      {"le.Tensor(Tensor self, Tensor other) -> Tensor", &compare_shape, nullptr, "self <= other (bool)."},
      {"gt.Tensor(Tensor self, Tensor other) -> Tensor", &compare_shape, nullptr, "self > other (bool)."},
      {"ge.Tensor(Tensor self, Tensor other) -> Tensor", &compare_shape, nullptr, "self >= other (bool)."},
      {"maximum(Tensor self, Tensor other) -> Tensor", &binary_common, nullptr, "Elementwise max; NaN propagates."},
      {"minimum(Tensor self, Tensor other) -> Tensor", &binary_common, nullptr, "Elementwise min; NaN propagates."},
      {"atan2(Tensor self, Tensor other) -> Tensor", &div_shape, nullptr, "atan(self / other) in the right quadrant."},
      {"remainder.Tensor(Tensor self, Tensor other) -> Tensor", &no_bool_binary_shape, nullptr,
       "Python's modulo: the result has the sign of other."},
      {"fmod.Tensor(Tensor self, Tensor other) -> Tensor", &no_bool_binary_shape, nullptr,
       "C's fmod: the result has the sign of self."},
      {"pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor", &pow_shape, nullptr,
       "self ** exponent (integer powers wrap; negative integer exponents give 0 unless |self| is 1)."},
      {"logical_and(Tensor self, Tensor other) -> Tensor", &compare_shape, nullptr, "self != 0 and other != 0."},
      {"logical_or(Tensor self, Tensor other) -> Tensor", &compare_shape, nullptr, "self != 0 or other != 0."},
      {"logical_xor(Tensor self, Tensor other) -> Tensor", &compare_shape, nullptr, "(self != 0) != (other != 0)."},
      {"bitwise_and.Tensor(Tensor self, Tensor other) -> Tensor", &bitwise_shape, nullptr, "self & other."},
      {"bitwise_or.Tensor(Tensor self, Tensor other) -> Tensor", &bitwise_shape, nullptr, "self | other."},
      {"bitwise_xor.Tensor(Tensor self, Tensor other) -> Tensor", &bitwise_shape, nullptr, "self ^ other."},
      {"neg(Tensor self) -> Tensor", &neg_shape, nullptr, "-self."},
      {"exp(Tensor self) -> Tensor", &float_unary_shape, nullptr, "e ** self."},
      {"exp2(Tensor self) -> Tensor", &float_unary_shape, nullptr, "2 ** self."},
      {"expm1(Tensor self) -> Tensor", &float_unary_shape, nullptr, "exp(self) - 1, accurate near 0."},
      {"log(Tensor self) -> Tensor", &float_unary_shape, nullptr, "Natural logarithm."},
      {"log2(Tensor self) -> Tensor", &float_unary_shape, nullptr, "Base-2 logarithm."},
      {"log10(Tensor self) -> Tensor", &float_unary_shape, nullptr, "Base-10 logarithm."},
      {"log1p(Tensor self) -> Tensor", &float_unary_shape, nullptr, "log(1 + self), accurate near 0."},
      {"sqrt(Tensor self) -> Tensor", &float_unary_shape, nullptr, "Square root."},
      {"rsqrt(Tensor self) -> Tensor", &float_unary_shape, nullptr, "1 / sqrt(self)."},
      {"reciprocal(Tensor self) -> Tensor", &float_unary_shape, nullptr, "1 / self."},
      {"sin(Tensor self) -> Tensor", &float_unary_shape, nullptr, "Sine."},
      {"cos(Tensor self) -> Tensor", &float_unary_shape, nullptr, "Cosine."},
      {"tan(Tensor self) -> Tensor", &float_unary_shape, nullptr, "Tangent."},
      {"asin(Tensor self) -> Tensor", &float_unary_shape, nullptr, "Arcsine."},
      {"acos(Tensor self) -> Tensor", &float_unary_shape, nullptr, "Arccosine."},
      {"atan(Tensor self) -> Tensor", &float_unary_shape, nullptr, "Arctangent."},
      {"sinh(Tensor self) -> Tensor", &float_unary_shape, nullptr, "Hyperbolic sine."},
      {"cosh(Tensor self) -> Tensor", &float_unary_shape, nullptr, "Hyperbolic cosine."},
      {"tanh(Tensor self) -> Tensor", &float_unary_shape, nullptr, "Hyperbolic tangent."},
      {"sigmoid(Tensor self) -> Tensor", &float_unary_shape, nullptr, "1 / (1 + exp(-self))."},
      {"erf(Tensor self) -> Tensor", &float_unary_shape, nullptr, "Error function."},
      {"erfc(Tensor self) -> Tensor", &float_unary_shape, nullptr, "Complementary error function."},
      {"abs(Tensor self) -> Tensor", &no_bool_unary_shape, nullptr, "|self|."},
      {"sign(Tensor self) -> Tensor", &same_unary_shape, nullptr, "-1, 0 or 1 (bool stays bool)."},
      {"floor(Tensor self) -> Tensor", &no_bool_unary_shape, nullptr, "Round down (integers unchanged)."},
      {"ceil(Tensor self) -> Tensor", &no_bool_unary_shape, nullptr, "Round up (integers unchanged)."},
      {"trunc(Tensor self) -> Tensor", &no_bool_unary_shape, nullptr, "Round toward zero (integers unchanged)."},
      {"frac(Tensor self) -> Tensor", &frac_shape, nullptr, "self - trunc(self) (floating only)."},
      {"square(Tensor self) -> Tensor", &square_shape, nullptr, "self * self (bool gives int64)."},
      {"relu(Tensor self) -> Tensor", &relu_shape, nullptr, "max(self, 0).", nullptr, kNNFunctional},
  };
}

}  // namespace axle::shape
