// Trace mode, the Chrome-trace export, the parity finder (with the planted
// wrong prelu of tests/plugins/wrong_prelu on AXLE_PLUGIN_PATH). Per-op fallback
// policy: test_device.cpp (arena); backend allow/deny lists: tests/tools/test_cli.sh.
#include <axle/axle.h>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace axle;

namespace {
// A small model whose prelu has one slope per channel.
void small_model() {
  manual_seed(7);
  const Tensor x = call_op("randn", {IntList{2, 3, 4, 4}})[0].tensor();
  static float slopes[3] = {0.25f, 0.1f, 0.5f};
  const Tensor w = from_blob(slopes, {3}).clone();
  const Tensor y = mul(x, full({1}, 2.0));
  const Tensor z = prelu(y, w);
  (void)sum(z);
}
}  // namespace

TEST_CASE("trace mode records what ran each call, with provenance, shapes and time") {
  clear_trace();
  {
    TraceScope scope;
    const Tensor a = ones({2, 3});
    (void)add(a, a);
  }
  CHECK(!trace_enabled());
  const auto events = trace_events();
  const TraceEvent* add_event = nullptr;
  for (const auto& e : events)
    if (e.op == "add.Tensor") add_event = &e;
  REQUIRE(add_event != nullptr);
  CHECK(add_event->kind == "kernel");
  CHECK(!add_event->plugin.empty());
  CHECK(add_event->provenance.find(".cpp:") != std::string::npos);
  CHECK(add_event->device == "cpu:0");
  REQUIRE(add_event->inputs.size() == 2);
  CHECK(add_event->inputs[0].dtype == "float32");
  CHECK(add_event->inputs[0].sizes == IntList{2, 3});
  REQUIRE(add_event->outputs.size() == 1);
  CHECK(add_event->duration_ns > 0);
  const std::string line = format_trace_event(*add_event);
  CHECK(line.find("add.Tensor on cpu:0 ran kernel of plugin '" + add_event->plugin + "'") == 0);
  CHECK(line.find("float32[2, 3], float32[2, 3] -> float32[2, 3]") != std::string::npos);

  // "which code actually computed prelu on this backend": one event answers it.
  clear_trace();
  {
    TraceScope scope;
    small_model();
  }
  bool saw_prelu = false;
  for (const auto& e : trace_events())
    if (e.op == "prelu" && e.depth == 0) {
      saw_prelu = true;
      CHECK(e.plugin == "wrong_prelu");
      CHECK(e.provenance.find("wrong_prelu.cpp:") != std::string::npos);
    }
  CHECK(saw_prelu);
}

TEST_CASE("the Chrome-trace export parses back with one complete event per call") {
  clear_trace();
  {
    TraceScope scope;
    small_model();
  }
  const auto events = trace_events();
  const std::string path = "/tmp/axle_test_trace.json";
  export_chrome_trace(path);
  std::ifstream in(path);
  const nlohmann::json j = nlohmann::json::parse(in);
  REQUIRE(j["traceEvents"].is_array());
  CHECK(j["traceEvents"].size() == events.size());
  for (const auto& e : j["traceEvents"]) {
    CHECK(e["ph"] == "X");
    CHECK(e["dur"].get<double>() >= 0);
    CHECK(e["args"].contains("provenance"));
  }
  std::filesystem::remove(path);
  CHECK_THROWS_AS(export_chrome_trace("/nonexistent-dir/t.json"), Error);
  clear_trace();
  CHECK(trace_events().empty());
}

TEST_CASE("the parity finder names the planted wrong prelu kernel") {
  const Backend a = Backend::parse("cpu@wrong_prelu");
  const Backend b = Backend::parse("cpu@reference");
  const ParityResult r = find_parity(&small_model, a, b);
  CHECK(!r.ok);
  CHECK(r.op == "prelu");
  CHECK(r.ran_a.find("wrong_prelu.cpp:") != std::string::npos);
  CHECK(r.ran_b.find("plugin 'reference'") != std::string::npos);
  CHECK(r.max_abs > 0);
  const std::string text = format_parity(r, a, b);
  CHECK(text.find("first difference at call #") != std::string::npos);
  CHECK(text.find("prelu") != std::string::npos);

  // The same through a recording saved to a file and loaded back.
  const Recording rec = record(&small_model);
  REQUIRE(rec.calls.size() >= 3);
  const std::string path = "/tmp/axle_test_recording.safetensors";
  rec.save(path);
  const Recording loaded = Recording::load(path);
  CHECK(loaded.calls.size() == rec.calls.size());
  const ParityResult r2 = find_parity(loaded, a, b);
  CHECK(!r2.ok);
  CHECK(r2.op == "prelu");
  CHECK(r2.index == r.index);
  std::filesystem::remove(path);

  // The reference against itself agrees; a random op replays with the recorded generator state.
  const ParityResult same = find_parity(&small_model, b, b);
  CHECK(same.ok);
  CHECK(same.compared == rec.calls.size());
}

TEST_CASE("parity inputs are checked") {
  CHECK_THROWS_AS(Backend::parse("cpu@"), ValueError);
  CHECK_THROWS_AS(Backend::parse(""), ValueError);
  CHECK(Backend::parse("cpu").str() == "cpu");
  const std::string path = "/tmp/axle_test_not_a_recording.safetensors";
  save_safetensors({{"x", ones({2})}}, path);
  CHECK_THROWS_WITH_AS(Recording::load(path), doctest::Contains("not an axle recording"), ValueError);
  std::filesystem::remove(path);
}
