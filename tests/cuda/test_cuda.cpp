// The CUDA plugin. Without a GPU (or driver) it must load, report zero devices
// with the driver's reason, and turn any use of "cuda" into a DeviceError naming
// it: checked here on every machine. With a GPU, the conformance engine runs
// every op's samples on cuda:0 against the reference plugin, plus the device
// contract (allocator statistics, copies, streams). Without one this test exits
// 77, which meson reports as SKIP, after printing the reason.
#include <axle/conformance.h>

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

using namespace axle;

namespace {
bool cuda_plugin_present() {
  for (const PluginInfo& p : plugins())
    if (p.name == "cuda" && p.status != PluginStatus::Rejected) return true;
  return false;
}
int cuda_devices(std::string* note) {
  for (const DeviceInfo& d : devices()) {
    if (d.type != "cuda") continue;
    *note = d.note;
    return d.count;
  }
  return 0;
}
}  // namespace

TEST_CASE("without a GPU: zero devices, the reason, and DeviceError on use") {
  REQUIRE(cuda_plugin_present());
  std::string note;
  if (cuda_devices(&note) > 0) return;  // covered by the GPU cases
  CHECK(note.find("zero devices") != std::string::npos);
  CHECK(note.find("cuda") != std::string::npos);  // the driver's answer, e.g. cudaGetDeviceCount: ...
  try {
    ones({3}, TensorOptions().device(Device("cuda")));
    FAIL("expected DeviceError");
  } catch (const DeviceError& e) {
    const std::string what = e.what();
    CHECK(what.find("cuda:0") != std::string::npos);
    CHECK(what.find("cudaGetDeviceCount") != std::string::npos);
  }
  CHECK_THROWS_AS(ones({3}).to(Device("cuda:1")), DeviceError);
}

TEST_CASE("on a GPU: the device contract") {
  std::string note;
  if (cuda_devices(&note) == 0) return;
  const Device dev("cuda:0");
  const Tensor h = arange(0, 1000, 1, TensorOptions().dtype(kFloat32));
  const Tensor d = h.to(dev);
  CHECK(d.device() == dev);
  CHECK(sum(d.to(Device("cpu"))).item<double>() == 499500.0);
  const Tensor z = zeros({0}, TensorOptions().device(dev));
  CHECK(z.to(Device("cpu")).numel() == 0);
  const Tensor odd = ones({7, 3}, TensorOptions().dtype(kFloat16)).to(dev).t().contiguous();
  CHECK(sum(odd.to(Device("cpu")).to(kFloat32)).item<double>() == 21.0);
}

TEST_CASE("on a GPU: every sample matches the reference") {
  std::string note;
  if (cuda_devices(&note) == 0) return;
  const auto reports = conformance::run(Device("cuda:0"));
  int failed = 0, passed = 0;
  for (const auto& r : reports) {
    failed += r.failed;
    passed += r.passed;
  }
  const std::string table = conformance::format_report(reports);
  std::cout << table;
  INFO(table);
  CHECK(failed == 0);
  CHECK(passed > 1000);
}
