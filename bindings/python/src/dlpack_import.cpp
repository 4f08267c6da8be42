// The checks of a producer's DLTensor (dlpack_import.h).
#include "dlpack_import.h"

#include <axle/device_runtime.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace axle::python {

namespace {

DType axle_dtype_of(const DLDataType& t) {
  AXLE_CHECK(t.lanes == 1, DTypeError, "from_dlpack(): vector types (lanes ", t.lanes, ") are not supported");
  if (t.code == kDLFloat && t.bits == 32) return kFloat32;
  if (t.code == kDLFloat && t.bits == 64) return kFloat64;
  if (t.code == kDLFloat && t.bits == 16) return kFloat16;
  if (t.code == kDLBfloat && t.bits == 16) return kBFloat16;
  if (t.code == kDLInt && t.bits == 8) return kInt8;
  if (t.code == kDLInt && t.bits == 16) return kInt16;
  if (t.code == kDLInt && t.bits == 32) return kInt32;
  if (t.code == kDLInt && t.bits == 64) return kInt64;
  if (t.code == kDLUInt && t.bits == 8) return kUInt8;
  if (t.code == 6 /* kDLBool, DLPack >= 0.8 */ && t.bits == 8) return kBool;
  throw DTypeError(
      detail::concat("from_dlpack(): unsupported DLPack dtype (code ", int(t.code), ", bits ", int(t.bits), ")"));
}

Device axle_device_of(const DLDevice& d, const char* where) {
  // Read as the int it is: a producer may store a value no enumerator has,
  // which loaded as DLDeviceType is undefined behaviour.
  static_assert(sizeof(d.device_type) == sizeof(int32_t));
  int32_t type = 0;
  std::memcpy(&type, &d.device_type, sizeof type);
  if (type == kDLCPU || type == kDLCUDAHost) return Device("cpu");
  AXLE_CHECK(type == kDLCUDA, DeviceError, where, ": DLPack device type ", type,
             " is not supported (CPU and CUDA memory are)");
  const Device dev("cuda:" + std::to_string(d.device_id));
  checked_runtime(dev);  // no such device here: a DeviceError with the reason
  return dev;
}

}  // namespace

DLPackImport check_dlpack(const DLTensor& dl, const char* where) {
  const Device device = axle_device_of(dl.device, where);
  const DType dt = axle_dtype_of(dl.dtype);
  // The producer's metadata is checked before it is read: the rank (then
  // shape and strides hold that many entries), sizes whose product fits
  // (checked_numel) and a byte extent that does (from_blob, later).
  AXLE_CHECK(dl.ndim >= 0 && dl.ndim <= kMaxTensorDims, ValueError, where, ": ndim ", dl.ndim, " is outside [0, ",
             kMaxTensorDims, "]");
  AXLE_CHECK(dl.ndim == 0 || dl.shape != nullptr, ValueError, where, ": ndim ", dl.ndim, " but no shape");
  IntList sizes(dl.shape, dl.shape + dl.ndim);
  for (int64_t s : sizes)
    AXLE_CHECK(s >= 0, ValueError, where, ": negative size ", s, " in shape ", shape_string(sizes));
  const int64_t numel = checked_numel(sizes);
  IntList strides = dl.strides ? IntList(dl.strides, dl.strides + dl.ndim) : contiguous_strides(sizes);
  for (int64_t s : strides) AXLE_CHECK(s >= 0, ValueError, where, ": negative strides are not supported");
  AXLE_CHECK(numel == 0 || dl.data != nullptr, ValueError, where, ": a NULL data pointer for ", numel, " elements");
  uintptr_t address = 0;
  AXLE_CHECK(!__builtin_add_overflow(reinterpret_cast<uintptr_t>(dl.data), dl.byte_offset, &address), ValueError, where,
             ": byte_offset ", dl.byte_offset, " overflows the data pointer");
  return {device, dt, std::move(sizes), std::move(strides), reinterpret_cast<void*>(address)};
}

}  // namespace axle::python
