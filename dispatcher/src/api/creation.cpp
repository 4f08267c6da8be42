// C++ API of the creation family (axle/ops/creation.h): each factory calls its
// declared operator; from_blob and scalar_to_tensor wrap memory or a scalar.
#include <axle/ops/creation.h>

#include <axle/plugin/helpers.hpp>

#include "op_handle.h"

namespace axle {

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
  check_tensor_rank(sizes.size(), "from_blob");
  AXLE_CHECK(sizes.size() == strides.size(), ShapeError, "from_blob(): ", sizes.size(), " sizes but ", strides.size(),
             " strides");
  const int64_t n = checked_numel(sizes);
  // The bytes the view reaches: (1 + sum((size - 1) * stride)) elements, in
  // overflow-checked arithmetic.
  int64_t extent = n == 0 ? 0 : 1, step = 0;
  size_t nbytes = 0;
  const DType dt = o.dtype();
  for (size_t i = 0; i < sizes.size(); ++i) {
    AXLE_CHECK(strides[i] >= 0, ValueError, "from_blob(): negative stride ", strides[i]);
    if (n == 0) continue;
    AXLE_CHECK(
        !__builtin_mul_overflow(sizes[i] - 1, strides[i], &step) && !__builtin_add_overflow(extent, step, &extent),
        ValueError, "from_blob(): size ", shape_string(sizes), " and stride ", shape_string(strides),
        " reach past what int64 can count");
  }
  AXLE_CHECK(!__builtin_mul_overflow(static_cast<size_t>(extent), element_size(dt), &nbytes) &&
                 nbytes <= static_cast<size_t>(INT64_MAX),
             ValueError, "from_blob(): size ", shape_string(sizes), " and stride ", shape_string(strides), " of ",
             dtype_name(dt), " reach past the address space");
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = wrap_storage(data, nbytes, o.device(), std::move(deleter));
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

}  // namespace axle
