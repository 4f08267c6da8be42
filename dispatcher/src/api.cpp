// The C++ operator API and the dispatched Tensor methods: thin wrappers that call
// the declared operators (each resolves its OpHandle once).
#include <axle/config.h>
#include <axle/device_runtime.h>
#include <axle/dispatcher.h>
#include <axle/ops.h>

#include <axle/plugin/helpers.hpp>

#include "api/op_handle.h"
#include "registry.h"

#include <atomic>
#include <cmath>

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

void set_default_device(const Device& d) { g_default_device.store(pack(d), std::memory_order_relaxed); }

// ---------------------------------------------------------------- creation
namespace {
Value opt_dtype(const TensorOptions& o) { return o.dtype_opt() ? Value(*o.dtype_opt()) : Value(); }
Value opt_device(const TensorOptions& o) { return o.device_opt() ? Value(*o.device_opt()) : Value(); }
}  // namespace

Tensor empty(const IntList& size, const TensorOptions& o) {
  return detail::call_one(AXLE_OP("empty.memory_format"), size, opt_dtype(o), opt_device(o));
}
Tensor zeros(const IntList& size, const TensorOptions& o) {
  return detail::call_one(AXLE_OP("zeros"), size, opt_dtype(o), opt_device(o));
}
Tensor ones(const IntList& size, const TensorOptions& o) {
  return detail::call_one(AXLE_OP("ones"), size, opt_dtype(o), opt_device(o));
}
Tensor full(const IntList& size, const Scalar& v, const TensorOptions& o) {
  return detail::call_one(AXLE_OP("full"), size, v, opt_dtype(o), opt_device(o));
}
Tensor arange(const Scalar& end, const TensorOptions& o) { return arange(0, end, 1, o); }
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, const TensorOptions& o) {
  return detail::call_one(AXLE_OP("arange.start_step"), start, end, step, opt_dtype(o), opt_device(o));
}
Tensor empty_like(const Tensor& t, const TensorOptions& o) {
  return empty(t.sizes(),
               TensorOptions().dtype(o.dtype_opt().value_or(t.dtype())).device(o.device_opt().value_or(t.device())));
}

Tensor from_blob(void* data, const IntList& sizes, const IntList& strides, std::function<void(void*)> deleter,
                 const TensorOptions& o) {
  AXLE_CHECK(sizes.size() == strides.size(), ShapeError, "from_blob(): ", sizes.size(), " sizes but ", strides.size(),
             " strides");
  const int64_t n = checked_numel(sizes);
  int64_t extent = n == 0 ? 0 : 1;
  for (size_t i = 0; i < sizes.size() && n > 0; ++i) {
    AXLE_CHECK(strides[i] >= 0, ValueError, "from_blob(): negative stride ", strides[i]);
    extent += (sizes[i] - 1) * strides[i];
  }
  const DType dt = o.dtype();
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = wrap_storage(data, static_cast<size_t>(extent) * element_size(dt), o.device(), std::move(deleter));
  impl->sizes = sizes;
  impl->strides = strides;
  impl->dtype = dt;
  return Tensor(std::move(impl));
}

Tensor from_blob(void* data, const IntList& sizes, const TensorOptions& o) {
  return from_blob(data, sizes, contiguous_strides(sizes), nullptr, o);
}

Tensor scalar_to_tensor(const Scalar& s, const Device& device) {
  Tensor t = make_empty({}, s.natural_dtype(), Device("cpu"));
  plugin::store_from<double>(t.data_ptr(), static_cast<axle_dtype>(t.dtype()), s.to_double());
  if (s.is_integral()) *static_cast<int64_t*>(t.data_ptr()) = s.to_int();
  t.unsafe_impl().wrapped_number = true;
  if (!device.is_cpu()) {
    Tensor d = t.to(device);
    d.unsafe_impl().wrapped_number = true;
    return d;
  }
  return t;
}

// ---------------------------------------------------------------- ops
Tensor clone(const Tensor& t) { return detail::call_one(AXLE_OP("clone"), t); }
Tensor reshape(const Tensor& t, const IntList& shape) { return detail::call_one(AXLE_OP("reshape"), t, shape); }
Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  return detail::call_one(AXLE_OP("add.Tensor"), a, b, alpha);
}
Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  return detail::call_one(AXLE_OP("sub.Tensor"), a, b, alpha);
}
Tensor mul(const Tensor& a, const Tensor& b) { return detail::call_one(AXLE_OP("mul.Tensor"), a, b); }
Tensor div(const Tensor& a, const Tensor& b) { return detail::call_one(AXLE_OP("div.Tensor"), a, b); }
Tensor eq(const Tensor& a, const Tensor& b) { return detail::call_one(AXLE_OP("eq.Tensor"), a, b); }
Tensor ne(const Tensor& a, const Tensor& b) { return detail::call_one(AXLE_OP("ne.Tensor"), a, b); }
Tensor lt(const Tensor& a, const Tensor& b) { return detail::call_one(AXLE_OP("lt.Tensor"), a, b); }
Tensor le(const Tensor& a, const Tensor& b) { return detail::call_one(AXLE_OP("le.Tensor"), a, b); }
Tensor gt(const Tensor& a, const Tensor& b) { return detail::call_one(AXLE_OP("gt.Tensor"), a, b); }
Tensor ge(const Tensor& a, const Tensor& b) { return detail::call_one(AXLE_OP("ge.Tensor"), a, b); }
Tensor neg(const Tensor& t) { return detail::call_one(AXLE_OP("neg"), t); }
Tensor exp(const Tensor& t) { return detail::call_one(AXLE_OP("exp"), t); }
#define AXLE_DEFINE_UNARY(name) \
  Tensor name(const Tensor& t) { return detail::call_one(AXLE_OP(#name), t); }
AXLE_UNARY_MATH_OPS(AXLE_DEFINE_UNARY)
#undef AXLE_DEFINE_UNARY
Tensor relu(const Tensor& t) { return detail::call_one(AXLE_OP("relu"), t); }
Tensor sum(const Tensor& t, std::optional<DType> dtype) { return detail::call_one(AXLE_OP("sum"), t, dtype); }
Tensor sum(const Tensor& t, const IntList& dim, bool keepdim, std::optional<DType> dtype) {
  return detail::call_one(AXLE_OP("sum.dim_IntList"), t, dim, keepdim, dtype);
}
Tensor mean(const Tensor& t, std::optional<DType> dtype) { return detail::call_one(AXLE_OP("mean"), t, dtype); }
Tensor mean(const Tensor& t, const IntList& dim, bool keepdim, std::optional<DType> dtype) {
  return detail::call_one(AXLE_OP("mean.dim"), t, dim, keepdim, dtype);
}
Tensor matmul(const Tensor& a, const Tensor& b) { return detail::call_one(AXLE_OP("matmul"), a, b); }
Tensor nonzero(const Tensor& t) { return detail::call_one(AXLE_OP("nonzero"), t); }

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator-(const Tensor& a) { return neg(a); }
Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, scalar_to_tensor(b)); }
Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, scalar_to_tensor(b)); }
Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, scalar_to_tensor(b)); }
Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, scalar_to_tensor(b)); }
Tensor operator+(const Scalar& a, const Tensor& b) { return add(scalar_to_tensor(a), b); }
Tensor operator*(const Scalar& a, const Tensor& b) { return mul(scalar_to_tensor(a), b); }
Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }

// ---------------------------------------------------------------- Tensor methods
Tensor Tensor::reshape(const IntList& shape) const { return axle::reshape(*this, shape); }
Tensor Tensor::contiguous() const { return detail::call_one(AXLE_OP("contiguous"), *this); }
Tensor Tensor::contiguous(MemoryFormat format) const {
  return detail::call_one(AXLE_OP("contiguous"), *this, memory_format_name(format));
}
Tensor Tensor::clone() const { return axle::clone(*this); }
Tensor Tensor::to(const Device& device, bool non_blocking, bool copy) const {
  return detail::call_one(AXLE_OP("to.device"), *this, device, Value(), non_blocking, copy);
}
Tensor Tensor::to(DType dtype, bool non_blocking, bool copy) const {
  return detail::call_one(AXLE_OP("to.dtype"), *this, dtype, non_blocking, copy);
}
Tensor Tensor::to(const Device& device, DType dtype, bool non_blocking, bool copy) const {
  return detail::call_one(AXLE_OP("to.device"), *this, device, dtype, non_blocking, copy);
}
Tensor Tensor::pin_memory(const std::optional<std::string>& device_type) const {
  AXLE_CHECK(device().is_cpu(), DeviceError, "pin_memory: only host tensors can be pinned, got a ", device(),
             " tensor");
  if (is_pinned()) return *this;
  std::string type;
  if (device_type) {
    type = *device_type;
  } else {
    // The device types' runtimes only (no per-device properties: a data loader
    // pins every batch); the message is built only when none offers it.
    load_all_plugins();
    const std::vector<DeviceType> types = Registry::get().runtime_types();
    auto offers = [](DeviceType t) {
      DeviceRuntime& rt = device_runtime(t);
      return rt.device_count() > 0 && rt.supports_pinned_memory();
    };
    for (DeviceType t : types)
      if (!t.is_host() && offers(t)) {
        type = t.name();
        break;
      }
    if (type.empty()) {
      std::string seen;
      for (DeviceType t : types) {
        if (t.is_host()) continue;
        const int count = device_runtime(t).device_count();
        seen += (seen.empty() ? "" : ", ") + t.name() + " (" + std::to_string(count) + " devices" +
                (count > 0 ? ", no pinned memory" : "") + ")";
      }
      throw DeviceError(detail::concat("pin_memory: no device type with devices offers pinned host memory",
                                       seen.empty() ? "" : "; found: ", seen));
    }
  }
  Tensor out(std::make_shared<TensorImpl>(TensorImpl{allocate_pinned_storage(nbytes(), DeviceType(type)), sizes(),
                                                     contiguous_strides(sizes()), 0, dtype(), false}));
  out.copy_(*this);
  return out;
}

Tensor& Tensor::copy_(const Tensor& src, bool non_blocking) {
  detail::call(AXLE_OP("copy_"), *this, src, non_blocking);
  return *this;
}
Tensor& Tensor::fill_(const Scalar& value) {
  detail::call(AXLE_OP("fill_.Scalar"), *this, value);
  return *this;
}
Tensor Tensor::add(const Tensor& o, const Scalar& alpha) const { return axle::add(*this, o, alpha); }
Tensor Tensor::sub(const Tensor& o, const Scalar& alpha) const { return axle::sub(*this, o, alpha); }
Tensor Tensor::mul(const Tensor& o) const { return axle::mul(*this, o); }
Tensor Tensor::div(const Tensor& o) const { return axle::div(*this, o); }
Tensor& Tensor::add_(const Tensor& o, const Scalar& alpha) {
  detail::call(AXLE_OP("add_.Tensor"), *this, o, alpha);
  return *this;
}
Tensor& Tensor::mul_(const Tensor& o) {
  detail::call(AXLE_OP("mul_.Tensor"), *this, o);
  return *this;
}
Tensor Tensor::neg() const { return axle::neg(*this); }
Tensor Tensor::exp() const { return axle::exp(*this); }
Tensor Tensor::relu() const { return axle::relu(*this); }
Tensor Tensor::sum(std::optional<DType> dtype) const { return axle::sum(*this, dtype); }
Tensor Tensor::sum(const IntList& dim, bool keepdim, std::optional<DType> dtype) const {
  return axle::sum(*this, dim, keepdim, dtype);
}
Tensor Tensor::mean(std::optional<DType> dtype) const { return axle::mean(*this, dtype); }
Tensor Tensor::mean(const IntList& dim, bool keepdim, std::optional<DType> dtype) const {
  return axle::mean(*this, dim, keepdim, dtype);
}
Tensor Tensor::matmul(const Tensor& o) const { return axle::matmul(*this, o); }
Tensor Tensor::nonzero() const { return axle::nonzero(*this); }

// ---------------------------------------------------------------- comparison helpers
namespace {
template <typename F>
bool compare(const Tensor& a, const Tensor& b, F&& same) {
  if (a.sizes() != b.sizes()) return false;
  const Tensor ha = a.to(Device("cpu"), kFloat64).contiguous();
  const Tensor hb = b.to(Device("cpu"), kFloat64).contiguous();
  const double* pa = ha.data_ptr<double>();
  const double* pb = hb.data_ptr<double>();
  for (int64_t i = 0; i < ha.numel(); ++i)
    if (!same(pa[i], pb[i])) return false;
  return true;
}
}  // namespace

bool equal(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype()) return false;
  return compare(a, b, [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); });
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol) {
  return compare(a, b, [&](double x, double y) {
    if (std::isnan(x) || std::isnan(y)) return false;
    if (x == y) return true;
    return std::fabs(x - y) <= atol + rtol * std::fabs(y);
  });
}

}  // namespace axle
