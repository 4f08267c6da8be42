// The call path: target device -> table slot -> shape function -> output
// allocation -> candidates in order (kernels may decline) -> host fallback; and
// the kernel invocation through the plugin ABI (argument views, data-dependent
// outputs). What it hands off lives by concept next to it (call_internal.h).
#include "autograd_hook.h"
#include "call_internal.h"
#include "observe.h"
#include "ops/shape_util.h"
#include "registry.h"

#include <axle/logging.h>
#include <axle/stream.h>

#include <algorithm>

namespace axle {

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

bool has_cpu_scalar(const Stack& args) {
  for (const Value& v : args)
    if (v.is_tensor() && v.tensor().defined() && is_cpu_scalar(v.tensor())) return true;
  return false;
}

// Copies the CPU scalars among `args` to `device` (for kernels that read device
// memory only), keeping the wrapped-number flag that type promotion reads.
[[gnu::cold]] void upload_cpu_scalars(Stack& args, const Device& device) {
  for (Value& v : args)
    if (const Value& r = v; r.is_tensor() && r.tensor().defined() && is_cpu_scalar(r.tensor())) {
      Tensor d = r.tensor().to(device);
      d.unsafe_impl().wrapped_number = r.tensor().unsafe_impl().wrapped_number;
      v = std::move(d);
    }
}

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

}  // namespace

[[noreturn]] void no_kernel(const OpEntry& op, const Device& device, const char* why) {
  std::string have;
  for (const std::string& d : Registry::get().devices_with_kernel(op)) have += (have.empty() ? "" : ", ") + d;
  throw NotImplementedError(detail::concat("operator '", op.name, "' ", why, " for device '", device,
                                           "'; kernels exist for: ", have.empty() ? "(none)" : have));
}

bool has_device_kernel(const OpEntry& op, DeviceType type) {
  PluginManager& pm = PluginManager::get();
  if (!pm.is_device_type_ready(type)) pm.ensure_device_type(type);
  const Slot* slot = Registry::get().table().slot(op.index, type.id());
  if (!slot) return false;
  return std::any_of(slot->chain.begin(), slot->chain.end(), [](const Candidate& c) {
    return c.kind == CandidateKind::Kernel || c.kind == CandidateKind::AppKernel ||
           c.kind == CandidateKind::BoxedFallback;
  });
}

namespace {

// An undefined Tensor (None in a Tensor?[] list) is a view with data == NULL
// and ndim == -1 (docs/plugin-abi.md).
void fill_view(axle_tensor_view& v, const Tensor& t, int32_t flags = 0) {
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
  v.flags = flags;
}

// `host_scalars`: the call has CPU scalars among the arguments of a device
// kernel that reads them itself (AXLE_KERNEL_HOST_SCALARS): their views say so.
axle_status invoke(const OpEntry& op, const Candidate& c, const Stack& args, Stack& outputs, const Device& device,
                   KernelCallContext& ctx, bool host_scalars) {
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
        fill_view(views[next_view], v.tensor(),
                  host_scalars && is_cpu_scalar(v.tensor()) ? int32_t{AXLE_VIEW_HOST_SCALAR} : 0);
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
      case Value::Tag::Int:
        out.tag = AXLE_VALUE_INT;
        out.u.i = v.to_int();
        break;
      case Value::Tag::IntList:
        out.tag = AXLE_VALUE_INT_LIST;
        out.u.ints.items = v.int_list().data();
        out.u.ints.count = static_cast<int64_t>(v.int_list().size());
        break;
      case Value::Tag::Double:
        out.tag = AXLE_VALUE_DOUBLE;
        out.u.f = v.to_double();
        break;
      case Value::Tag::Bool:
        out.tag = AXLE_VALUE_BOOL;
        out.u.i = v.to_bool() ? 1 : 0;
        break;
      case Value::Tag::String:
        out.tag = AXLE_VALUE_STRING;
        out.u.str = v.str().c_str();
        break;
      case Value::Tag::DType:
        out.tag = AXLE_VALUE_DTYPE;
        out.u.i = static_cast<int64_t>(v.dtype());
        break;
      case Value::Tag::Generator:
        // Shape functions turn generators into int[2] {seed, offset} (random ops).
        AXLE_INTERNAL_ASSERT(false, op.name, ": a Generator argument reached a kernel");
        break;
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

}  // namespace

axle_status allocate_data_dependent_output(void* context, int32_t index, axle_dtype dtype, int32_t ndim,
                                           const int64_t* sizes, axle_tensor_view* out) {
  auto* ctx = static_cast<KernelCallContext*>(context);
  if (!ctx || !out || index < 0 || static_cast<size_t>(index) >= ctx->outputs->size() || ndim < 0 || dtype < 0 ||
      dtype >= AXLE_DTYPE_COUNT_V1) {
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

namespace {

// A candidate declined: counted, its reason (plugin::decline, or a set_error
// message before AXLE_DECLINED) kept for decline_stats, trace mode and the error
// raised when every candidate declines.
[[gnu::cold]] void note_decline(const OpEntry& op, const Candidate& c, const Device& device,
                                const KernelCallContext& ctx, CallInfo* info, std::string& declines) {
  const std::string& reason = ctx.decline_reason.empty() ? ctx.message : ctx.decline_reason;
  if (c.declines) c.declines->add(reason);
  if (info) {
    info->declined.push_back(c.plugin);
    info->decline_reasons.push_back(reason);
  }
  declines += detail::concat(declines.empty() ? "" : "; ", "plugin '", c.plugin, "' (", c.provenance, ")",
                             reason.empty() ? " gave no reason" : ": ", reason);
  AXLE_LOG(LogLevel::Debug, op.name, " on ", device, ": ", c.plugin, " declined (", c.provenance, ")",
           reason.empty() ? "" : ": ", reason);
}

void describe(CallInfo* info, const Candidate& c) {
  if (!info) return;
  static constexpr const char* kKinds[] = {"kernel", "app kernel", "composite", "boxed fallback", "host fallback"};
  info->kind = kKinds[static_cast<int>(c.kind)];
  info->plugin = c.plugin;
  info->provenance = c.provenance;
  info->fell_back = c.kind == CandidateKind::HostFallback;
}

// An op that writes tensor arguments: refuses those whose elements alias (an
// expanded view; not for fill_ and its kin, as torch) and gives each written
// storage a new version (autograd's saved-tensor check). Out of line: most
// calls write nothing.
[[gnu::noinline]] void note_writes(const OpEntry& op, const Stack& args) {
  auto each = [&](size_t i, auto&& fn) {  // a written Tensor, or each of a written Tensor[]
    if (i >= args.size()) return;
    if (args[i].is_tensor()) {
      fn(args[i].tensor());
    } else if (args[i].tag() == Value::Tag::TensorList) {
      for (const Tensor& t : args[i].tensors()) fn(t);
    }
  };
  for (size_t i : op.overlap_checked)
    each(i, [&](const Tensor& t) { shape::check_no_internal_overlap(op.name.c_str(), t); });
  for (size_t i : op.written)
    each(i, [](const Tensor& t) {
      if (t.defined()) t.storage()->version.fetch_add(1, std::memory_order_relaxed);
    });
}

// The call path. `info` (trace mode and the parity recorder only) learns what ran.
Stack dispatch_impl(const OpEntry& op, Stack& args, const std::vector<Tensor>* out, CallInfo* info) {
  if (!op.written.empty()) note_writes(op, args);
  if (&op == copy_op()) {
    Tensor& self = args[0].tensor();
    const Tensor& src = args[1].tensor();
    if (self.device() != src.device()) {
      const bool non_blocking = args.size() > 2 && args[2].tag() == Value::Tag::Bool && args[2].to_bool();
      if (info) {
        info->kind = "copy";
        info->provenance = non_blocking ? "device runtime copy (non_blocking)" : "device runtime copy";
      }
      copy_across_devices(self, src, non_blocking);
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
  // CPU scalars (Python numbers, 0-dim CPU tensors) joining device tensors stay
  // on the host: kernels registered with AXLE_KERNEL_HOST_SCALARS read them by
  // value; for any other kernel they are copied to the device first (once).
  bool host_scalars = !device.is_cpu() && has_cpu_scalar(args);
  checked_runtime(device);
  ShapeContext sc{op.name.c_str(), args, device, t_spec_pool.take()};
  const PooledSpecs recycle{sc.outputs};
  op.decl.shape(sc);
  if (op.decl.flags & kPointwise) follow_input_layout(sc);
  Stack outputs;
  outputs.reserve(sc.outputs.size());
  for (size_t i = 0; i < sc.outputs.size(); ++i) {
    OutputSpec& o = sc.outputs[i];
    if (o.alias_arg >= 0) {
      if (host_scalars && is_cpu_scalar(args[o.alias_arg].tensor())) {
        upload_cpu_scalars(args, device);
        host_scalars = false;
      }
      outputs.push_back(args[o.alias_arg]);
    } else if (out && i < out->size() && !o.data_dependent && usable_out((*out)[i], o, device, args))
      outputs.push_back((*out)[i]);
    else if (o.data_dependent)
      outputs.push_back(Value(Tensor()));
    else
      outputs.push_back(o.memory_format == MemoryFormat::ChannelsLast
                            ? make_empty(o.sizes, o.dtype, device, MemoryFormat::ChannelsLast)
                            : make_empty(std::move(o.sizes), o.dtype, device));
  }

  std::string declines;  // "plugin 'x': reason; ...", for the error when every candidate declined
  for (const Candidate& c : slot->chain) {
    switch (c.kind) {
      case CandidateKind::Kernel:
      case CandidateKind::BoxedFallback: {
        if (t_plugin_filter && !t_plugin_filter->allows(c.plugin)) continue;
        if (host_scalars && !(c.flags & AXLE_KERNEL_HOST_SCALARS)) {
          upload_cpu_scalars(args, device);
          host_scalars = false;
        }
        KernelCallContext ctx;
        const axle_status s = invoke(op, c, args, outputs, device, ctx, host_scalars);
        if (s == AXLE_OK) {
          describe(info, c);
          if (op.decl.after) op.decl.after(args, outputs);
          return outputs;
        }
        if (s == AXLE_DECLINED) {
          note_decline(op, c, device, ctx, info, declines);
          continue;
        }
        throw_status(s, detail::concat(op.name, " on ", device, " (plugin '", c.plugin, "', ", c.provenance,
                                       "): ", ctx.message.empty() ? "kernel failed" : ctx.message));
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
        host_fallback(op, args, outputs, device, declines);
        if (op.decl.after) op.decl.after(args, outputs);
        return outputs;
    }
  }
  no_kernel(op, device, detail::concat("has only kernels that declined this call (", declines, ")").c_str());
}

}  // namespace

namespace {
std::atomic<detail::AutogradHook> g_autograd_hook{nullptr};

Stack dispatch_intercepted(const OpEntry& op, Stack& args, const std::vector<Tensor>* out) {
  if (const detail::AutogradHook hook = g_autograd_hook.load(std::memory_order_relaxed)) {
    Stack result;
    if (hook(op, args, out, result)) return result;
  }
  return detail::dispatch_below_autograd(op, args, out);
}
}  // namespace

void detail::set_autograd_hook(AutogradHook hook) {
  AutogradHook expected = nullptr;
  if (g_autograd_hook.compare_exchange_strong(expected, hook)) detail::g_observers.fetch_add(1);
}

Stack detail::dispatch_below_autograd(const OpEntry& op, Stack& args, const std::vector<Tensor>* out) {
  const int autograd = g_autograd_hook.load(std::memory_order_relaxed) != nullptr ? 1 : 0;
  if (detail::g_observers.load(std::memory_order_relaxed) > autograd)
    return detail::observe_call(op, args, out, &dispatch_impl);
  return dispatch_impl(op, args, out, nullptr);
}

// g_observers counts trace mode, parity recorders and the autograd hook: with
// none of them a call takes the direct path.
Stack dispatch(const OpEntry& op, Stack& args, const std::vector<Tensor>* out) {
  if (detail::g_observers.load(std::memory_order_relaxed) > 0) return dispatch_intercepted(op, args, out);
  return dispatch_impl(op, args, out, nullptr);
}

Stack call_op(const OpHandle& h, Stack args) {
  const OpEntry& op = *h.entry();
  op.schema.complete_arguments(args);
  return dispatch(op, args);
}

Stack call_op(std::string_view name, Stack args) { return call_op(find_op(name), std::move(args)); }

OpHandle find_op(std::string_view name) {
  const OpEntry* e = Registry::get().find(name);
  AXLE_CHECK(e != nullptr, NotImplementedError, "unknown operator '", name, "'");
  return OpHandle(e);
}

const FunctionSchema& OpHandle::schema() const { return entry_->schema; }

}  // namespace axle
