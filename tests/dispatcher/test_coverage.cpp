// The coverage matrix (axle::coverage, `axle ops`): each status from real chains.
// Run with AXLE_PLUGIN_PATH = cpu_high : arena (see tests/meson.build): cpu_high
// serves add.Tensor on "cpu" for float32 only (declines the rest) and nothing
// else; arena serves fill, copy, add and mul on its own device type.
#include <axle/axle.h>
#include <axle/library.h>

#include <doctest/doctest.h>

#include <algorithm>

using namespace axle;

namespace {
// The cell of `op` for backend `name` ("plugin/device type").
Coverage cell(const CoverageMatrix& m, const std::string& op, const std::string& name) {
  const auto b = std::find_if(m.backends.begin(), m.backends.end(), [&](const auto& x) { return x.name == name; });
  REQUIRE(b != m.backends.end());
  const auto row = std::find_if(m.ops.begin(), m.ops.end(), [&](const auto& r) { return r.op == op; });
  REQUIRE(row != m.ops.end());
  REQUIRE(row->cells.size() == m.backends.size());
  return row->cells[static_cast<size_t>(b - m.backends.begin())];
}
size_t column(const CoverageMatrix& m, const std::string& name) {
  return static_cast<size_t>(
      std::find_if(m.backends.begin(), m.backends.end(), [&](const auto& x) { return x.name == name; }) -
      m.backends.begin());
}
}  // namespace

TEST_CASE("coverage: one row per op, one column per plugin and device type") {
  const CoverageMatrix m = coverage();
  CHECK_FALSE(m.probed);
  CHECK(m.ops.size() == op_names().size());
  const size_t high = column(m, "cpu_high/cpu"), ref = column(m, "reference/cpu"), arena = column(m, "arena/arena");
  REQUIRE(high < m.backends.size());
  REQUIRE(ref < m.backends.size());
  REQUIRE(arena < m.backends.size());
  CHECK(high < ref);  // a device type's columns go highest rank first
  CHECK(m.backends[high].plugin == "cpu_high");
  CHECK(m.backends[high].device_type == "cpu");
  CHECK(m.backends[high].rank == 100);
  CHECK(m.backends[arena].device_count > 0);
  CHECK(std::string(coverage_name(Coverage::FallsThrough)) == "falls through");

  CHECK(cell(m, "add.Tensor", "cpu_high/cpu") == Coverage::Kernel);
  CHECK(cell(m, "mul.Tensor", "cpu_high/cpu") == Coverage::FallsThrough);  // the reference kernel runs it
  CHECK(cell(m, "add.Tensor", "arena/arena") == Coverage::Kernel);
  CHECK(cell(m, "softsign", "arena/arena") == Coverage::Composite);  // no arena kernel, a composite
  CHECK(cell(m, "sum", "arena/arena") == Coverage::Composite);
  CHECK(cell(m, "neg", "arena/arena") == Coverage::HostFallback);  // no kernel, no composite
  CHECK(cell(m, "sum", "cpu_high/cpu") == Coverage::Composite);
  // The reference plugin implements every built-in op that has no composite; a
  // composite covers the rest even where a plugin ranked above it has a kernel.
  for (const CoverageRow& row : m.ops) {
    CAPTURE(row.op);
    CHECK((row.cells[ref] == Coverage::Kernel || row.cells[ref] == Coverage::Composite));
  }
}

TEST_CASE("coverage: an op without kernels is offered to boxed fallbacks, then to the host fallback") {
  // cpu_high's boxed fallback on "cpu" is offered every op without a kernel (it
  // declines all but boxtest::twice, which the matrix cannot know: a boxed
  // fallback counts as another plugin serving the op).
  Library("covtest").def("nothing(Tensor x) -> Tensor");
  const CoverageMatrix m = coverage();
  CHECK(cell(m, "covtest::nothing", "reference/cpu") == Coverage::FallsThrough);
  CHECK(cell(m, "covtest::nothing", "arena/arena") == Coverage::HostFallback);
  CHECK_THROWS_AS(call_op("covtest::nothing", {ones({2})}), NotImplementedError);
}

TEST_CASE("coverage: a kernel that declined calls is 'declines' given the decline counts") {
  // float64: cpu_high declines, the next cpu kernel runs it.
  const Tensor x = ones({3}, TensorOptions().dtype(kFloat64));
  CHECK(sum(add(x, x)).item<double>() == 6);
  const auto stats = decline_stats();
  CHECK(std::any_of(stats.begin(), stats.end(), [](const DeclineCount& d) {
    return d.op == "add.Tensor" && d.device == "cpu" && d.plugin == "cpu_high" && d.count > 0;
  }));
  const CoverageMatrix probed = coverage(stats);
  CHECK(probed.probed);
  CHECK(cell(probed, "add.Tensor", "cpu_high/cpu") == Coverage::Declines);
  CHECK(cell(probed, "add.Tensor", "reference/cpu") == Coverage::Kernel);
  CHECK(cell(probed, "mul.Tensor", "cpu_high/cpu") == Coverage::FallsThrough);
  CHECK(cell(coverage(), "add.Tensor", "cpu_high/cpu") == Coverage::Kernel);  // unprobed: no declines
}

TEST_CASE("coverage: an op whose fallback policy is 'error' on a device type is missing there") {
  CHECK(cell(coverage(), "neg", "arena/arena") == Coverage::HostFallback);
  Config per_op;
  per_op.fallback_by_op["neg"] = FallbackPolicy::Error;
  configure(per_op);
  const CoverageMatrix m = coverage();
  CHECK(cell(m, "neg", "arena/arena") == Coverage::Missing);
  CHECK(cell(m, "exp", "arena/arena") == Coverage::HostFallback);  // other ops still fall back
  CHECK_THROWS_AS((void)neg(ones({2}, TensorOptions().device("arena"))), NotImplementedError);
  per_op.fallback_by_op["neg"] = FallbackPolicy::WarnOnce;  // the application layer merges: override it back
  configure(per_op);
  CHECK(cell(coverage(), "neg", "arena/arena") == Coverage::HostFallback);
}
