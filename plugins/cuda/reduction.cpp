// Host side of reduction.cu and reduction_scan.cu: sum.dim_IntList, mean.dim, prod, prod.dim_int,
// amax, amin, max, min, max.dim, min.dim, argmax, argmin, var.correction,
// std.correction, norm.ScalarOpt_dim, logsumexp, all, any, all.dim, any.dim,
// count_nonzero.dim_IntList, cumsum and cumprod (the composites sum, mean,
// var, std, norm, count_nonzero... reach them) over any dim set of inputs of
// any dtype and strides, as the reference computes them: integral sums and
// products wrap in int64, results convert into the output's dtype, empty
// reductions give the identity (0, 1, true, false; mean, var: NaN; logsumexp:
// -inf; norm: 0). Shape functions have wrapped and listed the dims and raised
// the errors (empty max, bad dims). Declined: inputs and outputs on different
// devices, and views with more than kReduceDims dims left after merging.
#include "allocator.h"
#include "cuda_util.h"
#include "kernels.h"
#include "reduction_kernels.h"

#include <array>

namespace axle::cuda {
namespace {

using plugin::arg_double;
using plugin::arg_int;
using plugin::arg_is_none;
using plugin::arg_tensor;

// Reduced-dim flags (views of more dims than plugin::kMaxDims are declined).
using Mask = std::array<bool, plugin::kMaxDims>;

Mask all_dims(const axle_tensor_view& x) {
  Mask m{};
  for (int32_t d = 0; d < x.ndim && d < plugin::kMaxDims; ++d) m[static_cast<size_t>(d)] = true;
  return m;
}
Mask one_dim(const axle_tensor_view& x, int64_t dim) {
  Mask m{};
  if (dim < 0) dim += x.ndim;
  if (dim >= 0 && dim < x.ndim && dim < plugin::kMaxDims) m[static_cast<size_t>(dim)] = true;
  return m;
}
// The int[] argument at i (None or []: every dim).
Mask dim_list(const axle_kernel_call* c, int i, const axle_tensor_view& x) {
  const axle_value& v = c->args[i];
  if (v.tag != AXLE_VALUE_INT_LIST || v.u.ints.count == 0) return all_dims(x);
  Mask m{};
  for (int64_t k = 0; k < v.u.ints.count; ++k) {
    const int64_t d = v.u.ints.items[k] < 0 ? v.u.ints.items[k] + x.ndim : v.u.ints.items[k];
    if (d >= 0 && d < x.ndim && d < plugin::kMaxDims) m[static_cast<size_t>(d)] = true;
  }
  return m;
}

// Runs `op` over the flagged dims of args[0] into `values` (may be NULL: argmax)
// and `indices` (ArgMax / ArgMin only, may be NULL); param: see ReduceOp.
axle_status reduce_view(const axle_kernel_call* c, const axle_tensor_view& x, ReduceOp op, const bool* mask,
                        const axle_tensor_view* values, const axle_tensor_view* indices, double param = 0) {
  const axle_tensor_view& first = values ? *values : *indices;
  if (x.device_index != first.device_index || (values && indices && indices->device_index != first.device_index))
    return AXLE_DECLINED;
  if (x.ndim > plugin::kMaxDims) return AXLE_DECLINED;
  ReduceCall call;
  call.op = op;
  const bool indexed = op == ReduceOp::ArgMax || op == ReduceOp::ArgMin;
  if (!make_reduce_shape(x, mask, values, indices, !indexed, &call.shape)) return AXLE_DECLINED;
  if (call.shape.outputs == 0) return AXLE_OK;
  call.x = x.data;
  call.x_dtype = x.dtype;
  if (values) {
    call.values = values->data;
    call.values_dtype = values->dtype;
  }
  if (indices) call.indices = static_cast<int64_t*>(indices->data);
  call.param = param;
  DeviceGuard guard(first.device_index);
  if (axle_status s = guard.status(c)) return s;
  Scratch scratch;
  if (axle_status s = scratch.allocate(first.device_index, reduction_scratch_bytes(call), c)) return s;
  return check(static_cast<cudaError_t>(launch_reduction(call, scratch.ptr, c->stream)), c->op_name, c);
}

axle_status reduce(const axle_kernel_call* c, ReduceOp op, const Mask& mask, const axle_tensor_view* values,
                   const axle_tensor_view* indices, double param = 0) {
  return reduce_view(c, arg_tensor(c, 0), op, mask.data(), values, indices, param);
}

// ---------------------------------------------------------------- kernels
// sum.dim_IntList / mean.dim (self, dim?, keepdim, dtype?)
axle_status sum(void*, const axle_kernel_call* c) {
  return reduce(c, ReduceOp::Sum, dim_list(c, 1, arg_tensor(c, 0)), &c->outputs[0], nullptr);
}
axle_status mean(void*, const axle_kernel_call* c) {
  return reduce(c, ReduceOp::Mean, dim_list(c, 1, arg_tensor(c, 0)), &c->outputs[0], nullptr);
}

// prod (self, dtype?) / prod.dim_int (self, dim, keepdim, dtype?); a bool result is all().
axle_status prod_impl(const axle_kernel_call* c, const Mask& m) {
  const ReduceOp op = c->outputs[0].dtype == AXLE_DTYPE_BOOL ? ReduceOp::All : ReduceOp::Prod;
  return reduce(c, op, m, &c->outputs[0], nullptr);
}
axle_status prod(void*, const axle_kernel_call* c) { return prod_impl(c, all_dims(arg_tensor(c, 0))); }
axle_status prod_dim(void*, const axle_kernel_call* c) {
  return prod_impl(c, one_dim(arg_tensor(c, 0), arg_int(c, 1)));
}

// amax / amin (self, dim[], keepdim), max / min (self)
template <bool Largest>
axle_status amax(void*, const axle_kernel_call* c) {
  return reduce(c, Largest ? ReduceOp::Max : ReduceOp::Min, dim_list(c, 1, arg_tensor(c, 0)), &c->outputs[0], nullptr);
}
template <bool Largest>
axle_status max_all(void*, const axle_kernel_call* c) {
  return reduce(c, Largest ? ReduceOp::Max : ReduceOp::Min, all_dims(arg_tensor(c, 0)), &c->outputs[0], nullptr);
}
// max.dim / min.dim (self, dim, keepdim) -> values, indices
template <bool Largest>
axle_status max_dim(void*, const axle_kernel_call* c) {
  if (c->num_outputs < 2 || c->outputs[1].dtype != AXLE_DTYPE_INT64) return AXLE_DECLINED;
  return reduce(c, Largest ? ReduceOp::ArgMax : ReduceOp::ArgMin, one_dim(arg_tensor(c, 0), arg_int(c, 1)),
                &c->outputs[0], &c->outputs[1]);
}
// argmax / argmin (self, dim?, keepdim): the index in the flattened tensor when dim is None.
template <bool Largest>
axle_status argmax(void*, const axle_kernel_call* c) {
  const axle_tensor_view& x = arg_tensor(c, 0);
  if (c->outputs[0].dtype != AXLE_DTYPE_INT64) return AXLE_DECLINED;
  return reduce(c, Largest ? ReduceOp::ArgMax : ReduceOp::ArgMin,
                arg_is_none(c, 1) ? all_dims(x) : one_dim(x, arg_int(c, 1)), nullptr, &c->outputs[0]);
}

// var.correction / std.correction (self, dim?, correction, keepdim)
template <bool Sqrt>
axle_status var(void*, const axle_kernel_call* c) {
  const double correction = arg_is_none(c, 2) ? 1.0 : static_cast<double>(arg_int(c, 2));
  return reduce(c, Sqrt ? ReduceOp::Std : ReduceOp::Var, dim_list(c, 1, arg_tensor(c, 0)), &c->outputs[0], nullptr,
                correction);
}

// norm.ScalarOpt_dim (self, p?, dim[], keepdim)
axle_status norm(void*, const axle_kernel_call* c) {
  const double p = arg_is_none(c, 1) ? 2.0 : arg_double(c, 1);
  return reduce(c, ReduceOp::Norm, dim_list(c, 2, arg_tensor(c, 0)), &c->outputs[0], nullptr, p);
}

// logsumexp (self, dim[], keepdim)
axle_status logsumexp(void*, const axle_kernel_call* c) {
  return reduce(c, ReduceOp::LogSumExp, dim_list(c, 1, arg_tensor(c, 0)), &c->outputs[0], nullptr);
}

// all / any (self), all.dim / any.dim (self, dim, keepdim)
template <bool All>
axle_status all(void*, const axle_kernel_call* c) {
  return reduce(c, All ? ReduceOp::All : ReduceOp::Any, all_dims(arg_tensor(c, 0)), &c->outputs[0], nullptr);
}
template <bool All>
axle_status all_dim(void*, const axle_kernel_call* c) {
  return reduce(c, All ? ReduceOp::All : ReduceOp::Any, one_dim(arg_tensor(c, 0), arg_int(c, 1)), &c->outputs[0],
                nullptr);
}

// count_nonzero.dim_IntList (self, dim[])
axle_status count_nonzero(void*, const axle_kernel_call* c) {
  return reduce(c, ReduceOp::CountNonzero, dim_list(c, 1, arg_tensor(c, 0)), &c->outputs[0], nullptr);
}

// cumsum / cumprod (self, dim, dtype?): y has x's sizes in the shape function's dtype.
template <bool Product>
axle_status cumulative(void*, const axle_kernel_call* c) {
  const axle_tensor_view& x = arg_tensor(c, 0);
  const axle_tensor_view& y = c->outputs[0];
  if (x.device_index != y.device_index || x.ndim != y.ndim) return AXLE_DECLINED;
  int64_t dim = x.ndim == 0 ? 0 : arg_int(c, 1);
  if (dim < 0) dim += x.ndim;
  ScanCall call;
  call.product = Product;
  if (!make_scan_shape(x, y, x.ndim == 0 ? -1 : dim, &call.shape)) return AXLE_DECLINED;
  if (call.shape.lines.outputs == 0 || call.shape.length == 0) return AXLE_OK;
  call.x = x.data;
  call.x_dtype = x.dtype;
  call.y = y.data;
  call.y_dtype = y.dtype;
  DeviceGuard guard(y.device_index);
  if (axle_status s = guard.status(c)) return s;
  Scratch scratch;
  if (axle_status s = scratch.allocate(y.device_index, scan_scratch_bytes(call), c)) return s;
  return check(static_cast<cudaError_t>(launch_scan(call, scratch.ptr, c->stream)), c->op_name, c);
}

const KernelEntry kKernels[] = {
    {"sum.dim_IntList", &sum, AXLE_HERE},
    {"mean.dim", &mean, AXLE_HERE},
    {"prod", &prod, AXLE_HERE},
    {"prod.dim_int", &prod_dim, AXLE_HERE},
    {"amax", &amax<true>, AXLE_HERE},
    {"amin", &amax<false>, AXLE_HERE},
    {"max", &max_all<true>, AXLE_HERE},
    {"min", &max_all<false>, AXLE_HERE},
    {"max.dim", &max_dim<true>, AXLE_HERE},
    {"min.dim", &max_dim<false>, AXLE_HERE},
    {"argmax", &argmax<true>, AXLE_HERE},
    {"argmin", &argmax<false>, AXLE_HERE},
    {"var.correction", &var<false>, AXLE_HERE},
    {"std.correction", &var<true>, AXLE_HERE},
    {"norm.ScalarOpt_dim", &norm, AXLE_HERE},
    {"logsumexp", &logsumexp, AXLE_HERE},
    {"all", &all<true>, AXLE_HERE},
    {"any", &all<false>, AXLE_HERE},
    {"all.dim", &all_dim<true>, AXLE_HERE},
    {"any.dim", &all_dim<false>, AXLE_HERE},
    {"count_nonzero.dim_IntList", &count_nonzero, AXLE_HERE},
    {"cumsum", &cumulative<false>, AXLE_HERE},
    {"cumprod", &cumulative<true>, AXLE_HERE},
};

}  // namespace

axle_status sum_over(const axle_kernel_call* c, const axle_tensor_view& x, const bool* reduced,
                     const axle_tensor_view& out) {
  return reduce_view(c, x, ReduceOp::Sum, reduced, &out, nullptr);
}

axle_status register_reduction(const axle_registrar* r) { return plugin::register_kernels(r, "cuda", kKernels); }

}  // namespace axle::cuda
