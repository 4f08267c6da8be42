// The CUDA plugin's shared pieces: error capture (every CUDA / cuBLAS failure
// becomes an axle status with the library's error string), the per-thread last
// error the core reads through `last_error`, and a device guard.
#pragma once

#include <axle/plugin/helpers.hpp>

#include <cuda_runtime_api.h>

#include <string>

namespace axle::cuda {

// The last error text of this thread (device runtime calls outside a kernel).
void set_last_error(std::string message);
const char* last_error_text();

// AXLE_OK, or an error status with "what: cudaErrorName: description" recorded
// both as the thread's last error and, inside a kernel call, on the call.
axle_status check(cudaError_t e, const char* what, const axle_kernel_call* call = nullptr);

// Why there are zero devices ("" when there are some); computed once.
const std::string& unavailable_reason();
int device_count();

// Makes `index` the current device for the scope, restoring the previous one.
class DeviceGuard {
 public:
  explicit DeviceGuard(int index);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;
  // AXLE_OK, or the status of the failed cudaSetDevice (recorded as check() does).
  axle_status status(const axle_kernel_call* call = nullptr) const;

 private:
  int index_ = -1;
  int previous_ = -1;
  bool ok_ = false;
};

// The axle stream handle of a kernel call or copy (NULL: the legacy default stream).
inline cudaStream_t to_cuda(void* stream) { return static_cast<cudaStream_t>(stream); }

}  // namespace axle::cuda
