// Host side of reduce.cu: sum.dim_IntList, mean.dim, amax, amin over one
// consecutive range of dims (or all dims) of a contiguous floating tensor with a
// floating result. Other dim sets (e.g. dims 0 and 2 of 3), integer sums and
// strided inputs are declined: the host fallback serves them.
#include "cuda_util.h"
#include "kernels.h"

#include <algorithm>
#include <vector>

namespace axle::cuda {
namespace {

using plugin::arg_tensor;

axle_status reduce(const axle_kernel_call* c, ReduceKind kind) {
  const axle_tensor_view& x = arg_tensor(c, 0);
  const axle_tensor_view& y = c->outputs[0];
  if (!plugin::is_floating(x.dtype) || !plugin::is_floating(y.dtype) || !plugin::is_contiguous(x) ||
      !plugin::is_contiguous(y) || x.device_index != y.device_index)
    return AXLE_DECLINED;
  // The reduced dims: the int[] argument (None or [] = all), wrapped, sorted, unique.
  std::vector<int64_t> dims;
  const axle_value& d = c->args[1];
  if (d.tag == AXLE_VALUE_INT_LIST)
    for (int64_t k = 0; k < d.u.ints.count; ++k) {
      int64_t v = d.u.ints.items[k];
      if (v < 0) v += std::max<int32_t>(x.ndim, 1);
      dims.push_back(v);
    }
  if (dims.empty())
    for (int32_t k = 0; k < x.ndim; ++k) dims.push_back(k);
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  if (x.ndim == 0) dims.clear();
  if (!dims.empty() && dims.back() - dims.front() + 1 != static_cast<int64_t>(dims.size())) return AXLE_DECLINED;
  const int64_t first = dims.empty() ? 0 : dims.front(), last = dims.empty() ? -1 : dims.back();
  int64_t outer = 1, cols = 1, inner = 1;
  for (int32_t k = 0; k < x.ndim; ++k) (k < first ? outer : k <= last ? cols : inner) *= x.sizes[k];
  if (plugin::numel(y) == 0) return AXLE_OK;
  if (cols == 0) return AXLE_DECLINED;  // empty reductions (0 sums, NaN means, amax errors) stay with the reference
  DeviceGuard guard(y.device_index);
  if (!guard.ok()) return check(cudaSetDevice(y.device_index), "cudaSetDevice", c);
  const int e = launch_reduce(kind, x.dtype, y.dtype, x.data, y.data, outer, cols, inner, c->stream);
  return check(static_cast<cudaError_t>(e), c->op_name, c);
}

axle_status sum(void*, const axle_kernel_call* c) { return reduce(c, ReduceKind::Sum); }
axle_status mean(void*, const axle_kernel_call* c) { return reduce(c, ReduceKind::Mean); }
axle_status amax(void*, const axle_kernel_call* c) { return reduce(c, ReduceKind::Max); }
axle_status amin(void*, const axle_kernel_call* c) { return reduce(c, ReduceKind::Min); }

const KernelEntry kKernels[] = {
    {"sum.dim_IntList", &sum, AXLE_HERE},
    {"mean.dim", &mean, AXLE_HERE},
    {"amax", &amax, AXLE_HERE},
    {"amin", &amin, AXLE_HERE},
};

}  // namespace

axle_status register_reduce(const axle_registrar* r) { return plugin::register_kernels(r, "cuda", kKernels); }

}  // namespace axle::cuda
