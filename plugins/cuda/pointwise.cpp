// Host side of the pointwise kernels (pointwise.cu): argument checks, the
// broadcast indexing (its dim collapsing: pointwise_dims.cpp), the compute type, and
// registration.
// Semantics follow the reference plugin (plugins/reference) op by op:
// - fill_, copy_ (every dtype pair, any strides; contiguous equal dtypes are one
//   cudaMemcpyAsync).
// - add / sub (alpha) / mul for every dtype (integers wrap as in int64, bool
//   results are or / and), div (floating results).
// - eq, ne, lt, le, gt, ge, logical_and / or / xor: bool results, compared in
//   double when either input is floating (float when both inputs are exact in
//   float), else in int64.
// - maximum, minimum (NaN propagates), atan2, pow.Tensor_Tensor (integers
//   wrap), bitwise_and / or / xor, where.self, clamp.Tensor.
// - unary: the float functions of any input dtype (exp ... erfc), abs, sign,
//   floor, ceil, trunc, round, frac, square, neg, relu with their integer forms,
//   isnan / isinf / isfinite / logical_not, bitwise_not.
// - activations: gelu (none / tanh), silu, mish, leaky_relu, elu, selu, celu,
//   hardsigmoid, hardswish, softplus, hardtanh, relu6, threshold, clamp (integer
//   bounds converted to the dtype first, as torch), nan_to_num, pow.Tensor_Scalar
//   and pow.Scalar.
// Declined (a later candidate, finally the host fallback, serves them): integer
// remainder / fmod (their division by zero raises, which needs the data), more
// than 12 dims, and tensors on another device than the output. Floating results
// are computed in float (double for float64), so transcendental results differ
// from the reference's double math by a few ulp.
#include "cuda_util.h"
#include "kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace axle::cuda {

namespace {

using plugin::arg_double;
using plugin::arg_int;
using plugin::arg_is_none;
using plugin::arg_tensor;
using plugin::is_floating;

// ---------------------------------------------------------------- indexing and launch
struct Inputs {
  const axle_tensor_view* v[3] = {};
};

// Aligns the output and up to three inputs to the output's dims (byte strides, 0 = broadcast).
bool make_indexing(const axle_tensor_view& out, const Inputs& in, Indexing* ix) {
  if (out.ndim > kMaxDims) return false;
  ix->ndim = out.ndim;
  const axle_tensor_view* views[kMaxOperands] = {&out, in.v[0], in.v[1], in.v[2]};
  for (int k = 0; k < kMaxOperands; ++k) {
    const axle_tensor_view* v = views[k];
    const bool on_device = v && !plugin::is_host_scalar(*v);  // host scalars: 0-dim, stride 0
    if (on_device && (v->device_index != out.device_index || v->ndim > out.ndim)) return false;
    const int64_t esize = v ? static_cast<int64_t>(plugin::dtype_size(v->dtype)) : 0;
    const int32_t lead = v ? out.ndim - v->ndim : 0;
    for (int32_t d = 0; d < out.ndim; ++d) {
      ix->sizes[d] = out.sizes[d];
      const int32_t vd = d - lead;
      ix->strides[k][d] = (!v || vd < 0 || v->sizes[vd] == 1) ? 0 : v->strides[vd] * esize;
    }
  }
  return true;
}

axle_status run(const axle_kernel_call* c, Op op, Compute compute, const axle_tensor_view& out, const Inputs& in,
                const OpScalars& s = {}) {
  Indexing ix;
  if (!make_indexing(out, in, &ix)) return AXLE_DECLINED;
  const int64_t n = plugin::numel(out);
  if (n == 0) return AXLE_OK;
  DeviceGuard guard(out.device_index);
  if (axle_status s = guard.status(c)) return s;
  Operand operands[3];
  for (int k = 0; k < 3; ++k) {
    if (!in.v[k]) continue;
    operands[k].dtype = in.v[k]->dtype;
    if (plugin::is_host_scalar(*in.v[k])) {  // read here, passed by value (no upload)
      operands[k].by_value = true;
      std::memcpy(operands[k].value, in.v[k]->data, plugin::dtype_size(in.v[k]->dtype));
    } else {
      operands[k].data = in.v[k]->data;
    }
  }
  const int e = launch_pointwise(op, compute, ix, n, Operand{out.data, out.dtype}, operands, s, c->stream);
  return check(static_cast<cudaError_t>(e), c->op_name, c);
}

// Dtypes whose every value a float holds exactly.
bool exact_in_float(axle_dtype d) { return d != AXLE_DTYPE_FLOAT64 && d != AXLE_DTYPE_INT32 && d != AXLE_DTYPE_INT64; }

// The compute type of a predicate over inputs of their own dtypes (the reference
// tests in double when any is floating, else in int64): float where that is exact.
Compute predicate_compute(const Inputs& in) {
  bool floating = false, exact = true;
  for (const axle_tensor_view* v : in.v) {
    if (!v) continue;
    floating |= is_floating(v->dtype);
    exact &= exact_in_float(v->dtype);
  }
  return !floating ? Compute::Int64 : exact ? Compute::Float : Compute::Double;
}

// A scalar converted to the integer dtype d and back, as torch converts bounds (wrapping).
int64_t as_int_dtype(int64_t v, axle_dtype d) {
  alignas(8) char buf[8];
  plugin::store_from<int64_t>(buf, d, v);
  return plugin::load_as<int64_t>(buf, d);
}

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ---------------------------------------------------------------- fill_, copy_
axle_status fill(void*, const axle_kernel_call* c) {
  const axle_tensor_view& self = c->outputs[0];
  OpScalars s;
  if (!plugin::arg_scalar_is_floating(c, 1)) {
    // An integer scalar is stored as the reference's store_from<int64_t> does, for every dtype.
    s.i[0] = arg_int(c, 1);
    return run(c, Op::Fill, Compute::Int64, self, {}, s);
  }
  s.f[0] = arg_double(c, 1);
  // A floating scalar into an integer tensor truncates the double (Compute::Double).
  return run(c, Op::Fill, is_floating(self.dtype) ? compute_for(self.dtype) : Compute::Double, self, {}, s);
}

axle_status copy(void*, const axle_kernel_call* c) {
  const axle_tensor_view& dst = c->outputs[0];
  const axle_tensor_view& src = arg_tensor(c, 1);
  if (src.device_index != dst.device_index) return AXLE_DECLINED;  // the core stages cross-device copies
  const int64_t n = plugin::numel(dst);
  if (n == 0) return AXLE_OK;
  if (src.dtype == dst.dtype && plugin::is_contiguous(src) && plugin::is_contiguous(dst) && plugin::numel(src) == n) {
    if (dst.data == src.data) return AXLE_OK;
    DeviceGuard guard(dst.device_index);
    if (axle_status s = guard.status(c)) return s;
    return check(cudaMemcpyAsync(dst.data, src.data, static_cast<size_t>(n) * plugin::dtype_size(dst.dtype),
                                 cudaMemcpyDeviceToDevice, to_cuda(c->stream)),
                 "copy_", c);
  }
  // Integer and bool sources convert from int64 (the reference's path); floating ones
  // in the wider of the two floating types, truncating (from double) into integers.
  Compute compute = Compute::Int64;
  if (is_floating(src.dtype)) {
    const bool wide = src.dtype == AXLE_DTYPE_FLOAT64 || dst.dtype == AXLE_DTYPE_FLOAT64;
    compute = wide ? Compute::Double : Compute::Float;
  }
  return run(c, Op::Copy, compute, dst, {{&src}});
}

// ---------------------------------------------------------------- binary
// add / sub (alpha), mul, div. Integer results wrap; bool results of add are
// self || (alpha && other), of mul self && other (0/1 sums and products).
template <Op O>
axle_status arith(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  const Compute compute = compute_for(out.dtype);
  if (O == Op::Div && compute == Compute::Int64) return AXLE_DECLINED;
  OpScalars s;
  if constexpr (O == Op::Add || O == Op::Sub) {
    s.f[0] = arg_double(c, 2);
    if (out.dtype == AXLE_DTYPE_BOOL)
      s.i[0] = arg_double(c, 2) != 0 ? 1 : 0;
    else if (compute == Compute::Int64)
      s.i[0] = arg_int(c, 2);  // an integer (the shape function checked)
  }
  return run(c, O, compute, out, {{&arg_tensor(c, 0), &arg_tensor(c, 1)}}, s);
}

// eq ... ge, logical_and / or / xor: a bool result of a predicate.
template <Op O>
axle_status predicate(void*, const axle_kernel_call* c) {
  const Inputs in{{&arg_tensor(c, 0), &arg_tensor(c, 1)}};
  return run(c, O, predicate_compute(in), c->outputs[0], in);
}

// maximum, minimum, atan2, remainder, fmod, pow, bitwise_*: floating results in
// the output's type (inputs converted to it), integer ones in int64. remainder
// and fmod of integers raise on a zero divisor: declined.
template <Op O>
axle_status binary(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  const Compute compute = compute_for(out.dtype);
  if (compute == Compute::Int64 && (O == Op::Remainder || O == Op::Fmod || O == Op::Atan2)) return AXLE_DECLINED;
  if (compute != Compute::Int64 && (O == Op::BitwiseAnd || O == Op::BitwiseOr || O == Op::BitwiseXor))
    return AXLE_DECLINED;
  return run(c, O, compute, out, {{&arg_tensor(c, 0), &arg_tensor(c, 1)}});
}

axle_status where(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  const axle_tensor_view& cond = arg_tensor(c, 0);
  if (cond.dtype != AXLE_DTYPE_BOOL && cond.dtype != AXLE_DTYPE_UINT8) return AXLE_DECLINED;
  return run(c, Op::Where, compute_for(out.dtype), out, {{&cond, &arg_tensor(c, 1), &arg_tensor(c, 2)}});
}

// clamp.Tensor(self, Tensor? min, Tensor? max): NaN in any operand gives NaN.
axle_status clamp_tensor(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  const bool lo = !arg_is_none(c, 1), hi = !arg_is_none(c, 2);
  if (!lo && !hi) return AXLE_DECLINED;
  OpScalars s;
  s.i[0] = (lo ? 1 : 0) | (hi ? 2 : 0);
  const Inputs in{{&arg_tensor(c, 0), lo ? &arg_tensor(c, 1) : nullptr, hi ? &arg_tensor(c, 2) : nullptr}};
  return run(c, Op::ClampTensor, compute_for(out.dtype), out, in, s);
}

// ---------------------------------------------------------------- unary
// Floating results for every input dtype (integers and bool are converted).
template <Op O>
axle_status float_unary(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  if (!is_floating(out.dtype)) return AXLE_DECLINED;
  return run(c, O, compute_for(out.dtype), out, {{&arg_tensor(c, 0)}});
}

// The output's dtype: a floating form and an integer form (abs, neg, sign, ...).
template <Op O>
axle_status typed_unary(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  return run(c, O, compute_for(out.dtype), out, {{&arg_tensor(c, 0)}});
}

// isnan, isinf, isfinite, logical_not: bool results, the input in its own dtype.
template <Op O>
axle_status test_unary(void*, const axle_kernel_call* c) {
  const Inputs in{{&arg_tensor(c, 0)}};
  return run(c, O, predicate_compute(in), c->outputs[0], in);
}

axle_status bitwise_not(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  if (is_floating(out.dtype)) return AXLE_DECLINED;
  const Op op = out.dtype == AXLE_DTYPE_BOOL ? Op::LogicalNot : Op::BitwiseNot;
  return run(c, op, Compute::Int64, out, {{&arg_tensor(c, 0)}});
}

// ---------------------------------------------------------------- activations
// Floating-only activations; `nparams` scalar arguments follow self.
template <Op O, int NParams>
axle_status float_act(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  if (!is_floating(out.dtype)) return AXLE_DECLINED;
  OpScalars s;
  for (int k = 0; k < NParams; ++k) s.f[k] = arg_double(c, k + 1);
  return run(c, O, compute_for(out.dtype), out, {{&arg_tensor(c, 0)}}, s);
}

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

axle_status elu_with(const axle_kernel_call* c, double alpha, double scale, double input_scale) {
  const axle_tensor_view& out = c->outputs[0];
  if (!is_floating(out.dtype)) return AXLE_DECLINED;
  OpScalars s;
  s.f[0] = alpha;
  s.f[1] = scale;
  s.f[2] = input_scale;
  return run(c, Op::Elu, compute_for(out.dtype), out, {{&arg_tensor(c, 0)}}, s);
}
axle_status selu(void*, const axle_kernel_call* c) { return elu_with(c, kSeluAlpha, kSeluScale, 1); }
axle_status celu(void*, const axle_kernel_call* c) {
  const double alpha = arg_double(c, 1);
  return elu_with(c, alpha, 1, 1 / alpha);
}

axle_status gelu(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  if (!is_floating(out.dtype)) return AXLE_DECLINED;
  const bool tanh_form = c->args[1].tag == AXLE_VALUE_STRING && std::strcmp(c->args[1].u.str, "tanh") == 0;
  return run(c, tanh_form ? Op::GeluTanh : Op::Gelu, compute_for(out.dtype), out, {{&arg_tensor(c, 0)}});
}

// min(max(x, lo), hi), an absent bound skipped (NaN x stays NaN, NaN bounds are
// ignored); integer bounds are first converted to the output's dtype. lo_arg /
// hi_arg: the scalar's argument index, -1 for absent, -2 for relu6's 0 and 6.
axle_status clamp_with(const axle_kernel_call* c, int lo_arg, int hi_arg) {
  const axle_tensor_view& out = c->outputs[0];
  const bool integral = !is_floating(out.dtype);
  OpScalars s;
  const int args[2] = {lo_arg, hi_arg};
  for (int k = 0; k < 2; ++k) {
    const int a = args[k];
    const double fixed = k == 0 ? 0 : 6;  // relu6
    // Comparisons with NaN are false: an absent floating bound is NaN.
    s.f[k] = a == -2 ? fixed : a >= 0 ? arg_double(c, a) : kNaN;
    if (!integral) continue;
    if (a == -1)
      s.i[k] = k == 0 ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
    else
      s.i[k] = as_int_dtype(a == -2 ? static_cast<int64_t>(fixed) : arg_int(c, a), out.dtype);
  }
  return run(c, Op::Clamp, compute_for(out.dtype), out, {{&arg_tensor(c, 0)}}, s);
}
axle_status clamp(void*, const axle_kernel_call* c) {
  return clamp_with(c, arg_is_none(c, 1) ? -1 : 1, arg_is_none(c, 2) ? -1 : 2);
}
axle_status hardtanh(void*, const axle_kernel_call* c) { return clamp_with(c, 1, 2); }
axle_status relu6(void*, const axle_kernel_call* c) { return clamp_with(c, -2, -2); }

// threshold: value where x <= threshold (integers: both scalars converted to the dtype).
axle_status threshold(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  OpScalars s;
  s.f[0] = arg_double(c, 1);
  s.f[1] = arg_double(c, 2);
  if (!is_floating(out.dtype)) {
    s.i[0] = as_int_dtype(arg_int(c, 1), out.dtype);
    s.i[1] = as_int_dtype(arg_int(c, 2), out.dtype);
  }
  return run(c, Op::Threshold, compute_for(out.dtype), out, {{&arg_tensor(c, 0)}}, s);
}

// The largest finite value of a floating dtype (nan_to_num's default replacements).
double largest(axle_dtype d) {
  switch (d) {
    case AXLE_DTYPE_FLOAT32: return std::numeric_limits<float>::max();
    case AXLE_DTYPE_FLOAT16: return 65504.0;
    case AXLE_DTYPE_BFLOAT16: return 3.3895313892515355e38;
    default: return std::numeric_limits<double>::max();
  }
}

axle_status nan_to_num(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  const axle_tensor_view* x = &arg_tensor(c, 0);
  if (!is_floating(out.dtype)) return run(c, Op::Copy, Compute::Int64, out, {{x}});
  OpScalars s;
  s.f[0] = arg_is_none(c, 1) ? 0 : arg_double(c, 1);
  s.f[1] = arg_is_none(c, 2) ? largest(out.dtype) : arg_double(c, 2);
  s.f[2] = arg_is_none(c, 3) ? -largest(out.dtype) : arg_double(c, 3);
  return run(c, Op::NanToNum, compute_for(out.dtype), out, {{x}}, s);
}

// pow(Tensor self, Scalar exponent) and pow(Scalar self, Tensor exponent).
template <Op O>
axle_status pow_scalar(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  const int scalar = O == Op::PowTensorScalar ? 1 : 0;
  OpScalars s;
  s.f[0] = arg_double(c, scalar);
  if (!is_floating(out.dtype)) s.i[0] = arg_int(c, scalar);  // an integer (floating scalars give floating results)
  return run(c, O, compute_for(out.dtype), out, {{&arg_tensor(c, 1 - scalar)}}, s);
}

// The binary, predicate, where and clamp kernels read host scalars (x * 2.0)
// by value through run(): no upload, no synchronization per scalar op.
constexpr uint32_t kHostScalars = AXLE_KERNEL_HOST_SCALARS;

const KernelEntry kKernels[] = {
    {"fill_.Scalar", &fill, AXLE_HERE},
    {"copy_", &copy, AXLE_HERE},
    {"add.Tensor", &arith<Op::Add>, AXLE_HERE, kHostScalars},
    {"sub.Tensor", &arith<Op::Sub>, AXLE_HERE, kHostScalars},
    {"mul.Tensor", &arith<Op::Mul>, AXLE_HERE, kHostScalars},
    {"div.Tensor", &arith<Op::Div>, AXLE_HERE, kHostScalars},
    {"eq.Tensor", &predicate<Op::Eq>, AXLE_HERE, kHostScalars},
    {"ne.Tensor", &predicate<Op::Ne>, AXLE_HERE, kHostScalars},
    {"lt.Tensor", &predicate<Op::Lt>, AXLE_HERE, kHostScalars},
    {"le.Tensor", &predicate<Op::Le>, AXLE_HERE, kHostScalars},
    {"gt.Tensor", &predicate<Op::Gt>, AXLE_HERE, kHostScalars},
    {"ge.Tensor", &predicate<Op::Ge>, AXLE_HERE, kHostScalars},
    {"logical_and", &predicate<Op::LogicalAnd>, AXLE_HERE, kHostScalars},
    {"logical_or", &predicate<Op::LogicalOr>, AXLE_HERE, kHostScalars},
    {"logical_xor", &predicate<Op::LogicalXor>, AXLE_HERE, kHostScalars},
    {"maximum", &binary<Op::Maximum>, AXLE_HERE, kHostScalars},
    {"minimum", &binary<Op::Minimum>, AXLE_HERE, kHostScalars},
    {"atan2", &binary<Op::Atan2>, AXLE_HERE, kHostScalars},
    {"remainder.Tensor", &binary<Op::Remainder>, AXLE_HERE, kHostScalars},
    {"fmod.Tensor", &binary<Op::Fmod>, AXLE_HERE, kHostScalars},
    {"pow.Tensor_Tensor", &binary<Op::Pow>, AXLE_HERE, kHostScalars},
    {"bitwise_and.Tensor", &binary<Op::BitwiseAnd>, AXLE_HERE, kHostScalars},
    {"bitwise_or.Tensor", &binary<Op::BitwiseOr>, AXLE_HERE, kHostScalars},
    {"bitwise_xor.Tensor", &binary<Op::BitwiseXor>, AXLE_HERE, kHostScalars},
    {"where.self", &where, AXLE_HERE, kHostScalars},
    {"clamp.Tensor", &clamp_tensor, AXLE_HERE, kHostScalars},
    {"exp", &float_unary<Op::Exp>, AXLE_HERE},
    {"exp2", &float_unary<Op::Exp2>, AXLE_HERE},
    {"expm1", &float_unary<Op::Expm1>, AXLE_HERE},
    {"log", &float_unary<Op::Log>, AXLE_HERE},
    {"log2", &float_unary<Op::Log2>, AXLE_HERE},
    {"log10", &float_unary<Op::Log10>, AXLE_HERE},
    {"log1p", &float_unary<Op::Log1p>, AXLE_HERE},
    {"sqrt", &float_unary<Op::Sqrt>, AXLE_HERE},
    {"rsqrt", &float_unary<Op::Rsqrt>, AXLE_HERE},
    {"reciprocal", &float_unary<Op::Reciprocal>, AXLE_HERE},
    {"sin", &float_unary<Op::Sin>, AXLE_HERE},
    {"cos", &float_unary<Op::Cos>, AXLE_HERE},
    {"tan", &float_unary<Op::Tan>, AXLE_HERE},
    {"asin", &float_unary<Op::Asin>, AXLE_HERE},
    {"acos", &float_unary<Op::Acos>, AXLE_HERE},
    {"atan", &float_unary<Op::Atan>, AXLE_HERE},
    {"sinh", &float_unary<Op::Sinh>, AXLE_HERE},
    {"cosh", &float_unary<Op::Cosh>, AXLE_HERE},
    {"tanh", &float_unary<Op::Tanh>, AXLE_HERE},
    {"sigmoid", &float_unary<Op::Sigmoid>, AXLE_HERE},
    {"erf", &float_unary<Op::Erf>, AXLE_HERE},
    {"erfc", &float_unary<Op::Erfc>, AXLE_HERE},
    {"neg", &typed_unary<Op::Neg>, AXLE_HERE},
    {"relu", &typed_unary<Op::Relu>, AXLE_HERE},
    {"abs", &typed_unary<Op::Abs>, AXLE_HERE},
    {"sign", &typed_unary<Op::Sign>, AXLE_HERE},
    {"floor", &typed_unary<Op::Floor>, AXLE_HERE},
    {"ceil", &typed_unary<Op::Ceil>, AXLE_HERE},
    {"trunc", &typed_unary<Op::Trunc>, AXLE_HERE},
    {"round", &typed_unary<Op::Round>, AXLE_HERE},
    {"frac", &typed_unary<Op::Frac>, AXLE_HERE},
    {"square", &typed_unary<Op::Square>, AXLE_HERE},
    {"isnan", &test_unary<Op::IsNan>, AXLE_HERE},
    {"isinf", &test_unary<Op::IsInf>, AXLE_HERE},
    {"isfinite", &test_unary<Op::IsFinite>, AXLE_HERE},
    {"logical_not", &test_unary<Op::LogicalNot>, AXLE_HERE},
    {"bitwise_not", &bitwise_not, AXLE_HERE},
    {"gelu", &gelu, AXLE_HERE},
    {"silu", &float_act<Op::Silu, 0>, AXLE_HERE},
    {"mish", &float_act<Op::Mish, 0>, AXLE_HERE},
    {"leaky_relu", &float_act<Op::LeakyRelu, 1>, AXLE_HERE},
    {"elu", &float_act<Op::Elu, 3>, AXLE_HERE},
    {"selu", &selu, AXLE_HERE},
    {"celu", &celu, AXLE_HERE},
    {"hardsigmoid", &float_act<Op::Hardsigmoid, 0>, AXLE_HERE},
    {"hardswish", &float_act<Op::Hardswish, 0>, AXLE_HERE},
    {"softplus", &float_act<Op::Softplus, 2>, AXLE_HERE},
    {"hardtanh", &hardtanh, AXLE_HERE},
    {"relu6", &relu6, AXLE_HERE},
    {"threshold", &threshold, AXLE_HERE},
    {"clamp", &clamp, AXLE_HERE},
    {"nan_to_num", &nan_to_num, AXLE_HERE},
    {"pow.Tensor_Scalar", &pow_scalar<Op::PowTensorScalar>, AXLE_HERE},
    {"pow.Scalar", &pow_scalar<Op::PowScalarTensor>, AXLE_HERE},
};

}  // namespace

axle_status add_broadcast(const axle_kernel_call* c, const axle_tensor_view& out, const axle_tensor_view& src,
                          double scale, const char* what) {
  Indexing ix;
  ix.ndim = out.ndim;
  const int64_t esize = static_cast<int64_t>(plugin::dtype_size(out.dtype));
  const int64_t src_esize = static_cast<int64_t>(plugin::dtype_size(src.dtype));
  for (int32_t d = 0; d < out.ndim; ++d) {
    ix.sizes[d] = out.sizes[d];
    ix.strides[0][d] = ix.strides[1][d] = out.strides[d] * esize;
    const int32_t sd = d - (out.ndim - src.ndim);  // src's dims align to the output's last ones
    ix.strides[2][d] = sd >= 0 && src.sizes[sd] != 1 ? src.strides[sd] * src_esize : 0;
  }
  const Operand in[3] = {{out.data, out.dtype}, {src.data, src.dtype}, {nullptr, AXLE_DTYPE_FLOAT32}};
  OpScalars alpha;
  alpha.f[0] = scale;  // add's alpha
  alpha.i[0] = static_cast<int64_t>(scale);
  DeviceGuard guard(out.device_index);
  if (axle_status s = guard.status(c)) return s;
  const int e = launch_pointwise(Op::Add, compute_for(out.dtype), ix, plugin::numel(out), in[0], in, alpha, c->stream);
  return check(static_cast<cudaError_t>(e), what, c);
}

axle_status dense_copy(const axle_kernel_call* c, const axle_tensor_view& v, DenseCopy* d, bool channels_last) {
  if (v.ndim > kMaxDims) return AXLE_DECLINED;
  const int64_t n = plugin::numel(v);
  const int64_t esize = static_cast<int64_t>(plugin::dtype_size(v.dtype));
  if (axle_status s = d->memory.allocate(v.device_index, static_cast<size_t>(n * esize), c)) return s;
  Indexing ix;
  ix.ndim = v.ndim;
  // The dims from innermost out: row-major, or channels (dim 1) innermost.
  int32_t order[kMaxDims];
  for (int32_t k = 0, i = v.ndim - 1; i >= 0; --i) order[k++] = i;
  if (channels_last && v.ndim >= 3) {
    order[0] = 1;
    for (int32_t k = 1, i = v.ndim - 1; i >= 0; --i)
      if (i != 1) order[k++] = i;
  }
  int64_t step = 1;
  for (int32_t k = 0; k < v.ndim; ++k) {
    const int32_t i = order[k];
    d->strides[i] = step;
    ix.sizes[i] = v.sizes[i];
    ix.strides[0][i] = step * esize;
    ix.strides[1][i] = v.strides[i] * esize;
    step *= v.sizes[i];
  }
  d->view = v;
  d->view.data = d->memory.ptr;
  d->view.strides = d->strides;
  if (n == 0) return AXLE_OK;
  const Operand in[3] = {{v.data, v.dtype}, {}, {}};
  const int e =
      launch_pointwise(Op::Copy, compute_for(v.dtype), ix, n, Operand{d->memory.ptr, v.dtype}, in, {}, c->stream);
  return check(static_cast<cudaError_t>(e), "dense copy", c);
}

axle_status register_pointwise(const axle_registrar* r) { return plugin::register_kernels(r, "cuda", kKernels); }

}  // namespace axle::cuda
