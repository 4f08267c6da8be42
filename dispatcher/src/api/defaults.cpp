// The library version and the process-wide defaults (dtype, device) that
// factories and TensorOptions fall back on.
#include <axle/config.h>
#include <axle/device_runtime.h>
#include <axle/dispatcher.h>
#include <axle/ops.h>

#include <atomic>

namespace axle {

std::string version() { return AXLE_VERSION_STRING; }

// ---------------------------------------------------------------- defaults
namespace {
std::atomic<int> g_default_dtype{-1};
// The default device packed as (type id << 32 | index); -1 until first read. Atomic
// so that factory calls read it without a lock.
std::atomic<int64_t> g_default_device{-1};
int64_t pack(const Device& d) { return (static_cast<int64_t>(d.type().id()) << 32) | static_cast<uint32_t>(d.index()); }
}  // namespace

DType get_default_dtype() {
  int d = g_default_dtype.load(std::memory_order_relaxed);
  if (d < 0) {
    const auto& cfg = effective_config();
    d = static_cast<int>(cfg.default_dtype ? dtype_from_name(*cfg.default_dtype) : kFloat32);
    g_default_dtype.store(d, std::memory_order_relaxed);
  }
  return static_cast<DType>(d);
}

void set_default_dtype(DType d) {
  AXLE_CHECK(is_floating_point(d), ValueError,
             "set_default_dtype(): only floating-point types are supported as the "
             "default type, got ",
             dtype_name(d));
  g_default_dtype.store(static_cast<int>(d), std::memory_order_relaxed);
}

Device get_default_device() {
  int64_t packed = g_default_device.load(std::memory_order_relaxed);
  if (packed < 0) {
    const auto& cfg = effective_config();
    packed = pack(cfg.default_device ? Device(*cfg.default_device) : Device("cpu"));
    g_default_device.store(packed, std::memory_order_relaxed);
  }
  return Device(DeviceType::from_id(static_cast<uint16_t>(packed >> 32)), static_cast<int32_t>(packed & 0xffffffff));
}

void set_default_device(const Device& d) {
  device_runtime(d.type());  // an unknown device type is a DeviceError now, not at the next factory call
  g_default_device.store(pack(d), std::memory_order_relaxed);
}

}  // namespace axle
