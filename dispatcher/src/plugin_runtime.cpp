// The host side of the plugin ABI: the host API given to plugins, the mapping of
// status codes to typed exceptions, and DeviceRuntime over a plugin's
// axle_device_interface.
#include "call_internal.h"
#include "config_internal.h"
#include "registry.h"

#include <axle/error_kinds.h>
#include <axle/logging.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <optional>
#include <string>

namespace axle {

// The class is the status's row of kErrorKinds (axle/error_kinds.h).
[[noreturn]] void throw_status(axle_status status, const std::string& message) {
  error_kind_for_status(status).raise(message);
  __builtin_unreachable();  // raise() always throws
}

namespace {

void host_log(int32_t level, const char* plugin, const char* message) {
  const int l = std::clamp(level, 0, 4);
  AXLE_LOG(static_cast<LogLevel>(l), "[", plugin ? plugin : "plugin", "] ", message ? message : "");
}

void host_set_error(void* context, const char* message) {
  if (context && message) static_cast<ErrorSink*>(context)->message = message;
}

void host_set_decline_reason(void* context, const char* reason) {
  if (context && reason) static_cast<ErrorSink*>(context)->decline_reason = reason;
}

// plugins.<plugin>.options.<key>, or with a NULL plugin a global dotted key
// ("cpu.threads"), from the effective configuration; the text lives in a
// per-thread buffer until the thread's next call. One key is the host's own,
// not a configuration key: "secure_execution" is "true" in a secure-execution
// (setuid, AT_SECURE) process, else NULL; plugins turn off what their
// libraries take from the environment (docs/config.md, Secure execution).
const char* host_get_option(const char* plugin, const char* key) {
  if (!key) return nullptr;
  if (!plugin && std::string_view(key) == "secure_execution") return detail::secure_execution() ? "true" : nullptr;
  thread_local std::string buffer;
  const std::shared_ptr<const Config> snapshot = detail::config_snapshot();  // no copy: kernels may ask per call
  const Config& config = *snapshot;
  std::optional<std::string> value;
  if (plugin) {
    auto p = config.plugins.find(plugin);
    if (p != config.plugins.end()) {
      auto o = p->second.options.find(key);
      if (o != p->second.options.end()) value = o->second;
    }
  } else {
    value = config.get(key);
  }
  if (!value) return nullptr;
  buffer = *value;
  return buffer.c_str();
}

// allocate_output: a data-dependent output, allocated by the call path (call.cpp).
axle_status host_allocate_output(void* context, int32_t index, axle_dtype dtype, int32_t ndim, const int64_t* sizes,
                                 axle_tensor_view* out) {
  return allocate_data_dependent_output(context, index, dtype, ndim, sizes, out);
}

}  // namespace

const axle_host_api* host_api() {
  static const axle_host_api api = [] {
    axle_host_api a{};
    a.struct_size = sizeof a;
    a.abi_major = AXLE_ABI_MAJOR;
    a.abi_minor = AXLE_ABI_MINOR;
    a.log = &host_log;
    a.set_error = &host_set_error;
    a.allocate_output = &host_allocate_output;
    a.get_option = &host_get_option;
    a.set_decline_reason = &host_set_decline_reason;
    return a;
  }();
  return &api;
}

namespace {

class PluginRuntime final : public DeviceRuntime {
 public:
  PluginRuntime(const axle_device_interface& iface, std::string plugin)
      : iface_(current_layout(iface)), type_(iface.type_name), plugin_(std::move(plugin)) {}

  // The plugin's table in this core's layout: the fields its struct_size
  // covers, later (newer-ABI) ones NULL.
  static axle_device_interface current_layout(const axle_device_interface& iface) {
    axle_device_interface out{};
    std::memcpy(&out, &iface, std::min(iface.struct_size, sizeof out));
    return out;
  }

  bool supports_pinned_memory() override { return iface_.host_alloc && iface_.host_free; }
  void* host_alloc_pinned(size_t nbytes) override {
    AXLE_CHECK(supports_pinned_memory(), NotImplementedError, "device type '", type_.name(), "' (plugin '", plugin_,
               "') offers no pinned host memory");
    void* ptr = nullptr;
    const axle_status s = iface_.host_alloc(iface_.self, nbytes, &ptr);
    if (s == AXLE_ERROR_OUT_OF_MEMORY || (s == AXLE_OK && ptr == nullptr && nbytes))
      throw OutOfMemoryError(
          detail::concat(type_.name(), ": out of pinned host memory allocating ", nbytes, " bytes", last_error()));
    check(s, "host_alloc");
    return ptr;
  }
  void host_free_pinned(void* ptr) noexcept override {
    if (iface_.host_free && iface_.host_free(iface_.self, ptr) != AXLE_OK)
      AXLE_LOG(LogLevel::Error, type_.name(), ": host_free failed", last_error());
  }

  DeviceType type() const override { return type_; }
  bool host_accessible() const override { return host_accessible_; }

  void init() {
    axle_device_properties p{};
    p.struct_size = sizeof p;
    int count = device_count();
    host_accessible_ = count > 0 && iface_.get_properties(iface_.self, 0, &p) == AXLE_OK && p.host_accessible != 0;
  }

  // Asked on every op call (checked_runtime): the count is read from the plugin
  // once and then kept (device sets are fixed for a process's life, as CUDA's).
  int device_count() override {
    const int cached = count_.load(std::memory_order_acquire);
    if (cached >= 0) return cached;
    int32_t n = 0;
    check(iface_.device_count(iface_.self, &n), "device_count");
    count_.store(n, std::memory_order_release);
    return n;
  }
  // A plugin reporting zero devices may leave the reason in last_error.
  std::string unavailable_reason() override {
    int32_t n = 0;  // asked again: the reason is the plugin's answer to this call
    if (iface_.device_count(iface_.self, &n) != AXLE_OK || n != 0) return {};
    const char* e = iface_.last_error ? iface_.last_error(iface_.self) : nullptr;
    return e ? std::string(e) : std::string();
  }
  DeviceProperties properties(int index) override {
    axle_device_properties p{};
    p.struct_size = sizeof p;
    check(iface_.get_properties(iface_.self, index, &p), "get_properties");
    p.name[sizeof p.name - 1] = '\0';
    return {p.name, p.total_memory, p.host_accessible != 0};
  }
  // Stream-ordered when the plugin offers it (ABI 1.2), else plain allocate.
  void* allocate(int index, size_t nbytes, void* stream) override {
    void* ptr = nullptr;
    const axle_status s = iface_.allocate_on_stream
                              ? iface_.allocate_on_stream(iface_.self, index, nbytes, stream, &ptr)
                              : iface_.allocate(iface_.self, index, nbytes, &ptr);
    if (s == AXLE_ERROR_OUT_OF_MEMORY || (s == AXLE_OK && ptr == nullptr))
      throw OutOfMemoryError(
          detail::concat(type_.name(), ":", index, ": out of memory allocating ", nbytes, " bytes", last_error()));
    check(s, "allocate");
    return ptr;
  }
  void deallocate(int index, void* ptr, size_t nbytes) noexcept override {
    if (iface_.deallocate(iface_.self, index, ptr, nbytes) != AXLE_OK)
      AXLE_LOG(LogLevel::Error, type_.name(), ": deallocate failed", last_error());
  }
  bool stream_ordered_allocation() const override { return iface_.allocate_on_stream != nullptr; }
  void record_stream(int index, void* ptr, void* stream) override {
    if (iface_.record_stream) check(iface_.record_stream(iface_.self, index, ptr, stream), "record_stream");
  }
  void copy(CopyKind kind, int index, void* dst, const void* src, size_t nbytes, void* stream) override {
    check(iface_.copy(iface_.self, static_cast<axle_copy_kind>(kind), index, dst, src, nbytes, stream), "copy");
  }
  bool supports_peer_copy() const override { return iface_.copy_peer != nullptr; }
  void copy_peer(int dst_index, void* dst, int src_index, const void* src, size_t nbytes, void* stream) override {
    if (!iface_.copy_peer) return DeviceRuntime::copy_peer(dst_index, dst, src_index, src, nbytes, stream);  // throws
    check(iface_.copy_peer(iface_.self, dst_index, dst, src_index, src, nbytes, stream), "copy_peer");
  }
  void synchronize(int index) override { check(iface_.synchronize(iface_.self, index), "synchronize"); }
  void* stream_create(int index) override {
    axle_stream s = nullptr;
    check(iface_.stream_create(iface_.self, index, &s), "stream_create");
    return s;
  }
  void stream_destroy(int index, void* s) override {
    check(iface_.stream_destroy(iface_.self, index, s), "stream_destroy");
  }
  void stream_synchronize(int index, void* s) override {
    check(iface_.stream_synchronize(iface_.self, index, s), "stream_synchronize");
  }
  void* event_create(int index) override {
    axle_event e = nullptr;
    check(iface_.event_create(iface_.self, index, &e), "event_create");
    return e;
  }
  void event_destroy(int index, void* e) override {
    check(iface_.event_destroy(iface_.self, index, e), "event_destroy");
  }
  void event_record(int index, void* e, void* s) override {
    check(iface_.event_record(iface_.self, index, e, s), "event_record");
  }
  void event_synchronize(int index, void* e) override {
    check(iface_.event_synchronize(iface_.self, index, e), "event_synchronize");
  }
  void stream_wait_event(int index, void* s, void* e) override {
    check(iface_.stream_wait_event(iface_.self, index, s, e), "stream_wait_event");
  }
  AllocatorStats stats(int index) override {
    axle_allocator_stats st{};
    st.struct_size = sizeof st;
    check(iface_.allocator_stats(iface_.self, index, &st), "allocator_stats");
    return {st.allocated_bytes, st.reserved_bytes, st.peak_allocated_bytes, st.num_allocs, st.num_frees};
  }
  void empty_cache(int index) override { check(iface_.empty_cache(iface_.self, index), "empty_cache"); }

 private:
  std::string last_error() const {
    const char* e = iface_.last_error ? iface_.last_error(iface_.self) : nullptr;
    return e && *e ? std::string(": ") + e : std::string();
  }
  void check(axle_status s, const char* what) const {
    if (s == AXLE_OK) return;
    throw_status(s == AXLE_DECLINED ? AXLE_ERROR_DEVICE : s,
                 detail::concat(type_.name(), " device runtime (plugin '", plugin_, "'): ", what,
                                " failed with status ", s, last_error()));
  }

  axle_device_interface iface_;
  std::atomic<int> count_{-1};
  DeviceType type_;
  std::string plugin_;
  bool host_accessible_ = false;
};

}  // namespace

std::unique_ptr<DeviceRuntime> make_plugin_runtime(const axle_device_interface& iface, const std::string& plugin) {
  auto rt = std::make_unique<PluginRuntime>(iface, plugin);
  rt->init();
  return rt;
}

}  // namespace axle
