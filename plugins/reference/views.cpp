// Reference kernels of the copying view-family ops: flip (a strided copy through
// negative strides) and tril/triu (copy or zero by position in the last two
// dims). Elements are moved as raw bytes, so every dtype shares one loop.
#include <cstring>

#include "kernels.h"

namespace axle::reference {

using namespace axle::plugin;

namespace {

// Copies one element of `size` bytes (1, 2, 4 or 8).
inline void copy_element(char* dst, const char* src, size_t size) {
  switch (size) {
    case 1: *dst = *src; break;
    case 2: std::memcpy(dst, src, 2); break;
    case 4: std::memcpy(dst, src, 4); break;
    default: std::memcpy(dst, src, 8); break;
  }
}

// flip(self, dims): dims were wrapped and de-duplicated by the shape function.
// The input is read through a view whose flipped dims run backwards.
axle_status flip(void*, const axle_kernel_call* c) {
  const axle_tensor_view& in = arg_tensor(c, 0);
  const axle_tensor_view& out = c->outputs[0];
  const axle_value& dims = c->args[1];
  if (in.ndim > kMaxDims) return fail(c, AXLE_ERROR_INVALID_ARGUMENT, "flip: too many dimensions");
  int64_t strides[kMaxDims];
  for (int32_t d = 0; d < in.ndim; ++d) strides[d] = in.strides[d];
  char* data = static_cast<char*>(in.data);
  const int64_t esize = static_cast<int64_t>(dtype_size(in.dtype));
  if (numel(in) > 0) {
    for (int64_t k = 0; k < dims.u.ints.count; ++k) {
      const int64_t d = dims.u.ints.items[k];
      data += (in.sizes[d] - 1) * strides[d] * esize;
      strides[d] = -strides[d];
    }
  }
  axle_tensor_view src = in;
  src.data = data;
  src.strides = strides;
  const size_t size = static_cast<size_t>(esize);
  for_each_element<2>(out.ndim, out.sizes, {&out, &src}, [size](char** p) { copy_element(p[0], p[1], size); });
  return AXLE_OK;
}

enum class Triangle { Lower, Upper };
const Triangle kLower = Triangle::Lower, kUpper = Triangle::Upper;

// tril / triu: out[..., i, j] = self[..., i, j] where j - i <= diagonal (tril) or
// j - i >= diagonal (triu), else zero (all-zero bytes are zero in every dtype).
axle_status triangle(void* user_data, const axle_kernel_call* c) {
  const Triangle which = *static_cast<const Triangle*>(user_data);
  const axle_tensor_view& in = arg_tensor(c, 0);
  const axle_tensor_view& out = c->outputs[0];
  const int64_t diagonal = arg_int(c, 1);
  const int32_t n = out.ndim;
  const int64_t rows = out.sizes[n - 2], cols = out.sizes[n - 1];
  const size_t size = dtype_size(out.dtype);
  const int64_t esize = static_cast<int64_t>(size);
  int64_t batch = 1;
  for (int32_t d = 0; d < n - 2; ++d) batch *= out.sizes[d];
  if (batch == 0 || rows == 0 || cols == 0) return AXLE_OK;
  for (int64_t b = 0; b < batch; ++b) {
    // Byte offsets of batch element b (row-major unravel over the leading dims).
    int64_t in_off = 0, out_off = 0, rest = b;
    for (int32_t d = n - 3; d >= 0; --d) {
      const int64_t i = rest % out.sizes[d];
      rest /= out.sizes[d];
      in_off += i * in.strides[d] * esize;
      out_off += i * out.strides[d] * esize;
    }
    for (int64_t i = 0; i < rows; ++i) {
      const char* src = static_cast<const char*>(in.data) + in_off + i * in.strides[n - 2] * esize;
      char* dst = static_cast<char*>(out.data) + out_off + i * out.strides[n - 2] * esize;
      for (int64_t j = 0; j < cols; ++j) {
        const bool keep = which == Triangle::Lower ? j - i <= diagonal : j - i >= diagonal;
        char* o = dst + j * out.strides[n - 1] * esize;
        if (keep)
          copy_element(o, src + j * in.strides[n - 1] * esize, size);
        else
          std::memset(o, 0, size);
      }
    }
  }
  return AXLE_OK;
}

}  // namespace

axle_status register_views(const axle_registrar* r) {
  if (axle_status s = r->register_kernel(r->context, "flip", "cpu", &flip, nullptr, AXLE_HERE)) return s;
  if (axle_status s =
          r->register_kernel(r->context, "tril", "cpu", &triangle, const_cast<Triangle*>(&kLower), AXLE_HERE))
    return s;
  return r->register_kernel(r->context, "triu", "cpu", &triangle, const_cast<Triangle*>(&kUpper), AXLE_HERE);
}

}  // namespace axle::reference
