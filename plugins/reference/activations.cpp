// Activations and pointwise extras (dispatcher/src/ops/activations.cpp): a table of
// float activations (parameters read from the boxed scalar arguments), clamp-like
// kernels with integer forms, prelu, glu, nan_to_num, round, the bool-valued tests,
// div with rounding_mode and pow with a scalar. Integer division by zero is an error.
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "kernels.h"

namespace axle::reference {

using namespace axle::plugin;

namespace {

// ---------------------------------------------------------------- float activations
struct FloatAct {
  const char* op;
  int nparams;                             // scalar arguments after self
  double (*f)(double x, const double* p);  // p: those arguments as doubles
};

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

double elu(double x, double alpha, double scale, double input_scale) {
  return x > 0 ? x * scale : std::expm1(x * input_scale) * alpha * scale;
}
double hardsigmoid(double x) { return std::min(std::max(x + 3, 0.0), 6.0) / 6; }

const FloatAct kFloatActs[] = {
    {"leaky_relu", 1, [](double x, const double* p) { return x > 0 ? x : x * p[0]; }},
    {"elu", 3, [](double x, const double* p) { return elu(x, p[0], p[1], p[2]); }},
    {"selu", 0, [](double x, const double*) { return elu(x, kSeluAlpha, kSeluScale, 1); }},
    {"celu", 1, [](double x, const double* p) { return elu(x, p[0], 1, 1 / p[0]); }},
    {"silu", 0, [](double x, const double*) { return x / (1 + std::exp(-x)); }},
    {"mish", 0, [](double x, const double*) { return x * std::tanh(std::log1p(std::exp(x))); }},
    {"hardsigmoid", 0, [](double x, const double*) { return hardsigmoid(x); }},
    {"hardswish", 0, [](double x, const double*) { return x * hardsigmoid(x); }},
    {"softplus", 2,
     [](double x, const double* p) { return x * p[0] > p[1] ? x : std::log1p(std::exp(x * p[0])) / p[0]; }},
};

axle_status float_act(void* user_data, const axle_kernel_call* c) {
  const auto* op = static_cast<const FloatAct*>(user_data);
  double p[3] = {0, 0, 0};
  for (int i = 0; i < op->nparams; ++i) p[i] = arg_double(c, i + 1);
  map_elements<double, 1>(c->outputs[0], {&arg_tensor(c, 0)}, [&](double x) { return op->f(x, p); });
  return AXLE_OK;
}

axle_status gelu(void*, const axle_kernel_call* c) {
  const bool tanh_form = std::strcmp(c->args[1].u.str, "tanh") == 0;
  const double k = std::sqrt(2 / M_PI);
  map_elements<double, 1>(c->outputs[0], {&arg_tensor(c, 0)}, [&](double x) {
    return tanh_form ? 0.5 * x * (1 + std::tanh(k * (x + 0.044715 * x * x * x)))
                     : 0.5 * x * (1 + std::erf(x * M_SQRT1_2));
  });
  return AXLE_OK;
}

// ---------------------------------------------------------------- clamp-like
// A scalar bound converted to an integer dtype first, as torch does (wrapping).
int64_t as_int_dtype(int64_t v, axle_dtype d) {
  alignas(8) char buf[8];
  store_from<int64_t>(buf, d, v);
  return load_as<int64_t>(buf, d);
}

// out = min(max(x, lo), hi) with absent bounds skipped; NaN x stays NaN and NaN
// bounds are ignored (torch's scalar clamp). Integers compare in int64.
axle_status clamp_scalars(const axle_kernel_call* c, int lo_arg, int hi_arg, double lo_default = 0,
                          double hi_default = 0) {
  const axle_tensor_view& out = c->outputs[0];
  const bool has_lo = lo_arg < 0 || !arg_is_none(c, lo_arg), has_hi = hi_arg < 0 || !arg_is_none(c, hi_arg);
  const double lo = lo_arg < 0 ? lo_default : has_lo ? arg_double(c, lo_arg) : 0;
  const double hi = hi_arg < 0 ? hi_default : has_hi ? arg_double(c, hi_arg) : 0;
  if (is_floating(out.dtype)) {
    map_elements<double, 1>(out, {&arg_tensor(c, 0)}, [&](double x) {
      if (has_lo && x < lo) x = lo;
      if (has_hi && x > hi) x = hi;
      return x;
    });
  } else {
    const int64_t ilo = as_int_dtype(lo_arg < 0 ? static_cast<int64_t>(lo)
                                     : has_lo   ? arg_int(c, lo_arg)
                                                : 0,
                                     out.dtype);
    const int64_t ihi = as_int_dtype(hi_arg < 0 ? static_cast<int64_t>(hi)
                                     : has_hi   ? arg_int(c, hi_arg)
                                                : 0,
                                     out.dtype);
    map_elements<int64_t, 1>(out, {&arg_tensor(c, 0)}, [&](int64_t x) {
      if (has_lo && x < ilo) x = ilo;
      if (has_hi && x > ihi) x = ihi;
      return x;
    });
  }
  return AXLE_OK;
}

axle_status clamp(void*, const axle_kernel_call* c) { return clamp_scalars(c, 1, 2); }
axle_status hardtanh(void*, const axle_kernel_call* c) { return clamp_scalars(c, 1, 2); }
axle_status relu6(void*, const axle_kernel_call* c) { return clamp_scalars(c, -1, -1, 0, 6); }

// clamp.Tensor: bounds broadcast; NaN anywhere gives NaN.
axle_status clamp_tensor(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  const axle_tensor_view* x = &arg_tensor(c, 0);
  const bool has_lo = !arg_is_none(c, 1), has_hi = !arg_is_none(c, 2);
  const axle_tensor_view* lo = has_lo ? &arg_tensor(c, 1) : nullptr;
  const axle_tensor_view* hi = has_hi ? &arg_tensor(c, 2) : nullptr;
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  if (is_floating(out.dtype)) {
    auto f = [](double v, double l, double h, bool use_l, bool use_h) {
      if (v != v || (use_l && l != l) || (use_h && h != h)) return nan;
      if (use_l && v < l) v = l;
      if (use_h && v > h) v = h;
      return v;
    };
    if (has_lo && has_hi)
      map_elements<double, 3>(out, {x, lo, hi}, [&](double v, double l, double h) { return f(v, l, h, true, true); });
    else if (has_lo)
      map_elements<double, 2>(out, {x, lo}, [&](double v, double l) { return f(v, l, 0, true, false); });
    else
      map_elements<double, 2>(out, {x, hi}, [&](double v, double h) { return f(v, 0, h, false, true); });
  } else {
    if (has_lo && has_hi)
      map_elements<int64_t, 3>(out, {x, lo, hi},
                               [](int64_t v, int64_t l, int64_t h) { return std::min(std::max(v, l), h); });
    else if (has_lo)
      map_elements<int64_t, 2>(out, {x, lo}, [](int64_t v, int64_t l) { return std::max(v, l); });
    else
      map_elements<int64_t, 2>(out, {x, hi}, [](int64_t v, int64_t h) { return std::min(v, h); });
  }
  return AXLE_OK;
}

// threshold: value where x <= threshold (integers: both scalars truncated).
axle_status threshold(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  if (is_floating(out.dtype)) {
    const double t = arg_double(c, 1), v = arg_double(c, 2);
    map_elements<double, 1>(out, {&arg_tensor(c, 0)}, [&](double x) { return x <= t ? v : x; });
  } else {
    const int64_t t = as_int_dtype(arg_int(c, 1), out.dtype), v = as_int_dtype(arg_int(c, 2), out.dtype);
    map_elements<int64_t, 1>(out, {&arg_tensor(c, 0)}, [&](int64_t x) { return x <= t ? v : x; });
  }
  return AXLE_OK;
}

// ---------------------------------------------------------------- prelu, glu
// weight (one slope, or one per channel) viewed as broadcasting along dim 1 of self.
axle_status prelu(void*, const axle_kernel_call* c) {
  const axle_tensor_view& x = arg_tensor(c, 0);
  axle_tensor_view w = arg_tensor(c, 1);
  std::vector<int64_t> sizes, strides;
  if (numel(w) == 1 || x.ndim < 2) {
    w.ndim = 0;  // a single slope (its only element)
  } else {
    sizes.assign(static_cast<size_t>(x.ndim - 1), 1);
    strides.assign(static_cast<size_t>(x.ndim - 1), 0);
    sizes[0] = w.sizes[0];
    strides[0] = w.strides[0];
    w.ndim = x.ndim - 1;
    w.sizes = sizes.data();
    w.strides = strides.data();
  }
  map_elements<double, 2>(c->outputs[0], {&x, &w}, [](double v, double a) { return v > 0 ? v : a * v; });
  return AXLE_OK;
}

// glu: first half * sigmoid(second half) along the (wrapped) dim.
axle_status glu(void*, const axle_kernel_call* c) {
  const axle_tensor_view& x = arg_tensor(c, 0);
  const int64_t dim = arg_int(c, 1);
  std::vector<int64_t> sizes(x.sizes, x.sizes + x.ndim);
  const int64_t half = sizes[static_cast<size_t>(dim)] / 2;
  sizes[static_cast<size_t>(dim)] = half;
  axle_tensor_view a = x, b = x;
  a.sizes = b.sizes = sizes.data();
  b.data = static_cast<char*>(x.data) + half * x.strides[dim] * static_cast<int64_t>(dtype_size(x.dtype));
  map_elements<double, 2>(c->outputs[0], {&a, &b}, [](double u, double v) { return u / (1 + std::exp(-v)); });
  return AXLE_OK;
}

// ---------------------------------------------------------------- unary extras
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
  if (!is_floating(out.dtype)) {
    map_elements<int64_t, 1>(out, {x}, [](int64_t v) { return v; });
    return AXLE_OK;
  }
  const double nan = arg_is_none(c, 1) ? 0 : arg_double(c, 1);
  const double pos = arg_is_none(c, 2) ? largest(out.dtype) : arg_double(c, 2);
  const double neg = arg_is_none(c, 3) ? -largest(out.dtype) : arg_double(c, 3);
  map_elements<double, 1>(out, {x}, [&](double v) {
    return v != v ? nan : v == INFINITY ? pos : v == -INFINITY ? neg : v;
  });
  return AXLE_OK;
}

axle_status round(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  if (is_floating(out.dtype))
    map_elements<double, 1>(out, {&arg_tensor(c, 0)}, [](double v) { return std::nearbyint(v); });
  else
    map_elements<int64_t, 1>(out, {&arg_tensor(c, 0)}, [](int64_t v) { return v; });
  return AXLE_OK;
}

// Rounds an intermediate to the precision torch computes it in (the dtype itself
// for 16-bit floats, float for float32).
double as_dtype(double v, axle_dtype d) {
  switch (d) {
    case AXLE_DTYPE_FLOAT32: return static_cast<float>(v);
    case AXLE_DTYPE_FLOAT16: return fp16_to_float(float_to_fp16(static_cast<float>(v)));
    case AXLE_DTYPE_BFLOAT16: return bf16_to_float(float_to_bf16(static_cast<float>(v)));
    default: return v;
  }
}

// As torch: nearbyint(x * 10^d) / 10^d (d < 0: nearbyint(x / 10^-d) * 10^-d), each
// step rounded to the dtype (float for float32).
axle_status round_decimals(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  const int64_t decimals = arg_int(c, 1);
  const bool neg = decimals < 0;
  const axle_dtype d = out.dtype;
  const double p = std::pow(10.0, static_cast<double>(neg ? -decimals : decimals));
  const double t = d == AXLE_DTYPE_FLOAT64 ? p : as_dtype(p, AXLE_DTYPE_FLOAT32);
  map_elements<double, 1>(out, {&arg_tensor(c, 0)}, [&](double v) {
    return neg ? std::nearbyint(as_dtype(v / t, d)) * t : std::nearbyint(as_dtype(v * t, d)) / t;
  });
  return AXLE_OK;
}

struct BoolTest {
  const char* op;
  bool (*f)(double);
};
const BoolTest kBoolTests[] = {
    {"isnan", [](double v) { return v != v; }},
    {"isinf", [](double v) { return std::isinf(v); }},
    {"isfinite", [](double v) { return std::isfinite(v); }},
    {"logical_not", [](double v) { return v == 0; }},
};

axle_status bool_test(void* user_data, const axle_kernel_call* c) {
  const auto* op = static_cast<const BoolTest*>(user_data);
  map_elements<double, 1>(c->outputs[0], {&arg_tensor(c, 0)}, [op](double v) { return op->f(v) ? 1.0 : 0.0; });
  return AXLE_OK;
}

axle_status bitwise_not(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  if (out.dtype == AXLE_DTYPE_BOOL)
    map_elements<bool, 1>(out, {&arg_tensor(c, 0)}, [](bool v) { return !v; });
  else
    map_elements<int64_t, 1>(out, {&arg_tensor(c, 0)}, [](int64_t v) { return ~v; });
  return AXLE_OK;
}

// ---------------------------------------------------------------- div, pow
bool any_zero(const axle_tensor_view& v) {
  bool zero = false;
  for_each_element<1>(v.ndim, v.sizes, {&v}, [&](char** p) { zero |= load_as<int64_t>(p[0], v.dtype) == 0; });
  return zero;
}

int64_t wrap_neg(int64_t v) { return static_cast<int64_t>(0 - static_cast<uint64_t>(v)); }

axle_status div_mode(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  const axle_tensor_view* a = &arg_tensor(c, 0);
  const axle_tensor_view* b = &arg_tensor(c, 1);
  const axle_dtype d = out.dtype;
  const bool none = arg_is_none(c, 2), trunc = !none && std::strcmp(c->args[2].u.str, "trunc") == 0;
  if (is_floating(d)) {
    if (none)
      map_elements<double, 2>(out, {a, b}, [](double x, double y) { return x / y; });
    else if (trunc)
      map_elements<double, 2>(out, {a, b}, [d](double x, double y) { return std::trunc(as_dtype(x / y, d)); });
    else
      map_elements<double, 2>(out, {a, b}, [d](double x, double y) {  // torch's div_floor_floating
        if (y == 0) return x / y;
        const double mod = std::fmod(x, y);
        double q = as_dtype(as_dtype(x - mod, d) / y, d);
        if (mod != 0 && (y < 0) != (mod < 0)) q = as_dtype(q - 1, d);
        if (q == 0) return std::copysign(0.0, x / y);
        double f = std::floor(q);
        if (q - f > 0.5) f += 1;
        return f;
      });
    return AXLE_OK;
  }
  if (any_zero(*b)) return fail(c, AXLE_ERROR_INVALID_ARGUMENT, "div: ZeroDivisionError (integer division by zero)");
  if (trunc)
    map_elements<int64_t, 2>(out, {a, b}, [](int64_t x, int64_t y) { return y == -1 ? wrap_neg(x) : x / y; });
  else
    map_elements<int64_t, 2>(out, {a, b}, [](int64_t x, int64_t y) {
      if (y == -1) return wrap_neg(x);
      const int64_t q = x / y;
      return ((x % y) != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
    });
  return AXLE_OK;
}

int64_t pow_i(int64_t base, int64_t exp) {
  if (exp < 0) return base == 1 ? 1 : base == -1 ? ((exp & 1) ? -1 : 1) : 0;
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  while (exp) {  // wraps like torch's integer pow
    if (exp & 1) result *= b;
    b *= b;
    exp >>= 1;
  }
  return static_cast<int64_t>(result);
}

axle_status pow_tensor_scalar(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  if (is_floating(out.dtype)) {
    const double e = arg_double(c, 1);
    map_elements<double, 1>(out, {&arg_tensor(c, 0)}, [e](double x) { return std::pow(x, e); });
  } else {
    const int64_t e = arg_int(c, 1);
    map_elements<int64_t, 1>(out, {&arg_tensor(c, 0)}, [e](int64_t x) { return pow_i(x, e); });
  }
  return AXLE_OK;
}

axle_status pow_scalar(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  if (is_floating(out.dtype)) {
    const double base = arg_double(c, 0);
    map_elements<double, 1>(out, {&arg_tensor(c, 1)}, [base](double e) { return base == 1 ? 1.0 : std::pow(base, e); });
  } else {
    const int64_t base = arg_int(c, 0);
    map_elements<int64_t, 1>(out, {&arg_tensor(c, 1)}, [base](int64_t e) { return pow_i(base, e); });
  }
  return AXLE_OK;
}

const KernelEntry kKernels[] = {
    {"gelu", &gelu, AXLE_HERE},
    {"clamp", &clamp, AXLE_HERE},
    {"clamp.Tensor", &clamp_tensor, AXLE_HERE},
    {"hardtanh", &hardtanh, AXLE_HERE},
    {"relu6", &relu6, AXLE_HERE},
    {"threshold", &threshold, AXLE_HERE},
    {"prelu", &prelu, AXLE_HERE},
    {"glu", &glu, AXLE_HERE},
    {"nan_to_num", &nan_to_num, AXLE_HERE},
    {"round", &round, AXLE_HERE},
    {"round.decimals", &round_decimals, AXLE_HERE},
    {"bitwise_not", &bitwise_not, AXLE_HERE},
    {"div.Tensor_mode", &div_mode, AXLE_HERE},
    {"pow.Tensor_Scalar", &pow_tensor_scalar, AXLE_HERE},
    {"pow.Scalar", &pow_scalar, AXLE_HERE},
};

}  // namespace

axle_status register_activations(const axle_registrar* r) {
  if (axle_status s = register_kernels(r, "cpu", kKernels)) return s;
  for (const FloatAct& op : kFloatActs)
    if (axle_status s = r->register_kernel(r->context, op.op, "cpu", &float_act, const_cast<FloatAct*>(&op), AXLE_HERE))
      return s;
  for (const BoolTest& op : kBoolTests)
    if (axle_status s = r->register_kernel(r->context, op.op, "cpu", &bool_test, const_cast<BoolTest*>(&op), AXLE_HERE))
      return s;
  return AXLE_OK;
}

}  // namespace axle::reference
