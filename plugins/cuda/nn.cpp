// Host side of nn.cu: softmax.int / log_softmax.int along any dim, and
// layer_norm / rms_norm over the trailing normalized dims, for contiguous
// float32 / float64 / float16 / bfloat16 tensors on one device. Strided inputs,
// other dtypes and weights of another dtype are declined (the next candidate,
// the host fallback, serves them).
#include "cuda_util.h"
#include "kernels.h"

namespace axle::cuda {
namespace {

using plugin::arg_double;
using plugin::arg_int;
using plugin::arg_is_none;
using plugin::arg_tensor;

axle_status softmax_impl(const axle_kernel_call* c, bool log) {
  const axle_tensor_view& x = arg_tensor(c, 0);
  const axle_tensor_view& y = c->outputs[0];
  if (!plugin::is_floating(x.dtype) || !plugin::is_floating(y.dtype) || !plugin::is_contiguous(x) ||
      !plugin::is_contiguous(y) || x.device_index != y.device_index)
    return AXLE_DECLINED;
  const int64_t n = plugin::numel(x);
  if (n == 0) return AXLE_OK;
  if (x.ndim == 0) {  // one element: the dim is the element itself
    DeviceGuard guard(y.device_index);
    if (axle_status s = guard.status(c)) return s;
    return check(static_cast<cudaError_t>(launch_softmax(x.dtype, y.dtype, x.data, y.data, 1, 1, 1, log, c->stream)),
                 c->op_name, c);
  }
  const int64_t dim = arg_int(c, 1);  // wrapped by the shape function
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= x.sizes[d];
  for (int64_t d = dim + 1; d < x.ndim; ++d) inner *= x.sizes[d];
  DeviceGuard guard(y.device_index);
  if (axle_status s = guard.status(c)) return s;
  const int e = launch_softmax(x.dtype, y.dtype, x.data, y.data, outer, x.sizes[dim], inner, log, c->stream);
  return check(static_cast<cudaError_t>(e), c->op_name, c);
}

axle_status softmax(void*, const axle_kernel_call* c) { return softmax_impl(c, false); }
axle_status log_softmax(void*, const axle_kernel_call* c) { return softmax_impl(c, true); }

// layer_norm(input, normalized_shape, weight?, bias?, eps, cudnn_enable) and
// rms_norm(input, normalized_shape, weight?, eps) (eps filled by the shape function).
axle_status norm_impl(const axle_kernel_call* c, bool rms) {
  const axle_tensor_view& x = arg_tensor(c, 0);
  const axle_tensor_view& y = c->outputs[0];
  if (!plugin::is_floating(x.dtype) || y.dtype != x.dtype || !plugin::is_contiguous(x) || !plugin::is_contiguous(y) ||
      x.device_index != y.device_index)
    return AXLE_DECLINED;
  const int64_t normalized = c->args[1].u.ints.count;
  int64_t cols = 1;
  for (int64_t d = x.ndim - normalized; d < x.ndim; ++d) cols *= x.sizes[d];
  const int64_t n = plugin::numel(x);
  if (n == 0) return AXLE_OK;
  const void* param[2] = {nullptr, nullptr};
  for (int k = 0; k < (rms ? 1 : 2); ++k) {
    if (arg_is_none(c, 2 + k)) continue;
    const axle_tensor_view& p = arg_tensor(c, 2 + k);
    if (p.dtype != x.dtype || !plugin::is_contiguous(p) || p.device_index != x.device_index) return AXLE_DECLINED;
    param[k] = p.data;
  }
  const double eps = arg_double(c, rms ? 3 : 4);
  DeviceGuard guard(y.device_index);
  if (axle_status s = guard.status(c)) return s;
  const int e = launch_norm(rms, x.dtype, x.data, param[0], param[1], y.data, n / cols, cols, eps, c->stream);
  return check(static_cast<cudaError_t>(e), c->op_name, c);
}

axle_status layer_norm(void*, const axle_kernel_call* c) { return norm_impl(c, false); }
axle_status rms_norm(void*, const axle_kernel_call* c) { return norm_impl(c, true); }

const KernelEntry kKernels[] = {
    {"softmax.int", &softmax, AXLE_HERE},
    {"log_softmax.int", &log_softmax, AXLE_HERE},
    {"layer_norm", &layer_norm, AXLE_HERE},
    {"rms_norm", &rms_norm, AXLE_HERE},
};

}  // namespace

axle_status register_nn(const axle_registrar* r) { return plugin::register_kernels(r, "cuda", kKernels); }

}  // namespace axle::cuda
