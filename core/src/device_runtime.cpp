// The registry from DeviceType to DeviceRuntime. Runtimes are found through a
// resolver the dispatcher installs (it loads plugins lazily); found runtimes are
// cached in a fixed array read without locks.
#include <axle/device_runtime.h>
#include <axle/error.h>

#include <array>
#include <atomic>
#include <mutex>

namespace axle {

DeviceRuntime::~DeviceRuntime() = default;

void* DeviceRuntime::host_alloc_pinned(size_t) {
  throw NotImplementedError(detail::concat("device type '", type().name(), "' offers no pinned host memory"));
}
void DeviceRuntime::host_free_pinned(void*) noexcept {}
void DeviceRuntime::record_stream(int, void*, void*) {}
void DeviceRuntime::copy_peer(int dst_index, void*, int src_index, const void*, size_t, void*) {
  throw NotImplementedError(detail::concat("device type '", type().name(), "' copies between its devices (", src_index,
                                           " -> ", dst_index, ") only through the host"));
}

namespace {
constexpr size_t kMaxTypes = 1024;
std::array<std::atomic<DeviceRuntime*>, kMaxTypes> g_cache{};
std::mutex g_resolver_mutex;
detail::RuntimeResolver& resolver() {
  static auto* r = new detail::RuntimeResolver;
  return *r;
}
}  // namespace

void detail::set_runtime_resolver(RuntimeResolver r) {
  std::lock_guard lock(g_resolver_mutex);
  resolver() = std::move(r);
}

DeviceRuntime& device_runtime(DeviceType type) {
  AXLE_CHECK(type.id() < kMaxTypes, DeviceError, "device type id ", type.id(), " out of range");
  if (DeviceRuntime* rt = g_cache[type.id()].load(std::memory_order_acquire)) return *rt;
  DeviceRuntime* rt = nullptr;
  {
    std::lock_guard lock(g_resolver_mutex);
    if (resolver()) rt = resolver()(type);
  }
  AXLE_CHECK(rt != nullptr, DeviceError, "no plugin provides device type '", type.name(),
             "' (see `axle info` for the loaded plugins and the plugin search path)");
  g_cache[type.id()].store(rt, std::memory_order_release);
  return *rt;
}

DeviceRuntime& checked_runtime(const Device& device) {
  DeviceRuntime& rt = device_runtime(device.type());
  const int index = device.resolved().index();
  if (index == 0 && device.is_cpu()) return rt;  // the host is always cpu:0 (asked on every op call)
  const int count = rt.device_count();
  if (index >= count) {
    const std::string reason = count == 0 ? rt.unavailable_reason() : std::string();
    AXLE_CHECK(false, DeviceError, "device '", device.str(), "' is not available: ", count, " ", device.type().name(),
               " device(s) present", reason.empty() ? "" : " (", reason, reason.empty() ? "" : ")");
  }
  return rt;
}

AllocatorStats memory_stats(const Device& device) {
  const Device d = device.resolved();
  return checked_runtime(d).stats(d.index());
}

void empty_cache(const Device& device) {
  const Device d = device.resolved();
  checked_runtime(d).empty_cache(d.index());
}

}  // namespace axle
