// fill_ and arange.
#include "kernels.h"

namespace axle::reference {

using namespace axle::plugin;

axle_status fill(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  const bool is_float = arg_scalar_is_floating(c, 1);
  const double d = arg_double(c, 1);
  const int64_t i = arg_int(c, 1);
  for_each_element<1>(out.ndim, out.sizes, {&out}, [&](char** p) {
    if (is_float)
      store_from<double>(p[0], out.dtype, d);
    else
      store_from<int64_t>(p[0], out.dtype, i);
  });
  return AXLE_OK;
}

axle_status arange(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  const int64_t n = numel(out);
  const size_t esize = dtype_size(out.dtype);
  char* base = static_cast<char*>(out.data);
  const int64_t stride = out.ndim ? out.strides[0] : 1;
  if (is_floating(out.dtype)) {
    const double start = arg_double(c, 0), step = arg_double(c, 2);
    for (int64_t k = 0; k < n; ++k) store_from<double>(base + k * stride * esize, out.dtype, start + k * step);
  } else {
    const int64_t start = arg_int(c, 0), step = arg_int(c, 2);
    for (int64_t k = 0; k < n; ++k) store_from<int64_t>(base + k * stride * esize, out.dtype, start + k * step);
  }
  return AXLE_OK;
}

}  // namespace axle::reference
