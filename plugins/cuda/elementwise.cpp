// Host side of the elementwise kernels (elementwise.cu): argument checks, the
// broadcast indexing, the compute type, and registration. fill_, copy_ (every
// dtype pair, any strides; contiguous equal dtypes are one cudaMemcpyAsync),
// add / sub (alpha) / mul / div with broadcasting and mixed input dtypes into a
// floating output, and unary float ops. Integer arithmetic is declined (the host
// fallback runs it with the reference's exact integer semantics).
#include "cuda_util.h"
#include "kernels.h"

#include <cstring>

namespace axle::cuda {
namespace {

using plugin::arg_double;
using plugin::arg_tensor;

// Aligns up to three views to the output's dims (byte strides, 0 = broadcast).
bool make_indexing(const axle_tensor_view& out, const axle_tensor_view* a, const axle_tensor_view* b, Indexing* ix) {
  if (out.ndim > kMaxDims) return false;
  ix->ndim = out.ndim;
  const axle_tensor_view* views[3] = {&out, a, b};
  for (int k = 0; k < 3; ++k) {
    const axle_tensor_view* v = views[k];
    const int64_t esize = v ? static_cast<int64_t>(plugin::dtype_size(v->dtype)) : 0;
    const int32_t lead = v ? out.ndim - v->ndim : 0;
    if (v && lead < 0) return false;
    for (int32_t d = 0; d < out.ndim; ++d) {
      ix->sizes[d] = out.sizes[d];
      const int32_t vd = d - lead;
      ix->strides[k][d] = (!v || vd < 0 || v->sizes[vd] == 1) ? 0 : v->strides[vd] * esize;
    }
  }
  return true;
}

Compute compute_for(axle_dtype out) { return out == AXLE_DTYPE_FLOAT64 ? Compute::Double : Compute::Float; }

axle_status run(const axle_kernel_call* c, Op op, Compute compute, const axle_tensor_view& out,
                const axle_tensor_view* a, const axle_tensor_view* b, double alpha) {
  Indexing ix;
  if (!make_indexing(out, a, b, &ix)) return AXLE_DECLINED;
  DeviceGuard guard(out.device_index);
  if (!guard.ok()) return check(cudaSetDevice(out.device_index), "cudaSetDevice", c);
  const Operand o{out.data, out.dtype};
  const Operand x = a ? Operand{a->data, a->dtype} : Operand{};
  const Operand y = b ? Operand{b->data, b->dtype} : Operand{};
  const int e = launch_elementwise(op, compute, ix, plugin::numel(out), o, x, y, alpha, c->stream);
  return check(static_cast<cudaError_t>(e), c->op_name, c);
}

axle_status fill(void*, const axle_kernel_call* c) {
  const axle_tensor_view& self = c->outputs[0];
  const bool integral = plugin::is_integral(self.dtype) || self.dtype == AXLE_DTYPE_BOOL;
  if (integral && plugin::arg_scalar_is_floating(c, 1)) {
    // A floating scalar into an integer tensor truncates (through double, as the reference).
    return run(c, Op::Fill, Compute::Double, self, nullptr, nullptr, arg_double(c, 1));
  }
  if (integral) {
    // The value travels as a double: beyond 2^53 it would lose bits (declined).
    const int64_t v = plugin::arg_int(c, 1);
    if (v > (int64_t{1} << 53) || v < -(int64_t{1} << 53)) return AXLE_DECLINED;
    return run(c, Op::Fill, Compute::Int64, self, nullptr, nullptr, static_cast<double>(v));
  }
  return run(c, Op::Fill, compute_for(self.dtype), self, nullptr, nullptr, arg_double(c, 1));
}

axle_status copy(void*, const axle_kernel_call* c) {
  const axle_tensor_view& dst = c->outputs[0];
  const axle_tensor_view& src = arg_tensor(c, 1);
  if (src.device_index != dst.device_index) return AXLE_DECLINED;  // the core stages cross-device copies
  const int64_t n = plugin::numel(dst);
  if (n == 0) return AXLE_OK;
  if (src.dtype == dst.dtype && plugin::is_contiguous(src) && plugin::is_contiguous(dst) && plugin::numel(src) == n) {
    DeviceGuard guard(dst.device_index);
    return check(cudaMemcpyAsync(dst.data, src.data, static_cast<size_t>(n) * plugin::dtype_size(dst.dtype),
                                 cudaMemcpyDeviceToDevice, to_cuda(c->stream)),
                 "copy_", c);
  }
  const bool ints = !plugin::is_floating(src.dtype) && !plugin::is_floating(dst.dtype);
  const Compute compute = ints ? Compute::Int64
                          : (src.dtype == AXLE_DTYPE_FLOAT64 || dst.dtype == AXLE_DTYPE_FLOAT64 ||
                             src.dtype == AXLE_DTYPE_INT64 || dst.dtype == AXLE_DTYPE_INT64)
                              ? Compute::Double
                              : Compute::Float;
  return run(c, Op::Copy, compute, dst, &src, nullptr, 0.0);
}

template <Op O>
axle_status binary(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  if (!plugin::is_floating(out.dtype)) return AXLE_DECLINED;
  double alpha = 1.0;
  if constexpr (O == Op::Add || O == Op::Sub) alpha = arg_double(c, 2);
  return run(c, O, compute_for(out.dtype), out, &arg_tensor(c, 0), &arg_tensor(c, 1), alpha);
}

template <Op O>
axle_status unary(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  const axle_tensor_view& in = arg_tensor(c, 0);
  if (!plugin::is_floating(out.dtype) || !plugin::is_floating(in.dtype)) return AXLE_DECLINED;
  return run(c, O, compute_for(out.dtype), out, &in, nullptr, 0.0);
}

const KernelEntry kKernels[] = {
    {"fill_.Scalar", &fill, AXLE_HERE},
    {"copy_", &copy, AXLE_HERE},
    {"add.Tensor", &binary<Op::Add>, AXLE_HERE},
    {"sub.Tensor", &binary<Op::Sub>, AXLE_HERE},
    {"mul.Tensor", &binary<Op::Mul>, AXLE_HERE},
    {"div.Tensor", &binary<Op::Div>, AXLE_HERE},
    {"neg", &unary<Op::Neg>, AXLE_HERE},
    {"relu", &unary<Op::Relu>, AXLE_HERE},
    {"exp", &unary<Op::Exp>, AXLE_HERE},
    {"log", &unary<Op::Log>, AXLE_HERE},
    {"sqrt", &unary<Op::Sqrt>, AXLE_HERE},
    {"abs", &unary<Op::Abs>, AXLE_HERE},
    {"sigmoid", &unary<Op::Sigmoid>, AXLE_HERE},
    {"tanh", &unary<Op::Tanh>, AXLE_HERE},
    {"sin", &unary<Op::Sin>, AXLE_HERE},
    {"cos", &unary<Op::Cos>, AXLE_HERE},
};

}  // namespace

axle_status register_elementwise(const axle_registrar* r) { return plugin::register_kernels(r, "cuda", kKernels); }

}  // namespace axle::cuda
