// The reference plugin's pooling kernels (conv_pool.cpp: 2-d, conv_pool3d.cpp:
// 3-d) read their tensors as N-dim [n, c, spatial...] element strides, the
// leading dims of an unbatched input as size 1.
#pragma once

#include <axle/plugin/helpers.hpp>

#include <cstdint>

namespace axle::reference {

template <int N>
struct PoolView {
  char* data;
  axle_dtype dtype;
  int64_t esize, size[N], stride[N];
  template <typename... Index>
  char* at(Index... index) const {
    static_assert(sizeof...(Index) == N, "one index per dim");
    const int64_t i[N] = {static_cast<int64_t>(index)...};
    int64_t offset = 0;
    for (int d = 0; d < N; ++d) offset += i[d] * stride[d];
    return data + offset * esize;
  }
};

template <int N>
PoolView<N> pool_view(const axle_tensor_view& v) {
  PoolView<N> r{static_cast<char*>(v.data), v.dtype, static_cast<int64_t>(plugin::dtype_size(v.dtype)), {}, {}};
  for (int d = 0; d < N; ++d) r.size[d] = 1, r.stride[d] = 0;
  const int32_t lead = N - v.ndim;
  for (int32_t d = 0; d < v.ndim; ++d) {
    r.size[lead + d] = v.sizes[d];
    r.stride[lead + d] = v.strides[d];
  }
  return r;
}

// Element i of int-list argument `arg`.
inline int64_t list_at(const axle_kernel_call* c, int arg, int i) { return c->args[arg].u.ints.items[i]; }

}  // namespace axle::reference
