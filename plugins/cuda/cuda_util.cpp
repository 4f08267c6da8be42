#include "cuda_util.h"

#include <mutex>

namespace axle::cuda {
namespace {
thread_local std::string t_last_error;
}

void set_last_error(std::string message) { t_last_error = std::move(message); }
const char* last_error_text() { return t_last_error.empty() ? nullptr : t_last_error.c_str(); }

axle_status check(cudaError_t e, const char* what, const axle_kernel_call* call) {
  if (e == cudaSuccess) return AXLE_OK;
  cudaGetLastError();  // clear a sticky non-fatal error so later calls are not blamed
  std::string msg = std::string(what) + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
  const axle_status s = e == cudaErrorMemoryAllocation ? AXLE_ERROR_OUT_OF_MEMORY
                        : e == cudaErrorInvalidValue   ? AXLE_ERROR_INVALID_ARGUMENT
                                                       : AXLE_ERROR_DEVICE;
  if (call) plugin::fail(call, s, msg);
  set_last_error(std::move(msg));
  return s;
}

namespace {
struct Devices {
  int count = 0;
  std::string reason;
};
// cudaGetDeviceCount once: 35 (insufficient driver, no driver at all) and 100 (no
// device) both mean zero devices; the reason is kept for `axle info` and errors.
const Devices& devices() {
  static const Devices d = [] {
    Devices r;
    int n = 0;
    const cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
      r.reason = std::string("cudaGetDeviceCount: ") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
      cudaGetLastError();
      n = 0;
    } else if (n == 0) {
      r.reason = "cudaGetDeviceCount reports no CUDA device";
    }
    r.count = n;
    return r;
  }();
  return d;
}
}  // namespace

const std::string& unavailable_reason() { return devices().reason; }
int device_count() { return devices().count; }

DeviceGuard::DeviceGuard(int index) : index_(index) {
  if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
  ok_ = previous_ == index || cudaSetDevice(index) == cudaSuccess;
  // A failure must not stay the thread's last error: launch checks read it.
  if (!ok_ || previous_ < 0) cudaGetLastError();
}
axle_status DeviceGuard::status(const axle_kernel_call* call) const {
  return ok_ ? AXLE_OK : check(cudaSetDevice(index_), "cudaSetDevice", call);
}
DeviceGuard::~DeviceGuard() {
  int now = -1;
  if (previous_ >= 0 && cudaGetDevice(&now) == cudaSuccess && now != previous_ &&
      cudaSetDevice(previous_) != cudaSuccess)
    cudaGetLastError();
}

}  // namespace axle::cuda
