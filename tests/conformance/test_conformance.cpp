// The conformance samples themselves: every declared op has a generator, and on
// the host every sample behaves as it says (expected errors raised with their
// class, outputs deterministic, on the right device). The arena test device
// (memory in a private arena, kernels for a few ops, host fallback for the rest)
// matches the reference on every sample.
#include <axle/conformance.h>

#include <doctest/doctest.h>

#include <cmath>
#include <iostream>

using namespace axle;

namespace {
// Every case of every op passed, and there were many of them (the table on failure).
void expect_all_pass(const std::vector<conformance::OpReport>& reports) {
  int failed = 0, passed = 0;
  for (const auto& r : reports) {
    failed += r.failed;
    passed += r.passed;
  }
  INFO(conformance::format_report(reports));
  CHECK(failed == 0);
  CHECK(passed > 1000);
}
}  // namespace

TEST_CASE("every declared operator has a sample generator") {
  std::vector<std::string> missing;
  for (const std::string& op : op_names())
    if (!conformance::find_samples(op)) missing.push_back(op);
  std::string list;
  for (const auto& m : missing) list += m + " ";
  INFO("ops without samples: ", list);
  CHECK(missing.empty());
}

TEST_CASE("every generator names a declared operator") {
  for (const conformance::OpSamples& s : conformance::all_samples()) {
    INFO(s.op);
    CHECK_NOTHROW(find_op(s.op));
  }
}

TEST_CASE("samples on the reference host device") {
  const auto reports = conformance::run(Device("cpu"));
  const std::string table = conformance::format_report(reports);
  std::cout << table;
  int failed = 0, passed = 0;
  for (const auto& r : reports) {
    failed += r.failed;
    passed += r.passed;
    CHECK_MESSAGE(r.skip_reason.empty(), r.op, " skipped on the reference: ", r.skip_reason);
  }
  INFO(table);
  CHECK(failed == 0);
  CHECK(passed > 1000);
}

TEST_CASE("a wrong result is reported with op, dtype and the difference") {
  const Tensor a = ones({3}), b = full({3}, 1.5);
  const std::string diff = conformance::compare(a, b, 1e-6, 1e-6);
  CHECK(diff.find("3 of 3 elements differ") != std::string::npos);
  CHECK(conformance::compare(a, ones({4}), 0, 0).find("shape") != std::string::npos);
  CHECK(conformance::compare(a, ones({3}, TensorOptions().dtype(kFloat64)), 0, 0).find("dtype") != std::string::npos);
  CHECK(conformance::compare(full({2}, NAN), full({2}, NAN), 0, 0).empty());
}

TEST_CASE("the arena device matches the reference on every sample") {
  // The arena plugin (tests/plugins/arena) keeps memory in a private arena and
  // has kernels for a few ops; the rest run through host fallback.
  const auto reports = conformance::run(Device("arena"));
  expect_all_pass(reports);
}

TEST_CASE("gradients on the arena device match the reference's on every differentiable sample") {
  // Backward runs the derivative formulas through the dispatcher on the arena
  // (its kernels, the host fallback for the rest): a device that runs the
  // forward ops trains.
  conformance::RunOptions options;
  options.gradients = true;
  const auto reports = conformance::run(Device("arena"), options);
  expect_all_pass(reports);
  int compared = 0, ops = 0;
  for (const auto& r : reports) {
    compared += r.grad_passed;
    ops += r.grad_passed > 0 ? 1 : 0;
  }
  MESSAGE("gradients compared: ", compared, " cases of ", ops, " ops");
  CHECK(ops > 150);
}

TEST_CASE("the cpu plugin (oneDNN) matches the reference plugin on every sample") {
  bool present = false;
  for (const PluginInfo& p : plugins())
    if (p.name == "cpu" && p.status != PluginStatus::Rejected) present = true;
  if (!present) {
    MESSAGE("skipped: the cpu plugin is not built (-Donednn=disabled or oneDNN missing)");
    return;
  }
  conformance::RunOptions options;
  options.plugin = "cpu";
  options.gradients = true;
  const auto reports = conformance::run(Device("cpu"), options);
  expect_all_pass(reports);
}
