// Ops called from 8 threads while plugins are being loaded (run under TSan in CI):
// calls read the published table without locks while loads publish new tables.
#include <axle/axle.h>

#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <thread>
#include <vector>

using namespace axle;

TEST_CASE("8 threads run ops while plugins load") {
  CHECK(sum(ones({2})).item<double>() == 2);  // the reference plugin is in
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0};
  std::atomic<int64_t> iterations{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      const Tensor a = full({8, 8}, static_cast<double>(t + 1));
      while (!stop.load()) {
        const double s = sum(matmul(a, ones({8})) + 1).item<double>();
        if (s != 8.0 * (8.0 * (t + 1)) + 8.0) failures.fetch_add(1);
        iterations.fetch_add(1);
      }
    });
  // Load plugins one by one (each publishes a new table) while the threads run.
  for (const char* dir : {AXLE_TEST_CPU_HIGH_DIR, AXLE_TEST_ARENA_DIR})
    for (const auto& entry : std::filesystem::directory_iterator(dir))
      if (entry.path().extension() == ".so") load_plugin(entry.path().string());
  while (iterations.load() < 200) std::this_thread::yield();
  stop = true;
  for (auto& th : threads) th.join();
  CHECK(failures.load() == 0);
  bool arena = false;
  for (const auto& p : plugins()) arena |= p.name == "arena" && p.status == PluginStatus::Loaded;
  CHECK(arena);
}
