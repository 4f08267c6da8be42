// Activations (relu6, leaky_relu, elu, selu, celu, gelu, silu, mish, hardtanh,
// hardsigmoid, hardswish, softplus, softsign, prelu, glu, threshold) with their
// in-place forms, and pointwise extras: clamp, nan_to_num, round, isnan/isinf/
// isfinite, logical_not, bitwise_not, div with rounding_mode, pow with a scalar.
// Dtype support follows torch 1.13's CPU kernels (most activations: float32,
// float64, bfloat16; no float16), with torch's wording in the errors.
#include <axle/ops.h>

#include <cmath>
#include <limits>

#include "../derivatives/derivatives.h"
#include "shape_util.h"

namespace axle::shape {
namespace {

[[noreturn]] void not_implemented(ShapeContext& c, const char* kernel, DType d) {
  throw DTypeError(detail::concat(c.op, ": \"", kernel, "\" not implemented for '", torch_type_name(d), "'"));
}

// float32, float64 and (unless no_bf16) bfloat16: torch's CPU activation kernels.
void require_float(ShapeContext& c, const char* kernel, DType d, bool bf16 = true) {
  if (d == kFloat32 || d == kFloat64 || (bf16 && d == kBFloat16)) return;
  not_implemented(c, kernel, d);
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

// gelu_backward(grad_output, self, approximate): grad_output * gelu'(self)
// (torch's op; the composite is the formula, a plugin may fuse it).
// The checks of gelu_backward, for its shape function and its composite (which
// heads the chain on devices without a kernel, where no shape function runs).
void check_gelu_backward(const char* op, const Stack& a) {
  const Tensor& g = a[0].tensor();
  const Tensor& x = a[1].tensor();
  AXLE_CHECK(g.sizes() == x.sizes(), ShapeError, op, ": grad_output ", shape_string(g.sizes()), " and self ",
             shape_string(x.sizes()), " differ in shape");
  AXLE_CHECK(is_floating_point(x.dtype()) && g.dtype() == x.dtype(), DTypeError, op,
             ": expected floating grad_output and self of one dtype, got ", dtype_name(g.dtype()), " and ",
             dtype_name(x.dtype()));
  const std::string& approximate = a[2].str();
  AXLE_CHECK(approximate == "none" || approximate == "tanh", ValueError, op,
             ": approximate argument must be either none or tanh (got '", approximate, "')");
}
void gelu_backward_shape(ShapeContext& c) {
  check_gelu_backward(c.op, c.args);
  c.outputs.push_back({.sizes = c.arg(0).tensor().sizes(), .dtype = c.arg(0).tensor().dtype()});
}
Stack gelu_backward_composite(const Stack& a) {
  check_gelu_backward("gelu_backward", a);
  const Tensor& g = a[0].tensor();
  const Tensor& x = a[1].tensor();
  // In float32 for float16/bfloat16 inputs, rounded back once.
  const Tensor xd = x.dtype() == kFloat32 || x.dtype() == kFloat64 ? x : x.to(kFloat32);
  Tensor d;
  if (a[2].str() == "tanh") {
    const double k = std::sqrt(2.0 / M_PI), c3 = 0.044715;
    const Tensor inner = (xd + xd * xd * xd * c3) * k;
    const Tensor th = tanh(inner);
    d = (th + 1.0) * 0.5 + xd * 0.5 * (th * th * -1.0 + 1.0) * ((xd * xd * (3.0 * c3) + 1.0) * k);
  } else {
    const Tensor cdf = (erf(xd * M_SQRT1_2) + 1.0) * 0.5;
    const Tensor pdf = exp(xd * xd * -0.5) * (1.0 / std::sqrt(2.0 * M_PI));
    d = cdf + xd * pdf;
  }
  return {(g.to(d.dtype()) * d).to(g.dtype())};
}

// hardtanh(self, min_val, max_val) (relu6 is hardtanh(self, 0, 6)): a clamp; integers allowed.
void hardtanh_check(ShapeContext& c, const Value& lo, const Value& hi) {
  const DType d = c.arg(0).tensor().dtype();
  AXLE_CHECK(d != kBool, DTypeError, c.op, ": Bool inputs not supported for hardtanh");
  if (d == kFloat16) not_implemented(c, "clamp_scalar_cpu", d);
  AXLE_CHECK(d != kUInt8 || (std::trunc(lo.to_double()) >= 0 && std::trunc(hi.to_double()) >= 0), ValueError, c.op,
             ": cannot do hardtanh on an unsigned type with negative limits");
  check_scalar_fits(c.op, d, lo, false);
  check_scalar_fits(c.op, d, hi, false);
  same_as_self(c);
}
void hardtanh_shape(ShapeContext& c) { hardtanh_check(c, c.args[1], c.args[2]); }
void relu6_shape(ShapeContext& c) { hardtanh_check(c, Value(0), Value(6)); }

void threshold_shape(ShapeContext& c) {
  const DType d = c.arg(0).tensor().dtype();
  if (d == kBool || d == kFloat16) not_implemented(c, "threshold_cpu", d);
  check_scalar_fits(c.op, d, c.args[1]);
  check_scalar_fits(c.op, d, c.args[2]);
  same_as_self(c);
}

// threshold_backward(grad_output, self, threshold): 0 where self <= threshold,
// else grad_output (torch's op: the gradient of relu and threshold, one pass
// that a plugin may serve).
void check_threshold_backward(const char* op, const Stack& a) {
  const Tensor& g = a[0].tensor();
  const Tensor& x = a[1].tensor();
  AXLE_CHECK(g.sizes() == x.sizes(), ShapeError, op, ": grad_output ", shape_string(g.sizes()), " and self ",
             shape_string(x.sizes()), " differ in shape");
  AXLE_CHECK(is_floating_point(g.dtype()) && is_floating_point(x.dtype()), DTypeError, op,
             ": expected floating grad_output and self, got ", dtype_name(g.dtype()), " and ", dtype_name(x.dtype()));
}
void threshold_backward_shape(ShapeContext& c) {
  check_threshold_backward(c.op, c.args);
  const Tensor& g = c.arg(0).tensor();
  c.outputs.push_back({.sizes = g.sizes(), .dtype = promote_types(g.dtype(), c.arg(1).tensor().dtype())});
}
Stack threshold_backward_composite(const Stack& a) {
  check_threshold_backward("threshold_backward", a);
  const Tensor& g = a[0].tensor();
  // not (self <= threshold): a NaN self passes the gradient, as torch's
  const Tensor keep = logical_not(le(a[1].tensor(), scalar_to_tensor(a[2].scalar())));
  const DType out = promote_types(g.dtype(), a[1].tensor().dtype());
  return {where(keep, g.to(out), scalar_to_tensor(Scalar(0.0)))};
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
  AXLE_CHECK(w.dtype() == self.dtype() || bf16_ok, DTypeError, c.op, ": Found dtype ", torch_type_name(w.dtype()),
             " but expected ", torch_type_name(self.dtype()));
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
  return {axle::div(x, axle::add(axle::abs(x), scalar_to_tensor(1)))};
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
  check_scalar_fits(c.op, d, lo);
  check_scalar_fits(c.op, d, hi);
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

void relu_checks(ShapeContext& c) {
  const DType d = c.arg(0).tensor().dtype();
  AXLE_CHECK(d != kBool, DTypeError, c.op, ": Boolean inputs not supported for relu");
  if (d == kFloat16) not_implemented(c, "clamp_min_cpu", d);
  same_as_self(c);
}

}  // namespace

std::vector<OpDecl> activations_ops() {
  return {
      // Activations (torch.nn.functional; only some also at torch.<name>).
      {.schema = "relu6(Tensor self) -> Tensor",
       .shape = &relu6_shape,
       .doc = "min(max(self, 0), 6).",
       .flags = kNNOnly | kPointwise,
       .derivative = {.vjp = &derivatives::relu6, .saves = save_arg(0)}},
      {.schema = "leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
       .shape = &float_act_shape<kLeakyRelu>,
       .doc = "self if self > 0 else negative_slope * self.",
       .flags = kNNOnly | kPointwise,
       .derivative = {.vjp = &derivatives::leaky_relu, .saves = save_arg(0)}},
      {.schema = "elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor",
       .shape = &float_act_shape<kElu>,
       .doc = "scale * self if self > 0 else alpha * scale * (exp(input_scale * self) - 1).",
       .flags = kNNOnly | kPointwise,
       .derivative = {.vjp = &derivatives::elu, .saves = save_arg(0)}},
      {.schema = "selu(Tensor self) -> Tensor",
       .shape = &float_act_shape<kElu>,
       .doc = "elu with alpha 1.6732632423543772 and scale 1.0507009873554805.",
       .flags = kNNFunctional | kPointwise,
       .derivative = {.vjp = &derivatives::selu, .saves = save_arg(0)}},
      {.schema = "celu(Tensor self, Scalar alpha=1.0) -> Tensor",
       .shape = &celu_shape,
       .doc = "max(0, self) + min(0, alpha * (exp(self / alpha) - 1)).",
       .flags = kNNFunctional | kPointwise,
       .derivative = {.vjp = &derivatives::celu, .saves = save_arg(0)}},
      {.schema = "gelu(Tensor self, *, str approximate='none') -> Tensor",
       .shape = &gelu_shape,
       .doc = "self * Phi(self); approximate='tanh' uses the tanh formula.",
       .flags = kNNOnly | kPointwise,
       .derivative = {.vjp = &derivatives::gelu, .saves = save_arg(0)}},
      {.schema = "silu(Tensor self) -> Tensor",
       .shape = &float_act_shape<kSilu>,
       .doc = "self * sigmoid(self).",
       .flags = kNNOnly | kPointwise,
       .derivative = {.vjp = &derivatives::silu, .saves = save_arg(0)}},
      {.schema = "mish(Tensor self) -> Tensor",
       .shape = &mish_shape,
       .doc = "self * tanh(softplus(self)).",
       .flags = kNNOnly | kPointwise,
       .derivative = {.vjp = &derivatives::mish, .saves = save_arg(0)}},
      {.schema = "hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor",
       .shape = &hardtanh_shape,
       .doc = "self clamped to [min_val, max_val].",
       .flags = kNNOnly | kPointwise,
       .derivative = {.vjp = &derivatives::hardtanh, .saves = save_arg(0)}},
      {.schema = "hardsigmoid(Tensor self) -> Tensor",
       .shape = &float_act_shape<kHardsigmoid>,
       .doc = "min(max(self + 3, 0), 6) / 6.",
       .flags = kNNOnly | kPointwise,
       .derivative = {.vjp = &derivatives::hardsigmoid, .saves = save_arg(0)}},
      {.schema = "hardswish(Tensor self) -> Tensor",
       .shape = &float_act_shape<kHardswish>,
       .doc = "self * min(max(self + 3, 0), 6) / 6.",
       .flags = kNNOnly | kPointwise,
       .derivative = {.vjp = &derivatives::hardswish, .saves = save_arg(0)}},
      {.schema = "softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor",
       .shape = &float_act_shape<kSoftplus>,
       .doc = "log(1 + exp(beta * self)) / beta (self where beta * self > threshold).",
       .flags = kNNOnly | kPointwise,
       .derivative = {.vjp = &derivatives::softplus, .saves = save_arg(0)}},
      {.schema = "softsign(Tensor self) -> Tensor",
       .composite = &softsign_composite,
       .doc = "self / (1 + |self|).",
       .flags = kNNOnly | kPointwise,
       .derivative = {.decomposes = true}},
      {.schema = "prelu(Tensor self, Tensor weight) -> Tensor",
       .shape = &prelu_shape,
       .doc = "self if self > 0 else weight * self (weight: one slope or one per channel, dim 1).",
       .flags = kNNFunctional | kPointwise,
       .derivative = {.vjp = &derivatives::prelu, .saves = save_arg(0) | save_arg(1)}},
      {.schema = "glu(Tensor self, int dim=-1) -> Tensor",
       .shape = &glu_shape,
       .doc = "a * sigmoid(b), a and b the halves along dim.",
       .flags = kNNOnly | kPointwise,
       .derivative = {.vjp = &derivatives::glu, .saves = save_arg(0)}},
      {.schema = "threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor",
       .shape = &threshold_shape,
       .doc = "value where self <= threshold, else self.",
       .flags = kNNFunctional | kPointwise,
       .derivative = {.vjp = &derivatives::threshold, .saves = save_arg(0)}},
      {.schema = "gelu_backward(Tensor grad_output, Tensor self, *, str approximate='none') -> Tensor",
       .shape = &gelu_backward_shape,
       .composite = &gelu_backward_composite,
       .doc = "grad_output * gelu'(self) (the gradient of gelu).",
       .flags = kPointwise,
       .derivative = {.decomposes = true}},
      {.schema = "threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor",
       .shape = &threshold_backward_shape,
       .composite = &threshold_backward_composite,
       .doc = "0 where self <= threshold, else grad_output (the gradient of relu and threshold).",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::threshold_backward, .saves = save_arg(1)}},
      // In-place forms, served by the functional kernels.
      {.schema = "relu_(Tensor(a!) self) -> Tensor(a!)",
       .shape = &inplace<&relu_checks>,
       .doc = "In-place relu.",
       .kernel_op = "relu",
       .flags = kNNFunctional | kPointwise},
      {.schema = "relu6_(Tensor(a!) self) -> Tensor(a!)",
       .shape = &inplace<&relu6_shape>,
       .doc = "In-place relu6.",
       .kernel_op = "relu6",
       .flags = kNNOnly | kPointwise},
      {.schema = "leaky_relu_(Tensor(a!) self, Scalar negative_slope=0.01) -> Tensor(a!)",
       .shape = &inplace<&float_act_shape<kLeakyRelu>>,
       .doc = "In-place leaky_relu.",
       .kernel_op = "leaky_relu",
       .flags = kNNOnly | kPointwise},
      {.schema = "elu_(Tensor(a!) self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor(a!)",
       .shape = &inplace<&float_act_shape<kElu>>,
       .doc = "In-place elu.",
       .kernel_op = "elu",
       .flags = kNNOnly | kPointwise},
      {.schema = "selu_(Tensor(a!) self) -> Tensor(a!)",
       .shape = &inplace<&float_act_shape<kElu>>,
       .doc = "In-place selu.",
       .kernel_op = "selu",
       .flags = kNNFunctional | kPointwise},
      {.schema = "celu_(Tensor(a!) self, Scalar alpha=1.0) -> Tensor(a!)",
       .shape = &inplace<&celu_shape>,
       .doc = "In-place celu.",
       .kernel_op = "celu",
       .flags = kNNFunctional | kPointwise},
      {.schema = "silu_(Tensor(a!) self) -> Tensor(a!)",
       .shape = &inplace<&float_act_shape<kSilu>>,
       .doc = "In-place silu.",
       .kernel_op = "silu",
       .flags = kNNOnly | kPointwise},
      {.schema = "mish_(Tensor(a!) self) -> Tensor(a!)",
       .shape = &inplace<&mish_shape>,
       .doc = "In-place mish.",
       .kernel_op = "mish",
       .flags = kNNOnly | kPointwise},
      {.schema = "hardtanh_(Tensor(a!) self, Scalar min_val=-1, Scalar max_val=1) -> Tensor(a!)",
       .shape = &inplace<&hardtanh_shape>,
       .doc = "In-place hardtanh.",
       .kernel_op = "hardtanh",
       .flags = kNNOnly | kPointwise},
      {.schema = "hardsigmoid_(Tensor(a!) self) -> Tensor(a!)",
       .shape = &inplace<&float_act_shape<kHardsigmoid>>,
       .doc = "In-place hardsigmoid.",
       .kernel_op = "hardsigmoid",
       .flags = kNNOnly | kPointwise},
      {.schema = "hardswish_(Tensor(a!) self) -> Tensor(a!)",
       .shape = &inplace<&float_act_shape<kHardswish>>,
       .doc = "In-place hardswish.",
       .kernel_op = "hardswish",
       .flags = kNNOnly | kPointwise},
      {.schema = "threshold_(Tensor(a!) self, Scalar threshold, Scalar value) -> Tensor(a!)",
       .shape = &inplace<&threshold_shape>,
       .doc = "In-place threshold.",
       .kernel_op = "threshold",
       .flags = kNNFunctional | kPointwise},
      // Unary extras (an op's overload without a name comes first: the bare name finds it).
      {.schema = "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
       .shape = &clamp_shape,
       .doc = "min(max(self, min), max); the bounds join type promotion.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::clamp, .saves = save_arg(0)}},
      {.schema = "clamp.Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor",
       .shape = &clamp_tensor_shape,
       .doc = "min(max(self, min), max), broadcast and promoted; NaN in any operand gives NaN.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::clamp_tensor, .saves = save_arg(0) | save_arg(1) | save_arg(2)}},
      {.schema = "clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)",
       .shape = &inplace<&clamp_shape>,
       .doc = "In-place clamp.",
       .kernel_op = "clamp",
       .flags = kPointwise},
      {.schema = "clamp_.Tensor(Tensor(a!) self, Tensor? min=None, Tensor? max=None) -> Tensor(a!)",
       .shape = &inplace<&clamp_tensor_shape>,
       .doc = "In-place clamp with tensor bounds.",
       .kernel_op = "clamp.Tensor",
       .flags = kPointwise},
      {.schema = "nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor",
       .shape = &same_as_self,
       .doc = "NaN, +inf, -inf replaced (defaults: 0, the dtype's largest and lowest finite values).",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::nan_to_num, .saves = save_arg(0)}},
      {.schema = "nan_to_num_(Tensor(a!) self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor(a!)",
       .shape = &inplace<&same_as_self>,
       .doc = "In-place nan_to_num.",
       .kernel_op = "nan_to_num",
       .flags = kPointwise},
      {.schema = "round(Tensor self) -> Tensor",
       .shape = &round_shape,
       .doc = "Round half to even (integers unchanged).",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::zero_self}},
      {.schema = "round.decimals(Tensor self, *, int decimals) -> Tensor",
       .shape = &round_decimals_shape,
       .doc = "Round half to even to the given number of decimals (negative: tens, hundreds, ...).",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::zero_self}},
      {.schema = "round_(Tensor(a!) self) -> Tensor(a!)",
       .shape = &inplace<&round_shape>,
       .doc = "In-place round.",
       .kernel_op = "round",
       .flags = kPointwise},
      {.schema = "round_.decimals(Tensor(a!) self, *, int decimals) -> Tensor(a!)",
       .shape = &inplace<&round_decimals_shape>,
       .doc = "In-place round to decimals.",
       .kernel_op = "round.decimals",
       .flags = kPointwise},
      {.schema = "isnan(Tensor self) -> Tensor",
       .shape = &bool_unary_shape,
       .doc = "self != self (bool).",
       .flags = kPointwise,
       .derivative = {.none = "bool output"}},
      {.schema = "isinf(Tensor self) -> Tensor",
       .shape = &bool_unary_shape,
       .doc = "self is +inf or -inf (bool).",
       .flags = kPointwise,
       .derivative = {.none = "bool output"}},
      {.schema = "isfinite(Tensor self) -> Tensor",
       .shape = &bool_unary_shape,
       .doc = "self is neither inf nor NaN (bool).",
       .flags = kPointwise,
       .derivative = {.none = "bool output"}},
      {.schema = "logical_not(Tensor self) -> Tensor",
       .shape = &bool_unary_shape,
       .doc = "self == 0 (bool).",
       .flags = kPointwise,
       .derivative = {.none = "bool output"}},
      {.schema = "logical_not_(Tensor(a!) self) -> Tensor(a!)",
       .shape = &inplace<&bool_unary_shape>,
       .doc = "In-place logical_not.",
       .kernel_op = "logical_not",
       .flags = kPointwise},
      {.schema = "bitwise_not(Tensor self) -> Tensor",
       .shape = &bitwise_not_shape,
       .doc = "~self (integral and bool only).",
       .flags = kPointwise,
       .derivative = {.none = "integer or bool output"}},
      {.schema = "bitwise_not_(Tensor(a!) self) -> Tensor(a!)",
       .shape = &inplace<&bitwise_not_shape>,
       .doc = "In-place bitwise_not.",
       .kernel_op = "bitwise_not",
       .flags = kPointwise},
      // Binary extras.
      {.schema = "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
       .shape = &div_mode_shape,
       .doc = "self / other rounded by rounding_mode (None, 'trunc' or 'floor').",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::div_mode, .saves = save_arg(0) | save_arg(1)}},
      {.schema = "div_.Tensor_mode(Tensor(a!) self, Tensor other, *, str? rounding_mode) -> Tensor(a!)",
       .shape = &inplace<&div_mode_shape>,
       .doc = "In-place div with rounding_mode.",
       .kernel_op = "div.Tensor_mode",
       .flags = kPointwise},
      {.schema = "pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor",
       .shape = &pow_tensor_scalar_shape,
       .doc = "self ** exponent (the scalar joins type promotion).",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::pow_tensor_scalar, .saves = save_arg(0)}},
      {.schema = "pow.Scalar(Scalar self, Tensor exponent) -> Tensor",
       .shape = &pow_scalar_shape,
       .doc = "self ** exponent for a scalar base.",
       .flags = kPointwise,
       .derivative = {.vjp = &derivatives::pow_scalar, .saves = save_output(0)}},
      {.schema = "pow_.Scalar(Tensor(a!) self, Scalar exponent) -> Tensor(a!)",
       .shape = &inplace<&pow_tensor_scalar_shape>,
       .doc = "In-place pow with a scalar exponent.",
       .kernel_op = "pow.Tensor_Scalar",
       .flags = kPointwise},
  };
}

}  // namespace axle::shape
