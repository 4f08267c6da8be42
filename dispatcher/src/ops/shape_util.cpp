// Broadcasting, type promotion and casting rules shared by the shape functions.
#include "shape_util.h"

#include <axle/dispatcher.h>


namespace axle {

namespace shape {

std::string str(const IntList& s) { return shape_string(s); }

IntList broadcast(const IntList& a, const IntList& b) {
  const size_t n = std::max(a.size(), b.size());
  IntList out(n);
  for (size_t i = 0; i < n; ++i) {
    const int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    AXLE_CHECK(da == db || da == 1 || db == 1, ShapeError, "The size of tensor a (", da,
               ") must match the size of tensor b (", db, ") at non-singleton dimension ", i);
    out[i] = da == 1 ? db : da;
  }
  return out;
}

namespace {
enum Cat { kNone = -1 };
int combine_categories(int higher, int lower) {
  if (higher == kNone) return lower;
  if (lower == kNone) return higher;
  const DType h = static_cast<DType>(higher), l = static_cast<DType>(lower);
  if (is_floating_point(h)) return higher;
  if (h == kBool || is_floating_point(l)) return static_cast<int>(promote_types(h, l));
  return higher;
}
int promote(int acc, DType d) { return acc == kNone ? static_cast<int>(d) : static_cast<int>(promote_types(static_cast<DType>(acc), d)); }
}  // namespace

DType result_type(std::initializer_list<const Tensor*> tensors) {
  int dim_result = kNone, zero_result = kNone, wrapped_result = kNone;
  for (const Tensor* t : tensors) {
    if (!t || !t->defined()) continue;
    DType d = t->dtype();
    if (t->unsafe_impl().wrapped_number) {
      if (is_floating_point(d)) d = get_default_dtype();
      wrapped_result = promote(wrapped_result, d);
    } else if (t->dim() > 0) {
      dim_result = promote(dim_result, d);
    } else {
      zero_result = promote(zero_result, d);
    }
  }
  const int r = combine_categories(dim_result, combine_categories(zero_result, wrapped_result));
  return r == kNone ? get_default_dtype() : static_cast<DType>(r);
}

void check_scalar_fits(const char* op, DType d, const Value& v, bool doubles) {
  if (v.is_none() || !is_integral(d, false)) return;
  const bool dbl = v.tag() == Value::Tag::Double;
  if (dbl && !doubles) return;
  const double x = v.to_double();
  double lo = 0, hi = 0;
  switch (d) {
    case kInt8:
      lo = -128, hi = 127;
      break;
    case kUInt8:
      lo = dbl ? 0 : -255, hi = 255;
      break;
    case kInt16:
      lo = -32768, hi = 32767;
      break;
    case kInt32:
      lo = -2147483648.0, hi = 2147483647.0;
      break;
    default:  // int64: any integer scalar; a double below 2^63 in magnitude
      if (!dbl) return;
      lo = -9223372036854775808.0, hi = 9223372036854774784.0;
  }
  AXLE_CHECK(x >= lo && x <= hi, ValueError, op, ": value cannot be converted to type ", dtype_name(d),
             " without overflow: ", v.repr());
}

bool can_cast(DType from, DType to) {
  if (is_floating_point(from) && is_integral(to, true)) return false;
  if (from != kBool && to == kBool) return false;
  return true;
}

}  // namespace shape

}  // namespace axle
