// The checks axle.from_dlpack makes on a producer's DLTensor before reading it,
// without Python (dlpack.cpp calls them on a capsule's tensor; the fuzz target
// tests/fuzz/fuzz_dlpack.cpp on tensors made from its input).
#pragma once

#include <axle/axle.h>

#include <dlpack/dlpack.h>

namespace axle::python {

// What a DLTensor describes, checked: a supported device and dtype, a rank in
// [0, kMaxTensorDims] with its shape (and strides, when given) present,
// non-negative sizes whose product fits, non-negative strides, a data pointer
// for a non-empty tensor and a byte offset that does not overflow it.
struct DLPackImport {
  Device device;
  DType dtype;
  IntList sizes, strides;
  void* data = nullptr;
};

// Throws DTypeError, DeviceError or ValueError naming `where` and the problem.
DLPackImport check_dlpack(const DLTensor& dl, const char* where);

}  // namespace axle::python
