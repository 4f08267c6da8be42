// Activations (relu6, leaky_relu, elu, selu, celu, gelu, silu, mish, hardtanh,
// hardsigmoid, hardswish, softplus, softsign, prelu, glu, threshold) with their
// in-place forms, and pointwise extras: clamp, nan_to_num, round, isnan/isinf/
// isfinite, logical_not, bitwise_not, div with rounding_mode, pow with a scalar.
// Dtype support follows torch 1.13's CPU kernels (most activations: float32,
// float64, bfloat16; no float16), with torch's wording in the errors.
#include <axle/ops.h>

#include <cmath>
#include <limits>

#include "shape_util.h"

namespace axle::shape {
namespace {

// torch's ScalarType names, as in its "not implemented for 'Half'" messages.
const char* torch_name(DType d) {
  switch (d) {
    case kFloat32:
      return "Float";
    case kFloat64:
      return "Double";
    case kFloat16:
      return "Half";
    case kBFloat16:
      return "BFloat16";
    case kInt8:
      return "Char";
    case kUInt8:
      return "Byte";
    case kInt16:
      return "Short";
    case kInt32:
      return "Int";
    case kInt64:
      return "Long";
    default:
      return "Bool";
  }
}

[[noreturn]] void not_implemented(ShapeContext& c, const char* kernel, DType d) {
  throw DTypeError(detail::concat(c.op, ": \"", kernel, "\" not implemented for '", torch_name(d), "'"));
}

// float32, float64 and (unless no_bf16) bfloat16: torch's CPU activation kernels.
void require_float(ShapeContext& c, const char* kernel, DType d, bool bf16 = true) {
  if (d == kFloat32 || d == kFloat64 || (bf16 && d == kBFloat16)) return;
  not_implemented(c, kernel, d);
}

// A scalar becomes a value of an integer dtype only when it fits (torch's checked_convert,
// c10::overflows): integers within the dtype's range (for uint8, negatives down to -255
// wrap around), doubles within it strictly. doubles=false: double scalars are not
// converted (they promote the computation to float instead).
void check_fits(ShapeContext& c, DType d, const Value& v, bool doubles = true) {
  check_scalar_fits(c.op, d, v, doubles);
}

// torch.result_type(tensor of dtype d, scalar): scalars only raise the category.
DType promote_scalar(DType d, const Value& s) {
  if (s.is_none()) return d;
  if (s.tag() == Value::Tag::Double) return is_floating_point(d) ? d : get_default_dtype();
  if (s.tag() == Value::Tag::Int && d == kBool) return kInt64;
  return d;
}

void same_as_self(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  c.outputs.push_back(OutputSpec{t.sizes(), t.dtype()});
}

// ---------------------------------------------------------------- activations
template <const char* Kernel>
void float_act_shape(ShapeContext& c) {
  require_float(c, Kernel, c.arg(0).tensor().dtype());
  same_as_self(c);
}
constexpr char kLeakyRelu[] = "leaky_relu_cpu", kElu[] = "elu_cpu", kSilu[] = "silu_cpu",
               kHardsigmoid[] = "hardsigmoid_cpu", kHardswish[] = "hardswish_cpu", kSoftplus[] = "softplus_cpu";

void celu_shape(ShapeContext& c) {
  float_act_shape<kElu>(c);
  AXLE_CHECK(c.args[1].to_double() != 0, ValueError, c.op, ": ZeroDivisionError: alpha cannot be 0 for CELU");
}

void mish_shape(ShapeContext& c) {
  require_float(c, "mish_cpu", c.arg(0).tensor().dtype(), false);
  same_as_self(c);
}

void gelu_shape(ShapeContext& c) {
  require_float(c, "GeluKernelImpl", c.arg(0).tensor().dtype());
  const std::string& a = c.args[1].str();
  AXLE_CHECK(a == "none" || a == "tanh", ValueError, c.op, ": approximate argument must be either none or tanh (got '",
             a, "')");
  same_as_self(c);
}

// hardtanh(self, min_val, max_val) (relu6 is hardtanh(self, 0, 6)): a clamp; integers allowed.
void hardtanh_check(ShapeContext& c, const Value& lo, const Value& hi) {
  const DType d = c.arg(0).tensor().dtype();
  AXLE_CHECK(d != kBool, DTypeError, c.op, ": Bool inputs not supported for hardtanh");
  if (d == kFloat16) not_implemented(c, "clamp_scalar_cpu", d);
  AXLE_CHECK(d != kUInt8 || (std::trunc(lo.to_double()) >= 0 && std::trunc(hi.to_double()) >= 0), ValueError, c.op,
             ": cannot do hardtanh on an unsigned type with negative limits");
  check_fits(c, d, lo, false);
  check_fits(c, d, hi, false);
  same_as_self(c);
}
void hardtanh_shape(ShapeContext& c) { hardtanh_check(c, c.args[1], c.args[2]); }
void relu6_shape(ShapeContext& c) { hardtanh_check(c, Value(0), Value(6)); }

void threshold_shape(ShapeContext& c) {
  const DType d = c.arg(0).tensor().dtype();
  if (d == kBool || d == kFloat16) not_implemented(c, "threshold_cpu", d);
  check_fits(c, d, c.args[1]);
  check_fits(c, d, c.args[2]);
  same_as_self(c);
}

// prelu: weight holds one slope, or one per channel (dim 1 of self).
void prelu_shape(ShapeContext& c) {
  const Tensor& self = c.arg(0).tensor();
  const Tensor& w = c.arg(1).tensor();
  require_float(c, "prelu_cpu", self.dtype());
  const int64_t n = w.numel();
  if (n != 1) {
    AXLE_CHECK(self.dim() > 0, ShapeError, c.op, ": Not allow zero-dim input tensor.");
    const int64_t channels = self.dim() > 1 ? self.sizes()[1] : 1;
    AXLE_CHECK(channels == n, ShapeError, c.op,
               ": Mismatch of parameter numbers and input channel size. Found parameter numbers = ", n,
               " and channel size = ", channels, ".");
  }
  AXLE_CHECK(w.dim() <= 1, ShapeError, c.op,
             ": prelu: Expected `weight` to be a scalar or 1D tensor, but got ndim = ", w.dim());
  // torch's bfloat16 kernel also takes float32 / float64 slopes.
  const bool bf16_ok = self.dtype() == kBFloat16 && (w.dtype() == kFloat32 || w.dtype() == kFloat64);
  AXLE_CHECK(w.dtype() == self.dtype() || bf16_ok, DTypeError, c.op, ": Found dtype ", torch_name(w.dtype()),
             " but expected ", torch_name(self.dtype()));
  same_as_self(c);
}

// glu(self, dim): halves self along dim; the kernel sees the wrapped dim.
void glu_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  AXLE_CHECK(t.dim() > 0, ShapeError, c.op, ": glu does not support scalars because halving size must be even");
  const int64_t dim = wrap_dim(c.args[1].to_int(), t.dim(), c.op);
  AXLE_CHECK(t.sizes()[dim] % 2 == 0, ShapeError, c.op, ": Halving dimension must be even, but dimension ", dim,
             " is size ", t.sizes()[dim]);
  require_float(c, "glu_cpu", t.dtype());
  IntList sizes = t.sizes();
  sizes[dim] /= 2;
  c.args[1] = dim;
  c.outputs = {{sizes, t.dtype()}};
}

Stack softsign_composite(const Stack& a) {
  const Tensor& x = a[0].tensor();
  return {axle::div(x, axle::add(axle::abs(x), scalar_to_tensor(1, x.device())))};
}

// ---------------------------------------------------------------- clamp
// clamp(self, Scalar? min, Scalar? max): the scalars join type promotion.
void clamp_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  const Value &lo = c.args[1], &hi = c.args[2];
  AXLE_CHECK(!lo.is_none() || !hi.is_none(), ValueError, c.op,
             ": torch.clamp: At least one of 'min' or 'max' must not be None");
  const DType d = promote_scalar(promote_scalar(t.dtype(), lo), hi);
  if (d == kFloat16 || d == kBool)
    not_implemented(c, hi.is_none() ? "clamp_min_cpu" : lo.is_none() ? "clamp_max_scalar_cpu" : "clamp_scalar_cpu", d);
  check_fits(c, d, lo);
  check_fits(c, d, hi);
  c.outputs = {{t.sizes(), d}};
}

// clamp.Tensor(self, Tensor? min, Tensor? max): broadcast and promoted.
void clamp_tensor_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  const Value &lo = c.args[1], &hi = c.args[2];
  AXLE_CHECK(!lo.is_none() || !hi.is_none(), ValueError, c.op,
             ": torch.clamp: At least one of 'min' or 'max' must not be None");
  const Tensor* lt = lo.is_none() ? nullptr : &lo.tensor();
  const Tensor* ht = hi.is_none() ? nullptr : &hi.tensor();
  IntList sizes = t.sizes();
  if (lt) sizes = broadcast(sizes, lt->sizes());
  if (ht) sizes = broadcast(sizes, ht->sizes());
  const DType d = result_type({&t, lt, ht});
  if (lt && ht && (d == kFloat16 || d == kBool)) not_implemented(c, "clamp_cpu", d);  // one bound: any dtype
  c.outputs = {{sizes, d}};
}

// ---------------------------------------------------------------- unary extras
void round_shape(ShapeContext& c) {
  const DType d = c.arg(0).tensor().dtype();
  if (d == kBool || d == kFloat16) not_implemented(c, "round_vml_cpu", d);
  same_as_self(c);
}

void round_decimals_shape(ShapeContext& c) {
  require_float(c, "round_cpu", c.arg(0).tensor().dtype());
  same_as_self(c);
}

void bool_unary_shape(ShapeContext& c) { c.outputs = {{c.arg(0).tensor().sizes(), kBool}}; }

void bitwise_not_shape(ShapeContext& c) {
  const DType d = c.arg(0).tensor().dtype();
  if (is_floating_point(d)) not_implemented(c, "bitwise_not_cpu", d);
  same_as_self(c);
}

// ---------------------------------------------------------------- binary extras
// div(self, other, rounding_mode): None is true division; 'trunc' and 'floor'
// keep the promoted dtype (integer results for integer inputs).
void div_mode_shape(ShapeContext& c) {
  const Tensor& a = c.arg(0).tensor();
  const Tensor& b = c.arg(1).tensor();
  c.outputs = {{broadcast(a.sizes(), b.sizes()), result_type({&a, &b})}};
  const Value& mode = c.args[2];
  if (mode.is_none()) {
    if (!is_floating_point(c.outputs[0].dtype)) c.outputs[0].dtype = get_default_dtype();
    return;
  }
  const std::string& m = mode.str();
  AXLE_CHECK(m == "trunc" || m == "floor", ValueError, c.op,
             ": div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '", m, "'");
  if (c.outputs[0].dtype == kBool) not_implemented(c, m == "trunc" ? "div_trunc_cpu" : "div_floor_cpu", kBool);
}

void check_int_pow(ShapeContext& c, DType base, const Value& exp) {
  AXLE_CHECK(!(is_integral(base, true) && exp.tag() != Value::Tag::Double && exp.to_int() < 0), ValueError, c.op,
             ": Integers to negative integer powers are not allowed.");
}

// pow(Tensor self, Scalar exponent)
void pow_tensor_scalar_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  check_int_pow(c, t.dtype(), c.args[1]);
  const DType d = promote_scalar(t.dtype(), c.args[1]);
  if (d == kBool) not_implemented(c, "pow", d);
  c.outputs = {{t.sizes(), d}};
}

// pow(Scalar self, Tensor exponent)
void pow_scalar_shape(ShapeContext& c) {
  const Tensor& e = c.arg(1).tensor();
  const DType d = promote_scalar(e.dtype(), c.args[0]);
  if (d == kBool) not_implemented(c, "pow", d);
  c.outputs = {{e.sizes(), d}};
}

// In-place: the result keeps self's shape and must be castable to self's dtype.
template <ShapeFn Functional>
void inplace(ShapeContext& c) {
  Functional(c);
  const Tensor& self = c.arg(0).tensor();
  AXLE_CHECK(c.outputs[0].sizes == self.sizes(), ShapeError, c.op, ": output with shape ", str(self.sizes()),
             " doesn't match the broadcast shape ", str(c.outputs[0].sizes));
  AXLE_CHECK(can_cast(c.outputs[0].dtype, self.dtype()), DTypeError, c.op, ": result type ",
             dtype_name(c.outputs[0].dtype), " can't be cast to the desired output type ", dtype_name(self.dtype()));
  c.outputs[0] = {self.sizes(), self.dtype(), 0};
}

void relu_checks(ShapeContext& c) {
  const DType d = c.arg(0).tensor().dtype();
  AXLE_CHECK(d != kBool, DTypeError, c.op, ": Boolean inputs not supported for relu");
  if (d == kFloat16) not_implemented(c, "clamp_min_cpu", d);
  same_as_self(c);
}

}  // namespace

std::vector<OpDecl> activations_ops() {
  constexpr unsigned F = kNNFunctional, N = kNNOnly;
  return {
      // Activations (torch.nn.functional; only some also at torch.<name>).
      {"relu6(Tensor self) -> Tensor", &relu6_shape, nullptr, "min(max(self, 0), 6).", nullptr, N},
      {"leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor", &float_act_shape<kLeakyRelu>, nullptr,
       "self if self > 0 else negative_slope * self.", nullptr, N},
      {"elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor", &float_act_shape<kElu>,
       nullptr, "scale * self if self > 0 else alpha * scale * (exp(input_scale * self) - 1).", nullptr, N},
      {"selu(Tensor self) -> Tensor", &float_act_shape<kElu>, nullptr,
       "elu with alpha 1.6732632423543772 and scale 1.0507009873554805.", nullptr, F},
      {"celu(Tensor self, Scalar alpha=1.0) -> Tensor", &celu_shape, nullptr,
       "max(0, self) + min(0, alpha * (exp(self / alpha) - 1)).", nullptr, F},
      {"gelu(Tensor self, *, str approximate='none') -> Tensor", &gelu_shape, nullptr,
       "self * Phi(self); approximate='tanh' uses the tanh formula.", nullptr, N},
      {"silu(Tensor self) -> Tensor", &float_act_shape<kSilu>, nullptr, "self * sigmoid(self).", nullptr, N},
      {"mish(Tensor self) -> Tensor", &mish_shape, nullptr, "self * tanh(softplus(self)).", nullptr, N},
      {"hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor", &hardtanh_shape, nullptr,
       "self clamped to [min_val, max_val].", nullptr, N},
      {"hardsigmoid(Tensor self) -> Tensor", &float_act_shape<kHardsigmoid>, nullptr, "min(max(self + 3, 0), 6) / 6.",
       nullptr, N},
      {"hardswish(Tensor self) -> Tensor", &float_act_shape<kHardswish>, nullptr,
       "self * min(max(self + 3, 0), 6) / 6.", nullptr, N},
      {"softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor", &float_act_shape<kSoftplus>, nullptr,
       "log(1 + exp(beta * self)) / beta (self where beta * self > threshold).", nullptr, N},
      {"softsign(Tensor self) -> Tensor", nullptr, &softsign_composite, "self / (1 + |self|).", nullptr, N},
      {"prelu(Tensor self, Tensor weight) -> Tensor", &prelu_shape, nullptr,
       "self if self > 0 else weight * self (weight: one slope or one per channel, dim 1).", nullptr, F},
      {"glu(Tensor self, int dim=-1) -> Tensor", &glu_shape, nullptr, "a * sigmoid(b), a and b the halves along dim.",
       nullptr, N},
      {"threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor", &threshold_shape, nullptr,
       "value where self <= threshold, else self.", nullptr, F},
      // In-place forms, served by the functional kernels.
      {"relu_(Tensor(a!) self) -> Tensor(a!)", &inplace<&relu_checks>, nullptr, "In-place relu.", "relu", F},
      {"relu6_(Tensor(a!) self) -> Tensor(a!)", &inplace<&relu6_shape>, nullptr, "In-place relu6.", "relu6", N},
      {"leaky_relu_(Tensor(a!) self, Scalar negative_slope=0.01) -> Tensor(a!)", &inplace<&float_act_shape<kLeakyRelu>>,
       nullptr, "In-place leaky_relu.", "leaky_relu", N},
      {"elu_(Tensor(a!) self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor(a!)",
       &inplace<&float_act_shape<kElu>>, nullptr, "In-place elu.", "elu", N},
      {"selu_(Tensor(a!) self) -> Tensor(a!)", &inplace<&float_act_shape<kElu>>, nullptr, "In-place selu.", "selu", F},
      {"celu_(Tensor(a!) self, Scalar alpha=1.0) -> Tensor(a!)", &inplace<&celu_shape>, nullptr, "In-place celu.",
       "celu", F},
      {"silu_(Tensor(a!) self) -> Tensor(a!)", &inplace<&float_act_shape<kSilu>>, nullptr, "In-place silu.", "silu", N},
      {"mish_(Tensor(a!) self) -> Tensor(a!)", &inplace<&mish_shape>, nullptr, "In-place mish.", "mish", N},
      {"hardtanh_(Tensor(a!) self, Scalar min_val=-1, Scalar max_val=1) -> Tensor(a!)", &inplace<&hardtanh_shape>,
       nullptr, "In-place hardtanh.", "hardtanh", N},
      {"hardsigmoid_(Tensor(a!) self) -> Tensor(a!)", &inplace<&float_act_shape<kHardsigmoid>>, nullptr,
       "In-place hardsigmoid.", "hardsigmoid", N},
      {"hardswish_(Tensor(a!) self) -> Tensor(a!)", &inplace<&float_act_shape<kHardswish>>, nullptr,
       "In-place hardswish.", "hardswish", N},
      {"threshold_(Tensor(a!) self, Scalar threshold, Scalar value) -> Tensor(a!)", &inplace<&threshold_shape>, nullptr,
       "In-place threshold.", "threshold", F},
      // Unary extras (an op's overload without a name comes first: the bare name finds it).
      {"clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", &clamp_shape, nullptr,
       "min(max(self, min), max); the bounds join type promotion."},
      {"clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor", &clamp_tensor_shape, nullptr,
       "min(max(self, min), max), broadcast and promoted; NaN in any operand gives NaN."},
      {"clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)", &inplace<&clamp_shape>, nullptr,
       "In-place clamp.", "clamp"},
      {"clamp_.Tensor(Tensor(a!) self, Tensor? min=None, Tensor? max=None) -> Tensor(a!)",
       &inplace<&clamp_tensor_shape>, nullptr, "In-place clamp with tensor bounds.", "clamp.Tensor"},
      {"nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor", &same_as_self,
       nullptr, "NaN, +inf, -inf replaced (defaults: 0, the dtype's largest and lowest finite values)."},
      {"nan_to_num_(Tensor(a!) self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor(a!)",
       &inplace<&same_as_self>, nullptr, "In-place nan_to_num.", "nan_to_num"},
      {"round(Tensor self) -> Tensor", &round_shape, nullptr, "Round half to even (integers unchanged)."},
      {"round.decimals(Tensor self, *, int decimals) -> Tensor", &round_decimals_shape, nullptr,
       "Round half to even to the given number of decimals (negative: tens, hundreds, ...)."},
      {"round_(Tensor(a!) self) -> Tensor(a!)", &inplace<&round_shape>, nullptr, "In-place round.", "round"},
      {"round_.decimals(Tensor(a!) self, *, int decimals) -> Tensor(a!)", &inplace<&round_decimals_shape>, nullptr,
       "In-place round to decimals.", "round.decimals"},
      {"isnan(Tensor self) -> Tensor", &bool_unary_shape, nullptr, "self != self (bool)."},
      {"isinf(Tensor self) -> Tensor", &bool_unary_shape, nullptr, "self is +inf or -inf (bool)."},
      {"isfinite(Tensor self) -> Tensor", &bool_unary_shape, nullptr, "self is neither inf nor NaN (bool)."},
      {"logical_not(Tensor self) -> Tensor", &bool_unary_shape, nullptr, "self == 0 (bool)."},
      {"logical_not_(Tensor(a!) self) -> Tensor(a!)", &inplace<&bool_unary_shape>, nullptr, "In-place logical_not.",
       "logical_not"},
      {"bitwise_not(Tensor self) -> Tensor", &bitwise_not_shape, nullptr, "~self (integral and bool only)."},
      {"bitwise_not_(Tensor(a!) self) -> Tensor(a!)", &inplace<&bitwise_not_shape>, nullptr, "In-place bitwise_not.",
       "bitwise_not"},
      // Binary extras.
      {"div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor", &div_mode_shape, nullptr,
       "self / other rounded by rounding_mode (None, 'trunc' or 'floor')."},
      {"div_.Tensor_mode(Tensor(a!) self, Tensor other, *, str? rounding_mode) -> Tensor(a!)",
       &inplace<&div_mode_shape>, nullptr, "In-place div with rounding_mode.", "div.Tensor_mode"},
      {"pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor", &pow_tensor_scalar_shape, nullptr,
       "self ** exponent (the scalar joins type promotion)."},
      {"pow.Scalar(Scalar self, Tensor exponent) -> Tensor", &pow_scalar_shape, nullptr,
       "self ** exponent for a scalar base."},
      {"pow_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)", &inplace<&pow_tensor_scalar_shape>, nullptr,
       "In-place pow with a scalar exponent.", "pow.Tensor_Scalar"},
  };
}

}  // namespace axle::shape
