// Creation ops: empty, full, zeros, ones (composites over fill_), fill_, arange.
#include "shape_util.h"

#include <axle/ops.h>

#include <cmath>

namespace axle::shape {
namespace {

DType dtype_or(const Value& v, DType fallback) { return v.is_none() ? fallback : v.dtype(); }
Device device_or_default(const Value& v) { return v.is_none() ? get_default_device() : v.device(); }

Stack empty_composite(const Stack& a) {
  return {make_empty(a[0].int_list(), dtype_or(a[1], get_default_dtype()), device_or_default(a[2]).resolved())};
}

// torch.full infers the dtype from the fill value: bool, int64, or the default float.
Stack full_composite(const Stack& a) {
  const Scalar v = a[1].scalar();
  const DType inferred = v.is_bool() ? kBool : v.is_integral() ? kInt64 : get_default_dtype();
  Tensor t = make_empty(a[0].int_list(), dtype_or(a[2], inferred), device_or_default(a[3]).resolved());
  t.fill_(v);
  return {t};
}

Stack constant_composite(const Stack& a, int value) {
  Tensor t = make_empty(a[0].int_list(), dtype_or(a[1], get_default_dtype()), device_or_default(a[2]).resolved());
  t.fill_(value);
  return {t};
}

void fill_shape(ShapeContext& c) { c.outputs = {{c.args[0].tensor().sizes(), c.args[0].tensor().dtype(), 0}}; }

void arange_shape(ShapeContext& c) {
  const Scalar start = c.args[0].scalar(), end = c.args[1].scalar(), step = c.args[2].scalar();
  const bool any_float = start.is_floating_point() || end.is_floating_point() || step.is_floating_point();
  const DType dt = dtype_or(c.args[3], any_float ? get_default_dtype() : kInt64);
  const double s = start.to_double(), e = end.to_double(), st = step.to_double();
  AXLE_CHECK(std::isfinite(s) && std::isfinite(e), ValueError, "arange(): unsupported range: ", s, " -> ", e);
  AXLE_CHECK(st != 0, ValueError, "arange(): step must be nonzero");
  AXLE_CHECK((st > 0 && e >= s) || (st < 0 && e <= s), ValueError,
             "arange(): upper bound and larger bound inconsistent with step sign (start ", s, ", end ", e, ", step ",
             st, ")");
  int64_t size;
  if (is_floating_point(dt) || any_float) {
    const double n = std::ceil((e - s) / st);
    AXLE_CHECK(n < 9.0e18, ValueError, "arange(): too many elements (", n, ")");
    size = static_cast<int64_t>(n);
  } else {
    const int64_t a = start.to_int(), b = end.to_int(), d = step.to_int();
    size = (b - a + d - (d > 0 ? 1 : -1)) / d;
  }
  c.outputs = {{{size}, dt}};
}

}  // namespace

std::vector<OpDecl> creation_ops() {
  return {
      {"empty.memory_format(int[] size, *, ScalarType? dtype=None, Device? device=None) -> Tensor", nullptr,
       &empty_composite, "A tensor with uninitialized memory."},
      {"fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)", &fill_shape, nullptr,
       "Fills self with a value, in place."},
      {"full(int[] size, Scalar fill_value, *, ScalarType? dtype=None, Device? device=None) -> Tensor", nullptr,
       &full_composite, "A tensor filled with fill_value (dtype inferred from it)."},
      {"zeros(int[] size, *, ScalarType? dtype=None, Device? device=None) -> Tensor", nullptr,
       [](const Stack& a) { return constant_composite(a, 0); }, "A tensor of zeros."},
      {"ones(int[] size, *, ScalarType? dtype=None, Device? device=None) -> Tensor", nullptr,
       [](const Stack& a) { return constant_composite(a, 1); }, "A tensor of ones."},
      {"arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, Device? device=None) -> "
       "Tensor",
       &arange_shape, nullptr, "Values from start to end (exclusive) by step."},
  };
}

}  // namespace axle::shape
