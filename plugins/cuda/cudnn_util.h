// The cuDNN pieces shared by the plugin's cuDNN kernels (conv_pool.cpp): status
// capture (what cuDNN cannot do declines the call, every other failure becomes
// an axle status carrying cudnnGetErrorString's text), one handle per (device,
// thread) created on first use, descriptor owners, and the 4-d NCHW view of an
// axle tensor that cuDNN's legacy tensor descriptors express (explicit strides,
// so channels_last and other strided layouts need no copy).
//
// Nothing here touches CUDA or cuDNN before a kernel asks for a handle: loading
// the plugin stays free of CUDA calls (plugin.cpp).
#pragma once

#include "cuda_util.h"

#include <cudnn.h>

namespace axle::cuda {

// Whether a cuDNN status means "this configuration is not served" (NOT_SUPPORTED
// and its sub-codes, a pointer the kernel cannot use): the call is declined. An
// installation problem (driver, cudart, architecture, a missing sublibrary) is
// an error instead.
bool cudnn_cannot_serve(cudnnStatus_t s);

// AXLE_OK; AXLE_DECLINED where cudnn_cannot_serve; otherwise an error status
// (OutOfMemoryError for allocation failures, DeviceError else) with
// "what: CUDNN_STATUS_...: cuDNN's last error message", recorded as the
// thread's last error and, inside a kernel call, on the call.
axle_status check_cudnn(cudnnStatus_t s, const char* what, const axle_kernel_call* call = nullptr);

// The calling thread's handle for `device` (the current device: hold a
// DeviceGuard), bound to the call's stream. Created on first use; a thread that
// ends gives its handles back for other threads.
axle_status cudnn_handle(int device, const axle_kernel_call* call, cudnnHandle_t* handle);

// cuDNN's data type of an axle dtype: float32, float64, float16, bfloat16 only.
bool cudnn_dtype(axle_dtype d, cudnnDataType_t* t);

// alpha = 1 / beta = 0 as cuDNN reads them: double for double data, float otherwise.
const void* cudnn_one(cudnnDataType_t t);
const void* cudnn_zero(cudnnDataType_t t);

// Owner of one cuDNN descriptor (destroyed with it).
template <typename T, cudnnStatus_t (*Create)(T*), cudnnStatus_t (*Destroy)(T)>
class CudnnDescriptor {
 public:
  CudnnDescriptor() = default;
  ~CudnnDescriptor() {
    if (d_) Destroy(d_);
  }
  CudnnDescriptor(const CudnnDescriptor&) = delete;
  CudnnDescriptor& operator=(const CudnnDescriptor&) = delete;
  cudnnStatus_t create() { return d_ ? CUDNN_STATUS_SUCCESS : Create(&d_); }
  T get() const { return d_; }

 private:
  T d_ = nullptr;
};
using TensorDescriptor =
    CudnnDescriptor<cudnnTensorDescriptor_t, &cudnnCreateTensorDescriptor, &cudnnDestroyTensorDescriptor>;
using FilterDescriptor =
    CudnnDescriptor<cudnnFilterDescriptor_t, &cudnnCreateFilterDescriptor, &cudnnDestroyFilterDescriptor>;
using ConvolutionDescriptor = CudnnDescriptor<cudnnConvolutionDescriptor_t, &cudnnCreateConvolutionDescriptor,
                                              &cudnnDestroyConvolutionDescriptor>;
using PoolingDescriptor =
    CudnnDescriptor<cudnnPoolingDescriptor_t, &cudnnCreatePoolingDescriptor, &cudnnDestroyPoolingDescriptor>;

// A tensor as a 4-d NCHW shape with element strides, in cuDNN's int range.
struct Nchw {
  int sizes[4] = {1, 1, 1, 1};
  int strides[4] = {1, 1, 1, 1};
  bool channels_last() const;    // C is the innermost dim that is not of size 1
  bool packed(bool nhwc) const;  // exactly the dense NCHW (NHWC) layout, size-1 dims aside
  bool non_overlapping() const;  // no two elements share memory (a writable output)
};

// `v` (3-d or 4-d) as an Nchw: a 3-d view gains a size-1 dim at `unit_dim` (H for
// a 1-d convolution, N for an unbatched pool). A size-1 dim's stride, arbitrary
// in axle, becomes the one it would have in the dense NCHW / NHWC tensor (cuDNN
// infers layouts from strides). false when cuDNN cannot describe the view: an
// empty or broadcast (stride 0) dim, or sizes / strides / the span over int.
bool as_nchw(const axle_tensor_view& v, int unit_dim, Nchw* out);

// Sets `d` to describe `t` with data type `dt` (cudnnSetTensorNdDescriptor).
axle_status set_tensor(TensorDescriptor& d, cudnnDataType_t dt, const Nchw& t, const axle_kernel_call* call);

}  // namespace axle::cuda
