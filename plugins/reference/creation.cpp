// fill_, arange and linspace.
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

namespace axle::reference {

// torch.linspace: the first half counts up from start, the second half down
// from end, so both endpoints are exact.
axle_status linspace(void*, const axle_kernel_call* c) {
  using namespace axle::plugin;
  const axle_tensor_view& out = c->outputs[0];
  const int64_t steps = numel(out);
  const size_t esize = dtype_size(out.dtype);
  char* base = static_cast<char*>(out.data);
  const int64_t stride = out.ndim ? out.strides[0] : 1;
  const double start = arg_double(c, 0), end = arg_double(c, 1);
  const double step = steps > 1 ? (end - start) / static_cast<double>(steps - 1) : 0;
  const int64_t half = steps / 2;
  for (int64_t k = 0; k < steps; ++k) {
    // One step: torch gives start (half is 0, so the second-half formula would give end).
    const double v = steps == 1 ? start : k < half ? start + step * k : end - step * (steps - 1 - k);
    if (is_floating(out.dtype))
      store_from<double>(base + k * stride * esize, out.dtype, v);
    else  // integer outputs: torch computes in the integer type's float path and truncates
      store_from<int64_t>(base + k * stride * esize, out.dtype, static_cast<int64_t>(v));
  }
  return AXLE_OK;
}

const KernelEntry kCreationKernels[] = {
    {"fill_.Scalar", &fill, AXLE_HERE},
    {"arange.start_step", &arange, AXLE_HERE},
    {"linspace", &linspace, AXLE_HERE},
};

axle_status register_creation(const axle_registrar* r) { return plugin::register_kernels(r, "cpu", kCreationKernels); }

}  // namespace axle::reference
