// neg, exp, relu.
#include "kernels.h"

namespace axle::reference {

using namespace axle::plugin;

axle_status neg(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  const axle_tensor_view* x = &arg_tensor(c, 0);
  if (is_floating(out.dtype))
    map_elements<double, 1>(out, {x}, [](double v) { return -v; });
  else
    map_elements<int64_t, 1>(out, {x}, [](int64_t v) { return static_cast<int64_t>(0 - static_cast<uint64_t>(v)); });
  return AXLE_OK;
}

axle_status exp(void*, const axle_kernel_call* c) {
  map_elements<double, 1>(c->outputs[0], {&arg_tensor(c, 0)}, [](double v) { return std::exp(v); });
  return AXLE_OK;
}

axle_status relu(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  const axle_tensor_view* x = &arg_tensor(c, 0);
  if (is_floating(out.dtype))
    map_elements<double, 1>(out, {x}, [](double v) { return (v > 0 || v != v) ? v : 0.0; });
  else
    map_elements<int64_t, 1>(out, {x}, [](int64_t v) { return v > 0 ? v : 0; });
  return AXLE_OK;
}

const KernelEntry kUnaryKernels[] = {
    {"neg", &neg, AXLE_HERE},
    {"exp", &exp, AXLE_HERE},
    {"relu", &relu, AXLE_HERE},
};

axle_status register_pointwise_unary(const axle_registrar* r) { return register_kernels(r, "cpu", kUnaryKernels); }

}  // namespace axle::reference
