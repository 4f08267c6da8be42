// `axle check`: the conformance kit applied to one plugin file. See
// check_plugin in axle/conformance.h.
#include <axle/conformance.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <sstream>
#include <thread>

namespace axle::conformance {
namespace {

// Ops for which `plugin` registered a kernel on `type`.
std::vector<std::string> kernel_ops(const std::string& plugin, const std::string& type) {
  std::vector<std::string> out;
  for (const std::string& op : op_names()) {
    for (const ExplainRow& row : explain(op)) {
      if (row.device_type != type) continue;
      for (const CandidateInfo& c : row.chain)
        if (c.plugin == plugin && (c.kind == "kernel" || c.kind == "boxed fallback")) {
          out.push_back(op);
          break;
        }
    }
  }
  return out;
}

// Bytes with a position-dependent pattern.
Tensor pattern(int64_t n, uint8_t salt) {
  Tensor t = make_empty({n}, kUInt8, Device("cpu"));
  auto* p = static_cast<uint8_t*>(t.data_ptr());
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>((i * 131 + salt) & 0xff);
  return t;
}

std::string first_mismatch(const Tensor& got, const Tensor& want) {
  if (got.numel() != want.numel()) return detail::concat(got.numel(), " bytes instead of ", want.numel());
  const auto* g = static_cast<const uint8_t*>(got.data_ptr());
  const auto* w = static_cast<const uint8_t*>(want.data_ptr());
  for (int64_t i = 0; i < got.numel(); ++i)
    if (g[i] != w[i])
      return detail::concat("byte ", i, " of ", got.numel(), " is ", int(g[i]), ", expected ", int(w[i]));
  return "";
}

// allocate / copy round trips through the device runtime and through tensors.
CheckResult device_contract(const std::string& type, int count) {
  CheckResult r{"device contract", type, "pass", ""};
  int checks = 0;
  std::string failures;
  auto fail = [&](const std::string& what) {
    r.status = "fail";
    if (failures.size() < 400) failures += (failures.empty() ? "" : "; ") + what;
  };
  for (int index = 0; index < count; ++index) {
    const Device dev(DeviceType(type), index);
    try {
      DeviceRuntime& rt = checked_runtime(dev);
      for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{3}, int64_t{4097}, (int64_t{1} << 20) + 3}) {
        const Tensor host = pattern(n, static_cast<uint8_t>(index * 7 + 1));
        // Raw runtime: host -> device -> device -> host.
        const auto bytes = static_cast<size_t>(n);
        void* a = rt.allocate(index, bytes, nullptr);
        void* b = rt.allocate(index, bytes, nullptr);
        Tensor back = make_empty({n}, kUInt8, Device("cpu"));
        rt.copy(CopyKind::HostToDevice, index, a, host.data_ptr(), bytes, nullptr);
        rt.copy(CopyKind::DeviceToDevice, index, b, a, bytes, nullptr);
        rt.copy(CopyKind::DeviceToHost, index, back.data_ptr(), b, bytes, nullptr);
        rt.synchronize(index);
        rt.deallocate(index, a, bytes);
        rt.deallocate(index, b, bytes);
        if (std::string m = first_mismatch(back, host); !m.empty())
          fail(detail::concat(dev, " runtime copy of ", n, " bytes: ", m));
        // The same ordered on a created stream, with memory allocated for it.
        // A stream-ordered allocator (ABI 1.2) is also given a block recorded
        // on the default stream and freed while the stream's copies may still
        // run; memory of any other allocator may be freed only after the work.
        const bool ordered = rt.stream_ordered_allocation();
        void* s = rt.stream_create(index);
        void* c = rt.allocate(index, bytes, s);
        void* d = rt.allocate(index, bytes, s);
        Tensor back_s = make_empty({n}, kUInt8, Device("cpu"));
        rt.copy(CopyKind::HostToDevice, index, c, host.data_ptr(), bytes, s);
        rt.copy(CopyKind::DeviceToDevice, index, d, c, bytes, s);
        if (ordered) {
          rt.record_stream(index, c, nullptr);
          rt.deallocate(index, c, bytes);
        }
        rt.copy(CopyKind::DeviceToHost, index, back_s.data_ptr(), d, bytes, s);
        rt.stream_synchronize(index, s);
        if (!ordered) rt.deallocate(index, c, bytes);
        rt.deallocate(index, d, bytes);
        rt.stream_destroy(index, s);
        if (std::string m = first_mismatch(back_s, host); !m.empty())
          fail(detail::concat(dev, " stream-ordered runtime copy of ", n, " bytes: ", m));
        // Tensors: to(device), a strided device->device copy (clone of a view), back.
        const Tensor on_dev = host.to(dev);
        const Tensor round = on_dev.to(Device("cpu"));
        if (std::string m = first_mismatch(round, host); !m.empty())
          fail(detail::concat(dev, " tensor round trip of ", n, " bytes: ", m));
        checks += 3;
      }
      const Tensor grid = pattern(64 * 33, 5).view({64, 33});
      const Tensor t = grid.to(dev).t().contiguous().to(Device("cpu"));
      if (std::string m = first_mismatch(t, grid.t().contiguous()); !m.empty())
        fail(detail::concat(dev, " transposed copy on the device: ", m));
      ++checks;
      // Peer copies (ABI 1.3) to the next device, raw and through tensors.
      if (count > 1 && rt.supports_peer_copy()) {
        const int next = (index + 1) % count;
        const Device other(DeviceType(type), next);
        const Tensor host = pattern(4097, static_cast<uint8_t>(index + 3));
        void* a = rt.allocate(index, 4097, nullptr);
        void* b = rt.allocate(next, 4097, nullptr);
        Tensor back = make_empty({4097}, kUInt8, Device("cpu"));
        rt.copy(CopyKind::HostToDevice, index, a, host.data_ptr(), 4097, nullptr);
        rt.copy_peer(next, b, index, a, 4097, nullptr);
        rt.copy(CopyKind::DeviceToHost, next, back.data_ptr(), b, 4097, nullptr);
        rt.deallocate(index, a, 4097);
        rt.deallocate(next, b, 4097);
        if (std::string m = first_mismatch(back, host); !m.empty())
          fail(detail::concat(dev, " -> ", other, " peer copy: ", m));
        if (std::string m = first_mismatch(host.to(dev).to(other).to(Device("cpu")), host); !m.empty())
          fail(detail::concat(dev, " -> ", other, " tensor peer copy: ", m));
        checks += 2;
      }
    } catch (const std::exception& e) {
      fail(detail::concat(dev, ": ", e.what()));
    }
  }
  r.detail = r.status == "pass" ? detail::concat(checks, " round trips on ", count, " device(s)") : failures;
  return r;
}

// The same ops from several threads at once must give the single-thread results.
CheckResult concurrency(const std::string& plugin, const std::string& type, const std::vector<std::string>& ops,
                        const CheckOptions& options) {
  CheckResult r{"concurrency", type, "pass", ""};
  if (ops.empty()) {
    r.status = "skip";
    r.detail = "no kernels";
    return r;
  }
  RunOptions ro;
  ro.ops = ops;
  ro.seed = options.seed;
  ro.plugin = plugin;
  std::atomic<int> failed{0};
  std::string first;
  std::mutex m;
  std::vector<std::thread> threads;
  for (int t = 0; t < options.threads; ++t)
    threads.emplace_back([&] {
      try {
        for (const OpReport& rep : run(Device(type), ro)) {
          if (rep.failed == 0) continue;
          failed += rep.failed;
          std::lock_guard lock(m);
          if (first.empty() && !rep.failures.empty())
            first = rep.failures[0].op + " [" + rep.failures[0].dtype + "] " + rep.failures[0].message;
        }
      } catch (const std::exception& e) {
        ++failed;
        std::lock_guard lock(m);
        if (first.empty()) first = e.what();
      }
    });
  for (auto& th : threads) th.join();
  if (failed > 0) {
    r.status = "fail";
    r.detail = detail::concat(failed.load(), " failures with ", options.threads, " threads; first: ", first);
  } else {
    r.detail = detail::concat(ops.size(), " ops from ", options.threads, " threads at once");
  }
  return r;
}

}  // namespace

bool CheckReport::ok() const {
  return std::none_of(results.begin(), results.end(), [](const CheckResult& r) { return r.status == "fail"; });
}

std::vector<std::string> CheckReport::serving_none() const {
  std::vector<std::string> out;
  for (const CheckResult& r : results)
    if (r.cases > 0 && r.served == 0) out.push_back(r.name);
  return out;
}

std::string format_decline_reasons(const std::map<std::string, int>& reasons) {
  std::string s;
  for (const auto& [reason, n] : reasons)
    s += detail::concat(s.empty() ? "" : "; ", n, " x ", reason.empty() ? "(no reason given)" : reason);
  return s;
}

CheckReport check_plugin(const std::string& path, const CheckOptions& options) {
  CheckReport report;
  report.path = path;
  PluginInfo info;
  try {
    info = load_plugin(path);
  } catch (const std::exception& e) {
    report.results.push_back({"load", "", "fail", e.what()});
    return report;
  }
  report.plugin = info.name;
  report.results.push_back(
      {"load", "", "pass",
       detail::concat("ABI ", info.abi_major, ".", info.abi_minor, ", version ", info.version, ", rank ", info.rank)});
  for (const std::string& type : info.device_types) {
    int count = 0;
    std::string note;
    try {
      count = device_runtime(DeviceType(type)).device_count();  // loads the type's runtime provider if needed
    } catch (const std::exception& e) {
      note = e.what();
    }
    if (count == 0 && note.empty())
      for (const DeviceInfo& d : devices(false))
        if (d.type == type) note = d.note;
    if (count == 0) {
      report.results.push_back({"device contract", type, "skip", note.empty() ? "zero devices" : note});
      continue;
    }
    report.results.push_back(device_contract(type, count));
    std::vector<std::string> ops = kernel_ops(info.name, type);
    if (!options.ops.empty()) {
      std::vector<std::string> wanted;
      for (const std::string& op : ops)
        if (std::find(options.ops.begin(), options.ops.end(), op) != options.ops.end()) wanted.push_back(op);
      ops = wanted;
    }
    std::vector<std::string> with_samples;
    for (const std::string& op : ops)
      if (find_samples(op))
        with_samples.push_back(op);
      else
        report.results.push_back({op, type, "skip", "no samples for this op"});
    RunOptions ro;
    ro.ops = with_samples;
    ro.seed = options.seed;
    ro.plugin = info.name;
    ro.gradients = true;  // backward through the plugin's kernels, against the reference's
    if (!with_samples.empty()) {
      for (const OpReport& rep : run(Device(type), ro)) {
        CheckResult r{rep.op, type, rep.failed ? "fail" : (rep.passed ? "pass" : "skip"), ""};
        if (rep.failed) {
          const CaseFailure& f = rep.failures.front();
          r.detail = detail::concat(rep.failed, " of ", rep.failed + rep.passed, " cases fail; first: [", f.dtype, "] ",
                                    f.note, ": ", f.message);
        } else {
          r.detail = rep.skip_reason.empty() ? detail::concat(rep.passed, " cases") : rep.skip_reason;
        }
        if (rep.grad_passed + rep.grad_failed > 0)
          r.detail += detail::concat("; gradients: ", rep.grad_passed, " of ", rep.grad_passed + rep.grad_failed,
                                     " cases agree");
        if (rep.skip_reason.empty()) {
          r.cases = rep.passed + rep.failed;
          r.served = rep.served;
          r.declined = rep.declined;
          r.decline_reasons = rep.decline_reasons;
          if (r.cases > 0 && r.served == 0) {
            r.detail += detail::concat("; the kernel served none of its ", r.cases, " cases (", r.declined,
                                       " declined): the reference plugin ran them");
            if (options.strict)
              r.status = "fail";
            else if (r.status == "pass")
              r.status = "warn";
          }
        }
        report.results.push_back(r);
      }
    }
    report.results.push_back(concurrency(info.name, type, with_samples, options));
  }
  return report;
}

std::string format_check(const CheckReport& report) {
  std::ostringstream os;
  os << "axle check " << report.path << (report.plugin.empty() ? "" : " (plugin '" + report.plugin + "')") << "\n";
  char line[200];
  std::snprintf(line, sizeof line, "%-26s %-10s %-5s %7s %8s  %s\n", "check", "device", "", "served", "declined",
                "detail");
  os << line;
  int pass = 0, fail = 0, skip = 0, warn = 0;
  for (const CheckResult& r : report.results) {
    const std::string served = r.cases < 0 ? "" : detail::concat(r.served, "/", r.cases);
    const std::string declined = r.cases < 0 ? "" : std::to_string(r.declined);
    std::snprintf(line, sizeof line, "%-26s %-10s %-5s %7s %8s  ", r.name.c_str(), r.device.c_str(), r.status.c_str(),
                  served.c_str(), declined.c_str());
    os << line << r.detail << "\n";
    if (!r.decline_reasons.empty())
      os << std::string(60, ' ') << "declined: " << format_decline_reasons(r.decline_reasons) << "\n";
    (r.status == "pass" ? pass : r.status == "fail" ? fail : r.status == "warn" ? warn : skip)++;
  }
  os << pass << " passed, " << fail << " failed, " << skip << " skipped";
  if (warn) os << ", " << warn << " warned (a kernel served none of its cases; --strict fails them)";
  os << ": " << (report.ok() ? "OK" : "FAILED") << "\n";
  return os.str();
}

}  // namespace axle::conformance
