// sum and mean over a list of dims: accumulate every input element into a
// contiguous accumulator viewed through the input's shape with stride 0 on the
// reduced dims, then convert into the (possibly strided) output.
#include "kernels.h"

#include <limits>
#include <vector>

namespace axle::reference {

using namespace axle::plugin;

namespace {

template <typename Acc>
axle_status reduce(const axle_kernel_call* c, bool mean) {
  const axle_tensor_view& in = arg_tensor(c, 0);
  const axle_tensor_view& out = c->outputs[0];
  std::vector<bool> reduced(static_cast<size_t>(in.ndim), arg_is_none(c, 1));
  if (!arg_is_none(c, 1)) {
    const axle_value& dims = c->args[1];
    if (dims.u.ints.count == 0) reduced.assign(reduced.size(), true);
    for (int64_t k = 0; k < dims.u.ints.count; ++k) reduced[static_cast<size_t>(dims.u.ints.items[k])] = true;
  }
  // Accumulator: contiguous over the kept dims, in input-dim order.
  std::vector<int64_t> acc_strides(static_cast<size_t>(in.ndim), 0);
  int64_t groups = 1, count = 1;
  for (int32_t d = in.ndim - 1; d >= 0; --d) {
    if (reduced[static_cast<size_t>(d)]) {
      count *= in.sizes[d];
    } else {
      acc_strides[static_cast<size_t>(d)] = groups;
      groups *= in.sizes[d];
    }
  }
  std::vector<Acc> acc(static_cast<size_t>(groups), Acc{});
  const axle_dtype acc_dtype = std::is_same_v<Acc, double> ? AXLE_DTYPE_FLOAT64 : AXLE_DTYPE_INT64;
  const axle_tensor_view acc_in = {sizeof(axle_tensor_view), acc.data(), acc_dtype, in.ndim, in.sizes, acc_strides.data(), 0, 0};
  for_each_element<2>(in.ndim, in.sizes, {&acc_in, &in}, [&](char** p) {
    *reinterpret_cast<Acc*>(p[0]) += load_as<Acc>(p[1], in.dtype);
  });
  if (mean) {
    for (Acc& a : acc)
      a = count == 0 ? std::numeric_limits<Acc>::quiet_NaN() : static_cast<Acc>(static_cast<double>(a) / count);
  }
  // The output holds the kept dims in order (plus size-1 dims when keepdim): the
  // accumulator viewed with the output's sizes is contiguous.
  std::vector<int64_t> acc_out_strides(static_cast<size_t>(out.ndim));
  int64_t s = 1;
  for (int32_t d = out.ndim - 1; d >= 0; --d) {
    acc_out_strides[static_cast<size_t>(d)] = s;
    s *= out.sizes[d];
  }
  const axle_tensor_view acc_out = {sizeof(axle_tensor_view), acc.data(), acc_dtype, out.ndim, out.sizes, acc_out_strides.data(), 0, 0};
  map_elements<Acc, 1>(out, {&acc_out}, [](Acc v) { return v; });
  return AXLE_OK;
}

}  // namespace

axle_status sum(void*, const axle_kernel_call* c) {
  return is_floating(c->outputs[0].dtype) ? reduce<double>(c, false) : reduce<int64_t>(c, false);
}

axle_status mean(void*, const axle_kernel_call* c) {
  if (!is_floating(c->outputs[0].dtype)) return fail(c, AXLE_ERROR_DTYPE, "mean: output must be floating");
  return reduce<double>(c, true);
}

}  // namespace axle::reference
