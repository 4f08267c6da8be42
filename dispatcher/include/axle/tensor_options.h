// TensorOptions: the dtype and device of a new tensor (libtorch's name); unset
// fields take the defaults (axle::get_default_dtype / get_default_device).
#pragma once

#include <axle/dispatcher.h>
#include <axle/tensor.h>

#include <optional>

namespace axle {

class AXLE_API TensorOptions {
 public:
  TensorOptions() = default;
  TensorOptions dtype(DType d) const {
    auto o = *this;
    o.dtype_ = d;
    return o;
  }
  TensorOptions device(const Device& d) const {
    auto o = *this;
    o.device_ = d;
    return o;
  }
  std::optional<DType> dtype_opt() const { return dtype_; }
  std::optional<Device> device_opt() const { return device_; }
  DType dtype() const { return dtype_.value_or(get_default_dtype()); }
  Device device() const { return device_.value_or(get_default_device()); }

 private:
  std::optional<DType> dtype_;
  std::optional<Device> device_;
};

}  // namespace axle
