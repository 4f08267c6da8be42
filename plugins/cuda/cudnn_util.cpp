// See cudnn_util.h.
#include "cudnn_util.h"

#include <algorithm>
#include <climits>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace axle::cuda {
namespace {

int category(cudnnStatus_t s) { return static_cast<int>(s) / 1000 * 1000; }

// Handles given back by threads that ended, per device. Handles are never
// destroyed: at process exit the CUDA runtime may already be torn down, and a
// bounded set (one per concurrently running thread) is reused instead.
struct HandlePool {
  std::mutex mutex;
  std::map<int, std::vector<cudnnHandle_t>> free;
};
HandlePool& pool() {
  static HandlePool* p = new HandlePool;  // outlives every thread's ThreadHandles
  return *p;
}

struct ThreadHandles {
  std::map<int, cudnnHandle_t> by_device;
  ThreadHandles() = default;
  ThreadHandles(const ThreadHandles&) = delete;
  ThreadHandles& operator=(const ThreadHandles&) = delete;
  ~ThreadHandles() {
    HandlePool& p = pool();
    std::lock_guard lock(p.mutex);
    for (const auto& [device, h] : by_device) p.free[device].push_back(h);
  }
};

cudnnHandle_t take_pooled(int device) {
  HandlePool& p = pool();
  std::lock_guard lock(p.mutex);
  auto it = p.free.find(device);
  if (it == p.free.end() || it->second.empty()) return nullptr;
  cudnnHandle_t h = it->second.back();
  it->second.pop_back();
  return h;
}

// cuDNN's message for the last failure of this thread (and clears it); "" if none.
std::string last_cudnn_message() {
  char text[1024] = "";
  cudnnGetLastErrorString(text, sizeof text);
  std::string s(text);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

bool cudnn_cannot_serve(cudnnStatus_t s) {
  switch (s) {
    // The installation, not the call: an error naming it, never a silent
    // fallback to the host for every convolution.
    case CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDA_DRIVER:
    case CUDNN_STATUS_NOT_SUPPORTED_INCOMPATIBLE_CUDART:
    case CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH:
    case CUDNN_STATUS_NOT_SUPPORTED_RUNTIME_PREREQUISITE_MISSING:
    case CUDNN_STATUS_NOT_SUPPORTED_SUBLIBRARY_UNAVAILABLE: return false;
    default:
      return category(s) == static_cast<int>(CUDNN_STATUS_NOT_SUPPORTED) ||
             s == CUDNN_STATUS_BAD_PARAM_MISALIGNED_POINTER;
  }
}

axle_status check_cudnn(cudnnStatus_t s, const char* what, const axle_kernel_call* call) {
  if (s == CUDNN_STATUS_SUCCESS) return AXLE_OK;
  const std::string detail = last_cudnn_message();  // read even when declining, so it is not blamed later
  if (cudnn_cannot_serve(s)) return AXLE_DECLINED;
  std::string msg = std::string(what) + ": " + cudnnGetErrorString(s);
  if (!detail.empty()) msg += ": " + detail;
  const axle_status status = s == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED ||
                                     s == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED
                                 ? AXLE_ERROR_OUT_OF_MEMORY
                                 : AXLE_ERROR_DEVICE;
  if (call) plugin::fail(call, status, msg);
  set_last_error(std::move(msg));
  return status;
}

axle_status cudnn_handle(int device, const axle_kernel_call* call, cudnnHandle_t* handle) {
  thread_local ThreadHandles mine;
  cudnnHandle_t h = nullptr;
  auto it = mine.by_device.find(device);
  if (it != mine.by_device.end()) {
    h = it->second;
  } else {
    h = take_pooled(device);
    if (!h) {
      if (axle_status s = check_cudnn(cudnnCreate(&h), "cudnnCreate", call)) return s;
    }
    mine.by_device.emplace(device, h);
  }
  if (axle_status s = check_cudnn(cudnnSetStream(h, to_cuda(call ? call->stream : nullptr)), "cudnnSetStream", call))
    return s;
  *handle = h;
  return AXLE_OK;
}

bool cudnn_dtype(axle_dtype d, cudnnDataType_t* t) {
  switch (d) {
    case AXLE_DTYPE_FLOAT32: *t = CUDNN_DATA_FLOAT; return true;
    case AXLE_DTYPE_FLOAT64: *t = CUDNN_DATA_DOUBLE; return true;
    case AXLE_DTYPE_FLOAT16: *t = CUDNN_DATA_HALF; return true;
    case AXLE_DTYPE_BFLOAT16: *t = CUDNN_DATA_BFLOAT16; return true;
    default: return false;
  }
}

const void* cudnn_one(cudnnDataType_t t) {
  static const float f = 1.0f;
  static const double d = 1.0;
  return t == CUDNN_DATA_DOUBLE ? static_cast<const void*>(&d) : &f;
}
const void* cudnn_zero(cudnnDataType_t t) {
  static const float f = 0.0f;
  static const double d = 0.0;
  return t == CUDNN_DATA_DOUBLE ? static_cast<const void*>(&d) : &f;
}

// ------------------------------------------------------------ Nchw

namespace {
// Dims from outermost to innermost in the dense layout.
constexpr int kNchwOrder[4] = {0, 1, 2, 3};
constexpr int kNhwcOrder[4] = {0, 2, 3, 1};
}  // namespace

bool Nchw::channels_last() const {
  if (sizes[1] == 1) return false;
  bool spatial = false;
  for (int k = 2; k < 4; ++k) {
    if (sizes[k] == 1) continue;
    if (strides[k] <= strides[1]) return false;
    spatial = true;
  }
  return spatial;
}

bool Nchw::packed(bool nhwc) const {
  const int* order = nhwc ? kNhwcOrder : kNchwOrder;
  int64_t expected = 1;
  for (int i = 3; i >= 0; --i) {
    const int k = order[i];
    if (sizes[k] == 1) continue;
    if (strides[k] != expected) return false;
    expected *= sizes[k];
  }
  return true;
}

bool Nchw::non_overlapping() const {
  std::pair<int64_t, int64_t> dims[4];  // (stride, size) of the dims of size > 1
  int n = 0;
  for (int k = 0; k < 4; ++k)
    if (sizes[k] > 1) dims[n++] = {strides[k], sizes[k]};
  for (int i = 1; i < n; ++i)  // insertion sort by stride (GCC 12 misreports std::sort on 4 items)
    for (int j = i; j > 0 && dims[j] < dims[j - 1]; --j) std::swap(dims[j], dims[j - 1]);
  for (int i = 1; i < n; ++i)
    if (dims[i].first < dims[i - 1].first * dims[i - 1].second) return false;
  return true;
}

bool as_nchw(const axle_tensor_view& v, int unit_dim, Nchw* out) {
  if (v.ndim != 3 && v.ndim != 4) return false;
  int64_t sizes[4], strides[4];
  for (int k = 0, src = 0; k < 4; ++k) {
    const bool unit = v.ndim == 3 && k == unit_dim;
    sizes[k] = unit ? 1 : v.sizes[src];
    strides[k] = unit ? 0 : v.strides[src];
    if (!unit) ++src;
  }
  int64_t span = 0;  // offset of the last element
  for (int k = 0; k < 4; ++k) {
    if (sizes[k] <= 0 || sizes[k] > INT_MAX) return false;
    if (sizes[k] == 1) continue;
    if (strides[k] <= 0) return false;
    span += (sizes[k] - 1) * strides[k];
    if (span >= INT_MAX) return false;
  }
  Nchw t;
  for (int k = 0; k < 4; ++k) {
    t.sizes[k] = static_cast<int>(sizes[k]);
    t.strides[k] = sizes[k] == 1 ? 1 : static_cast<int>(strides[k]);
  }
  // Size-1 dims: the stride of the dense layout the other dims suggest.
  const int* order = t.channels_last() ? kNhwcOrder : kNchwOrder;
  int64_t extent = 1;
  for (int i = 3; i >= 0; --i) {
    const int k = order[i];
    if (sizes[k] == 1) {
      if (extent > INT_MAX) return false;
      t.strides[k] = static_cast<int>(extent);
    } else {
      extent = std::max(extent, sizes[k] * strides[k]);
    }
  }
  *out = t;
  return true;
}

axle_status set_tensor(TensorDescriptor& d, cudnnDataType_t dt, const Nchw& t, const axle_kernel_call* call) {
  if (axle_status s = check_cudnn(d.create(), "cudnnCreateTensorDescriptor", call)) return s;
  return check_cudnn(cudnnSetTensorNdDescriptor(d.get(), dt, 4, t.sizes, t.strides), "cudnnSetTensorNdDescriptor",
                     call);
}

}  // namespace axle::cuda
