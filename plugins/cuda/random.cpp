// Host side of random.cu: rand, randn (float32 / float64 / float16 / bfloat16)
// and randint.low (every dtype). The op's shape function has replaced the
// generator by int[2] {seed, offset}; element i of the output in row-major order
// takes Philox counter offset + i, the reference plugin's numbering, so a CUDA
// tensor holds the numbers the host would draw for the same seed. Any output
// strides (element order stays row-major); an output that overlaps itself
// (a zero stride) and other argument forms are declined.
#include "cuda_util.h"
#include "random_kernels.h"

namespace axle::cuda {
namespace {

using plugin::arg_int;

// The layout of `out`; false when it cannot be described (too many dims) or
// would be written twice through one address.
bool layout_of(const axle_tensor_view& out, RandomLayout* l) {
  if (plugin::is_contiguous(out)) return true;
  if (out.ndim > kMaxDims) return false;
  l->contiguous = false;
  l->ndim = out.ndim;
  for (int32_t d = 0; d < out.ndim; ++d) {
    if (out.sizes[d] > 1 && out.strides[d] == 0) return false;
    l->sizes[d] = out.sizes[d];
    l->strides[d] = out.strides[d];
  }
  return true;
}

// Draws into outputs[0] from the {seed, offset} in args[gen].
axle_status draw(const axle_kernel_call* c, RandomKind kind, int gen, int64_t low = 0, uint64_t range = 1) {
  const axle_tensor_view& out = c->outputs[0];
  const axle_value& g = c->args[gen];
  if (g.tag != AXLE_VALUE_INT_LIST || g.u.ints.count != 2) return AXLE_DECLINED;
  if (kind != RandomKind::Int && !plugin::is_floating(out.dtype)) return AXLE_DECLINED;
  RandomLayout layout;
  if (!layout_of(out, &layout)) return AXLE_DECLINED;
  const int64_t n = plugin::numel(out);
  if (n == 0) return AXLE_OK;
  DeviceGuard guard(out.device_index);
  if (axle_status s = guard.status(c)) return s;
  const uint64_t seed = static_cast<uint64_t>(g.u.ints.items[0]), offset = static_cast<uint64_t>(g.u.ints.items[1]);
  const int e = launch_random(kind, out.dtype, out.data, n, layout, seed, offset, low, range, c->stream);
  return check(static_cast<cudaError_t>(e), c->op_name, c);
}

// rand(size, generator, dtype, device)
axle_status rand(void*, const axle_kernel_call* c) { return draw(c, RandomKind::Uniform, 1); }

// randn(size, generator, dtype, device)
axle_status randn(void*, const axle_kernel_call* c) { return draw(c, RandomKind::Normal, 1); }

// randint.low(low, high, size, generator, dtype, device): [low, high), high > low
// (the shape function's check; anything else is declined).
axle_status randint(void*, const axle_kernel_call* c) {
  const int64_t low = arg_int(c, 0), high = arg_int(c, 1);
  if (low >= high) return AXLE_DECLINED;
  return draw(c, RandomKind::Int, 3, low, static_cast<uint64_t>(high) - static_cast<uint64_t>(low));
}

const KernelEntry kKernels[] = {
    {"rand", &rand, AXLE_HERE},
    {"randn", &randn, AXLE_HERE},
    {"randint.low", &randint, AXLE_HERE},
};

}  // namespace

axle_status register_random(const axle_registrar* r) { return plugin::register_kernels(r, "cuda", kKernels); }

}  // namespace axle::cuda
