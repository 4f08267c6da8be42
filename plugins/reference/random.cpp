// rand, randn, randint: element i of the output (in row-major order) takes the
// Philox counter offset + i; the generator arrives as int[2] {seed, offset}.
// bernoulli.p: four elements per counter (plugin-sdk random.hpp).
#include "kernels.h"

#include <axle/plugin/random.hpp>

namespace axle::reference {

using namespace axle::plugin;

namespace {

// Calls fn(philox words) -> value for each output element in row-major order.
template <typename T, typename Fn>
void generate(const axle_tensor_view& out, const axle_value& gen, Fn&& fn) {
  const uint64_t seed = static_cast<uint64_t>(gen.u.ints.items[0]);
  uint64_t counter = static_cast<uint64_t>(gen.u.ints.items[1]);
  for_each_element<1>(out.ndim, out.sizes, {&out},
                      [&](char** p) { store_from<T>(p[0], out.dtype, fn(philox4x32(counter++, seed))); });
}

axle_status rand(void*, const axle_kernel_call* c) {
  const int bits = uniform_bits(c->outputs[0].dtype);
  generate<double>(c->outputs[0], c->args[1], [bits](const std::array<uint32_t, 4>& r) { return uniform01(r, bits); });
  return AXLE_OK;
}

axle_status randn(void*, const axle_kernel_call* c) {
  generate<double>(c->outputs[0], c->args[1], [](const std::array<uint32_t, 4>& r) { return normal01(r); });
  return AXLE_OK;
}

axle_status randint(void*, const axle_kernel_call* c) {
  const int64_t low = arg_int(c, 0), high = arg_int(c, 1);
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  generate<int64_t>(c->outputs[0], c->args[3],
                    [low, range](const std::array<uint32_t, 4>& r) { return uniform_int(r, low, range); });
  return AXLE_OK;
}

// bernoulli.p(self, p, generator): element i is word i % 4 of block offset + i / 4.
axle_status bernoulli_p(void*, const axle_kernel_call* c) {
  const double p = arg_double(c, 1);
  const axle_value& gen = c->args[2];
  const uint64_t seed = static_cast<uint64_t>(gen.u.ints.items[0]), offset = static_cast<uint64_t>(gen.u.ints.items[1]);
  const axle_tensor_view& out = c->outputs[0];
  uint64_t i = 0;
  std::array<uint32_t, 4> r{};
  for_each_element<1>(out.ndim, out.sizes, {&out}, [&](char** q) {
    if (i % 4 == 0) r = philox4x32(offset + i / 4, seed);
    store_from<double>(q[0], out.dtype, bernoulli_word(r[i % 4], p) ? 1.0 : 0.0);
    ++i;
  });
  return AXLE_OK;
}

const KernelEntry kRandom[] = {
    {"bernoulli.p", &bernoulli_p, AXLE_HERE},
    {"rand", &rand, AXLE_HERE},
    {"randn", &randn, AXLE_HERE},
    {"randint.low", &randint, AXLE_HERE},
};

}  // namespace

axle_status register_random(const axle_registrar* r) { return register_kernels(r, "cpu", kRandom); }

}  // namespace axle::reference
