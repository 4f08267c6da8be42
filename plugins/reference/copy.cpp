// copy_: strided, broadcasting, dtype-converting copy within the host.
#include "kernels.h"

#include <vector>

namespace axle::reference {

using namespace axle::plugin;

namespace {

// dst = src, broadcast to dst's shape and converted to dst's dtype.
void convert_copy(const axle_tensor_view& dst, const axle_tensor_view& src) {
  if (dst.dtype == src.dtype && dst.ndim == src.ndim && is_contiguous(dst) && is_contiguous(src)) {
    bool same_shape = true;
    for (int32_t d = 0; d < dst.ndim; ++d) same_shape &= dst.sizes[d] == src.sizes[d];
    if (same_shape) {
      if (dst.data != src.data)
        std::memmove(dst.data, src.data, static_cast<size_t>(numel(dst)) * dtype_size(dst.dtype));
      return;
    }
  }
  if (is_floating(src.dtype))
    map_elements<double, 1>(dst, {&src}, [](double v) { return v; });
  else
    map_elements<int64_t, 1>(dst, {&src}, [](int64_t v) { return v; });
}

}  // namespace

axle_status copy(void*, const axle_kernel_call* c) {
  convert_copy(c->outputs[0], arg_tensor(c, 1));
  return AXLE_OK;
}

// cat: each input converted into its slice of the output along dim, so a call
// the cpu plugin declines costs one output (the composite would plan and
// allocate another). The shape function checked the inputs; legacy 1-d empty
// inputs are skipped as torch does.
axle_status cat(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  const axle_value& list = c->args[0];
  if (numel(out) == 0) return AXLE_OK;
  int64_t dim = arg_int(c, 1);
  if (dim < 0) dim += out.ndim;
  std::vector<int64_t> sizes(out.sizes, out.sizes + out.ndim);
  axle_tensor_view slice = out;
  slice.sizes = sizes.data();
  int64_t offset = 0;
  for (int64_t i = 0; i < list.u.tensors.count; ++i) {
    const axle_tensor_view& t = list.u.tensors.items[i];
    if ((t.ndim == 1 && t.sizes[0] == 0) || t.sizes[dim] == 0) continue;
    sizes[dim] = t.sizes[dim];
    slice.data = static_cast<char*>(out.data) + offset * out.strides[dim] * static_cast<int64_t>(dtype_size(out.dtype));
    convert_copy(slice, t);
    offset += t.sizes[dim];
  }
  return AXLE_OK;
}

const KernelEntry kCopyKernels[] = {
    {"copy_", &copy, AXLE_HERE},
    {"cat", &cat, AXLE_HERE},
};

axle_status register_copy(const axle_registrar* r) { return register_kernels(r, "cpu", kCopyKernels); }

}  // namespace axle::reference
