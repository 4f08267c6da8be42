// The call path: target device -> table slot -> shape function -> output
// allocation -> candidates in order (kernels may decline) -> host fallback.
#include "config_internal.h"
#include "observe.h"
#include "registry.h"

#include <axle/logging.h>
#include <axle/ops.h>
#include <axle/stream.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace axle {

Stack dispatch(const OpEntry& op, Stack& args, const std::vector<Tensor>* out = nullptr);
using detail::CallInfo;

namespace {

// A fixed-capacity array on the stack that spills to the heap when larger.
template <typename T, size_t N>
class SmallArray {
 public:
  explicit SmallArray(size_t n) : size_(n), data_(inline_) {
    if (n > N) {
      heap_.resize(n);
      data_ = heap_.data();
    }
  }
  SmallArray(const SmallArray&) = delete;
  SmallArray& operator=(const SmallArray&) = delete;
  T* data() { return data_; }
  T& operator[](size_t i) { return data_[i]; }
  size_t size() const { return size_; }

 private:
  size_t size_;
  T* data_;
  T inline_[N];  // not zeroed: every element used is assigned first (zeroing cost ~10% of a call)
  std::vector<T> heap_;
};

// Shape functions fill ShapeContext::outputs. Each thread recycles those vectors
// (a pool, since dispatch nests through composites and the host fallback), so a
// call does not allocate one. After the thread's pool is destroyed (a dispatch
// from a late destructor) calls simply allocate.
thread_local bool t_spec_pool_gone = false;
class OutputSpecPool {
 public:
  ~OutputSpecPool() { t_spec_pool_gone = true; }
  std::vector<OutputSpec> take() {
    if (t_spec_pool_gone || free_.empty()) return {};
    std::vector<OutputSpec> v = std::move(free_.back());
    free_.pop_back();
    return v;
  }
  void give(std::vector<OutputSpec>& v) {
    if (t_spec_pool_gone || free_.size() >= 16 || v.capacity() > 64) return;
    v.clear();
    free_.push_back(std::move(v));
  }

 private:
  std::vector<std::vector<OutputSpec>> free_;
};
thread_local OutputSpecPool t_spec_pool;

struct PooledSpecs {
  std::vector<OutputSpec>& specs;
  ~PooledSpecs() { t_spec_pool.give(specs); }
};

struct KernelCallContext : ErrorSink {
  Stack* outputs = nullptr;
  Device device;
};

// Elementwise ops keep channels_last as torch's TensorIterator does: a new 4-d
// output takes the memory format of the first input of the output's shape.
void follow_input_layout(ShapeContext& sc) {
  for (OutputSpec& o : sc.outputs) {
    if (o.alias_arg >= 0 || o.data_dependent || o.sizes.size() != 4) continue;
    for (const Value& v : sc.args) {
      if (!v.is_tensor() || !v.tensor().defined() || v.tensor().sizes() != o.sizes) continue;
      o.memory_format = suggest_memory_format(v.tensor());
      break;
    }
  }
}

// A 0-dim CPU tensor may join tensors of another device (PyTorch's CPU scalar rule).
bool is_cpu_scalar(const Tensor& t) { return t.dim() == 0 && t.device().is_cpu(); }

Device target_device(const OpEntry& op, const Stack& args) {
  const Tensor* chosen = nullptr;
  const Tensor* scalar = nullptr;
  auto consider = [&](const Tensor& t) {
    if (!t.defined()) return;
    if (is_cpu_scalar(t)) {
      if (!scalar) scalar = &t;
      return;
    }
    if (!chosen) {
      chosen = &t;
      return;
    }
    AXLE_CHECK(chosen->device() == t.device(), DeviceError,
               "Expected all tensors to be on the same device, but found at least two devices, ", chosen->device(),
               " and ", t.device(), "! (when calling ", op.name, ")");
  };
  for (const Value& v : args) {
    if (v.is_tensor())
      consider(v.tensor());
    else if (v.tag() == Value::Tag::TensorList)
      for (const Tensor& t : v.tensors()) consider(t);
  }
  if (chosen) return chosen->device();
  if (scalar) return scalar->device();
  const int d = op.schema.find_argument("device");
  if (d >= 0 && static_cast<size_t>(d) < args.size() && !args[d].is_none()) return args[d].device().resolved();
  return get_default_device().resolved();
}

[[noreturn]] void no_kernel(const OpEntry& op, const Device& device, const char* why) {
  std::string have;
  for (const std::string& d : Registry::get().devices_with_kernel(op)) have += (have.empty() ? "" : ", ") + d;
  throw NotImplementedError(detail::concat("operator '", op.name, "' ", why, " for device '", device,
                                           "'; kernels exist for: ", have.empty() ? "(none)" : have));
}

// An undefined Tensor (None in a Tensor?[] list) is a view with data == NULL
// and ndim == -1 (docs/plugin-abi.md).
void fill_view(axle_tensor_view& v, const Tensor& t) {
  if (!t.defined()) {
    v = axle_tensor_view{};
    v.struct_size = sizeof v;
    v.ndim = -1;
    return;
  }
  v.struct_size = sizeof v;
  v.data = t.data_ptr();
  v.dtype = static_cast<axle_dtype>(t.dtype());
  v.ndim = static_cast<int32_t>(t.dim());
  v.sizes = t.sizes().data();
  v.strides = t.strides().data();
  v.device_index = t.device().index();
  v.reserved0 = 0;
}

axle_status invoke(const OpEntry& op, const Candidate& c, const Stack& args, Stack& outputs, const Device& device,
                   KernelCallContext& ctx) {
  const size_t num_args = args.size(), num_outputs = outputs.size();
  // Most ops have a handful of arguments: keep their views on the stack (one
  // slot per argument, used by the tensors among them, then the outputs').
  SmallArray<axle_tensor_view, 8> views(num_args + num_outputs);
  std::vector<std::vector<axle_tensor_view>> lists;
  SmallArray<axle_value, 8> values(num_args);
  size_t next_view = 0;
  for (size_t i = 0; i < num_args; ++i) {
    const Value& v = args[i];
    axle_value& out = values[i];
    out = axle_value{};
    switch (v.tag()) {
      case Value::Tag::None: out.tag = AXLE_VALUE_NONE; break;
      case Value::Tag::Tensor:
        if (!v.tensor().defined()) {
          out.tag = AXLE_VALUE_NONE;
          break;
        }
        fill_view(views[next_view], v.tensor());
        out.tag = AXLE_VALUE_TENSOR;
        out.u.tensor = &views[next_view++];
        break;
      case Value::Tag::TensorList: {
        auto& l = lists.emplace_back(v.tensors().size());
        for (size_t k = 0; k < l.size(); ++k) fill_view(l[k], v.tensors()[k]);
        out.tag = AXLE_VALUE_TENSOR_LIST;
        out.u.tensors.items = l.data();
        out.u.tensors.count = static_cast<int64_t>(l.size());
        break;
      }
      case Value::Tag::Int: out.tag = AXLE_VALUE_INT; out.u.i = v.to_int(); break;
      case Value::Tag::IntList:
        out.tag = AXLE_VALUE_INT_LIST;
        out.u.ints.items = v.int_list().data();
        out.u.ints.count = static_cast<int64_t>(v.int_list().size());
        break;
      case Value::Tag::Double: out.tag = AXLE_VALUE_DOUBLE; out.u.f = v.to_double(); break;
      case Value::Tag::Bool: out.tag = AXLE_VALUE_BOOL; out.u.i = v.to_bool() ? 1 : 0; break;
      case Value::Tag::String: out.tag = AXLE_VALUE_STRING; out.u.str = v.str().c_str(); break;
      case Value::Tag::DType: out.tag = AXLE_VALUE_DTYPE; out.u.i = static_cast<int64_t>(v.dtype()); break;
      case Value::Tag::Generator:
        // Shape functions turn generators into int[2] {seed, offset} (random ops).
        throw Error(detail::concat(op.name, ": internal error: a Generator argument reached a kernel"));
      case Value::Tag::Device:
        out.tag = AXLE_VALUE_DEVICE;
        out.u.device.type = v.device().type().name().c_str();
        out.u.device.index = v.device().index();
        break;
    }
  }
  axle_tensor_view* out_views = views.data() + next_view;
  for (size_t i = 0; i < num_outputs; ++i) {
    if (outputs[i].is_tensor() && outputs[i].tensor().defined()) {
      fill_view(out_views[i], outputs[i].tensor());
    } else {
      out_views[i] = axle_tensor_view{};
      out_views[i].struct_size = sizeof(axle_tensor_view);
      out_views[i].device_index = device.index();
    }
  }
  ctx.outputs = &outputs;
  ctx.device = device;
  axle_kernel_call call{};
  call.struct_size = sizeof call;
  call.op_name = op.name.c_str();
  call.schema = op.schema.text.c_str();
  call.args = values.data();
  call.num_args = static_cast<int32_t>(num_args);
  call.num_outputs = static_cast<int32_t>(num_outputs);
  call.outputs = out_views;
  call.stream = detail::current_stream_handle(device);
  call.host = host_api();
  call.call_context = &ctx;
  return c.fn(c.user_data, &call);
}

// ---------------------------------------------------------------- host fallback
struct FallbackState {
  std::mutex mutex;
  std::map<std::pair<std::string, std::string>, uint64_t> counts;
  std::set<std::pair<std::string, std::string>> warned;
  // (op, device type, plugin): counters the table's candidates point at, so a
  // decline is one relaxed atomic add (map nodes never move).
  std::map<std::tuple<std::string, std::string, std::string>, std::atomic<uint64_t>> declines;
};
FallbackState& fallback_state() {
  static auto* s = new FallbackState;
  return *s;
}

Value to_device(const Value& v, const Device& target) {
  if (v.is_tensor() && v.tensor().defined()) return v.tensor().to(target);
  if (v.tag() == Value::Tag::TensorList) {
    std::vector<Tensor> out;
    for (const Tensor& t : v.tensors()) out.push_back(t.defined() ? t.to(target) : Tensor());
    return out;
  }
  return v;
}

// The host fallback: inputs copied to the fallback target (fallback.target,
// default "cpu"), the op run there, outputs copied back.
void host_fallback(const OpEntry& op, const Stack& args, Stack& outputs, const Device& device) {
  const std::shared_ptr<const Config> snapshot = detail::config_snapshot();
  const Config& cfg = *snapshot;
  const FallbackPolicy policy = fallback_policy(cfg, op, device.type());
  if (policy == FallbackPolicy::Error)
    no_kernel(op, device, detail::concat("has no kernel and the fallback policy for it on '", device.type().name(),
                                         "' is 'error'").c_str());
  const Device target = Device(cfg.fallback_target.value_or("cpu")).resolved();
  AXLE_CHECK(target.type() != device.type(), ConfigError, "fallback.target '", target,
             "' is the device type the call failed on (", device, ") for operator '", op.name, "'");
  // A target that could only fall back again lacks the op too: missing, before any copy.
  PluginManager& pm = PluginManager::get();
  if (!pm.is_device_type_ready(target.type())) pm.ensure_device_type(target.type());
  const Slot* there = Registry::get().table().slot(op.index, target.type().id());
  if (!there || std::all_of(there->chain.begin(), there->chain.end(),
                            [](const Candidate& c) { return c.kind == CandidateKind::HostFallback; }))
    no_kernel(op, target, "has no kernel (not even on the fallback target)");
  const auto key = std::make_pair(op.name, device.type().name());
  {
    FallbackState& s = fallback_state();
    std::lock_guard lock(s.mutex);
    ++s.counts[key];
    if (policy == FallbackPolicy::WarnOnce && s.warned.insert(key).second)
      AXLE_LOG(LogLevel::Warn, "operator '", op.name, "' has no kernel for device '", device.type().name(),
               "' that serves this call (none registered, or each declined): running it on ", target,
               " (inputs copied there, outputs copied back). Warned once per op.");
  }
  Stack host_args;
  host_args.reserve(args.size());
  for (const Value& v : args) host_args.push_back(to_device(v, target));
  const int d = op.schema.find_argument("device");
  if (d >= 0 && !host_args[d].is_none()) host_args[d] = target;
  Stack host_out = dispatch(op, host_args);
  for (size_t i = 0; i < outputs.size() && i < host_out.size(); ++i) {
    if (outputs[i].is_tensor() && outputs[i].tensor().defined())
      outputs[i].tensor().copy_(host_out[i].tensor());
    else
      outputs[i] = host_out[i].tensor().to(device);
  }
}

// The bytes a view can reach, from its first element (strides are never negative).
size_t span_bytes(const Tensor& t) {
  if (t.numel() == 0) return 0;
  int64_t last = 0;
  for (size_t d = 0; d < t.sizes().size(); ++d) last += (t.sizes()[d] - 1) * t.strides()[d];
  return static_cast<size_t>(last + 1) * element_size(t.dtype());
}

// One runtime byte copy between the host and `device`, complete on return and
// ordered after the work queued on the device's current stream (a kernel still
// writing the source): enqueued on that stream, which is then waited for (the
// default stream's copies are synchronous by the runtime contract).
void blocking_copy(const Device& device, CopyKind kind, void* dst, const void* src, size_t n) {
  if (n == 0) return;
  DeviceRuntime& rt = device_runtime(device.type());
  void* stream = detail::current_stream_handle(device);
  rt.copy(kind, device.index(), dst, src, n, stream);
  if (stream) rt.stream_synchronize(device.index(), stream);
}

// Same dtype and sizes, both dense: one byte copy does it.
bool dense_pair(const Tensor& dst, const Tensor& src) {
  return src.dtype() == dst.dtype() && src.sizes() == dst.sizes() && src.is_contiguous() && dst.is_contiguous();
}

// A device tensor brought to the host without any op on its device (which may
// lack copy_): the bytes of its span copied by the runtime, the view rebuilt.
Tensor raw_to_host(const Tensor& t) {
  const size_t bytes = span_bytes(t);
  const int64_t esize = static_cast<int64_t>(element_size(t.dtype()));
  Tensor span = make_empty({static_cast<int64_t>(bytes) / esize}, t.dtype(), Device("cpu"));
  blocking_copy(t.device(), CopyKind::DeviceToHost, span.data_ptr(), t.data_ptr(), bytes);
  return make_view(span, t.sizes(), t.strides(), 0);
}

// copy_ between devices: every device-side step is a runtime byte copy, so a
// device without a copy_ kernel (its copy_ runs through the host fallback, which
// lands here) never recurses. Between two devices of one type with peer copies
// (peer_copy), that type's copy_ kernel does what is not dense; otherwise
// strided and converting work happens on the host: a strided destination on a
// device is read, updated on the host and written back over its span.
//
// non_blocking: a dense copy with nothing to convert is enqueued on the current
// stream of the device side and may return before it is done (torch's
// non_blocking=True); the tensors whose memory it reads or writes are kept
// alive until that stream is synchronized. Everything else is synchronous.
bool async_copy(Tensor& dst, const Tensor& src) {
  const bool src_host = src.device().is_cpu(), dst_host = dst.device().is_cpu();
  if (src_host == dst_host || !dense_pair(dst, src)) return false;
  const Device device = src_host ? dst.device() : src.device();
  void* stream = detail::current_stream_handle(device);
  if (!stream) return false;  // the default stream: synchronous, as the runtime contract says
  if (const size_t n = dst.nbytes()) {
    device_runtime(device.type())
        .copy(src_host ? CopyKind::HostToDevice : CopyKind::DeviceToHost, device.index(), dst.data_ptr(),
              src.data_ptr(), n, stream);
    detail::keep_alive_until_done(device, stream, {dst.storage(), src.storage()});
  }
  return true;
}

const OpEntry* copy_op();

// Whether `type` has a copy_ kernel of its own (not only a composite or the
// host fallback).
bool has_copy_kernel(DeviceType type) {
  const Slot* slot = Registry::get().table().slot(copy_op()->index, type.id());
  if (!slot) return false;
  return std::any_of(slot->chain.begin(), slot->chain.end(),
                     [](const Candidate& c) { return c.kind == CandidateKind::Kernel; });
}

// `n` dense bytes from src's device to dst's (another of the same type), after
// the work queued on the source's current stream (the default one too: on CUDA
// default-stream kernels are asynchronous as well), on the destination's
// current stream, complete on return.
void peer_bytes(DeviceRuntime& rt, const Tensor& dst, const Tensor& src, size_t n) {
  if (n == 0) return;
  const Device& to = dst.device();
  const Device& from = src.device();
  rt.stream_synchronize(from.index(), detail::current_stream_handle(from));
  void* stream = detail::current_stream_handle(to);
  rt.copy_peer(to.index(), dst.data_ptr(), from.index(), src.data_ptr(), n, stream);
  if (stream) rt.stream_synchronize(to.index(), stream);
}

// copy_ between two devices of one type whose runtime copies between its
// devices (ABI 1.3), as torch's copy between GPUs: a dense pair is one peer
// copy; otherwise, where the type has a copy_ kernel, the source is
// broadcast, converted to the destination's dtype and made dense on its own
// device, moved by one peer copy, and written into a strided destination by
// the destination device's copy_. False (nothing done) otherwise: the host
// stages, below.
bool peer_copy(Tensor& dst, const Tensor& src) {
  const Device& to = dst.device();
  const Device& from = src.device();
  if (to.type() != from.type()) return false;
  DeviceRuntime& rt = device_runtime(to.type());
  if (!rt.supports_peer_copy()) return false;
  if (dense_pair(dst, src)) {
    peer_bytes(rt, dst, src, dst.nbytes());
    return true;
  }
  if (!has_copy_kernel(to.type())) return false;
  Tensor dense = src;
  if (dense.sizes() != dst.sizes()) dense = dense.expand(dst.sizes());
  if (dense.dtype() != dst.dtype()) dense = dense.to(dst.dtype());
  if (!dense.is_contiguous()) dense = dense.contiguous();
  if (dst.is_contiguous()) {
    peer_bytes(rt, dst, dense, dst.nbytes());
    return true;
  }
  Tensor staging = make_empty(dense.sizes(), dense.dtype(), to);
  peer_bytes(rt, staging, dense, staging.nbytes());
  dst.copy_(staging);
  return true;
}

void cross_device_copy(Tensor& dst, const Tensor& src) {
  const bool src_host = src.device().is_cpu(), dst_host = dst.device().is_cpu();
  if (!src_host && !dst_host && peer_copy(dst, src)) return;
  if (!src_host && dst_host && dense_pair(dst, src)) {  // .cpu(), .numpy(): straight into dst, no staging
    blocking_copy(src.device(), CopyKind::DeviceToHost, dst.data_ptr(), src.data_ptr(), dst.nbytes());
    return;
  }
  if (!src_host) {
    const Tensor h = raw_to_host(src);
    if (dst_host) {
      dst.copy_(h);
    } else {
      cross_device_copy(dst, h);
    }
    return;
  }
  if (dst.is_contiguous()) {
    const Tensor s = src.expand(dst.sizes()).to(dst.dtype()).contiguous();
    blocking_copy(dst.device(), CopyKind::HostToDevice, dst.data_ptr(), s.data_ptr(), dst.nbytes());
    return;
  }
  Tensor span = raw_to_host(dst);
  span.copy_(src);
  blocking_copy(dst.device(), CopyKind::HostToDevice, dst.data_ptr(), span.data_ptr(), span_bytes(dst));
}

const OpEntry* copy_op() {
  static const OpEntry* e = Registry::get().find("copy_");
  return e;
}

}  // namespace

axle_status allocate_data_dependent_output(void* context, int32_t index, axle_dtype dtype, int32_t ndim,
                                           const int64_t* sizes, axle_tensor_view* out) {
  auto* ctx = static_cast<KernelCallContext*>(context);
  if (!ctx || !out || index < 0 || static_cast<size_t>(index) >= ctx->outputs->size() || ndim < 0 ||
      dtype < 0 || dtype >= AXLE_DTYPE_COUNT_V1) {
    if (ctx) ctx->message = "allocate_output: invalid output index, rank or dtype";
    return AXLE_ERROR_INVALID_ARGUMENT;
  }
  try {
    Tensor t = make_empty(IntList(sizes, sizes + ndim), static_cast<DType>(dtype), ctx->device);
    (*ctx->outputs)[index] = t;
    fill_view(*out, (*ctx->outputs)[index].tensor());
    return AXLE_OK;
  } catch (const OutOfMemoryError& e) {
    ctx->message = e.what();
    return AXLE_ERROR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {
    ctx->message = e.what();
    return AXLE_ERROR_INVALID_ARGUMENT;
  }
}

thread_local const PluginFilterGuard* t_plugin_filter = nullptr;

PluginFilterGuard::PluginFilterGuard(Mode mode, std::vector<std::string> plugins)
    : mode_(mode), plugins_(std::move(plugins)), previous_(t_plugin_filter) {
  t_plugin_filter = this;
}
PluginFilterGuard::~PluginFilterGuard() { t_plugin_filter = previous_; }
bool PluginFilterGuard::allows(const std::string& plugin) const {
  const bool listed = std::find(plugins_.begin(), plugins_.end(), plugin) != plugins_.end();
  return mode_ == Mode::Only ? listed : !listed;
}

namespace {

bool shares_storage(const Tensor& t, const Stack& args) {
  for (const Value& v : args) {
    if (v.is_tensor() && v.tensor().defined() && v.tensor().storage().get() == t.storage().get()) return true;
    if (v.tag() == Value::Tag::TensorList)
      for (const Tensor& x : v.tensors())
        if (x.defined() && x.storage().get() == t.storage().get()) return true;
  }
  return false;
}

// A caller's out= tensor the kernels may write directly: exactly the output's
// shape, dtype and device, no internal overlap, no memory shared with an input
// (a kernel may read an input after writing part of its output).
bool usable_out(const Tensor& t, const OutputSpec& o, const Device& device, const Stack& args) {
  if (!t.defined() || t.sizes() != o.sizes || t.dtype() != o.dtype || t.device() != device) return false;
  for (size_t d = 0; d < t.sizes().size(); ++d)
    if (t.strides()[d] == 0 && t.sizes()[d] > 1) return false;
  return !shares_storage(t, args);
}

}  // namespace

namespace {

void describe(CallInfo* info, const Candidate& c) {
  if (!info) return;
  static constexpr const char* kKinds[] = {"kernel", "app kernel", "composite", "boxed fallback", "host fallback"};
  info->kind = kKinds[static_cast<int>(c.kind)];
  info->plugin = c.plugin;
  info->provenance = c.provenance;
  info->fell_back = c.kind == CandidateKind::HostFallback;
}

// The call path. `info` (trace mode and the parity recorder only) learns what ran.
Stack dispatch_impl(const OpEntry& op, Stack& args, const std::vector<Tensor>* out, CallInfo* info) {
  if (&op == copy_op()) {
    Tensor& self = args[0].tensor();
    const Tensor& src = args[1].tensor();
    if (self.device() != src.device()) {
      const bool non_blocking = args.size() > 2 && args[2].tag() == Value::Tag::Bool && args[2].to_bool();
      if (info) {
        info->kind = "copy";
        info->provenance = non_blocking ? "device runtime copy (non_blocking)" : "device runtime copy";
      }
      if (!non_blocking || !async_copy(self, src)) cross_device_copy(self, src);
      return {self};
    }
  }
  const Device device = target_device(op, args);
  const DeviceType type = device.type();
  PluginManager& pm = PluginManager::get();
  if (!pm.is_device_type_ready(type)) pm.ensure_device_type(type);
  const Slot* slot = Registry::get().table().slot(op.index, type.id());
  if (!slot || slot->chain.empty()) {
    checked_runtime(device);  // an unknown device type or index is a DeviceError
    no_kernel(op, device, "has no kernel");
  }

  const Candidate& first = slot->chain.front();
  if (first.kind == CandidateKind::Composite || first.kind == CandidateKind::AppKernel) describe(info, first);
  if (first.kind == CandidateKind::Composite) return op.decl.composite(args);
  if (first.kind == CandidateKind::AppKernel) return (*first.app)(args);

  AXLE_CHECK(op.decl.shape != nullptr, NotImplementedError, "operator '", op.name,
             "' has kernels but no shape function");
  if (!device.is_cpu())  // CPU scalars join device tensors as device tensors
    for (Value& v : args)
      if (const Value& r = v; r.is_tensor() && r.tensor().defined() && is_cpu_scalar(r.tensor())) v = r.tensor().to(device);
  checked_runtime(device);
  ShapeContext sc{op.name.c_str(), args, device, t_spec_pool.take()};
  const PooledSpecs recycle{sc.outputs};
  op.decl.shape(sc);
  if (op.decl.flags & kPointwise) follow_input_layout(sc);
  Stack outputs;
  outputs.reserve(sc.outputs.size());
  for (size_t i = 0; i < sc.outputs.size(); ++i) {
    OutputSpec& o = sc.outputs[i];
    if (o.alias_arg >= 0)
      outputs.push_back(args[o.alias_arg]);
    else if (out && i < out->size() && !o.data_dependent && usable_out((*out)[i], o, device, args))
      outputs.push_back((*out)[i]);
    else if (o.data_dependent)
      outputs.push_back(Value(Tensor()));
    else
      outputs.push_back(o.memory_format == MemoryFormat::ChannelsLast
                            ? make_empty(o.sizes, o.dtype, device, MemoryFormat::ChannelsLast)
                            : make_empty(std::move(o.sizes), o.dtype, device));
  }

  for (const Candidate& c : slot->chain) {
    switch (c.kind) {
      case CandidateKind::Kernel:
      case CandidateKind::BoxedFallback: {
        if (t_plugin_filter && !t_plugin_filter->allows(c.plugin)) continue;
        KernelCallContext ctx;
        const axle_status s = invoke(op, c, args, outputs, device, ctx);
        if (s == AXLE_OK) {
          describe(info, c);
          return outputs;
        }
        if (s == AXLE_DECLINED) {
          if (c.declines) c.declines->fetch_add(1, std::memory_order_relaxed);
          if (info) info->declined.push_back(c.plugin);
          AXLE_LOG(LogLevel::Debug, op.name, " on ", device, ": ", c.plugin, " declined (", c.provenance, ")",
                   ctx.message.empty() ? "" : ": ", ctx.message);
          continue;
        }
        throw_status(s, detail::concat(op.name, " on ", device, " (plugin '", c.plugin, "', ", c.provenance, "): ",
                                       ctx.message.empty() ? "kernel failed" : ctx.message));
      }
      case CandidateKind::AppKernel: describe(info, c); return (*c.app)(args);
      case CandidateKind::Composite: {
        describe(info, c);
        Stack result = op.decl.composite(args);
        for (size_t i = 0; i < outputs.size() && i < result.size(); ++i) {
          if (sc.outputs[i].alias_arg >= 0)
            outputs[i].tensor().copy_(result[i].tensor());
          else
            outputs[i] = result[i];
        }
        return outputs;
      }
      case CandidateKind::HostFallback:
        describe(info, c);
        host_fallback(op, args, outputs, device);
        return outputs;
    }
  }
  no_kernel(op, device, "has only kernels that declined this call");
}

}  // namespace

Stack dispatch(const OpEntry& op, Stack& args, const std::vector<Tensor>* out) {
  if (detail::g_observers.load(std::memory_order_relaxed) > 0) return detail::observe_call(op, args, out, &dispatch_impl);
  return dispatch_impl(op, args, out, nullptr);
}

Stack call_op(const OpHandle& h, Stack args) {
  const OpEntry& op = *h.entry();
  op.schema.complete_arguments(args);
  return dispatch(op, args);
}

Stack call_op(std::string_view name, Stack args) { return call_op(find_op(name), std::move(args)); }

void write_out(const std::string& op, const Tensor& result, Tensor& out) {
  const DType from = result.dtype(), to = out.dtype();
  AXLE_CHECK(!(is_floating_point(from) && is_integral(to, true)) && !(from != kBool && to == kBool), DTypeError, op,
             ": result type ", dtype_name(from), " can't be cast to the desired output type ", dtype_name(to));
  AXLE_CHECK(out.device() == result.device(), DeviceError, op, ": out is on ", out.device(), " but the result is on ",
             result.device());
  if (out.sizes() != result.sizes()) {  // resized as torch does: new storage of the result's shape
    Tensor fresh = make_empty(result.sizes(), to, out.device());
    TensorImpl& impl = out.unsafe_impl();
    impl.storage = fresh.storage();
    impl.sizes = result.sizes();
    impl.strides = fresh.strides();
    impl.storage_offset = 0;
  }
  out.copy_(result);
}

Stack call_op_out(const OpHandle& h, Stack args, std::vector<Tensor> out) {
  const OpEntry& op = *h.entry();
  op.schema.complete_arguments(args);
  for (const Tensor& t : out) AXLE_CHECK(t.defined(), ValueError, op.name, ": out tensors must be defined");
  Stack result = dispatch(op, args, &out);
  size_t n = 0;
  for (const Value& v : result) n += v.is_tensor() ? 1 : 0;
  AXLE_CHECK(n == out.size(), ValueError, op.name, ": out= needs ", n, " tensor(s), got ", out.size());
  Stack written;
  size_t i = 0;
  for (const Value& v : result) {
    if (!v.is_tensor()) continue;
    if (!v.tensor().is_same(out[i])) write_out(op.name, v.tensor(), out[i]);
    written.push_back(out[i++]);
  }
  return written;
}

OpHandle find_op(std::string_view name) {
  const OpEntry* e = Registry::get().find(name);
  AXLE_CHECK(e != nullptr, NotImplementedError, "unknown operator '", name, "'");
  return OpHandle(e);
}

const FunctionSchema& OpHandle::schema() const { return entry_->schema; }

std::vector<FallbackCount> fallback_stats() {
  FallbackState& s = fallback_state();
  std::lock_guard lock(s.mutex);
  std::vector<FallbackCount> out;
  for (const auto& [k, n] : s.counts) out.push_back({k.first, k.second, n});
  return out;
}

// fallback.ops (by the op's full name or its base name) over fallback.devices
// over fallback.policy.
FallbackPolicy fallback_policy(const Config& cfg, const OpEntry& op, DeviceType type) {
  for (const std::string& name : {op.name, op.schema.name}) {
    auto o = cfg.fallback_by_op.find(name);
    if (o != cfg.fallback_by_op.end()) return o->second;
  }
  auto it = cfg.fallback_by_device.find(type.name());
  if (it != cfg.fallback_by_device.end()) return it->second;
  return cfg.fallback_policy.value_or(FallbackPolicy::WarnOnce);
}

std::atomic<uint64_t>* decline_counter(const std::string& op, const std::string& device_type,
                                       const std::string& plugin) {
  FallbackState& s = fallback_state();
  std::lock_guard lock(s.mutex);
  return &s.declines[{op, device_type, plugin}];
}

std::vector<DeclineCount> decline_stats() {
  FallbackState& s = fallback_state();
  std::lock_guard lock(s.mutex);
  std::vector<DeclineCount> out;
  for (const auto& [k, n] : s.declines)
    if (const uint64_t count = n.load(std::memory_order_relaxed))
      out.push_back({std::get<0>(k), std::get<1>(k), std::get<2>(k), count});
  return out;
}

}  // namespace axle
