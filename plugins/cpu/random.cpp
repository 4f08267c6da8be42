// Random draws on our own loops, the same values as the reference plugin's
// (plugin-sdk random.hpp: Philox counters laid out per op). bernoulli.p, which
// dropout's mask is: four draws per Philox block, the blocks' rounds vectorized
// across blocks (AVX-512 / AVX2 clones) and split across threads, written
// straight into a dense float32, float64, bool / uint8 or int64 output (other
// dtypes and strided outputs are declined).
#include "kernels.h"

#include <axle/plugin/random.hpp>

namespace axle::cpu {
namespace {

using plugin::arg_double;

// Blocks [b0, b1) of draws into out (n elements, T).
template <typename T>
__attribute__((target_clones("avx512f", "avx2", "default"))) void bernoulli_blocks(T* __restrict out, int64_t n,
                                                                                   uint64_t seed, uint64_t offset,
                                                                                   double p, int64_t b0, int64_t b1) {
  const int64_t full = std::min(b1, n / 4);
  for (int64_t b = b0; b < full; ++b) {
    const plugin::PhiloxWords r = plugin::philox4x32_words(offset + static_cast<uint64_t>(b), seed);
    for (int k = 0; k < 4; ++k) out[4 * b + k] = plugin::bernoulli_word(r.w[k], p) ? T(1) : T(0);
  }
  if (b1 > full && full * 4 < n) {  // the last, partial block
    const plugin::PhiloxWords r = plugin::philox4x32_words(offset + static_cast<uint64_t>(full), seed);
    for (int64_t i = full * 4; i < n; ++i) out[i] = plugin::bernoulli_word(r.w[i - full * 4], p) ? T(1) : T(0);
  }
}

template <typename T>
void bernoulli_into(void* data, int64_t n, uint64_t seed, uint64_t offset, double p) {
  const int64_t blocks = (n + 3) / 4;
  parallel_ranges(blocks, n >= (int64_t{1} << 16) ? thread_count() : 1, 16,
                  [&](int64_t b0, int64_t b1) { bernoulli_blocks(static_cast<T*>(data), n, seed, offset, p, b0, b1); });
}

// bernoulli.p(self, p, *, generator): the generator arrives as int[2] {seed, offset}.
axle_status bernoulli_p(void*, const axle_kernel_call* c) {
  const axle_tensor_view& out = c->outputs[0];
  if (!plugin::is_contiguous(out)) return plugin::decline(c, "a strided output");
  const double p = arg_double(c, 1);
  const axle_value& gen = c->args[2];
  const auto seed = static_cast<uint64_t>(gen.u.ints.items[0]), offset = static_cast<uint64_t>(gen.u.ints.items[1]);
  const int64_t n = plugin::numel(out);
  switch (out.dtype) {
    case AXLE_DTYPE_FLOAT32: bernoulli_into<float>(out.data, n, seed, offset, p); break;
    case AXLE_DTYPE_FLOAT64: bernoulli_into<double>(out.data, n, seed, offset, p); break;
    case AXLE_DTYPE_BOOL:
    case AXLE_DTYPE_UINT8: bernoulli_into<uint8_t>(out.data, n, seed, offset, p); break;
    case AXLE_DTYPE_INT64: bernoulli_into<int64_t>(out.data, n, seed, offset, p); break;
    default: return plugin::decline(c, "float32, float64, bool, uint8 and int64 only");
  }
  return AXLE_OK;
}

const KernelEntry kKernels[] = {
    {"bernoulli.p", &bernoulli_p, AXLE_HERE},
};

}  // namespace

axle_status register_random(const axle_registrar* r) { return plugin::register_kernels(r, "cpu", kKernels); }

}  // namespace axle::cpu
