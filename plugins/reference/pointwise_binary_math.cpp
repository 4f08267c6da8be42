// Table-driven binary math: maximum, minimum, atan2, remainder, fmod, pow, the
// logical and the bitwise ops, and the shifts. Each table entry (the kernel's user_data) gives a
// floating form and an integer form; integer division by zero is an error.
#include "kernels.h"

#include <array>
#include <cmath>
#include <limits>

namespace axle::reference {

using namespace axle::plugin;

namespace {

struct BinaryMath {
  const char* op;
  double (*f)(double, double);
  int64_t (*i)(int64_t, int64_t);
  bool logical;      // inputs tested against 0 in double; output bool
  bool int_divides;  // integer form divides by `other`: zero is an error
};

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double fmax_nan(double x, double y) { return (x != x || y != y) ? kNaN : (x > y ? x : y); }
double fmin_nan(double x, double y) { return (x != x || y != y) ? kNaN : (x < y ? x : y); }
double remainder_f(double x, double y) {
  const double r = std::fmod(x, y);
  return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
}
int64_t remainder_i(int64_t x, int64_t y) {
  if (y == -1) return 0;  // INT64_MIN % -1 overflows in C++
  const int64_t r = x % y;
  return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r;
}
int64_t fmod_i(int64_t x, int64_t y) { return y == -1 ? 0 : x % y; }
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

const BinaryMath kOps[] = {
    {"maximum", &fmax_nan, [](int64_t x, int64_t y) { return x > y ? x : y; }, false, false},
    {"minimum", &fmin_nan, [](int64_t x, int64_t y) { return x < y ? x : y; }, false, false},
    {"atan2", [](double x, double y) { return std::atan2(x, y); }, nullptr, false, false},
    {"remainder.Tensor", &remainder_f, &remainder_i, false, true},
    {"fmod.Tensor", [](double x, double y) { return std::fmod(x, y); }, &fmod_i, false, true},
    {"pow.Tensor_Tensor", [](double x, double y) { return std::pow(x, y); }, &pow_i, false, false},
    {"logical_and", [](double x, double y) { return double((x != 0) && (y != 0)); }, nullptr, true, false},
    {"logical_or", [](double x, double y) { return double((x != 0) || (y != 0)); }, nullptr, true, false},
    {"logical_xor", [](double x, double y) { return double((x != 0) != (y != 0)); }, nullptr, true, false},
    {"bitwise_and.Tensor", nullptr, [](int64_t x, int64_t y) { return x & y; }, false, false},
    {"bitwise_or.Tensor", nullptr, [](int64_t x, int64_t y) { return x | y; }, false, false},
    {"bitwise_xor.Tensor", nullptr, [](int64_t x, int64_t y) { return x ^ y; }, false, false},
};

bool any_zero(const axle_tensor_view& v) {
  bool zero = false;
  for_each_element<1>(v.ndim, v.sizes, {&v}, [&](char** p) { zero |= load_as<int64_t>(p[0], v.dtype) == 0; });
  return zero;
}

axle_status binary_math(void* user_data, const axle_kernel_call* c) {
  const auto* op = static_cast<const BinaryMath*>(user_data);
  const axle_tensor_view& out = c->outputs[0];
  const axle_tensor_view* a = &arg_tensor(c, 0);
  const axle_tensor_view* b = &arg_tensor(c, 1);
  if (op->logical || (is_floating(out.dtype) && op->f)) {
    map_elements<double, 2>(out, {a, b}, op->f);
    return AXLE_OK;
  }
  if (!op->i) return fail(c, AXLE_ERROR_DTYPE, std::string(op->op) + ": no integer form");
  if (op->int_divides && any_zero(*b))
    return fail(c, AXLE_ERROR_INVALID_ARGUMENT, std::string(op->op) + ": ZeroDivisionError (integer division by zero)");
  map_elements<int64_t, 2>(out, {a, b}, op->i);
  return AXLE_OK;
}

// Shifts as torch 1.13's CPU kernels compute them: C's shifts, whose count the
// hardware takes modulo 64 for int64 results and modulo 32 for the narrower types
// (computed as int); a left shift wraps. user_data: non-null for a left shift.
axle_status shift(void* user_data, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  const int64_t mask = out.dtype == AXLE_DTYPE_INT64 ? 63 : 31;
  const std::array<const axle_tensor_view*, 2> in = {&arg_tensor(c, 0), &arg_tensor(c, 1)};
  if (user_data)
    map_elements<int64_t, 2>(
        out, in, [mask](int64_t x, int64_t y) { return static_cast<int64_t>(static_cast<uint64_t>(x) << (y & mask)); });
  else  // x first converted to the result dtype (a number -5 shifted as uint8 is 251)
    map_elements<int64_t, 2>(out, in, [mask, d = out.dtype](int64_t x, int64_t y) {
      char buf[8];
      store_from<int64_t>(buf, d, x);
      return load_as<int64_t>(buf, d) >> (y & mask);
    });
  return AXLE_OK;
}

int kLeft = 1;

}  // namespace

axle_status register_pointwise_binary_math(const axle_registrar* r) {
  for (const BinaryMath& op : kOps)
    if (axle_status s =
            r->register_kernel(r->context, op.op, "cpu", &binary_math, const_cast<BinaryMath*>(&op), AXLE_HERE))
      return s;
  if (axle_status s = r->register_kernel(r->context, "bitwise_left_shift.Tensor", "cpu", &shift, &kLeft, AXLE_HERE))
    return s;
  return r->register_kernel(r->context, "bitwise_right_shift.Tensor", "cpu", &shift, nullptr, AXLE_HERE);
}

}  // namespace axle::reference
