// Micro-benchmark: ns per axle::add of two 1-element float32 tensors through the
// dispatcher, against a direct call of the same reference kernel through the
// plugin ABI (no dispatcher), and the same add with one operand requiring grad
// (recorded: a node per call). Prints medians of repeated runs.
// Usage: bench_add [REPS] [plain|grad]. With `plain` or `grad` only that add
// runs, for callgrind: `valgrind --tool=callgrind bench_add 1 plain` (or
// `grad`), then inclusive axle::add / 200,000 calls.
#include <axle/axle.h>
#include <axle/plugin/axle_plugin.h>

#include <dlfcn.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace {

template <typename F>
double median_ns(F&& f, int reps, int iters) {
  std::vector<double> samples;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) f();
    const auto t1 = std::chrono::steady_clock::now();
    samples.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / iters);
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

// Captures the reference plugin's add kernel through a fake registrar.
struct Capture {
  axle_kernel_fn add = nullptr;
  void* user_data = nullptr;
};
axle_status cap_device(void*, const axle_device_interface*) { return AXLE_OK; }
axle_status cap_kernel(void* ctx, const char* op, const char*, axle_kernel_fn fn, void* ud, const char*) {
  if (std::string(op) == "add.Tensor") {
    static_cast<Capture*>(ctx)->add = fn;
    static_cast<Capture*>(ctx)->user_data = ud;
  }
  return AXLE_OK;
}
axle_status cap_fallback(void*, const char*, axle_kernel_fn, void*, const char*) { return AXLE_OK; }

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 15;
  const int iters = 200000;
  const axle::Tensor b = axle::ones({1});
  // Measured last: making a tensor require grad activates the autograd layer,
  // and the plain add's figure is the path before that.
  auto recorded_ns = [&] {
    axle::Tensor leaf = axle::ones({1});
    leaf.requires_grad_();
    return median_ns(
        [&] {
          axle::Tensor c = axle::add(leaf, b);
          (void)c;
        },
        reps, iters);
  };
  if (argc > 2 && std::string(argv[2]) == "grad") {
    const double grad_ns = recorded_ns();
    std::printf("%-44s %10.1f\n", "axle::add, one operand requiring grad", grad_ns);
    std::printf("{\"axle_add_grad_ns\": %.1f}\n", grad_ns);
    return 0;
  }
  const axle::Tensor a = axle::ones({1});
  auto plain = [&] {
    axle::Tensor c = axle::add(a, b);
    (void)c;
  };
  if (argc > 2 && std::string(argv[2]) == "plain") {
    std::printf("%-44s %10.1f\n", "axle::add through the dispatcher", median_ns(plain, reps, iters));
    return 0;
  }
  const double dispatch_ns = median_ns(
      [&] {
        axle::Tensor c = axle::add(a, b);
        (void)c;
      },
      reps, iters);

  std::string ref_path;
  for (const auto& p : axle::plugins())
    if (p.name == "reference") ref_path = p.path;
  void* h = dlopen(ref_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  auto entry = reinterpret_cast<axle_plugin_entry_fn>(dlsym(h, AXLE_PLUGIN_ENTRY_SYMBOL));
  Capture cap;
  axle_host_api host{};
  host.struct_size = sizeof host;
  axle_registrar reg{};  // register_kernel_entry left NULL: kernels come through register_kernel
  reg.struct_size = sizeof reg;
  reg.context = &cap;
  reg.host = &host;
  reg.register_device_type = &cap_device;
  reg.register_kernel = &cap_kernel;
  reg.register_fallback = &cap_fallback;
  entry()->register_plugin(&reg);
  float x = 1, y = 1, z = 0;
  const int64_t sizes[1] = {1}, strides[1] = {1};
  axle_tensor_view vx{sizeof vx, &x, AXLE_DTYPE_FLOAT32, 1, sizes, strides, 0, 0};
  axle_tensor_view vy = vx, vz = vx;
  vy.data = &y;
  vz.data = &z;
  axle_value args[3] = {};
  args[0].tag = AXLE_VALUE_TENSOR;
  args[0].u.tensor = &vx;
  args[1].tag = AXLE_VALUE_TENSOR;
  args[1].u.tensor = &vy;
  args[2].tag = AXLE_VALUE_INT;
  args[2].u.i = 1;
  axle_kernel_call call{};
  call.struct_size = sizeof call;
  call.args = args;
  call.num_args = 3;
  call.num_outputs = 1;
  call.outputs = &vz;
  call.host = &host;
  const double direct_ns = median_ns([&] { cap.add(cap.user_data, &call); }, reps, iters);
  const double grad_ns = recorded_ns();

  std::printf("%-44s %10s %8s\n", "benchmark (1-element float32 add)", "ns/call", "ratio");
  std::printf("%-44s %10.1f %8.2f\n", "reference kernel, direct ABI call", direct_ns, 1.0);
  std::printf("%-44s %10.1f %8.2f\n", "axle::add through the dispatcher", dispatch_ns, dispatch_ns / direct_ns);
  std::printf("%-44s %10.1f %8.2f\n", "axle::add, one operand requiring grad", grad_ns, grad_ns / direct_ns);
  std::printf("{\"direct_ns\": %.1f, \"axle_add_ns\": %.1f, \"axle_add_grad_ns\": %.1f}\n", direct_ns, dispatch_ns,
              grad_ns);
  return 0;
}
