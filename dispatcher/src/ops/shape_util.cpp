// Broadcasting, type promotion and casting rules shared by the shape functions.
#include "shape_util.h"

#include <limits>

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
int promote(int acc, DType d) {
  return acc == kNone ? static_cast<int>(d) : static_cast<int>(promote_types(static_cast<DType>(acc), d));
}
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

Range dtype_range(DType d) {
  switch (d) {
    case kFloat32: return {-std::numeric_limits<float>::max(), std::numeric_limits<float>::max()};
    case kFloat64: return {-std::numeric_limits<double>::max(), std::numeric_limits<double>::max()};
    case kFloat16: return {-65504.0, 65504.0};
    case kBFloat16: return {-3.3895313892515355e38, 3.3895313892515355e38};
    case kInt8: return {-128, 127};
    case kUInt8: return {0, 255};
    case kInt16: return {-32768, 32767};
    case kInt32: return {-2147483648.0, 2147483647.0};
    case kInt64: return {-9223372036854775808.0, 9223372036854775808.0};
    case kBool: return {0, 1};
  }
  AXLE_INTERNAL_ASSERT(false, "dtype_range: dtype ", static_cast<int>(d));
  return {0, 0};
}

void check_scalar_fits(const char* op, DType d, const Value& v, bool doubles) {
  if (v.is_none() || !is_integral(d, false)) return;
  const bool dbl = v.tag() == Value::Tag::Double;
  if (dbl && !doubles) return;
  if (d == kInt64 && !dbl) return;  // any integer scalar
  const double x = v.to_double();
  const Range r = dtype_range(d);
  const double lo = d == kUInt8 && !dbl ? -255 : r.lo;  // negative integers wrap into uint8, as c10 allows
  const bool in_range = x >= lo && (d == kInt64 ? x < r.hi : x <= r.hi);
  AXLE_CHECK(in_range, DTypeError, op, ": value cannot be converted to type ", dtype_name(d),
             " without overflow: ", v.repr());
}

bool can_cast(DType from, DType to) {
  if (is_floating_point(from) && is_integral(to, true)) return false;
  if (from != kBool && to == kBool) return false;
  return true;
}

void check_castable(const char* op, DType from, DType to) {
  AXLE_CHECK(can_cast(from, to), DTypeError, op, ": result type ", dtype_name(from),
             " can't be cast to the desired output type ", dtype_name(to));
}

bool has_internal_overlap(const Tensor& t) {
  if (t.numel() == 0) return false;  // nothing is written
  for (size_t d = 0; d < t.sizes().size(); ++d)
    if (t.strides()[d] == 0 && t.sizes()[d] > 1) return true;
  return false;
}

void check_no_internal_overlap(const char* op, const Tensor& t) {
  AXLE_CHECK(!t.defined() || !has_internal_overlap(t), ShapeError, op,
             ": unsupported operation: more than one element of the written-to tensor refers to a single memory "
             "location. Please clone() the tensor before performing the operation.");
}

void finish_inplace(ShapeContext& c) {
  const Tensor& self = c.arg(0).tensor();  // its internal overlap: dispatch checks every (a!) argument
  AXLE_CHECK(c.outputs[0].sizes == self.sizes(), ShapeError, c.op, ": output with shape ", str(self.sizes()),
             " doesn't match the broadcast shape ", str(c.outputs[0].sizes));
  check_castable(c.op, c.outputs[0].dtype, self.dtype());
  c.outputs[0] = {self.sizes(), self.dtype(), 0};
}

bool output_wanted(const Value& mask, size_t i) {
  const IntList& m = mask.int_list();
  AXLE_CHECK(m.size() == 3, ValueError, "output_mask must have 3 elements, got ", str(m));
  return m[i] != 0;
}

}  // namespace shape

}  // namespace axle
