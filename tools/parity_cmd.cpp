// `axle parity RECORDING --a BACKEND --b BACKEND`: replays a recording (made
// with axle::record / axle.record(...).save(path)) on two backends and names
// the first operator call whose outputs differ, with the kernels that ran it.
#include "parity_cmd.h"

#include <axle/axle.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>

namespace axle::cli {
namespace {

constexpr const char* kParityUsage =
    "usage: axle parity RECORDING --a BACKEND --b BACKEND [--rtol R] [--atol A] [--json]\n"
    "\n"
    "Replays every operator call of RECORDING (a file written by axle.record(fn).save(path)\n"
    "or axle::Recording::save) on two backends, each from the recorded inputs, and reports\n"
    "the first call whose outputs differ beyond atol + rtol * |b|, with the kernel (plugin,\n"
    "source file:line) that ran it on each side and the max abs / rel error.\n"
    "\n"
    "BACKEND is DEVICE or DEVICE@PLUGIN: cpu, cpu@reference, cpu@cpu, cuda:0.\n"
    "DEVICE@PLUGIN keeps out the plugins ranked above PLUGIN on that device type, so its\n"
    "kernels run first and lower-ranked plugins serve what it lacks or declines.\n"
    "Defaults: --rtol 1e-4 --atol 1e-5.\n"
    "\n"
    "exit codes: 0 the backends agree, 1 error, 2 usage error, 3 a difference was found\n";

bool parse_double(const std::string& text, double* out) {
  char* end = nullptr;
  *out = std::strtod(text.c_str(), &end);
  return !text.empty() && end && *end == '\0' && *out >= 0;
}

}  // namespace

int cmd_parity(const std::vector<std::string>& args) {
  std::string file, a, b;
  bool as_json = false;
  ParityOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& x = args[i];
    const bool has_value = i + 1 < args.size();
    if (x == "-h" || x == "--help") {
      std::fputs(kParityUsage, stdout);
      return 0;
    } else if (x == "--json") {
      as_json = true;
    } else if ((x == "--a" || x == "--b") && has_value) {
      (x == "--a" ? a : b) = args[++i];
    } else if ((x == "--rtol" || x == "--atol") && has_value) {
      if (!parse_double(args[++i], x == "--rtol" ? &options.rtol : &options.atol)) {
        std::fprintf(stderr, "axle parity: %s needs a non-negative number, got '%s'\n", x.c_str(), args[i].c_str());
        return 2;
      }
    } else if (!x.empty() && x[0] != '-' && file.empty()) {
      file = x;
    } else {
      std::fprintf(stderr, "axle parity: unexpected argument '%s'\n\n%s", x.c_str(), kParityUsage);
      return 2;
    }
  }
  if (file.empty() || a.empty() || b.empty()) {
    std::fputs(kParityUsage, stderr);
    return 2;
  }
  try {
    const Backend ba = Backend::parse(a), bb = Backend::parse(b);
    const Recording recording = Recording::load(file);
    const ParityResult r = find_parity(recording, ba, bb, options);
    if (as_json) {
      nlohmann::json j = {{"a", ba.str()},          {"b", bb.str()},       {"calls", recording.calls.size()},
                          {"compared", r.compared}, {"ok", r.ok},          {"skipped", r.skipped},
                          {"rtol", options.rtol},   {"atol", options.atol}};
      if (!r.ok)
        j["first_difference"] = {{"index", r.index},     {"op", r.op},           {"output", r.output},
                                 {"max_abs", r.max_abs}, {"max_rel", r.max_rel}, {"ran_a", r.ran_a},
                                 {"ran_b", r.ran_b},     {"detail", r.detail}};
      std::printf("%s\n", j.dump(1).c_str());
    } else {
      std::fputs(format_parity(r, ba, bb).c_str(), stdout);
    }
    return r.ok ? 0 : 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "axle: error: %s\n", e.what());
    return 1;
  }
}

}  // namespace axle::cli
