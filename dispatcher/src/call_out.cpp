// torch's out= form of any op (call_op_out): the out tensors the kernels may
// write directly (usable_out, asked by dispatch_impl), and the cast, resize and
// copy of a result into the others.
#include "call_internal.h"
#include "ops/shape_util.h"
#include "registry.h"

namespace axle {

namespace {

bool shares_storage(const Tensor& t, const Stack& args) {
  for (const Value& v : args) {
    if (v.is_tensor() && v.tensor().defined() && v.tensor().storage().get() == t.storage().get()) return true;
    if (v.tag() == Value::Tag::TensorList)
      for (const Tensor& x : v.tensors())
        if (x.defined() && x.storage().get() == t.storage().get()) return true;
  }
  return false;
}

void write_out(const std::string& op, const Tensor& result, Tensor& out) {
  const DType from = result.dtype(), to = out.dtype();
  shape::check_castable(op.c_str(), from, to);
  AXLE_CHECK(out.device() == result.device(), DeviceError, op, ": out is on ", out.device(), " but the result is on ",
             result.device());
  if (out.sizes() != result.sizes()) {  // resized as torch does: new storage of the result's shape
    Tensor fresh = make_empty(result.sizes(), to, out.device());
    TensorImpl& impl = out.unsafe_impl();
    impl.storage = fresh.storage();
    impl.sizes = result.sizes();
    impl.strides = fresh.strides();
    impl.storage_offset = 0;
  }
  shape::check_no_internal_overlap(op.c_str(), out);
  out.copy_(result);
}

}  // namespace

// A caller's out= tensor the kernels may write directly: exactly the output's
// shape, dtype and device, no internal overlap, no memory shared with an input
// (a kernel may read an input after writing part of its output).
bool usable_out(const Tensor& t, const OutputSpec& o, const Device& device, const Stack& args) {
  if (!t.defined() || t.sizes() != o.sizes || t.dtype() != o.dtype || t.device() != device) return false;
  return !shape::has_internal_overlap(t) && !shares_storage(t, args);
}

Stack call_op_out(const OpHandle& h, Stack args, std::vector<Tensor> out) {
  const OpEntry& op = *h.entry();
  op.schema.complete_arguments(args);
  for (const Tensor& t : out) AXLE_CHECK(t.defined(), ValueError, op.name, ": out tensors must be defined");
  Stack result = dispatch(op, args, &out);
  size_t n = 0;
  for (const Value& v : result) n += v.is_tensor() ? 1 : 0;
  AXLE_CHECK(n == out.size(), ValueError, op.name, ": out= needs ", n, " tensor(s), got ", out.size());
  Stack written;
  size_t i = 0;
  for (const Value& v : result) {
    if (!v.is_tensor()) continue;
    if (!v.tensor().is_same(out[i])) write_out(op.name, v.tensor(), out[i]);
    out[i].storage()->version.fetch_add(1, std::memory_order_relaxed);
    written.push_back(out[i++]);
  }
  return written;
}

}  // namespace axle
