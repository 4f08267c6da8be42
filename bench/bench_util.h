// Shared by the C++ benchmarks (bench_cpu, bench_cuda): paired timing of an
// axle call against the raw library call it is compared with.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <utility>
#include <vector>

namespace axle::bench {

// Median seconds per call of `a` and of `b`, measured in alternating rounds
// (`rounds` of them; each round >= ~50 ms per side) so that the machine's noise
// (a shared VM) hits both sides alike. `settle` runs at the end of every timed
// loop, inside the timing (a device synchronize for asynchronous calls).
inline std::pair<double, double> paired(
    const std::function<void()>& a, const std::function<void()>& b, int rounds,
    const std::function<void()>& settle = [] {}) {
  for (int i = 0; i < 2; ++i) a(), b();  // warm up: primitive / plan creation, page faults
  settle();
  const auto t0 = std::chrono::steady_clock::now();
  b();
  settle();
  const double once = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const int iters = std::max(1, static_cast<int>(0.05 / std::max(once, 1e-9)));
  auto time = [&](const std::function<void()>& f) {
    const auto s = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) f();
    settle();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - s).count() / iters;
  };
  std::vector<double> sa, sb;
  for (int r = 0; r < rounds; ++r) {
    sa.push_back(time(a));
    sb.push_back(time(b));
  }
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  return {sa[sa.size() / 2], sb[sb.size() / 2]};
}

}  // namespace axle::bench
