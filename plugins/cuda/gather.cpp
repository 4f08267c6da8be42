// Host side of gather.cu: index_select (and through it embedding, a composite)
// and gather on contiguous tensors with int64 / int32 indices. The indices are
// checked first: their min and max are computed on the device and read back
// (one stream synchronization), and a value outside [0, size) is an IndexError
// naming it, as the reference's message does, before any kernel reads memory
// through it. Everything else is declined.
#include "allocator.h"
#include "cuda_util.h"
#include "kernels.h"

#include <string>

namespace axle::cuda {
namespace {

using plugin::arg_int;
using plugin::arg_tensor;

bool index_dtype(axle_dtype d) { return d == AXLE_DTYPE_INT64 || d == AXLE_DTYPE_INT32; }

// AXLE_OK when every index is in [0, size); AXLE_ERROR_INDEX naming the
// offending extreme otherwise.
axle_status check_range(const axle_kernel_call* c, const char* op, const axle_tensor_view& index, int64_t dim,
                        int64_t size) {
  const int64_t n = plugin::numel(index);
  if (n == 0) return AXLE_OK;
  void* scratch = nullptr;
  if (axle_status s = cached_malloc(index.device_index, 2 * sizeof(long long), &scratch)) return s;
  long long range[2] = {0, 0};
  int e = launch_index_min_max(index.data, index.dtype == AXLE_DTYPE_INT32, n, static_cast<long long*>(scratch),
                               c->stream);
  if (e == 0)
    e = static_cast<int>(cudaMemcpyAsync(range, scratch, sizeof range, cudaMemcpyDeviceToHost, to_cuda(c->stream)));
  if (e == 0) e = static_cast<int>(cudaStreamSynchronize(to_cuda(c->stream)));
  cached_free(index.device_index, scratch);
  if (e != 0) return check(static_cast<cudaError_t>(e), op, c);
  const long long bad = range[1] >= size ? range[1] : range[0] < 0 ? range[0] : 0;
  if (range[1] >= size || range[0] < 0)
    return plugin::fail(c, AXLE_ERROR_INDEX,
                        std::string(op) + ": index " + std::to_string(bad) + " is out of bounds for dimension " +
                            std::to_string(dim) + " with size " + std::to_string(size));
  return AXLE_OK;
}

axle_status index_select(void*, const axle_kernel_call* c) {
  const axle_tensor_view& self = arg_tensor(c, 0);
  const axle_tensor_view& index = arg_tensor(c, 2);
  const axle_tensor_view& out = c->outputs[0];
  if (self.ndim == 0 || index.ndim > 1 || !index_dtype(index.dtype) || !plugin::is_contiguous(self) ||
      !plugin::is_contiguous(index) || !plugin::is_contiguous(out) || self.dtype != out.dtype ||
      self.device_index != out.device_index || index.device_index != out.device_index)
    return AXLE_DECLINED;
  int64_t dim = arg_int(c, 1);
  if (dim < 0) dim += self.ndim;
  DeviceGuard guard(out.device_index);
  if (!guard.ok()) return check(cudaSetDevice(out.device_index), "cudaSetDevice", c);
  if (axle_status s = check_range(c, "index_select()", index, dim, self.sizes[dim])) return s;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= self.sizes[d];
  for (int64_t d = dim + 1; d < self.ndim; ++d) inner *= self.sizes[d];
  const int64_t n_idx = plugin::numel(index);
  if (outer * n_idx * inner == 0) return AXLE_OK;
  const int e = launch_index_select(plugin::dtype_size(self.dtype), self.data, index.data,
                                    index.dtype == AXLE_DTYPE_INT32, out.data, outer, self.sizes[dim], n_idx, inner,
                                    c->stream);
  return check(static_cast<cudaError_t>(e), c->op_name, c);
}

axle_status gather(void*, const axle_kernel_call* c) {
  const axle_tensor_view& self = arg_tensor(c, 0);
  const axle_tensor_view& index = arg_tensor(c, 2);
  const axle_tensor_view& out = c->outputs[0];
  if (self.ndim == 0 || self.ndim > kMaxDims || index.ndim != self.ndim || !index_dtype(index.dtype) ||
      !plugin::is_contiguous(self) || !plugin::is_contiguous(index) || !plugin::is_contiguous(out) ||
      self.dtype != out.dtype || self.device_index != out.device_index || index.device_index != out.device_index)
    return AXLE_DECLINED;
  int64_t dim = arg_int(c, 1);
  if (dim < 0) dim += self.ndim;
  DeviceGuard guard(out.device_index);
  if (!guard.ok()) return check(cudaSetDevice(out.device_index), "cudaSetDevice", c);
  if (axle_status s = check_range(c, "gather()", index, dim, self.sizes[dim])) return s;
  GatherShape shape;
  shape.ndim = self.ndim;
  shape.dim = static_cast<int32_t>(dim);
  for (int32_t d = 0; d < self.ndim; ++d) {
    shape.index_sizes[d] = index.sizes[d];
    shape.self_strides[d] = self.strides[d];
  }
  const int64_t n = plugin::numel(index);
  if (n == 0) return AXLE_OK;
  const int e = launch_gather(plugin::dtype_size(self.dtype), self.data, index.data, index.dtype == AXLE_DTYPE_INT32,
                              out.data, shape, n, c->stream);
  return check(static_cast<cudaError_t>(e), c->op_name, c);
}

const KernelEntry kKernels[] = {
    {"index_select", &index_select, AXLE_HERE},
    {"gather", &gather, AXLE_HERE},
};

}  // namespace

axle_status register_gather(const axle_registrar* r) { return plugin::register_kernels(r, "cuda", kKernels); }

}  // namespace axle::cuda
