// Device types are interned names; "cpu" (the host) is always id 0.
#include <axle/device.h>
#include <axle/error.h>

#include <charconv>
#include <deque>
#include <mutex>
#include <ostream>
#include <shared_mutex>
#include <unordered_map>

namespace axle {
namespace {

struct TypeTable {
  std::shared_mutex mutex;
  std::deque<std::string> names{"cpu"};  // deque: stable references
  std::unordered_map<std::string, uint16_t> ids{{"cpu", 0}};
};

TypeTable& table() {
  static TypeTable* t = new TypeTable;  // never destroyed: used during static teardown
  return *t;
}

bool valid_type_name(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  if (!(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z'))) return false;
  for (char c : s)
    if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return false;
  return true;
}

}  // namespace

DeviceType::DeviceType(std::string_view name) {
  AXLE_CHECK(valid_type_name(name), DeviceError, "invalid device type '", name,
             "': expected a name like 'cpu', 'cuda' or 'sim' ([a-z_][a-z0-9_]*)");
  TypeTable& t = table();
  {
    std::shared_lock lock(t.mutex);
    auto it = t.ids.find(std::string(name));
    if (it != t.ids.end()) {
      id_ = it->second;
      return;
    }
  }
  std::unique_lock lock(t.mutex);
  auto [it, inserted] = t.ids.try_emplace(std::string(name), static_cast<uint16_t>(t.names.size()));
  if (inserted) {
    AXLE_CHECK(t.names.size() < 65535, DeviceError, "too many device types");
    t.names.emplace_back(name);
  }
  id_ = it->second;
}

DeviceType DeviceType::from_id(uint16_t id) {
  TypeTable& t = table();
  std::shared_lock lock(t.mutex);
  AXLE_CHECK(id < t.names.size(), DeviceError, "unknown device type id ", id);
  DeviceType d;
  d.id_ = id;
  return d;
}

const std::string& DeviceType::name() const {
  TypeTable& t = table();
  std::shared_lock lock(t.mutex);
  return t.names[id_];
}

Device::Device(const std::string& spec) {
  const auto colon = spec.find(':');
  const std::string_view type_part = std::string_view(spec).substr(0, colon);
  AXLE_CHECK(valid_type_name(type_part), DeviceError, "invalid device string '", spec,
             "': expected 'type' or 'type:index', e.g. 'cpu', 'cuda:1'");
  type_ = DeviceType(type_part);
  index_ = -1;
  if (colon != std::string::npos) {
    const std::string_view idx = std::string_view(spec).substr(colon + 1);
    int32_t value = -1;
    auto [ptr, ec] = std::from_chars(idx.data(), idx.data() + idx.size(), value);
    AXLE_CHECK(!idx.empty() && ec == std::errc() && ptr == idx.data() + idx.size() && value >= 0, DeviceError,
               "invalid device index in '", spec, "': expected a non-negative integer after ':'");
    index_ = value;
  }
}

std::string Device::str() const { return has_index() ? type_.name() + ":" + std::to_string(index_) : type_.name(); }
std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

}  // namespace axle
