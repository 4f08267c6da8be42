// eq, ne, lt, le, gt, ge: compared in double when either input is floating,
// else in int64 (bool as 0/1); the output is bool.
#include "kernels.h"

namespace axle::reference {

using namespace axle::plugin;

namespace {

enum class Comparison { Eq, Ne, Lt, Le, Gt, Ge };

template <Comparison C, typename T>
bool holds(T x, T y) {
  switch (C) {
    case Comparison::Eq: return x == y;
    case Comparison::Ne: return x != y;
    case Comparison::Lt: return x < y;
    case Comparison::Le: return x <= y;
    case Comparison::Gt: return x > y;
    case Comparison::Ge: return x >= y;
  }
  return false;
}
}  // namespace

template <Comparison C>
axle_status compare(void*, const axle_kernel_call* c) {
  const axle_tensor_view* a = &arg_tensor(c, 0);
  const axle_tensor_view* b = &arg_tensor(c, 1);
  if (is_floating(a->dtype) || is_floating(b->dtype))
    map_elements<double, 2>(c->outputs[0], {a, b}, [](double x, double y) { return holds<C>(x, y) ? 1.0 : 0.0; });
  else
    map_elements<int64_t, 2>(c->outputs[0], {a, b}, [](int64_t x, int64_t y) { return int64_t{holds<C>(x, y)}; });
  return AXLE_OK;
}

const KernelEntry kComparisonKernels[] = {
    {"eq.Tensor", &compare<Comparison::Eq>, AXLE_HERE}, {"ne.Tensor", &compare<Comparison::Ne>, AXLE_HERE},
    {"lt.Tensor", &compare<Comparison::Lt>, AXLE_HERE}, {"le.Tensor", &compare<Comparison::Le>, AXLE_HERE},
    {"gt.Tensor", &compare<Comparison::Gt>, AXLE_HERE}, {"ge.Tensor", &compare<Comparison::Ge>, AXLE_HERE},
};

axle_status register_pointwise_comparison(const axle_registrar* r) {
  return register_kernels(r, "cpu", kComparisonKernels);
}

}  // namespace axle::reference
