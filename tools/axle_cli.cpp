// The `axle` command line: info, explain, ops, bench. Exit codes: 0 ok, 1 error, 2 usage.
#include "bench.h"
#include "ops_matrix.h"
#include "parity_cmd.h"

#include <axle/axle.h>
#include <axle/conformance.h>
#include <axle/plugin/axle_plugin.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace {

using nlohmann::json;

constexpr const char* kUsage =
    "usage: axle <command> [options]\n"
    "\n"
    "commands:\n"
    "  info [--json]                 search path, plugins (status, reason), devices, fallback counters\n"
    "  explain OP [--device D] [--json]\n"
    "                                the schema of OP and, per device type (or D's), the kernels that would run\n"
    "  ops [--json] [--html FILE] [--probe] [--names]\n"
    "                                the coverage matrix: every operator x every backend (own kernel,\n"
    "                                composite, falls through, host fallback, missing); `axle ops --help`\n"
    "  config show [--json]          the effective configuration, each value with the layer it came from\n"
    "  config keys [--json]          every configuration key: type, environment variable, meaning\n"
    "  parity RECORDING --a BACKEND --b BACKEND [--rtol R] [--atol A] [--json]\n"
    "                                the first recorded op call whose outputs differ between two backends\n"
    "                                (exit 3 when one does); `axle parity --help`\n"
    "  check PLUGIN.so [--only OP] [--strict] [--json]\n"
    "                                load a plugin file and run the conformance kit on it (exit 1 on failure);\n"
    "                                `axle check --help`\n"
    "  bench [--device D] [--only CASE] [--quick] [--json]\n"
    "                                axle's own throughput on one device (threads: config cpu.threads);\n"
    "                                `axle bench --help`\n"
    "  version                       print the axle version\n"
    "\n"
    "exit codes: 0 success, 1 error (message on stderr), 2 usage error, 3 (parity) the backends differ\n";

constexpr const char* kCheckUsage =
    "usage: axle check PLUGIN.so [--only OP] [--strict] [--json]\n"
    "\n"
    "Loads the plugin file (ABI, descriptor and manifest checks) and, for each device type it\n"
    "serves: the device contract (allocate, copies host <-> device and on streams, synchronize),\n"
    "every op it has a kernel for against the reference plugin over the op's conformance samples,\n"
    "and the same ops from 4 threads at once. Each op's row counts the cases its kernel served\n"
    "(ran) and declined (AXLE_DECLINED: the reference plugin ran them), declined ones by reason.\n"
    "A kernel that serves none of its cases is a warning ('warn'): the results are right only\n"
    "because the reference ran everything.\n"
    "\n"
    "options:\n"
    "  --only OP     check only this op (e.g. add.Tensor)\n"
    "  --strict      a kernel that serves none of its op's cases fails the check\n"
    "  --json        {plugin, path, ok, results: [{check, device, status, detail, cases, served,\n"
    "                declined, decline_reasons: [{reason, cases}]}]} (cases -1: not an op row)\n"
    "\n"
    "exit codes: 0 every check passed (warnings allowed without --strict), 1 a check failed or\n"
    "the plugin did not load, 2 usage error\n";

constexpr const char* kBenchUsage =
    "usage: axle bench [--device D] [--only CASE] [--quick] [--json]\n"
    "\n"
    "axle's own figures on one device through the public C++ API (allocating outputs): add of\n"
    "1 element (ns/call) and of 16M float32 (GB/s), softmax, layer_norm, matmul float32 and\n"
    "bfloat16 (GFLOP/s), conv2d; each with the plugin that served it. Every value is the median\n"
    "of timing loops that end with a synchronize of the device (on an asynchronous device a\n"
    "kernel returns once its work is queued); a case stops sampling after about 1.5 s (0.3 s\n"
    "with --quick), so a slow call is timed fewer times.\n"
    "\n"
    "options:\n"
    "  --device D    the device to run on (default cpu; e.g. cuda:0)\n"
    "  --only CASE   only the cases whose name starts with CASE (e.g. \"add, 1\", \"matmul\")\n"
    "  --quick       shorter timing loops (fewer, 20 ms instead of 50 ms)\n"
    "  --json        {device, cases: [{case, unit, value, served_by}]}\n"
    "\n"
    "threads of the cpu plugin: the configuration key cpu.threads.\n"
    "exit codes: 0 success, 1 error (message on stderr), 2 usage error\n";

// `axle config keys`: the table of configuration keys (axle::config_keys()).
int cmd_config_keys(bool as_json) {
  if (as_json) {
    json out = json::array();
    for (const axle::ConfigKey& k : axle::config_keys())
      out.push_back({{"key", k.key}, {"type", k.type}, {"env", k.env}, {"doc", k.doc}});
    std::printf("%s\n", out.dump(1).c_str());
    return 0;
  }
  for (const axle::ConfigKey& k : axle::config_keys())
    std::printf("%-36.*s %-32.*s %-22.*s %.*s\n", static_cast<int>(k.key.size()), k.key.data(),
                static_cast<int>(k.type.size()), k.type.data(), static_cast<int>(k.env.size()), k.env.data(),
                static_cast<int>(k.doc.size()), k.doc.data());
  return 0;
}

json plugin_json(const axle::PluginInfo& p) {
  return {{"name", p.name},
          {"version", p.version},
          {"description", p.description},
          {"abi", std::to_string(p.abi_major) + "." + std::to_string(p.abi_minor)},
          {"device_types", p.device_types},
          {"rank", p.rank},
          {"path", p.path},
          {"manifest", p.has_manifest},
          {"status", axle::plugin_status_name(p.status)},
          {"reason", p.reason}};
}

// The allocator statistics of device `type`:`index`, when its runtime gives them.
std::optional<axle::AllocatorStats> device_memory(const std::string& type, size_t index) {
  try {
    return axle::memory_stats(axle::Device(type + ":" + std::to_string(index)));
  } catch (const axle::Error&) {
    return std::nullopt;
  }
}

// One configuration entry as JSON / as a text line (`axle info`, `axle config show`).
json config_entry_json(const axle::ConfigEntry& e) {
  return {{"key", e.key},
          {"value", json::parse(e.value)},
          {"layer", axle::config_layer_name(e.layer)},
          {"source", e.source}};
}
void print_config_entry(const char* indent, const axle::ConfigEntry& e) {
  std::printf("%s%-36s %-24s %s%s%s\n", indent, e.key.c_str(), e.value.c_str(), axle::config_layer_name(e.layer),
              e.source.empty() ? "" : " ", e.source.c_str());
}

int cmd_info(bool as_json) {
  const auto paths = axle::plugin_search_path();
  const auto devs = axle::devices(true);
  const auto plugins = axle::plugins();
  const auto fallbacks = axle::fallback_stats();
  const auto config = axle::config_sources();
  if (as_json) {
    json j;
    j["version"] = axle::version();
    j["abi"] = std::to_string(AXLE_ABI_MAJOR) + "." + std::to_string(AXLE_ABI_MINOR);
    j["search_path"] = paths;
    j["plugins"] = json::array();
    for (const auto& p : plugins) j["plugins"].push_back(plugin_json(p));
    j["devices"] = json::array();
    for (const auto& d : devs) {
      json memory = json::array();
      for (size_t i = 0; i < d.names.size(); ++i)
        if (const auto m = device_memory(d.type, i))
          memory.push_back({{"device", d.type + ":" + std::to_string(i)},
                            {"allocated_bytes", m->allocated_bytes},
                            {"reserved_bytes", m->reserved_bytes},
                            {"peak_allocated_bytes", m->peak_allocated_bytes},
                            {"num_allocs", m->num_allocs},
                            {"num_frees", m->num_frees}});
      j["devices"].push_back({{"type", d.type},
                              {"count", d.count},
                              {"provider", d.provider},
                              {"names", d.names},
                              {"note", d.note},
                              {"memory", memory}});
    }
    j["fallbacks"] = json::array();
    for (const auto& f : fallbacks) j["fallbacks"].push_back({{"op", f.op}, {"device", f.device}, {"count", f.count}});
    j["config"] = json::array();
    for (const auto& e : config) j["config"].push_back(config_entry_json(e));
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::printf("axle %s (plugin ABI %d.%d)\n\nplugin search path:\n", axle::version().c_str(), AXLE_ABI_MAJOR,
              AXLE_ABI_MINOR);
  for (size_t i = 0; i < paths.size(); ++i) std::printf("  %zu. %s\n", i + 1, paths[i].c_str());
  std::printf("\nplugins:\n  %-14s %-8s %-4s %-14s %-5s %-22s %s\n", "name", "version", "abi", "device types", "rank",
              "status", "path");
  for (const auto& p : plugins) {
    std::string types;
    for (const auto& t : p.device_types) types += (types.empty() ? "" : ",") + t;
    std::printf("  %-14s %-8s %d.%-2d %-14s %-5d %-22s %s\n", p.name.empty() ? "?" : p.name.c_str(), p.version.c_str(),
                p.abi_major, p.abi_minor, types.c_str(), p.rank, axle::plugin_status_name(p.status), p.path.c_str());
    if (!p.description.empty()) std::printf("  %14s %s\n", "", p.description.c_str());
    if (!p.reason.empty()) std::printf("  %14s reason: %s\n", "", p.reason.c_str());
  }
  std::printf("\ndevices:\n");
  for (const auto& d : devs) {
    std::printf("  %-8s count %d (runtime from plugin '%s')%s%s\n", d.type.c_str(), d.count, d.provider.c_str(),
                d.note.empty() ? "" : ": ", d.note.c_str());
    for (size_t i = 0; i < d.names.size(); ++i) {
      std::printf("    %s:%zu  %s", d.type.c_str(), i, d.names[i].c_str());
      if (const auto m = device_memory(d.type, i))
        std::printf("  (memory: %.1f MiB allocated, %.1f MiB reserved, %.1f MiB peak)", m->allocated_bytes / 1048576.0,
                    m->reserved_bytes / 1048576.0, m->peak_allocated_bytes / 1048576.0);
      std::printf("\n");
    }
  }
  std::printf("\nconfiguration (values not from the built-in defaults; all: axle config show):\n");
  bool any = false;
  for (const auto& e : config) {
    if (e.layer == axle::ConfigLayer::Defaults) continue;
    any = true;
    print_config_entry("  ", e);
  }
  if (!any) std::printf("  (built-in defaults only)\n");
  std::printf("\nhost fallback counters:%s\n", fallbacks.empty() ? " none" : "");
  for (const auto& f : fallbacks)
    std::printf("  %-24s on %-8s %llu\n", f.op.c_str(), f.device.c_str(), static_cast<unsigned long long>(f.count));
  return 0;
}

// Each plugin's own description line (ABI 1.4), by name.
std::map<std::string, std::string> plugin_descriptions() {
  std::map<std::string, std::string> out;
  for (const axle::PluginInfo& p : axle::plugins()) out[p.name] = p.description;
  return out;
}

int cmd_explain(const std::string& op, const std::string& device, bool as_json) {
  const axle::OpHandle h = axle::find_op(op);
  auto rows = axle::explain(op);
  const std::map<std::string, std::string> descriptions = plugin_descriptions();
  auto description_of = [&](const std::string& plugin) {
    auto it = descriptions.find(plugin);
    return it == descriptions.end() ? std::string() : it->second;
  };
  if (!device.empty()) {  // --device D: that device type's chain only
    const std::string type(axle::Device(device).type().name());
    std::erase_if(rows, [&](const axle::ExplainRow& r) { return r.device_type != type; });
    if (rows.empty()) throw axle::DeviceError("no plugin serves device type '" + type + "'");
  }
  if (as_json) {
    json j;
    j["op"] = h.schema().full_name();
    j["schema"] = h.schema().text;
    j["derivative"] = axle::autograd::derivative_of(h.schema().full_name());
    j["devices"] = json::array();
    for (const auto& r : rows) {
      json chain = json::array();
      for (const auto& c : r.chain)
        chain.push_back({{"kind", c.kind},
                         {"plugin", c.plugin},
                         {"description", description_of(c.plugin)},
                         {"provenance", c.provenance},
                         {"rank", c.rank},
                         {"host_scalars", c.host_scalars},
                         {"declines", c.declines},
                         {"decline_reason", c.decline_reason}});
      j["devices"].push_back({{"device_type", r.device_type}, {"chain", chain}, {"note", r.note}});
    }
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::string derivative = axle::autograd::derivative_of(h.schema().full_name());
  if (derivative == "formula") derivative = "a formula on its declaration (backward runs it as axle ops)";
  if (derivative == "decomposes") derivative = "through the ops its composite calls";
  std::printf("%s\n  %s\n  gradient: %s\n\n", h.schema().full_name().c_str(), h.schema().text.c_str(),
              derivative.empty() ? "none declared" : derivative.c_str());
  for (const auto& r : rows) {
    std::printf("%s:\n", r.device_type.c_str());
    if (r.chain.empty()) std::printf("  %s\n", r.note.c_str());
    for (size_t i = 0; i < r.chain.size(); ++i) {
      const auto& c = r.chain[i];
      const std::string about = description_of(c.plugin);
      const std::string from = c.plugin.empty() ? std::string()
                                                : "plugin '" + c.plugin + "' (rank " + std::to_string(c.rank) +
                                                      (about.empty() ? "" : "; " + about) + "), ";
      std::printf("  %s %-18s %s%s%s\n", i == 0 ? "runs:" : "then:", c.kind.c_str(), from.c_str(), c.provenance.c_str(),
                  c.host_scalars ? " [reads host scalars by value]" : "");
      if (c.declines)
        std::printf("        declined %llu call(s) so far%s%s\n", static_cast<unsigned long long>(c.declines),
                    c.decline_reason.empty() ? "" : ", last because: ", c.decline_reason.c_str());
    }
  }
  return 0;
}

}  // namespace

// The options that take a value (the word after them is not the command word).
bool takes_value(const std::string& option) { return option == "--device" || option == "--only"; }

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  // `ops` and `parity` have options of their own and their own --help: each
  // gets every argument but the command word (the first word that is neither an
  // option nor the value of --device / --only).
  for (size_t i = 0; i < args.size(); ++i) {
    if (takes_value(args[i])) {
      ++i;
      continue;
    }
    if (!args[i].empty() && args[i][0] == '-') continue;
    if (args[i] != "ops" && args[i] != "parity") break;
    std::vector<std::string> rest(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(i));
    rest.insert(rest.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
    return args[i] == "ops" ? axle::cli::cmd_ops(rest) : axle::cli::cmd_parity(rest);
  }
  bool as_json = false, help = false, strict = false;
  axle::cli::BenchOptions bench;
  std::string explain_device;  // --device for explain (bench keeps its own default)
  std::vector<std::string> positional;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--json")
      as_json = true;
    else if (a == "--quick")
      bench.quick = true;
    else if (a == "--strict")
      strict = true;
    else if (takes_value(a) && i + 1 < args.size()) {
      (a == "--device" ? bench.device : bench.only) = args[++i];
      if (a == "--device") explain_device = args[i];
    } else if (a == "-h" || a == "--help") {
      help = true;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "axle: unknown option '%s'\n\n%s", a.c_str(), kUsage);
      return 2;
    } else {
      positional.push_back(a);
    }
  }
  if (help) {  // `axle check --help`, `axle bench --help`: the command's own usage
    const std::string cmd = positional.empty() ? "" : positional[0];
    std::fputs(cmd == "check" ? kCheckUsage : cmd == "bench" ? kBenchUsage : kUsage, stdout);
    return 0;
  }
  if (positional.empty()) {
    std::fputs(kUsage, stderr);
    return 2;
  }
  if (strict && positional[0] != "check") {
    std::fprintf(stderr, "axle %s: unknown option '--strict'\n", positional[0].c_str());
    return 2;
  }
  try {
    const std::string& cmd = positional[0];
    if ((cmd == "info" || cmd == "version" || cmd == "bench") && positional.size() != 1) {
      std::fprintf(stderr, "axle %s: unexpected argument '%s'\n", cmd.c_str(), positional[1].c_str());
      return 2;
    }
    if (cmd == "info") return cmd_info(as_json);
    if (cmd == "version") {
      std::printf("%s\n", axle::version().c_str());
      return 0;
    }
    if (cmd == "config") {
      if (positional.size() != 2 || (positional[1] != "show" && positional[1] != "keys")) {
        std::fputs("usage: axle config show|keys [--json]\n", stderr);
        return 2;
      }
      if (positional[1] == "keys") return cmd_config_keys(as_json);
      const auto entries = axle::config_sources();
      if (as_json) {
        json out = json::array();
        for (const auto& e : entries) out.push_back(config_entry_json(e));
        std::printf("%s\n", out.dump(1).c_str());
      } else {
        std::printf("%-36s %-24s %s\n", "key", "value", "from");
        for (const auto& e : entries) print_config_entry("", e);
      }
      return 0;
    }
    if (cmd == "check") {
      if (positional.size() != 2) {
        std::fputs("usage: axle check PLUGIN.so [--only OP] [--strict] [--json]\n", stderr);
        return 2;
      }
      axle::conformance::CheckOptions options;
      options.strict = strict;
      if (!bench.only.empty()) options.ops = {bench.only};
      const auto report = axle::conformance::check_plugin(positional[1], options);
      if (as_json) {
        json results = json::array();
        for (const auto& r : report.results) {
          json reasons = json::array();
          for (const auto& [reason, n] : r.decline_reasons) reasons.push_back({{"reason", reason}, {"cases", n}});
          results.push_back({{"check", r.name},
                             {"device", r.device},
                             {"status", r.status},
                             {"detail", r.detail},
                             {"cases", r.cases},
                             {"served", r.served},
                             {"declined", r.declined},
                             {"decline_reasons", reasons}});
        }
        std::printf("%s\n",
                    json{{"plugin", report.plugin}, {"path", report.path}, {"ok", report.ok()}, {"results", results}}
                        .dump(1)
                        .c_str());
      } else {
        std::fputs(axle::conformance::format_check(report).c_str(), stdout);
      }
      return report.ok() ? 0 : 1;
    }
    if (cmd == "bench") {
      bench.json = as_json;
      return axle::cli::cmd_bench(bench);
    }
    if (cmd == "explain") {
      if (positional.size() != 2) {
        std::fputs("usage: axle explain OP [--device D] [--json]\n", stderr);
        return 2;
      }
      return cmd_explain(positional[1], explain_device, as_json);
    }
    std::fprintf(stderr, "axle: unknown command '%s'\n\n%s", cmd.c_str(), kUsage);
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "axle: error: %s\n", e.what());
    return 1;
  }
}
