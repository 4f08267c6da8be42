// nonzero: the data-dependent path. Counts first, then asks the host to
// allocate the (count, ndim) int64 output and fills it in row-major order.
#include "kernels.h"

#include <vector>

namespace axle::reference {

using namespace axle::plugin;

axle_status nonzero(void*, const axle_kernel_call* c) {
  const axle_tensor_view& in = arg_tensor(c, 0);
  int64_t count = 0;
  for_each_element<1>(in.ndim, in.sizes, {&in}, [&](char** p) {
    count += load_as<double>(p[0], in.dtype) != 0.0 ? 1 : 0;  // NaN != 0 counts
  });
  const int64_t sizes[2] = {count, in.ndim};
  axle_tensor_view out{};
  const axle_status s = c->host->allocate_output(c->call_context, 0, AXLE_DTYPE_INT64, 2, sizes, &out);
  if (s != AXLE_OK) return s;
  int64_t* dst = static_cast<int64_t*>(out.data);
  std::vector<int64_t> index(static_cast<size_t>(in.ndim), 0);
  int64_t row = 0;
  for_each_element<1>(in.ndim, in.sizes, {&in}, [&](char** p) {
    if (load_as<double>(p[0], in.dtype) != 0.0) {
      for (int32_t d = 0; d < in.ndim; ++d) dst[row * in.ndim + d] = index[static_cast<size_t>(d)];
      ++row;
    }
    for (int32_t d = in.ndim - 1; d >= 0; --d) {  // row-major coordinates of the next element
      if (++index[static_cast<size_t>(d)] < in.sizes[d]) break;
      index[static_cast<size_t>(d)] = 0;
    }
  });
  return AXLE_OK;
}

const KernelEntry kNonzeroKernels[] = {
    {"nonzero", &nonzero, AXLE_HERE},
};

axle_status register_indexing_nonzero(const axle_registrar* r) { return register_kernels(r, "cpu", kNonzeroKernels); }

}  // namespace axle::reference
