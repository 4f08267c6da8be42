// Test helpers: a tensor from listed values, and a tensor's values back, both
// through float64 on the host (any dtype, device and layout).
#pragma once

#include <axle/axle.h>

#include <vector>

namespace axle::testing {

inline Tensor from(const std::vector<double>& v, const IntList& shape, DType d = kFloat32) {
  Tensor t = empty(shape, TensorOptions().dtype(kFloat64));
  for (size_t i = 0; i < v.size(); ++i) t.data_ptr<double>()[i] = v[i];
  return t.to(d);
}

inline std::vector<double> values(const Tensor& t) {
  Tensor h = t.to(Device("cpu"), kFloat64).contiguous();
  return std::vector<double>(h.data_ptr<double>(), h.data_ptr<double>() + h.numel());
}

}  // namespace axle::testing
