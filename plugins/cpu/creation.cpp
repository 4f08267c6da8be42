// fill_ (what zeros / ones / full / zero_ run): a contiguous output of any
// dtype is written as one converted element repeated (memset when its bytes are
// zero), split across threads when large. Strided outputs are declined.
#include "kernels.h"

#include <algorithm>
#include <cstring>

namespace axle::cpu {
namespace {

constexpr int64_t kParallelBytes = int64_t{1} << 21;

template <typename T>
void fill_typed(void* out, int64_t begin, int64_t end, const unsigned char* element) {
  T v;
  std::memcpy(&v, element, sizeof(T));
  std::fill(static_cast<T*>(out) + begin, static_cast<T*>(out) + end, v);
}

// fill_.Scalar(self!, value)
axle_status fill(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  if (!plugin::is_contiguous(out)) return AXLE_DECLINED;
  const int64_t n = plugin::numel(out);
  const size_t esize = plugin::dtype_size(out.dtype);
  if (n == 0) return AXLE_OK;
  if (esize != 1 && esize != 2 && esize != 4 && esize != 8) return AXLE_DECLINED;
  // The element as the reference plugin converts it: a floating scalar by
  // value (double), an integral one exactly (int64).
  alignas(8) unsigned char element[8] = {};
  if (plugin::arg_scalar_is_floating(c, 1))
    plugin::store_from<double>(element, out.dtype, plugin::arg_double(c, 1));
  else
    plugin::store_from<int64_t>(element, out.dtype, plugin::arg_int(c, 1));
  bool zero = true;
  for (size_t b = 0; b < esize; ++b) zero = zero && element[b] == 0;
  auto part = [&](int64_t begin, int64_t end) {
    if (zero) {
      std::memset(static_cast<char*>(out.data) + begin * esize, 0, static_cast<size_t>(end - begin) * esize);
      return;
    }
    switch (esize) {
      case 1: fill_typed<uint8_t>(out.data, begin, end, element); break;
      case 2: fill_typed<uint16_t>(out.data, begin, end, element); break;
      case 4: fill_typed<uint32_t>(out.data, begin, end, element); break;
      default: fill_typed<uint64_t>(out.data, begin, end, element); break;
    }
  };
  parallel_ranges(n, n * static_cast<int64_t>(esize) >= kParallelBytes ? thread_count() : 1, 64, part);
  return AXLE_OK;
}

const KernelEntry kKernels[] = {
    {"fill_.Scalar", &fill, AXLE_HERE},
};

}  // namespace

axle_status register_creation(const axle_registrar* r) { return plugin::register_kernels(r, "cpu", kKernels); }

}  // namespace axle::cpu
