// Device strings and interned device types.
#include <axle/device.h>
#include <axle/error.h>

#include <doctest/doctest.h>

using namespace axle;

TEST_CASE("device strings parse into type and index") {
  CHECK(Device("cpu").is_cpu());
  CHECK(Device("cpu").index() == -1);
  CHECK(Device("cuda:1").index() == 1);
  CHECK(Device("cuda:1").type().name() == "cuda");
  CHECK(Device("sim:0").str() == "sim:0");
  CHECK(Device("cpu") == Device("cpu:0"));
  CHECK(Device("cuda:0") != Device("cuda:1"));
  CHECK(DeviceType("sim") == Device("sim:3").type());
  for (const char* bad : {"", ":0", "cuda:", "cuda:-1", "cuda:x", "CUDA", "cu da", "cuda:1:2", "9gpu"})
    CHECK_THROWS_AS(Device(std::string(bad)), DeviceError);
}
