// `axle ops`: the coverage matrix from axle::coverage() as a terminal table,
// JSON or one self-contained HTML file (inline CSS, no scripts or external
// assets: it must open from a mail attachment or a CI artifact as is). The
// classification itself lives in the dispatcher (dispatcher/src/coverage.cpp);
// --probe is here because it runs the conformance kit, a separate library.
#include "ops_matrix.h"

#include <axle/axle.h>
#include <axle/conformance.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

namespace axle::cli {
namespace {

// Keys in insertion order: backends left to right as in the table.
using json = nlohmann::ordered_json;

constexpr const char* kOpsUsage =
    "usage: axle ops [--json] [--html FILE] [--probe [--strict]] [--names]\n"
    "\n"
    "The coverage matrix: one row per declared operator, one column per backend (a\n"
    "loaded plugin on a device type it serves), each cell how that backend serves the op:\n"
    "  K  kernel         the plugin has its own kernel\n"
    "  d  declines       its kernel declined some calls of the probe (known with --probe only)\n"
    "  C  composite      no kernel of its own; the op's composite (built from other ops) runs\n"
    "  >  falls through  no kernel of its own; another plugin's kernel on the device serves it\n"
    "  H  host fallback  nothing on the device: inputs are copied to cpu, run there, copied back\n"
    "  -  missing        nothing serves it: a call raises NotImplementedError\n"
    "\n"
    "options:\n"
    "  --json        the matrix as JSON (backends, one entry per op with a status per backend,\n"
    "                legend, totals per backend)\n"
    "  --html FILE   also write the matrix as a self-contained HTML heat-map to FILE\n"
    "  --probe       run the conformance samples of each kernel on the backends that have a\n"
    "                device (progress on stderr) to find the kernels that decline some calls;\n"
    "                then per kernel the cases it served and declined (declined by reason),\n"
    "                listing those that declined any and those that served none\n"
    "  --strict      with --probe: exit 1 when a kernel served none of its cases\n"
    "  --names       only the operator names, one a line (a JSON array with --json)\n"
    "\n"
    "exit codes: 0 success, 1 error (message on stderr; with --strict: a kernel served none of\n"
    "its cases), 2 usage error\n";

struct StatusStyle {
  Coverage status;
  const char* symbol;
  const char* meaning;
  const char* background;  // heat-map colour: green (own kernel) to red (nothing)
  const char* foreground;
};
// In the order of the heat-map scale, best first.
constexpr StatusStyle kStyles[] = {
    {Coverage::Kernel, "K", "the plugin has its own kernel", "#1a9850", "#ffffff"},
    {Coverage::Declines, "d", "own kernel, declined some calls of the probe (the next candidate ran them)", "#91cf60",
     "#1b1b1b"},
    {Coverage::Composite, "C", "no kernel of its own: the op's composite (built from other ops) runs", "#d9ef8b",
     "#1b1b1b"},
    {Coverage::FallsThrough, ">", "no kernel of its own: another plugin's kernel on the device serves it", "#fee08b",
     "#1b1b1b"},
    {Coverage::HostFallback, "H", "nothing on the device: copied to cpu, run there, copied back", "#fc8d59", "#1b1b1b"},
    {Coverage::Missing, "-", "nothing serves it: a call raises NotImplementedError", "#d73027", "#ffffff"},
};
const StatusStyle& style(Coverage c) {
  for (const StatusStyle& s : kStyles)
    if (s.status == c) return s;
  return kStyles[std::size(kStyles) - 1];
}
// "falls through" -> "falls-through": a CSS class name.
std::string css_class(Coverage c) {
  std::string s = std::string("s-") + coverage_name(c);
  std::replace(s.begin(), s.end(), ' ', '-');
  return s;
}

// Counts per backend and status.
std::vector<std::map<Coverage, int>> totals(const CoverageMatrix& m) {
  std::vector<std::map<Coverage, int>> out(m.backends.size());
  for (const CoverageRow& row : m.ops)
    for (size_t b = 0; b < row.cells.size(); ++b) ++out[b][row.cells[b]];
  return out;
}

// One kernel's probe: its op's conformance cases, how many it served and
// declined, the declined ones by reason ("": none given).
struct ProbeRow {
  std::string backend, op;
  int cases = 0, served = 0, declined = 0;
  std::map<std::string, int> decline_reasons = {};
};
struct Probe {
  std::vector<DeclineCount> declines;  // counted meanwhile, for coverage()
  std::vector<ProbeRow> rows;
};

// Runs the conformance samples of every op a backend has a kernel for, on the
// backends that have a device, the plugin isolated with the reference plugin
// below it (as `axle check` does), and returns the declines counted meanwhile
// and per kernel the cases it served and declined. Failures are not this
// command's business (`axle check` reports them): only their count is shown.
Probe probe(const CoverageMatrix& m) {
  using Key = std::tuple<std::string, std::string, std::string>;
  Probe result;
  std::map<Key, uint64_t> before;
  for (const DeclineCount& d : decline_stats()) before[{d.op, d.device, d.plugin}] = d.count;
  for (size_t b = 0; b < m.backends.size(); ++b) {
    const CoverageBackend& backend = m.backends[b];
    if (backend.device_count == 0) {
      std::fprintf(stderr, "axle ops: probe: %s skipped (no %s device present)\n", backend.name.c_str(),
                   backend.device_type.c_str());
      continue;
    }
    conformance::RunOptions options;
    options.plugin = backend.plugin;
    for (const CoverageRow& row : m.ops)
      if (row.cells[b] == Coverage::Kernel && conformance::find_samples(row.op) != nullptr)
        options.ops.push_back(row.op);
    if (options.ops.empty()) continue;
    std::fprintf(stderr, "axle ops: probing %s: %zu ops ...", backend.name.c_str(), options.ops.size());
    std::fflush(stderr);
    const auto start = std::chrono::steady_clock::now();
    int cases = 0, failed = 0;
    try {
      for (const conformance::OpReport& r : conformance::run(Device(backend.device_type), options)) {
        cases += r.passed + r.failed;
        failed += r.failed;
        if (r.skip_reason.empty())
          result.rows.push_back({backend.name, r.op, r.passed + r.failed, r.served, r.declined, r.decline_reasons});
      }
    } catch (const std::exception& e) {
      std::fprintf(stderr, " error: %s\n", e.what());
      continue;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::fprintf(stderr, " %d cases in %.1f s%s\n", cases, seconds,
                 failed ? (" (" + std::to_string(failed) + " failed: see axle check)").c_str() : "");
  }
  for (DeclineCount d : decline_stats()) {
    const auto it = before.find({d.op, d.device, d.plugin});
    d.count -= it == before.end() ? 0 : it->second;
    if (d.count > 0) result.declines.push_back(std::move(d));
  }
  return result;
}

bool serves_none(const ProbeRow& r) { return r.cases > 0 && r.served == 0; }

// The probe's kernels that declined a case or served none, per backend.
void print_probe(const Probe& p) {
  std::map<std::string, std::vector<const ProbeRow*>> by_backend;
  for (const ProbeRow& r : p.rows) by_backend[r.backend].push_back(&r);
  std::printf("\nprobe: cases each kernel served / its op's cases, and declined (the next candidate ran them)\n");
  for (const auto& [backend, rows] : by_backend) {
    int declining = 0, none = 0;
    for (const ProbeRow* r : rows) {
      declining += r->declined > 0;
      none += serves_none(*r);
    }
    std::printf("%s: %zu kernels probed, %d declined some cases, %d served none\n", backend.c_str(), rows.size(),
                declining, none);
    for (const ProbeRow* r : rows) {
      if (r->declined == 0 && !serves_none(*r)) continue;
      std::printf("  %-28s served %4d/%-4d declined %4d%s%s\n", r->op.c_str(), r->served, r->cases, r->declined,
                  serves_none(*r) ? "  SERVES NONE" : "",
                  r->decline_reasons.empty()
                      ? ""
                      : ("  (" + conformance::format_decline_reasons(r->decline_reasons) + ")").c_str());
    }
  }
}

json probe_json(const Probe& p) {
  json rows = json::array();
  for (const ProbeRow& r : p.rows) {
    json reasons = json::array();
    for (const auto& [reason, n] : r.decline_reasons) reasons.push_back({{"reason", reason}, {"cases", n}});
    rows.push_back({{"backend", r.backend},
                    {"op", r.op},
                    {"cases", r.cases},
                    {"served", r.served},
                    {"declined", r.declined},
                    {"serves_none", serves_none(r)},
                    {"decline_reasons", reasons}});
  }
  return rows;
}

std::string backend_note(const CoverageBackend& b) {
  const std::string devices = b.device_count == 0   ? "no device"
                              : b.device_count == 1 ? "1 device"
                                                    : std::to_string(b.device_count) + " devices";
  return "rank " + std::to_string(b.rank) + ", " + devices;
}

void print_table(const CoverageMatrix& m) {
  size_t op_width = 26;
  for (const CoverageRow& row : m.ops) op_width = std::max(op_width, row.op.size());
  std::vector<size_t> widths;
  for (const CoverageBackend& b : m.backends) widths.push_back(std::max<size_t>(b.name.size(), 5));
  // A line: the first column, then one centred cell per backend, so each symbol
  // sits under the middle of its backend's name.
  auto line = [&](const std::string& first, auto&& text_of) {
    std::string s = first;
    s.resize(std::max(op_width, s.size()), ' ');
    for (size_t b = 0; b < m.backends.size(); ++b) {
      const std::string text = text_of(b);
      const size_t left = widths[b] > text.size() ? (widths[b] - text.size()) / 2 : 0;
      s += "  " + std::string(left, ' ') + text + std::string(widths[b] - std::min(widths[b], left + text.size()), ' ');
    }
    s.erase(s.find_last_not_of(' ') + 1);
    std::printf("%s\n", s.c_str());
  };
  auto names = [&](size_t b) { return m.backends[b].name; };

  std::printf("legend:");
  for (const StatusStyle& s : kStyles) std::printf("  %s %s", s.symbol, coverage_name(s.status));
  std::printf("\nbackends:");
  for (size_t b = 0; b < m.backends.size(); ++b)
    std::printf("%s %s (%s)", b ? "," : "", m.backends[b].name.c_str(), backend_note(m.backends[b]).c_str());
  std::printf("\n");
  if (!m.probed) std::printf("declines: not probed (axle ops --probe runs the samples to find them)\n");
  std::printf("\n");
  line("op", names);
  for (const CoverageRow& row : m.ops) line(row.op, [&](size_t b) { return std::string(style(row.cells[b]).symbol); });
  // Totals per backend, under the same columns.
  const auto counts = totals(m);
  std::printf("\n");
  line("total", names);
  for (const StatusStyle& s : kStyles) {
    const bool unknown = s.status == Coverage::Declines && !m.probed;
    line(std::string(s.symbol) + " " + coverage_name(s.status) + (unknown ? " (needs --probe)" : ""), [&](size_t b) {
      const auto it = counts[b].find(s.status);
      return unknown ? std::string("?") : std::to_string(it == counts[b].end() ? 0 : it->second);
    });
  }
  std::printf("%zu operators, %zu backends\n", m.ops.size(), m.backends.size());
}

json matrix_json(const CoverageMatrix& m) {
  json j;
  j["probed"] = m.probed;
  j["backends"] = json::array();
  for (const CoverageBackend& b : m.backends)
    j["backends"].push_back({{"name", b.name},
                             {"plugin", b.plugin},
                             {"device_type", b.device_type},
                             {"rank", b.rank},
                             {"device_count", b.device_count}});
  j["ops"] = json::array();
  for (const CoverageRow& row : m.ops) {
    json cells = json::object();
    for (size_t b = 0; b < row.cells.size(); ++b) cells[m.backends[b].name] = coverage_name(row.cells[b]);
    j["ops"].push_back({{"op", row.op}, {"cells", cells}});
  }
  j["legend"] = json::object();
  for (const StatusStyle& s : kStyles)
    j["legend"][coverage_name(s.status)] = {{"symbol", s.symbol}, {"meaning", s.meaning}};
  j["totals"] = json::object();
  const auto counts = totals(m);
  for (size_t b = 0; b < m.backends.size(); ++b) {
    json t = json::object();
    for (const StatusStyle& s : kStyles) {
      const auto it = counts[b].find(s.status);
      if (s.status == Coverage::Declines && !m.probed)
        t[coverage_name(s.status)] = nullptr;  // unknown without --probe (the table prints '?')
      else
        t[coverage_name(s.status)] = it == counts[b].end() ? 0 : it->second;
    }
    j["totals"][m.backends[b].name] = t;
  }
  return j;
}

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string matrix_html(const CoverageMatrix& m) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    << "<title>axle ops: coverage matrix</title>\n<style>\n"
    << "body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; background: #fff; }\n"
    << "h1 { font-size: 1.4em; margin: 0 0 0.3em; }\n"
    << "p.meta { color: #555; margin: 0 0 1em; }\n"
    << "ul.legend { list-style: none; padding: 0; margin: 0 0 1em; }\n"
    << "ul.legend li { margin: 0.2em 0; }\n"
    << ".swatch { display: inline-block; min-width: 1.6em; text-align: center; font-family: monospace;"
    << " border-radius: 3px; margin-right: 0.5em; padding: 1px 0; }\n"
    << "table.matrix { border-collapse: collapse; font-size: 13px; }\n"
    << "table.matrix th, table.matrix td { border: 1px solid #fff; padding: 2px 8px; }\n"
    << "table.matrix thead th { position: sticky; top: 0; background: #eee; z-index: 1; vertical-align: bottom; }\n"
    << "table.matrix thead small { font-weight: normal; color: #555; }\n"
    << "table.matrix tbody th { text-align: left; font-family: monospace; font-weight: normal; background: #f6f6f6; }\n"
    << "table.matrix tbody tr:hover th { background: #ddd; }\n"
    << "table.matrix td { text-align: center; font-family: monospace; min-width: 6em; }\n"
    << "table.matrix tfoot th { text-align: left; font-weight: normal; background: #f6f6f6; }\n"
    << "table.matrix tfoot tr.share td, table.matrix tfoot tr.share th { font-weight: bold; background: #eee; }\n";
  for (const StatusStyle& s : kStyles)
    h << "." << css_class(s.status) << " { background: " << s.background << "; color: " << s.foreground << "; }\n";
  h << "</style>\n</head>\n<body>\n<h1>axle ops: coverage matrix</h1>\n";
  h << "<p class=\"meta\">axle " << escape(version()) << " &middot; " << m.ops.size() << " operators &times; "
    << m.backends.size() << " backends (a loaded plugin on a device type it serves) &middot; "
    << (m.probed ? "declines probed with the conformance samples"
                 : "declines not probed (<code>axle ops --probe</code> finds them)")
    << "</p>\n<ul class=\"legend\">\n";
  for (const StatusStyle& s : kStyles)
    h << "<li data-status=\"" << coverage_name(s.status) << "\"><span class=\"swatch " << css_class(s.status) << "\">"
      << escape(s.symbol) << "</span><b>" << coverage_name(s.status) << "</b>: " << escape(s.meaning)
      << (s.status == Coverage::Declines && !m.probed ? " (not probed)" : "") << "</li>\n";
  h << "</ul>\n<table class=\"matrix\">\n<thead>\n<tr><th>operator</th>";
  for (const CoverageBackend& b : m.backends)
    h << "<th class=\"backend\" data-backend=\"" << escape(b.name) << "\">" << escape(b.name) << "<br><small>"
      << escape(backend_note(b)) << "</small></th>";
  h << "</tr>\n</thead>\n<tbody>\n";
  for (const CoverageRow& row : m.ops) {
    h << "<tr class=\"op\" data-op=\"" << escape(row.op) << "\"><th>" << escape(row.op) << "</th>";
    for (size_t b = 0; b < row.cells.size(); ++b) {
      const Coverage c = row.cells[b];
      h << "<td class=\"" << css_class(c) << "\" data-status=\"" << coverage_name(c) << "\" title=\""
        << escape(m.backends[b].name) << ": " << coverage_name(c) << "\">" << escape(style(c).symbol) << "</td>";
    }
    h << "</tr>\n";
  }
  h << "</tbody>\n<tfoot>\n";
  const auto counts = totals(m);
  for (const StatusStyle& s : kStyles) {
    h << "<tr class=\"total\" data-status=\"" << coverage_name(s.status) << "\"><th><span class=\"swatch "
      << css_class(s.status) << "\">" << escape(s.symbol) << "</span>" << coverage_name(s.status) << "</th>";
    for (size_t b = 0; b < m.backends.size(); ++b) {
      const auto it = counts[b].find(s.status);
      if (s.status == Coverage::Declines && !m.probed)
        h << "<td>?</td>";
      else
        h << "<td>" << (it == counts[b].end() ? 0 : it->second) << "</td>";
    }
    h << "</tr>\n";
  }
  // The share of operators each backend runs with its own code.
  h << "<tr class=\"share\"><th>own kernel</th>";
  for (size_t b = 0; b < m.backends.size(); ++b) {
    const int own = counts[b].count(Coverage::Kernel) ? counts[b].at(Coverage::Kernel) : 0;
    const int declines = counts[b].count(Coverage::Declines) ? counts[b].at(Coverage::Declines) : 0;
    const double share = m.ops.empty() ? 0 : 100.0 * (own + declines) / static_cast<double>(m.ops.size());
    char text[32];
    std::snprintf(text, sizeof text, "%.0f%%", share);
    h << "<td>" << text << "</td>";
  }
  h << "</tr>\n</tfoot>\n</table>\n</body>\n</html>\n";
  return h.str();
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "axle ops: %s\n\n%s", message.c_str(), kOpsUsage);
  return 2;
}

}  // namespace

int cmd_ops(const std::vector<std::string>& args) {
  bool as_json = false, probe_declines = false, names_only = false, strict = false;
  std::string html_path;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      std::fputs(kOpsUsage, stdout);
      return 0;
    }
    if (a == "--json")
      as_json = true;
    else if (a == "--probe")
      probe_declines = true;
    else if (a == "--names")
      names_only = true;
    else if (a == "--strict")
      strict = true;
    else if (a == "--html" && i + 1 < args.size())
      html_path = args[++i];
    else if (a.rfind("--html=", 0) == 0 && a.size() > 7)
      html_path = a.substr(7);
    else if (a == "--html")
      return usage_error("--html needs a file name");
    else if (!a.empty() && a[0] == '-')
      return usage_error("unknown option '" + a + "'");
    else
      return usage_error("unexpected argument '" + a + "'");
  }
  if (names_only && (probe_declines || !html_path.empty())) return usage_error("--names takes no --probe or --html");
  if (strict && !probe_declines) return usage_error("--strict needs --probe");
  try {
    if (names_only) {
      const auto names = op_names();
      if (as_json)
        std::printf("%s\n", json(names).dump(1).c_str());
      else
        for (const auto& n : names) std::printf("%s\n", n.c_str());
      return 0;
    }
    CoverageMatrix m = coverage();
    std::optional<Probe> probed;
    if (probe_declines) {
      probed = probe(m);
      m = coverage(probed->declines);
    }
    if (!html_path.empty()) {
      std::ofstream out(html_path, std::ios::binary | std::ios::trunc);
      if (out) out << matrix_html(m);
      if (!out || !out.flush()) {
        std::fprintf(stderr, "axle ops: error: cannot write %s: %s\n", html_path.c_str(), std::strerror(errno));
        return 1;
      }
    }
    if (as_json) {
      json j = matrix_json(m);
      if (probed) j["probe"] = probe_json(*probed);
      std::printf("%s\n", j.dump(1).c_str());
    } else if (html_path.empty()) {
      print_table(m);
      if (probed) print_probe(*probed);
    } else {
      std::printf("wrote %s: %zu operators x %zu backends\n", html_path.c_str(), m.ops.size(), m.backends.size());
    }
    if (strict && probed) {
      int none = 0;
      for (const ProbeRow& r : probed->rows) none += serves_none(r);
      if (none > 0) {
        std::fprintf(stderr, "axle ops: %d kernel%s served none of their cases (--strict)\n", none,
                     none == 1 ? "" : "s");
        return 1;
      }
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "axle ops: error: %s\n", e.what());
    return 1;
  }
}

}  // namespace axle::cli
