// Device: a device type (interned name, provided by a plugin; "cpu" is the host)
// plus an index. Parsed from "cpu", "cuda:1", "sim:0".
#pragma once

#include <axle/export.h>

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <string_view>

namespace axle {

// A device type is an id interned from its name; ids are assigned on first use
// and never reused. There is no fixed enum of device types.
class AXLE_API DeviceType {
 public:
  DeviceType() = default;  // "cpu"
  // Interns `name` ([a-z_][a-z0-9_]*); throws DeviceError for a malformed name.
  explicit DeviceType(std::string_view name);
  static DeviceType from_id(uint16_t id);
  uint16_t id() const { return id_; }
  const std::string& name() const;
  bool is_host() const { return id_ == 0; }
  friend bool operator==(DeviceType a, DeviceType b) { return a.id_ == b.id_; }

 private:
  uint16_t id_ = 0;
};

class AXLE_API Device {
 public:
  Device() = default;  // cpu:0
  Device(DeviceType type, int32_t index = -1) : type_(type), index_(index) {}
  // "cpu", "cpu:0", "cuda:1"; throws DeviceError naming the text when malformed.
  Device(const std::string& spec);                         // NOLINT: implicit like torch::Device
  Device(const char* spec) : Device(std::string(spec)) {}  // NOLINT

  DeviceType type() const { return type_; }
  // -1 when no index was given ("cuda"): the device's default (0).
  int32_t index() const { return index_; }
  bool has_index() const { return index_ >= 0; }
  bool is_cpu() const { return type_.is_host(); }
  // The same device with index -1 replaced by 0.
  Device resolved() const { return Device(type_, index_ < 0 ? 0 : index_); }
  std::string str() const;
  friend bool operator==(const Device& a, const Device& b) {
    return a.type_ == b.type_ && a.resolved().index_ == b.resolved().index_;
  }
  friend bool operator!=(const Device& a, const Device& b) { return !(a == b); }

 private:
  DeviceType type_;
  int32_t index_ = 0;
};

AXLE_API std::ostream& operator<<(std::ostream& os, const Device& d);

}  // namespace axle
