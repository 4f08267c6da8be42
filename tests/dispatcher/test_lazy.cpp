// Lazy loading: a plugin whose manifest names only device types nobody used is
// never mapped into the process. Run with AXLE_PLUGIN_PATH = the arena folder.
#include <axle/axle.h>

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

using namespace axle;

static bool mapped(const std::string& needle) {
  std::ifstream maps("/proc/self/maps");
  std::stringstream ss;
  ss << maps.rdbuf();
  return ss.str().find(needle) != std::string::npos;
}

TEST_CASE("running CPU ops maps no plugin of another device") {
  CHECK(sum(matmul(ones({4, 4}), ones({4}))).item<double>() == 16);
  std::string arena_path;
  for (const auto& p : plugins())
    if (p.name == "arena") {
      arena_path = p.path;
      CHECK(p.status == PluginStatus::Available);
      CHECK(p.has_manifest);
    }
  REQUIRE(!arena_path.empty());
  CHECK(mapped("axle_reference.so"));
  CHECK_FALSE(mapped(arena_path));
  CHECK(sum(ones({2}, TensorOptions().device("arena"))).item<double>() == 2);  // first use loads it
  CHECK(mapped(arena_path));
}
