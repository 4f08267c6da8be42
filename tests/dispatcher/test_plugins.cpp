// Plugin loading: the broken-plugin corpus is rejected with reasons while good
// plugins keep working; ranked plugins on one device fall through on declines.
// Run with AXLE_PLUGIN_PATH = broken corpus : cpu_high (see tests/meson.build).
#include <axle/axle.h>

#include <dlfcn.h>
#include <doctest/doctest.h>

#include <filesystem>

using namespace axle;

namespace {
const PluginInfo* by_file(const std::vector<PluginInfo>& infos, const std::string& file) {
  for (const auto& p : infos)
    if (std::filesystem::path(p.path).filename() == file) return &p;
  return nullptr;
}
const PluginInfo* by_name(const std::vector<PluginInfo>& infos, const std::string& name) {
  for (const auto& p : infos)
    if (p.name == name && p.status != PluginStatus::Rejected) return &p;
  return nullptr;
}
}  // namespace

TEST_CASE("each broken plugin is rejected with its reason and the rest keep working") {
  CHECK(sum(ones({4})).item<double>() == 4);  // uses "cpu": loads every cpu plugin
  const auto infos = plugins();
  struct Expect {
    const char* file;
    const char* reason;
  };
  const Expect expected[] = {
      {"not_elf.so", "cannot load library"},
      {"empty.so", "cannot load library"},
      {"no_entry.so", "no exported symbol axle_plugin_get_descriptor"},
      {"abi_major.so", "does not match the core's major"},
      {"minor_newer.so", "is newer than the core's"},
      {"unresolved.so", "axle_test_symbol_that_does_not_exist"},
      {"register_fails.so", "register step failed with status 9: the test plugin refuses to register"},
      {"lying_manifest.so", "does not match the library"},
      {"bad_struct_size.so", "struct_size"},
      {"bad_manifest.so", "manifest"},
      {"claims_reference.so", "name: manifest says 'reference', library says 'impostor'"},
      {"shapeless_kernel.so", "operator 'sum' has no shape function"},
  };
  for (const Expect& e : expected) {
    CAPTURE(e.file);
    const PluginInfo* p = by_file(infos, e.file);
    REQUIRE(p != nullptr);
    CHECK(p->status == PluginStatus::Rejected);
    CAPTURE(p->reason);
    CHECK(p->reason.find(e.reason) != std::string::npos);
  }
  const PluginInfo* a = by_file(infos, "duplicate_a.so");
  const PluginInfo* b = by_file(infos, "duplicate_b.so");
  REQUIRE(a != nullptr);
  REQUIRE(b != nullptr);
  CHECK((a->status == PluginStatus::Rejected) != (b->status == PluginStatus::Rejected));
  const PluginInfo* dup = a->status == PluginStatus::Rejected ? a : b;
  CHECK(dup->reason.find("duplicate plugin name 'dup'") != std::string::npos);

  const PluginInfo* good = by_name(infos, "good_minimal");
  REQUIRE(good != nullptr);
  CHECK(good->status == PluginStatus::Loaded);
  const PluginInfo* ref = by_name(infos, "reference");
  REQUIRE(ref != nullptr);
  CHECK(ref->status == PluginStatus::Loaded);
  CHECK(ref->has_manifest);
}

TEST_CASE("a manifest claiming another plugin's name does not push that plugin out") {
  // claims_reference.json (the broken folder, searched first) says "reference"
  // for a library named "impostor". The claim waits for its library to confirm
  // it; the lie rejects it, and the real reference plugin (and with it the cpu
  // device's runtime) is loaded.
  CHECK(ones({2}).sum().item<double>() == 2);
  const auto infos = plugins();
  const PluginInfo* liar = by_file(infos, "claims_reference.so");
  REQUIRE(liar != nullptr);
  CHECK(liar->status == PluginStatus::Rejected);
  const PluginInfo* ref = by_name(infos, "reference");
  REQUIRE(ref != nullptr);
  CHECK(std::filesystem::path(ref->path).filename() == "axle_reference.so");
  CHECK(ref->status == PluginStatus::Loaded);
  CHECK(device_runtime(DeviceType("cpu")).device_count() == 1);
  int references = 0;
  for (const auto& p : infos) references += p.name == "reference" && p.status != PluginStatus::Rejected;
  CHECK(references == 1);
}

TEST_CASE("a kernel for an op without a shape function is refused at load time; the op keeps working") {
  // shapeless_kernel registers a cpu kernel for `sum` (composite-only): with it
  // in front of the composite, every cpu sum failed.
  CHECK(ones({3}).sum().item<double>() == 3);
  const auto infos = plugins();
  const PluginInfo* p = by_file(infos, "shapeless_kernel.so");
  REQUIRE(p != nullptr);
  CHECK(p->status == PluginStatus::Rejected);
  for (const auto& r : explain("sum"))
    for (const auto& c : r.chain) CHECK(c.plugin != "shapeless_kernel");
}

TEST_CASE("load_plugin on a broken file raises PluginError with the reason") {
  for (const auto& p : plugins()) {
    if (p.status != PluginStatus::Rejected) continue;
    CAPTURE(p.path);
    try {
      load_plugin(p.path);
      FAIL("expected PluginError");
    } catch (const PluginError& e) {
      CHECK(std::string(e.what()).find(p.reason) != std::string::npos);
    }
  }
  CHECK_THROWS_AS(load_plugin("/nonexistent/plugin.so"), PluginError);
}

TEST_CASE("two plugins serve cpu: the higher rank runs, declines fall through, missing ops fall through") {
  const Tensor f = ones({3});
  const Tensor d = ones({3}, TensorOptions().dtype(kFloat64));
  const auto infos = plugins();
  const PluginInfo* high = by_name(infos, "cpu_high");
  REQUIRE(high != nullptr);
  // cpu_high is an ABI 1.3 plugin: it loads into this newer core and works; its
  // descriptor's struct_size stops before 1.4's description, which is not read.
  CHECK(high->abi_minor == 3);
  CHECK(high->status == PluginStatus::Loaded);
  CHECK(high->description.empty());
  const PluginInfo* reference = by_name(infos, "reference");
  REQUIRE(reference != nullptr);
  CHECK(reference->description.find("portable") != std::string::npos);  // a 1.4 descriptor's line
  void* handle = dlopen(high->path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(handle != nullptr);
  auto calls = reinterpret_cast<int64_t (*)()>(dlsym(handle, "cpu_high_add_calls"));
  REQUIRE(reinterpret_cast<void*>(calls) != nullptr);
  const int64_t before = calls();
  CHECK(sum(f + f).item<double>() == 6);  // float32: cpu_high's kernel
  CHECK(calls() == before + 1);
  CHECK(sum(d + d).item<double>() == 6);  // float64: cpu_high declines, reference runs
  CHECK(calls() == before + 1);
  CHECK(sum(f * f).item<double>() == 3);  // mul: cpu_high has none
  dlclose(handle);

  const auto rows = explain("add.Tensor");
  bool checked = false;
  for (const auto& r : rows) {
    if (r.device_type != "cpu") continue;
    REQUIRE(r.chain.size() >= 2);
    CHECK(r.chain[0].plugin == "cpu_high");
    CHECK(r.chain[0].rank == 100);
    // Then the lower ranks in order (the oneDNN cpu plugin when built), the
    // reference plugin last among the kernels.
    std::vector<CandidateInfo> kernels;
    for (const auto& c : r.chain)
      if (c.kind == "kernel") kernels.push_back(c);
    for (size_t i = 1; i < kernels.size(); ++i) CHECK(kernels[i].rank <= kernels[i - 1].rank);
    CHECK(kernels.back().plugin == "reference");
    CHECK(!r.chain[0].provenance.empty());
    // source-relative wherever the build directory is (not "../plugins/..." or absolute)
    CHECK(kernels.back().provenance.rfind("plugins/reference/", 0) == 0);
    checked = true;
  }
  CHECK(checked);
  // good_minimal (rank 5) serves neg for float32 and declines the rest.
  CHECK(sum(-f).item<double>() == -3);
  CHECK(sum(-ones({2}, TensorOptions().dtype(kInt64))).item<int64_t>() == -2);
}

TEST_CASE("a boxed fallback receives ops without kernels, by name and schema") {
  Library m("boxtest");
  const ShapeFn same = [](ShapeContext& c) { c.outputs = {{c.args[0].tensor().sizes(), c.args[0].tensor().dtype()}}; };
  m.def("twice(Tensor x) -> Tensor", same);
  m.def("thrice(Tensor x) -> Tensor", same);
  const Tensor x = arange(0, 4, 1, TensorOptions().dtype(kFloat32));
  CHECK(sum(call_op("boxtest::twice", {x})[0].tensor()).item<double>() == 12);
  CHECK_THROWS_AS(call_op("boxtest::thrice", {x}), NotImplementedError);  // the fallback declines it
  bool seen = false;
  for (const auto& r : explain("boxtest::twice"))
    if (r.device_type == "cpu" && !r.chain.empty())
      seen = r.chain[0].kind == "boxed fallback" && r.chain[0].plugin == "cpu_high";
  CHECK(seen);
}

TEST_CASE("a bare plugin without a manifest is loaded to learn its identity") {
  const auto infos = plugins();
  const PluginInfo* good = by_name(infos, "good_minimal");
  REQUIRE(good != nullptr);
  CHECK_FALSE(good->has_manifest);
  CHECK(good->status == PluginStatus::Loaded);
}

TEST_CASE("ABI versions: a plugin built against 1.0 loads into any 1.x core; newer minors and other majors do not") {
  CHECK(abi_incompatibility(1, 0, 1, 0).empty());
  CHECK(abi_incompatibility(1, 0, 1, 3).empty());  // 1.0 headers, a later core minor
  const std::string newer = abi_incompatibility(1, 4, 1, 3);
  CHECK(newer.find("1.4") != std::string::npos);
  CHECK(newer.find("1.3") != std::string::npos);
  CHECK(newer.find("upgrade axle") != std::string::npos);
  CHECK(abi_incompatibility(2, 0, 1, 3).find("major") != std::string::npos);
  CHECK(abi_incompatibility(0, 9, 1, 0).find("major") != std::string::npos);
}

TEST_CASE("an ABI 1.0 device plugin loads into this 1.1 core; its table is read only up to its struct_size") {
  load_all_plugins();
  const auto after = plugins();
  const PluginInfo* old = nullptr;
  for (const auto& p : after)
    if (p.name == "abi10_device") old = &p;
  REQUIRE(old != nullptr);
  CHECK(old->abi_minor == 0);
  CHECK(old->status == PluginStatus::Loaded);
  DeviceRuntime& rt = device_runtime(DeviceType("old10"));
  CHECK(rt.device_count() == 1);
  CHECK_FALSE(rt.supports_pinned_memory());                     // its garbage 1.1 fields were never read
  const Tensor t = ones({3}, TensorOptions().device("old10"));  // fill_ through the host fallback
  CHECK(t.cpu().sum().item<double>() == 3.0);
  CHECK_THROWS_AS(ones({2}).pin_memory(std::string("old10")), NotImplementedError);
}
