// A tiny application built against an installed axle (pkg-config or CMake).
#include <axle/axle.h>

#include <cstdio>

int main() {
  const axle::Tensor a = axle::ones({2, 3});
  const axle::Tensor b = axle::arange(0, 3, 1, axle::TensorOptions().dtype(axle::kFloat32));
  const double s = axle::sum(axle::matmul(a + b, a.t())).item<double>();  // rows (1,2,3) . (1,1,1) = 6, 2x2 -> 24
  std::printf("axle %s: result %g\n", axle::version().c_str(), s);
  return s == 24.0 ? 0 : 1;
}
