// Tensor: storage + sizes + strides (in elements) + storage offset + dtype.
// A Tensor is a shared handle (copies alias the same TensorImpl, as in libtorch).
// View methods here are metadata-only and live in the core; methods that compute
// (to, contiguous, add, ...) go through the dispatcher (dispatcher/src/api/tensor_methods.cpp).
#pragma once

#include <axle/device.h>
#include <axle/dtype.h>
#include <axle/error.h>
#include <axle/export.h>
#include <axle/scalar.h>
#include <axle/small_vector.h>
#include <axle/storage.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace axle {

// Sizes, strides and int[] arguments: up to 6 values inline (no allocation).
using IntList = SmallVector<int64_t, 6>;

// Memory formats of 4-d tensors, as torch.memory_format: NCHW (contiguous_format),
// NHWC memory viewed as NCHW (channels_last), or whatever the source has (preserve_format).
enum class MemoryFormat { Contiguous, ChannelsLast, Preserve };
AXLE_API const char* memory_format_name(MemoryFormat f);  // "contiguous_format", ...
// Parses those names; throws ValueError naming the text.
AXLE_API MemoryFormat memory_format_from_name(std::string_view name);

namespace autograd {
struct AutogradMeta;  // the autograd layer's per-tensor state (autograd/include/axle/autograd.h)
class Node;           // a node of the backward graph
}  // namespace autograd

struct TensorImpl {
  Storage storage;
  IntList sizes;
  IntList strides;
  int64_t storage_offset = 0;
  DType dtype = kFloat32;
  bool wrapped_number = false;  // a Python/C++ number turned into a 0-dim tensor (type promotion)
  // Null unless the tensor requires grad (or did, or holds a .grad): owned by
  // the autograd layer, opaque to the core.
  std::shared_ptr<autograd::AutogradMeta> autograd;
};

class TensorOptions;
class Stream;

class AXLE_API Tensor {
 public:
  Tensor() = default;
  explicit Tensor(std::shared_ptr<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return impl_ != nullptr; }
  DType dtype() const { return impl().dtype; }
  DType scalar_type() const { return dtype(); }
  Device device() const { return impl().storage->device; }
  const IntList& sizes() const { return impl().sizes; }
  const IntList& strides() const { return impl().strides; }
  // size(dim)/stride(dim) accept negative dims; throw IndexError when out of range.
  int64_t size(int64_t dim) const;
  int64_t stride(int64_t dim) const;
  int64_t dim() const { return static_cast<int64_t>(impl().sizes.size()); }
  int64_t ndimension() const { return dim(); }
  int64_t numel() const;
  int64_t storage_offset() const { return impl().storage_offset; }
  size_t element_size() const { return axle::element_size(dtype()); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * element_size(); }
  bool is_contiguous() const;
  // Contiguous in `format` (ChannelsLast: 4-d NHWC order; Preserve is not a layout).
  bool is_contiguous(MemoryFormat format) const;
  const Storage& storage() const { return impl().storage; }
  // Address of the first element (device memory for non-host devices).
  void* data_ptr() const {
    const TensorImpl& i = impl();
    return static_cast<char*>(i.storage->data) + i.storage_offset * static_cast<int64_t>(element_size());
  }
  // Typed host pointer; throws DTypeError if T does not match, DeviceError off-host.
  template <typename T>
  T* data_ptr() const {
    check_data_ptr(dtype_of<T>::value);
    return static_cast<T*>(data_ptr());
  }
  // The single value of a one-element tensor (copied to the host if needed).
  template <typename T>
  T item() const;
  Scalar item() const;
  bool is_same(const Tensor& other) const { return impl_ == other.impl_; }
  // How many handles share this tensor's TensorImpl (autograd steals a gradient
  // nobody else holds instead of copying it).
  long use_count() const { return impl_.use_count(); }
  std::string toString() const;  // "float32[2, 3] on cpu:0"

  // ---- views (metadata only; share storage) — PyTorch semantics and errors
  Tensor view(const IntList& shape) const;
  Tensor as_strided(const IntList& sizes, const IntList& strides, std::optional<int64_t> offset = {}) const;
  Tensor permute(const IntList& dims) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor t() const;
  Tensor slice(int64_t dim, std::optional<int64_t> start = {}, std::optional<int64_t> end = {}, int64_t step = 1) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor operator[](int64_t index) const { return select(0, index); }
  Tensor expand(const IntList& sizes) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;

  // ---- dispatched (see axle/ops.h for the free-function forms)
  Tensor reshape(const IntList& shape) const;
  Tensor contiguous() const;
  Tensor contiguous(MemoryFormat format) const;
  Tensor clone() const;
  Tensor to(const Device& device, bool non_blocking = false, bool copy = false) const;
  Tensor to(DType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor to(const Device& device, DType dtype, bool non_blocking = false, bool copy = false) const;
  Tensor cpu() const { return to(Device("cpu")); }
  // A copy in page-locked host memory for `device_type`'s asynchronous copies
  // (default: the first device type with devices that offers it); the tensor
  // itself when already pinned. torch.Tensor.pin_memory.
  Tensor pin_memory(const std::optional<std::string>& device_type = std::nullopt) const;
  bool is_pinned() const { return defined() && axle::is_pinned(*storage()); }
  // Marks the memory as used by work on `stream` (of this tensor's device): its
  // release then waits for the work queued there (torch.Tensor.record_stream).
  // Needed when a tensor allocated on one stream is used on another and freed
  // while that work may still run. DeviceError for a stream of another device.
  void record_stream(const Stream& stream) const;
  Tensor& copy_(const Tensor& src, bool non_blocking = false);
  Tensor& fill_(const Scalar& value);
  Tensor& zero_() { return fill_(0); }
  Tensor add(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor sub(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor mul(const Tensor& other) const;
  Tensor div(const Tensor& other) const;
  Tensor& add_(const Tensor& other, const Scalar& alpha = 1);
  Tensor& mul_(const Tensor& other);
  Tensor neg() const;
  Tensor exp() const;
  Tensor relu() const;
  Tensor sum(std::optional<DType> dtype = {}) const;
  Tensor sum(const IntList& dim, bool keepdim = false, std::optional<DType> dtype = {}) const;
  Tensor mean(std::optional<DType> dtype = {}) const;
  Tensor mean(const IntList& dim, bool keepdim = false, std::optional<DType> dtype = {}) const;
  Tensor matmul(const Tensor& other) const;
  Tensor nonzero() const;

  // ---- autograd (autograd/src/tensor_autograd.cpp; torch's names and rules)
  // Only floating tensors can require grad (ValueError otherwise); a non-leaf
  // cannot be set to not require grad. Returns *this.
  Tensor& requires_grad_(bool requires_grad = true);
  bool requires_grad() const;
  // The accumulated gradient (undefined until a backward reaches this leaf).
  const Tensor& grad() const;
  void set_grad(const Tensor& g);  // torch's `t.grad = g` (undefined: None)
  // The node that made this tensor (null for leaves and tensors that do not require grad).
  std::shared_ptr<autograd::Node> grad_fn() const;
  bool is_leaf() const;
  // Backward from this tensor: `gradient` may be omitted for one-element tensors.
  void backward(const Tensor& gradient = Tensor(), std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false) const;
  // A tensor sharing this one's storage that does not require grad.
  Tensor detach() const;
  Tensor& detach_();
  // Keeps .grad of a non-leaf after backward.
  void retain_grad() const;
  bool retains_grad() const;
  // The storage's version: bumped by every in-place write through the dispatcher.
  uint32_t _version() const { return impl().storage->version.load(std::memory_order_relaxed); }

  TensorImpl& unsafe_impl() const { return impl(); }

 private:
  TensorImpl& impl() const {
    if (impl_ == nullptr) [[unlikely]]
      throw_undefined();  // out of line: keeps every accessor small enough to inline
    return *impl_;
  }
  [[noreturn]] static void throw_undefined();
  void check_data_ptr(DType requested) const;
  std::shared_ptr<TensorImpl> impl_;
};

// "[2, 3]": sizes for messages.
AXLE_API std::string shape_string(const IntList& sizes);
// The most dimensions a tensor may have (torch's bound too): device loops keep
// per-dimension state in fixed arrays of this size (the plugin SDK's kMaxDims).
inline constexpr int64_t kMaxTensorDims = 64;
// Throws ShapeError naming `op` when `ndim` is above kMaxTensorDims. Every tensor
// is made through make_empty, make_view or from_blob, which check it.
AXLE_API void check_tensor_rank(size_t ndim, const char* op);
// Contiguous (row-major) strides for `sizes`.
AXLE_API IntList contiguous_strides(const IntList& sizes);
// Product of sizes; throws ValueError on negative sizes or int64 overflow (of
// the product with zeros skipped too, so contiguous strides always fit).
AXLE_API int64_t checked_numel(const IntList& sizes);
// Wraps a dim in [-ndim, ndim) into [0, ndim); throws IndexError naming both.
AXLE_API int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op = nullptr);
// A tensor of `sizes`/`dtype` on `device` with uninitialized, contiguous memory.
AXLE_API Tensor make_empty(const IntList& sizes, DType dtype, const Device& device);
AXLE_API Tensor make_empty(IntList&& sizes, DType dtype, const Device& device);
// The same in a memory format (ChannelsLast needs 4 dims; Preserve means Contiguous).
AXLE_API Tensor make_empty(const IntList& sizes, DType dtype, const Device& device, MemoryFormat format);
// torch's suggest_memory_format: ChannelsLast when a 4-d tensor's strides are in
// NHWC order (torch's is_channels_last_strides_2d), else Contiguous.
AXLE_API MemoryFormat suggest_memory_format(const Tensor& t);
// PyTorch's computeStride: strides to view (sizes, strides) as `shape` without a
// copy, or nullopt. infer_view_shape resolves one -1 (throws ShapeError).
AXLE_API std::optional<IntList> compute_view_strides(const IntList& sizes, const IntList& strides,
                                                     const IntList& shape);
AXLE_API IntList infer_view_shape(const IntList& shape, int64_t numel, const char* op);
// A view of `base`'s storage with new metadata. A view of a tensor that
// requires grad, made while grad mode is on, records a backward node (the
// autograd layer's view hook), so every view the core makes is differentiable.
AXLE_API Tensor make_view(const Tensor& base, IntList sizes, IntList strides, int64_t offset);

namespace detail {
// Set once by the autograd layer when it activates (a tensor first requires
// grad): from then on make_view hands it every view (it keeps the views made
// in grad mode tied to their base). Before, views cost nothing extra.
using ViewHook = Tensor (*)(const Tensor& base, Tensor view);
AXLE_API void set_view_hook(ViewHook hook);
}  // namespace detail

template <>
AXLE_API float Tensor::item<float>() const;
template <>
AXLE_API double Tensor::item<double>() const;
template <>
AXLE_API int64_t Tensor::item<int64_t>() const;
template <>
AXLE_API int32_t Tensor::item<int32_t>() const;
template <>
AXLE_API bool Tensor::item<bool>() const;

}  // namespace axle
