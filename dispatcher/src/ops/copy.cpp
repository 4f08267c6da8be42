// Copy and movement ops: copy_ (strided, dtype-converting; across devices the
// dispatcher copies, see dispatcher/src/cross_device_copy.cpp), clone, contiguous, to, reshape.
#include "../derivatives/derivatives.h"
#include "shape_util.h"

#include <axle/ops.h>

namespace axle::shape {
namespace {

void copy_shape(ShapeContext& c) {
  const Tensor& self = c.arg(0).tensor();
  const Tensor& src = c.arg(1).tensor();
  const IntList b = broadcast(self.sizes(), src.sizes());
  AXLE_CHECK(b == self.sizes(), ShapeError, "copy_(): src of shape ", str(src.sizes()),
             " cannot be broadcast to self of shape ", str(self.sizes()));
  c.outputs = {{self.sizes(), self.dtype(), 0}};
}

// A new tensor like t: preserve_format keeps a channels_last layout (as torch's
// clone / to / empty_like for dense tensors), anything else is contiguous.
Tensor empty_same(const Tensor& t, DType dtype, const Device& device) {
  return make_empty(t.sizes(), dtype, device, suggest_memory_format(t));
}

MemoryFormat format_arg(const Value& v) {
  return v.is_none() ? MemoryFormat::Preserve : memory_format_from_name(v.str());
}

Stack clone_composite(const Stack& a) {
  const Tensor& t = a[0].tensor();
  Tensor out = empty_same(t, t.dtype(), t.device());
  out.copy_(t);
  return {out};
}

Stack contiguous_composite(const Stack& a) {
  const Tensor& t = a[0].tensor();
  const MemoryFormat f = format_arg(a[1]);
  AXLE_CHECK(f != MemoryFormat::Preserve, ValueError,
             "contiguous: preserve memory format is unsupported by the contiguous operator");
  if (t.is_contiguous(f)) return {t};
  Tensor out = make_empty(t.sizes(), t.dtype(), t.device(), f);
  out.copy_(t);
  return {out};
}

// non_blocking reaches copy_: a dense host<->device copy is then enqueued on the
// device's current stream (see dispatcher/src/cross_device_copy.cpp).
Tensor to_impl(const Tensor& t, const Device& device, DType dtype, bool non_blocking, bool copy, MemoryFormat f) {
  const Device d = device.resolved();
  if (!copy && d == t.device() && dtype == t.dtype() && (f == MemoryFormat::Preserve || t.is_contiguous(f))) return t;
  Tensor out = f == MemoryFormat::Preserve ? empty_same(t, dtype, d) : make_empty(t.sizes(), dtype, d, f);
  out.copy_(t, non_blocking);
  return out;
}

Stack to_dtype_composite(const Stack& a) {
  const Tensor& t = a[0].tensor();
  return {to_impl(t, t.device(), a[1].dtype(), a[2].to_bool(), a[3].to_bool(), format_arg(a[4]))};
}

Stack to_device_composite(const Stack& a) {
  const Tensor& t = a[0].tensor();
  return {to_impl(t, a[1].device(), a[2].is_none() ? t.dtype() : a[2].dtype(), a[3].to_bool(), a[4].to_bool(),
                  format_arg(a[5]))};
}

Stack reshape_composite(const Stack& a) {
  const Tensor& t = a[0].tensor();
  const IntList shape = infer_view_shape(a[1].int_list(), t.numel(), "reshape");
  if (auto strides = compute_view_strides(t.sizes(), t.strides(), shape))
    return {make_view(t, shape, *strides, t.storage_offset())};
  // Row-major, whatever layout t has: clone() keeps a permuted (channels_last) layout, which view refuses.
  return {t.contiguous(MemoryFormat::Contiguous).view(shape)};
}

}  // namespace

std::vector<OpDecl> copy_ops() {
  return {
      {.schema = "copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)",
       .shape = &copy_shape,
       .doc = "Copies src (broadcast, dtype-converted, from any device) into self.",
       .derivative = {.vjp = &derivatives::copy_}},
      {.schema = "clone(Tensor self) -> Tensor",
       .composite = &clone_composite,
       .doc = "A contiguous copy.",
       .derivative = {.vjp = &derivatives::clone}},
      {.schema = "contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)",
       .composite = &contiguous_composite,
       .doc = "self if contiguous, else a contiguous copy.",
       .derivative = {.vjp = &derivatives::clone}},
      {.schema = "to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? "
                 "memory_format=None) -> Tensor(a)",
       .composite = &to_dtype_composite,
       .doc = "Converts to a dtype (self when already so and copy=False).",
       .derivative = {.vjp = &derivatives::clone}},
      {.schema = "to.device(Tensor(a) self, Device device, ScalarType? dtype=None, bool non_blocking=False, bool "
                 "copy=False, MemoryFormat? memory_format=None) -> Tensor(a)",
       .composite = &to_device_composite,
       .doc = "Moves to a device (and dtype).",
       .derivative = {.vjp = &derivatives::to_copy}},
      {.schema = "reshape(Tensor(a) self, int[] shape) -> Tensor(a)",
       .composite = &reshape_composite,
       .doc = "A view when strides allow, else a copy.",
       .derivative = {.vjp = &derivatives::reshape}},
  };
}

}  // namespace axle::shape
