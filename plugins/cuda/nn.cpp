// Host side of nn.cu: softmax.int / log_softmax.int along any dim, and
// layer_norm / rms_norm over the trailing normalized dims, and the backward ops
// _softmax_backward_data, _log_softmax_backward_data and native_layer_norm_backward, for contiguous
// float32 / float64 / float16 / bfloat16 tensors on one device. Strided inputs,
// other dtypes and weights of another dtype are declined (the next candidate,
// the host fallback, serves them).
#include "allocator.h"
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

// _softmax_backward_data / _log_softmax_backward_data(grad_output, output, dim, input_dtype):
// contiguous grad_output and output of one floating dtype.
axle_status softmax_backward_impl(const axle_kernel_call* c, bool log) {
  const axle_tensor_view &g = arg_tensor(c, 0), &y = arg_tensor(c, 1), &gx = c->outputs[0];
  if (!plugin::is_floating(y.dtype) || g.dtype != y.dtype || !plugin::is_floating(gx.dtype) ||
      !plugin::is_contiguous(g) || !plugin::is_contiguous(y) || !plugin::is_contiguous(gx) ||
      g.device_index != gx.device_index || y.device_index != gx.device_index)
    return AXLE_DECLINED;
  if (plugin::numel(y) == 0) return AXLE_OK;
  int64_t outer = 1, inner = 1, cols = 1;
  if (y.ndim > 0) {
    const int64_t dim = arg_int(c, 2);  // wrapped by the shape function
    for (int64_t d = 0; d < dim; ++d) outer *= y.sizes[d];
    for (int64_t d = dim + 1; d < y.ndim; ++d) inner *= y.sizes[d];
    cols = y.sizes[dim];
  }
  DeviceGuard guard(gx.device_index);
  if (axle_status s = guard.status(c)) return s;
  const int e = launch_softmax_backward(y.dtype, gx.dtype, g.data, y.data, gx.data, outer, cols, inner, log, c->stream);
  return check(static_cast<cudaError_t>(e), c->op_name, c);
}

axle_status softmax_backward(void*, const axle_kernel_call* c) { return softmax_backward_impl(c, false); }
axle_status log_softmax_backward(void*, const axle_kernel_call* c) { return softmax_backward_impl(c, true); }

// A contiguous tensor argument of `n` elements of dtype `dt` on `device`, or None (NULL); false otherwise.
bool optional_operand(const axle_kernel_call* c, int i, int64_t n, axle_dtype dt, int device, const void** data) {
  *data = nullptr;
  if (arg_is_none(c, i)) return true;
  const axle_tensor_view& v = arg_tensor(c, i);
  if (v.dtype != dt || plugin::numel(v) != n || !plugin::is_contiguous(v) || v.device_index != device) return false;
  *data = v.data;
  return true;
}

// native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask, eps):
// contiguous tensors of one floating dtype; outputs output_mask leaves out arrive unallocated and stay so.
axle_status layer_norm_backward(void*, const axle_kernel_call* c) {
  const axle_tensor_view &g = arg_tensor(c, 0), &x = arg_tensor(c, 1);
  const axle_tensor_view* outs[3] = {&c->outputs[0], &c->outputs[1], &c->outputs[2]};
  if (!plugin::is_floating(x.dtype) || g.dtype != x.dtype || !plugin::is_contiguous(g) || !plugin::is_contiguous(x) ||
      g.device_index != x.device_index)
    return AXLE_DECLINED;
  for (const axle_tensor_view* o : outs)
    if (o->data && (o->dtype != x.dtype || !plugin::is_contiguous(*o) || o->device_index != x.device_index))
      return AXLE_DECLINED;
  LayerNormBackward p;
  p.cols = 1;
  const axle_value& ns = c->args[2];
  for (int64_t i = 0; i < ns.u.ints.count; ++i) p.cols *= ns.u.ints.items[i];
  const int64_t n = plugin::numel(x);
  if (n == 0 || p.cols == 0) return AXLE_DECLINED;  // zero rows: the composite's zeros
  p.rows = n / p.cols;
  const void* unused_bias = nullptr;
  if (!optional_operand(c, 3, p.rows, x.dtype, x.device_index, &p.mean) ||
      !optional_operand(c, 4, p.rows, x.dtype, x.device_index, &p.rstd) ||
      !optional_operand(c, 5, p.cols, x.dtype, x.device_index, &p.w) ||
      !optional_operand(c, 6, p.cols, x.dtype, x.device_index, &unused_bias))
    return AXLE_DECLINED;
  p.g = g.data, p.x = x.data, p.gx = outs[0]->data, p.gw = outs[1]->data, p.gb = outs[2]->data;
  p.eps = arg_double(c, 8);
  DeviceGuard guard(x.device_index);
  if (axle_status s = guard.status(c)) return s;
  Scratch scratch;
  if (axle_status s = scratch.allocate(x.device_index, layer_norm_backward_scratch(x.dtype, p.rows), c)) return s;
  return check(static_cast<cudaError_t>(launch_layer_norm_backward(x.dtype, p, scratch.ptr, c->stream)), c->op_name, c);
}

const KernelEntry kKernels[] = {
    {"_softmax_backward_data", &softmax_backward, AXLE_HERE},
    {"_log_softmax_backward_data", &log_softmax_backward, AXLE_HERE},
    {"native_layer_norm_backward", &layer_norm_backward, AXLE_HERE},
    {"softmax.int", &softmax, AXLE_HERE},
    {"log_softmax.int", &log_softmax, AXLE_HERE},
    {"layer_norm", &layer_norm, AXLE_HERE},
    {"rms_norm", &rms_norm, AXLE_HERE},
};

}  // namespace

axle_status register_nn(const axle_registrar* r) { return plugin::register_kernels(r, "cuda", kKernels); }

}  // namespace axle::cuda
