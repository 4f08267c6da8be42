// Special functions (dispatcher/src/ops/pointwise_special.cpp) with an extra
// argument: polygamma, the regularized incomplete gamma functions igamma /
// igammac, and special_zeta (the one-argument ones, lgamma ... special_ndtri,
// are rows of pointwise_unary_math.cpp's table). Computed in double (special_functions.h),
// rounded once to the output dtype (float16 and bfloat16 included).
#include <cmath>

#include "kernels.h"
#include "special_functions.h"

namespace axle::reference {

using namespace axle::plugin;

namespace {

// polygamma(int n, Tensor self)
axle_status polygamma(void*, const axle_kernel_call* c) {
  const int64_t n = arg_int(c, 0);
  map_elements<double, 1>(c->outputs[0], {&arg_tensor(c, 1)}, [n](double x) { return special::polygamma(n, x); });
  return AXLE_OK;
}

// igamma, igammac, special_zeta: f(self, other) elementwise in double.
template <double (*F)(double, double)>
axle_status binary(void*, const axle_kernel_call* c) {
  map_elements<double, 2>(c->outputs[0], {&arg_tensor(c, 0), &arg_tensor(c, 1)}, F);
  return AXLE_OK;
}

const KernelEntry kKernels[] = {
    {"special_zeta", &binary<&special::zeta>, AXLE_HERE},
    {"polygamma", &polygamma, AXLE_HERE},
    {"igamma", &binary<&special::igamma>, AXLE_HERE},
    {"igammac", &binary<&special::igammac>, AXLE_HERE},
};

}  // namespace

axle_status register_pointwise_special(const axle_registrar* r) { return register_kernels(r, "cpu", kKernels); }

}  // namespace axle::reference
