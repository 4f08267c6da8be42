// The dispatched Tensor methods (declared in axle/tensor.h: reshape, contiguous,
// to, copy_, add, sum, ...), which call the declared operators or the free
// functions of axle/ops.h, and the host-side comparisons equal/allclose.
#include <axle/compare.h>
#include <axle/device_runtime.h>
#include <axle/dispatcher.h>
#include <axle/ops.h>

#include "../ops/shape_util.h"
#include "op_handle.h"
#include "registry.h"

#include <cmath>

namespace axle {

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
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = allocate_pinned_storage(nbytes(), DeviceType(type));
  impl->sizes = sizes();
  impl->strides = contiguous_strides(sizes());
  impl->dtype = dtype();
  Tensor out(std::move(impl));
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

// ---------------------------------------------------------------- equal / allclose
bool equal(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes()) return false;
  return compare(a, b, Tolerance{.equal_nan = false}, /*check_dtype=*/false).matches();
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol) {
  AXLE_CHECK(a.dtype() == b.dtype(), DTypeError, "allclose: ", torch_type_name(a.dtype()), " did not match ",
             torch_type_name(b.dtype()));
  const IntList sizes = shape::broadcast(a.sizes(), b.sizes());
  return compare(a.expand(sizes), b.expand(sizes), Tolerance{.rtol = rtol, .atol = atol, .equal_nan = false}).matches();
}

}  // namespace axle
