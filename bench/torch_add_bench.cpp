// at::add of two 1-element float tensors in libtorch (Debian's libtorch-dev),
// measured in its own process at 1 thread, medians of repeated runs.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 15;
  const int iters = 200000;
  at::set_num_threads(1);
  const at::Tensor a = at::ones({1});
  const at::Tensor b = at::ones({1});
  std::vector<double> samples;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) {
      at::Tensor c = at::add(a, b);
      (void)c;
    }
    const auto t1 = std::chrono::steady_clock::now();
    samples.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / iters);
  }
  std::sort(samples.begin(), samples.end());
  std::printf("{\"torch_add_ns\": %.1f}\n", samples[samples.size() / 2]);
  return 0;
}
