// Special functions (dispatcher/src/ops/pointwise_special.cpp): lgamma, digamma,
// polygamma, erfinv, the modified Bessel functions i0 / special_i1 and their
// exp-scaled forms, special_erfcx, special_ndtri, and the regularized incomplete
// gamma functions igamma / igammac, and special_zeta. Computed in double (special_functions.h),
// rounded once to the output dtype (float16 and bfloat16 included).
#include <cmath>

#include "kernels.h"
#include "special_functions.h"

namespace axle::reference {

using namespace axle::plugin;

namespace {

struct SpecialUnary {
  const char* op;
  double (*f)(double);
};

const SpecialUnary kUnary[] = {
    {"lgamma", [](double x) { return std::lgamma(x); }},
    {"digamma", &special::digamma},
    {"erfinv", &special::erfinv},
    {"i0", [](double x) { return special::bessel_i(0, x, false); }},
    {"special_i1", [](double x) { return special::bessel_i(1, x, false); }},
    {"special_i0e", [](double x) { return special::bessel_i(0, x, true); }},
    {"special_i1e", [](double x) { return special::bessel_i(1, x, true); }},
    {"special_erfcx", &special::erfcx},
    {"special_ndtri", &special::ndtri},
};

axle_status special_unary(void* user_data, const axle_kernel_call* c) {
  const auto* op = static_cast<const SpecialUnary*>(user_data);
  map_elements<double, 1>(c->outputs[0], {&arg_tensor(c, 0)}, op->f);
  return AXLE_OK;
}

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

axle_status register_pointwise_special(const axle_registrar* r) {
  for (const SpecialUnary& op : kUnary)
    if (axle_status s =
            r->register_kernel(r->context, op.op, "cpu", &special_unary, const_cast<SpecialUnary*>(&op), AXLE_HERE))
      return s;
  return register_kernels(r, "cpu", kKernels);
}

}  // namespace axle::reference
