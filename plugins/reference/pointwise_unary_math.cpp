// Table-driven unary math: one kernel per behaviour, the math function passed as
// the registration's user_data (a pointer into the table below).
#include "kernels.h"
#include "special_functions.h"

#include <cmath>

namespace axle::reference {

using namespace axle::plugin;

namespace {

struct UnaryMath {
  const char* op;
  double (*f)(double);
  int64_t (*i)(int64_t);  // integer form; nullptr: integers pass through unchanged
};

int64_t int_abs(int64_t v) { return v < 0 ? static_cast<int64_t>(0 - static_cast<uint64_t>(v)) : v; }
int64_t int_sign(int64_t v) { return (v > 0) - (v < 0); }
int64_t int_square(int64_t v) { return static_cast<int64_t>(static_cast<uint64_t>(v) * static_cast<uint64_t>(v)); }
// torch: the sign of NaN is 0 (numpy: NaN).
double sign(double v) { return (v > 0) - (v < 0); }
double frac(double v) { return v - std::trunc(v); }
double square(double v) { return v * v; }
double rsqrt(double v) { return 1.0 / std::sqrt(v); }
double reciprocal(double v) { return 1.0 / v; }
double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// Floating results (integer and bool inputs were promoted by the shape function).
const UnaryMath kFloatOps[] = {
    {"exp2", [](double v) { return std::exp2(v); }, nullptr},
    {"expm1", [](double v) { return std::expm1(v); }, nullptr},
    {"log", [](double v) { return std::log(v); }, nullptr},
    {"log2", [](double v) { return std::log2(v); }, nullptr},
    {"log10", [](double v) { return std::log10(v); }, nullptr},
    {"log1p", [](double v) { return std::log1p(v); }, nullptr},
    {"sqrt", [](double v) { return std::sqrt(v); }, nullptr},
    {"rsqrt", &rsqrt, nullptr},
    {"reciprocal", &reciprocal, nullptr},
    {"sin", [](double v) { return std::sin(v); }, nullptr},
    {"cos", [](double v) { return std::cos(v); }, nullptr},
    {"tan", [](double v) { return std::tan(v); }, nullptr},
    {"asin", [](double v) { return std::asin(v); }, nullptr},
    {"acos", [](double v) { return std::acos(v); }, nullptr},
    {"atan", [](double v) { return std::atan(v); }, nullptr},
    {"sinh", [](double v) { return std::sinh(v); }, nullptr},
    {"cosh", [](double v) { return std::cosh(v); }, nullptr},
    {"tanh", [](double v) { return std::tanh(v); }, nullptr},
    {"sigmoid", &sigmoid, nullptr},
    {"erf", [](double v) { return std::erf(v); }, nullptr},
    {"erfc", [](double v) { return std::erfc(v); }, nullptr},
    // The special functions (dispatcher/src/ops/pointwise_special.cpp; special_functions.h).
    {"lgamma", [](double v) { return std::lgamma(v); }, nullptr},
    {"digamma", &special::digamma, nullptr},
    {"erfinv", &special::erfinv, nullptr},
    {"i0", [](double v) { return special::bessel_i(0, v, false); }, nullptr},
    {"special_i1", [](double v) { return special::bessel_i(1, v, false); }, nullptr},
    {"special_i0e", [](double v) { return special::bessel_i(0, v, true); }, nullptr},
    {"special_i1e", [](double v) { return special::bessel_i(1, v, true); }, nullptr},
    {"special_erfcx", &special::erfcx, nullptr},
    {"special_ndtri", &special::ndtri, nullptr},
};

// Same-dtype results: a float form and an integer form.
const UnaryMath kTypedOps[] = {
    {"abs", [](double v) { return std::fabs(v); }, &int_abs},
    {"sign", &sign, &int_sign},
    {"floor", [](double v) { return std::floor(v); }, nullptr},
    {"ceil", [](double v) { return std::ceil(v); }, nullptr},
    {"trunc", [](double v) { return std::trunc(v); }, nullptr},
    {"frac", &frac, nullptr},
    {"square", &square, &int_square},
};

axle_status float_unary(void* user_data, const axle_kernel_call* c) {
  const auto* op = static_cast<const UnaryMath*>(user_data);
  map_elements<double, 1>(c->outputs[0], {&arg_tensor(c, 0)}, op->f);
  return AXLE_OK;
}

axle_status typed_unary(void* user_data, const axle_kernel_call* c) {
  const auto* op = static_cast<const UnaryMath*>(user_data);
  const axle_tensor_view& out = c->outputs[0];
  if (is_floating(out.dtype))
    map_elements<double, 1>(out, {&arg_tensor(c, 0)}, op->f);
  else if (op->i)
    map_elements<int64_t, 1>(out, {&arg_tensor(c, 0)}, op->i);
  else
    map_elements<int64_t, 1>(out, {&arg_tensor(c, 0)}, [](int64_t v) { return v; });
  return AXLE_OK;
}

}  // namespace

axle_status register_pointwise_unary_math(const axle_registrar* r) {
  for (const UnaryMath& op : kFloatOps)
    if (axle_status s =
            r->register_kernel(r->context, op.op, "cpu", &float_unary, const_cast<UnaryMath*>(&op), AXLE_HERE))
      return s;
  for (const UnaryMath& op : kTypedOps)
    if (axle_status s =
            r->register_kernel(r->context, op.op, "cpu", &typed_unary, const_cast<UnaryMath*>(&op), AXLE_HERE))
      return s;
  return AXLE_OK;
}

}  // namespace axle::reference
