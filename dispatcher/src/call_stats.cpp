// The call path's statistics: host-fallback hits per (op, device type) and
// declined kernel calls per (op, device type, plugin) since start
// (fallback_stats(), decline_stats()).
#include "call_internal.h"
#include "registry.h"

#include <map>
#include <set>
#include <tuple>

namespace axle {

namespace {

struct FallbackState {
  std::mutex mutex;
  std::map<std::pair<std::string, std::string>, uint64_t> counts;
  std::set<std::pair<std::string, std::string>> warned;
  // (op, device type, plugin): counters the table's candidates point at, so a
  // decline is one relaxed atomic add (map nodes never move).
  std::map<std::tuple<std::string, std::string, std::string>, DeclineRecord> declines;
};
FallbackState& fallback_state() {
  static auto* s = new FallbackState;
  return *s;
}

}  // namespace

bool record_host_fallback(const std::string& op, const std::string& device_type, bool warn_once) {
  const auto key = std::make_pair(op, device_type);
  FallbackState& s = fallback_state();
  std::lock_guard lock(s.mutex);
  ++s.counts[key];
  return warn_once && s.warned.insert(key).second;
}

std::vector<FallbackCount> fallback_stats() {
  FallbackState& s = fallback_state();
  std::lock_guard lock(s.mutex);
  std::vector<FallbackCount> out;
  for (const auto& [k, n] : s.counts) out.push_back({k.first, k.second, n});
  return out;
}

void DeclineRecord::add(const std::string& reason) {
  count.fetch_add(1, std::memory_order_relaxed);
  if (reason.empty()) return;
  std::lock_guard lock(mutex);
  last_reason = reason;
}

DeclineRecord* decline_counter(const std::string& op, const std::string& device_type, const std::string& plugin) {
  FallbackState& s = fallback_state();
  std::lock_guard lock(s.mutex);
  return &s.declines[{op, device_type, plugin}];
}

std::vector<DeclineCount> decline_stats() {
  FallbackState& s = fallback_state();
  std::lock_guard lock(s.mutex);
  std::vector<DeclineCount> out;
  for (auto& [k, r] : s.declines)
    if (const uint64_t count = r.count.load(std::memory_order_relaxed)) {
      std::lock_guard reason_lock(r.mutex);
      out.push_back({std::get<0>(k), std::get<1>(k), std::get<2>(k), count, r.last_reason});
    }
  return out;
}

}  // namespace axle
