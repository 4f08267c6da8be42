// copy_: strided, broadcasting, dtype-converting copy within the host.
#include "kernels.h"

namespace axle::reference {

using namespace axle::plugin;

axle_status copy(void*, const axle_kernel_call* c) {
  const axle_tensor_view& dst = c->outputs[0];
  const axle_tensor_view& src = arg_tensor(c, 1);
  if (dst.dtype == src.dtype && dst.ndim == src.ndim && is_contiguous(dst) && is_contiguous(src)) {
    bool same_shape = true;
    for (int32_t d = 0; d < dst.ndim; ++d) same_shape &= dst.sizes[d] == src.sizes[d];
    if (same_shape) {
      if (dst.data != src.data) std::memmove(dst.data, src.data, static_cast<size_t>(numel(dst)) * dtype_size(dst.dtype));
      return AXLE_OK;
    }
  }
  if (is_floating(src.dtype))
    map_elements<double, 1>(dst, {&src}, [](double v) { return v; });
  else
    map_elements<int64_t, 1>(dst, {&src}, [](int64_t v) { return v; });
  return AXLE_OK;
}

}  // namespace axle::reference
