// Creation ops: empty, full, zeros, ones and the *_like forms (composites over
// fill_), fill_, arange, linspace, eye (a strided view of zeros filled with 1).
#include "../call_internal.h"
#include "../derivatives/derivatives.h"
#include "shape_util.h"

#include <axle/ops.h>

#include <cmath>

namespace axle::shape {
namespace {

DType dtype_or(const Value& v, DType fallback) { return v.is_none() ? fallback : v.dtype(); }
Device device_or_default(const Value& v) { return v.is_none() ? get_default_device() : v.device(); }

// A new tensor of `sizes` filled with `v` on `device`: filled there when the
// device type has a fill_ kernel of its own, else filled on the host and copied
// to the device once (one upload; no host-fallback round trip of an
// uninitialized buffer, and nothing for the fallback policy to refuse).
bool fills_itself(const Device& device) {
  static const OpEntry* fill = Registry::get().find("fill_.Scalar");
  return device.is_cpu() || has_device_kernel(*fill, device.type());
}

Tensor filled(const IntList& sizes, DType dtype, const Device& device, const Scalar& v) {
  if (fills_itself(device)) {
    Tensor t = make_empty(sizes, dtype, device);
    t.fill_(v);
    return t;
  }
  Tensor host = make_empty(sizes, dtype, Device("cpu"));
  host.fill_(v);
  Tensor t = make_empty(sizes, dtype, device);
  t.copy_(host);
  return t;
}

Stack empty_composite(const Stack& a) {
  return {make_empty(a[0].int_list(), dtype_or(a[1], get_default_dtype()), device_or_default(a[2]).resolved())};
}

// torch.full infers the dtype from the fill value: bool, int64, or the default float.
Stack full_composite(const Stack& a) {
  const Scalar v = a[1].scalar();
  const DType inferred = v.is_bool() ? kBool : v.is_integral() ? kInt64 : get_default_dtype();
  return {filled(a[0].int_list(), dtype_or(a[2], inferred), device_or_default(a[3]).resolved(), v)};
}

Stack constant_composite(const Stack& a, int value) {
  return {filled(a[0].int_list(), dtype_or(a[1], get_default_dtype()), device_or_default(a[2]).resolved(), value)};
}

// *_like: self's sizes, and its dtype and device unless given; filled_like_of
// fills it with `v` as `filled` does.
Device like_device(const Stack& a, size_t dtype_at) {
  return a[dtype_at + 1].is_none() ? a[0].tensor().device() : a[dtype_at + 1].device().resolved();
}
Tensor empty_like_of(const Stack& a, size_t dtype_at) {
  const Tensor& self = a[0].tensor();
  return make_empty(self.sizes(), dtype_or(a[dtype_at], self.dtype()), like_device(a, dtype_at));
}
Tensor filled_like_of(const Stack& a, size_t dtype_at, const Scalar& v) {
  const Tensor& self = a[0].tensor();
  return filled(self.sizes(), dtype_or(a[dtype_at], self.dtype()), like_device(a, dtype_at), v);
}

// eye(n, dtype, device) and eye.m(n, m, dtype, device).
Stack eye_composite(const Stack& a) {
  const bool has_m = a.size() == 4;
  const int64_t n = a[0].to_int(), m = has_m ? a[1].to_int() : n;
  const Value& dtype = a[has_m ? 2 : 1];
  const Value& device = a[has_m ? 3 : 2];
  AXLE_CHECK(n >= 0, ValueError, "eye: n must be greater or equal to 0, got ", n);
  AXLE_CHECK(m >= 0, ValueError, "eye: m must be greater or equal to 0, got ", m);
  const Device target = device_or_default(device).resolved();
  const bool here = fills_itself(target);  // else built on the host, then copied once
  Tensor t = make_empty({n, m}, dtype_or(dtype, get_default_dtype()), here ? target : Device("cpu"));
  t.fill_(0);
  if (n > 0 && m > 0) t.as_strided({std::min(n, m)}, {m + 1}).fill_(1);
  return {here ? t : t.to(target)};
}

void linspace_shape(ShapeContext& c) {
  const int64_t steps = c.args[2].to_int();
  AXLE_CHECK(steps >= 0, ValueError, c.op, ": number of steps must be non-negative, got ", steps);
  const Scalar start = c.args[0].scalar(), end = c.args[1].scalar();
  AXLE_CHECK(std::isfinite(start.to_double()) && std::isfinite(end.to_double()), ValueError, c.op,
             ": start and end must be finite, got ", start.to_double(), " and ", end.to_double());
  c.outputs = {{{steps}, dtype_or(c.args[3], get_default_dtype())}};
}

// The fill value must fit self's dtype, as c10's checked conversion in torch's
// fill_ (full(..., 300, dtype=uint8) and 1e300 into float32 raise; -1 into uint8
// wraps to 255; infinities and NaN go into any floating dtype).
void fill_shape(ShapeContext& c) {
  const Tensor& self = c.arg(0).tensor();
  const DType d = self.dtype();
  check_scalar_fits(c.op, d, c.args[1]);
  if (is_floating_point(d) && d != kFloat64 && c.args[1].tag() == Value::Tag::Double) {
    const double x = c.args[1].to_double();
    const Range r = dtype_range(d);
    AXLE_CHECK(!std::isfinite(x) || (x >= r.lo && x <= r.hi), DTypeError, c.op, ": value cannot be converted to type ",
               dtype_name(d), " without overflow: ", c.args[1].repr());
  }
  c.outputs = {{self.sizes(), d, 0}};
}

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
      {.schema = "empty.memory_format(int[] size, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
       .composite = &empty_composite,
       .doc = "A tensor with uninitialized memory.",
       .derivative = {.none = "creates a tensor: no gradient flows to its inputs"}},
      {.schema = "fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)",
       .shape = &fill_shape,
       .doc = "Fills self with a value, in place.",
       .derivative = {.vjp = &derivatives::zero_self}},
      {.schema = "full(int[] size, Scalar fill_value, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
       .composite = &full_composite,
       .doc = "A tensor filled with fill_value (dtype inferred from it).",
       .derivative = {.none = "creates a tensor: no gradient flows to its inputs"}},
      {.schema = "zeros(int[] size, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
       .composite = [](const Stack& a) { return constant_composite(a, 0); },
       .doc = "A tensor of zeros.",
       .derivative = {.none = "creates a tensor: no gradient flows to its inputs"}},
      {.schema = "ones(int[] size, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
       .composite = [](const Stack& a) { return constant_composite(a, 1); },
       .doc = "A tensor of ones.",
       .derivative = {.none = "creates a tensor: no gradient flows to its inputs"}},
      {.schema = "arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, Device? "
                 "device=None) -> Tensor",
       .shape = &arange_shape,
       .doc = "Values from start to end (exclusive) by step.",
       .derivative = {.none = "creates a tensor: no gradient flows to its inputs"}},
      {.schema =
           "linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
       .shape = &linspace_shape,
       .doc = "steps values evenly spaced from start to end (inclusive).",
       .derivative = {.none = "creates a tensor: no gradient flows to its inputs"}},
      {.schema = "eye(int n, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
       .composite = &eye_composite,
       .doc = "An n x n identity matrix.",
       .derivative = {.none = "creates a tensor: no gradient flows to its inputs"}},
      {.schema = "eye.m(int n, int m, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
       .composite = &eye_composite,
       .doc = "An n x m identity matrix.",
       .derivative = {.none = "creates a tensor: no gradient flows to its inputs"}},
      {.schema = "empty_like(Tensor self, *, ScalarType? dtype=None, Device? device=None, MemoryFormat? "
                 "memory_format=None) -> Tensor",
       .composite = [](const Stack& a) { return Stack{empty_like_of(a, 1)}; },
       .doc = "Uninitialized, with self's shape.",
       .derivative = {.none = "creates a tensor: no gradient flows to its inputs"}},
      {.schema = "zeros_like(Tensor self, *, ScalarType? dtype=None, Device? device=None, MemoryFormat? "
                 "memory_format=None) -> Tensor",
       .composite = [](const Stack& a) { return Stack{filled_like_of(a, 1, 0)}; },
       .doc = "Zeros with self's shape.",
       .derivative = {.none = "creates a tensor: no gradient flows to its inputs"}},
      {.schema = "ones_like(Tensor self, *, ScalarType? dtype=None, Device? device=None, MemoryFormat? "
                 "memory_format=None) -> Tensor",
       .composite = [](const Stack& a) { return Stack{filled_like_of(a, 1, 1)}; },
       .doc = "Ones with self's shape.",
       .derivative = {.none = "creates a tensor: no gradient flows to its inputs"}},
      {.schema = "full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, Device? device=None, "
                 "MemoryFormat? memory_format=None) -> Tensor",
       .composite = [](const Stack& a) { return Stack{filled_like_of(a, 2, a[1].scalar())}; },
       .doc = "fill_value with self's shape and dtype.",
       .derivative = {.none = "creates a tensor: no gradient flows to its inputs"}},
  };
}

}  // namespace axle::shape
