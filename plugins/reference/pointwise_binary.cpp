// add, sub, mul, div: broadcast through strides; compute in double, int64
// (wrapping, via unsigned math) or bool by the output dtype.
#include "kernels.h"

namespace axle::reference {

using namespace axle::plugin;

namespace {

int64_t wrap_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t wrap_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

// out = self + sign * alpha * other
axle_status add_like(const axle_kernel_call* c, int sign) {
  const axle_tensor_view& out = c->outputs[0];
  const axle_tensor_view* a = &arg_tensor(c, 0);
  const axle_tensor_view* b = &arg_tensor(c, 1);
  if (is_floating(out.dtype)) {
    const double alpha = sign * arg_double(c, 2);
    map_elements<double, 2>(out, {a, b}, [alpha](double x, double y) { return x + alpha * y; });
  } else if (out.dtype == AXLE_DTYPE_BOOL) {
    const bool alpha = arg_double(c, 2) != 0;
    map_elements<bool, 2>(out, {a, b}, [alpha](bool x, bool y) { return x || (alpha && y); });
  } else {
    const int64_t alpha = sign * arg_int(c, 2);
    map_elements<int64_t, 2>(out, {a, b}, [alpha](int64_t x, int64_t y) { return wrap_add(x, wrap_mul(alpha, y)); });
  }
  return AXLE_OK;
}

}  // namespace

axle_status add(void*, const axle_kernel_call* c) { return add_like(c, 1); }
axle_status sub(void*, const axle_kernel_call* c) { return add_like(c, -1); }

axle_status mul(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  const axle_tensor_view* a = &arg_tensor(c, 0);
  const axle_tensor_view* b = &arg_tensor(c, 1);
  if (is_floating(out.dtype))
    map_elements<double, 2>(out, {a, b}, [](double x, double y) { return x * y; });
  else if (out.dtype == AXLE_DTYPE_BOOL)
    map_elements<bool, 2>(out, {a, b}, [](bool x, bool y) { return x && y; });
  else
    map_elements<int64_t, 2>(out, {a, b}, &wrap_mul);
  return AXLE_OK;
}

axle_status div(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  if (!is_floating(out.dtype)) return fail(c, AXLE_ERROR_DTYPE, "div: true division needs a floating output");
  map_elements<double, 2>(out, {&arg_tensor(c, 0), &arg_tensor(c, 1)}, [](double x, double y) { return x / y; });
  return AXLE_OK;
}

const KernelEntry kBinaryKernels[] = {
    {"add.Tensor", &add, AXLE_HERE},
    {"sub.Tensor", &sub, AXLE_HERE},
    {"mul.Tensor", &mul, AXLE_HERE},
    {"div.Tensor", &div, AXLE_HERE},
};

axle_status register_pointwise_binary(const axle_registrar* r) { return register_kernels(r, "cpu", kBinaryKernels); }

}  // namespace axle::reference
