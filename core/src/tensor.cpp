// Tensor metadata: numel/contiguity, construction of empty tensors and views,
// typed access to single values.
#include "recycling_allocator.h"

#include <axle/device_runtime.h>
#include <axle/tensor.h>

#include <axle/plugin/helpers.hpp>

#include <algorithm>
#include <atomic>
#include <cstring>

namespace axle {

int64_t checked_numel(const IntList& sizes) {
  // The product skipping zeros must fit as well (numpy's size check): the
  // contiguous strides of [0, 2^62, 2^62] would overflow although it has no
  // elements.
  int64_t span = 1;
  bool empty = false;
  for (int64_t s : sizes) {
    AXLE_CHECK(s >= 0, ValueError, "negative dimension ", s, " in size ", shape_string(sizes));
    AXLE_CHECK(!__builtin_mul_overflow(span, std::max<int64_t>(s, 1), &span), ValueError, "tensor size ",
               shape_string(sizes), " overflows int64: too many elements");
    empty |= s == 0;
  }
  return empty ? 0 : span;
}

// Device loops size their per-dimension arrays by the SDK's bounds.
static_assert(kMaxTensorDims == plugin::kMaxDims, "the tensor rank bound and the plugin SDK's loop bounds differ");

void check_tensor_rank(size_t ndim, const char* op) {
  AXLE_CHECK(ndim <= static_cast<size_t>(kMaxTensorDims), ShapeError, op, "(): a tensor of ", ndim,
             " dimensions; tensors have at most ", kMaxTensorDims, " dimensions");
}

IntList contiguous_strides(const IntList& sizes) {
  IntList strides(sizes.size());
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    s *= std::max<int64_t>(sizes[i], 1);
  }
  return strides;
}

int64_t wrap_dim(int64_t dim, int64_t ndim, const char* op) {
  const int64_t lo = ndim > 0 ? -ndim : -1, hi = ndim > 0 ? ndim - 1 : 0;
  AXLE_CHECK(dim >= lo && dim <= hi, IndexError, op ? op : "", op ? "(): " : "",
             "Dimension out of range (expected to be in range of [", lo, ", ", hi, "], but got ", dim, ")");
  return dim < 0 ? dim + std::max<int64_t>(ndim, 1) : dim;
}

Tensor make_empty(const IntList& sizes, DType dtype, const Device& device) {
  return make_empty(IntList(sizes), dtype, device);
}

Tensor make_empty(IntList&& sizes, DType dtype, const Device& device) {
  check_tensor_rank(sizes.size(), "empty");
  const int64_t n = checked_numel(sizes);
  size_t nbytes = 0;
  AXLE_CHECK(!__builtin_mul_overflow(static_cast<size_t>(n), element_size(dtype), &nbytes), ValueError, "tensor of ", n,
             " elements of ", dtype, " overflows the address space");
  auto impl = std::allocate_shared<TensorImpl>(detail::RecyclingAllocator<TensorImpl>());
  impl->storage = allocate_storage(nbytes, device);
  impl->strides = contiguous_strides(sizes);
  impl->sizes = std::move(sizes);
  impl->dtype = dtype;
  return Tensor(std::move(impl));
}

namespace {
std::atomic<detail::ViewHook> g_view_hook{nullptr};
}  // namespace

Tensor make_view(const Tensor& base, IntList sizes, IntList strides, int64_t offset) {
  check_tensor_rank(sizes.size(), "view");
  AXLE_INTERNAL_ASSERT(sizes.size() == strides.size(), "make_view(): ", sizes.size(), " sizes but ", strides.size(),
                       " strides");
  auto impl = std::allocate_shared<TensorImpl>(detail::RecyclingAllocator<TensorImpl>());
  impl->storage = base.storage();
  impl->sizes = std::move(sizes);
  impl->strides = std::move(strides);
  impl->storage_offset = offset;
  impl->dtype = base.dtype();
  if (detail::ViewHook hook = g_view_hook.load(std::memory_order_acquire)) [[unlikely]]
    return hook(base, Tensor(std::move(impl)));
  return Tensor(std::move(impl));
}

void detail::set_view_hook(ViewHook hook) { g_view_hook.store(hook, std::memory_order_release); }

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t s : sizes()) n *= s;
  return n;
}

int64_t Tensor::size(int64_t d) const { return sizes()[wrap_dim(d, dim(), "size")]; }
int64_t Tensor::stride(int64_t d) const { return strides()[wrap_dim(d, dim(), "stride")]; }

bool Tensor::is_contiguous() const {
  const IntList& sz = sizes();
  const IntList& st = strides();
  int64_t expected = 1;
  for (size_t i = sz.size(); i-- > 0;) {
    if (sz[i] == 0) return true;
    if (sz[i] != 1) {
      if (st[i] != expected) return false;
      expected *= sz[i];
    }
  }
  return true;
}

bool Tensor::is_contiguous(MemoryFormat format) const {
  if (format != MemoryFormat::ChannelsLast) return is_contiguous();
  if (dim() != 4) return false;
  const IntList& sz = sizes();
  const IntList& st = strides();
  int64_t expected = 1;
  for (int d : {1, 3, 2, 0}) {  // C fastest, then W, H, N
    if (sz[d] == 0) return true;
    if (sz[d] != 1) {
      if (st[d] != expected) return false;
      expected *= sz[d];
    }
  }
  return true;
}

const char* memory_format_name(MemoryFormat f) {
  switch (f) {
    case MemoryFormat::Contiguous: return "contiguous_format";
    case MemoryFormat::ChannelsLast: return "channels_last";
    case MemoryFormat::Preserve: return "preserve_format";
  }
  return "?";
}

MemoryFormat memory_format_from_name(std::string_view name) {
  for (MemoryFormat f : {MemoryFormat::Contiguous, MemoryFormat::ChannelsLast, MemoryFormat::Preserve})
    if (name == memory_format_name(f)) return f;
  throw ValueError(detail::concat("unknown memory format '", name,
                                  "' (expected contiguous_format, channels_last or preserve_format)"));
}

Tensor make_empty(const IntList& sizes, DType dtype, const Device& device, MemoryFormat format) {
  if (format != MemoryFormat::ChannelsLast) return make_empty(sizes, dtype, device);
  AXLE_CHECK(sizes.size() == 4, ValueError, "required rank 4 tensor to use channels_last format, got ", sizes.size(),
             " dims");
  return make_empty(IntList{sizes[0], sizes[2], sizes[3], sizes[1]}, dtype, device).permute({0, 3, 1, 2});
}

MemoryFormat suggest_memory_format(const Tensor& t) {
  if (t.dim() != 4) return MemoryFormat::Contiguous;
  const IntList& sz = t.sizes();
  const IntList& st = t.strides();
  if (st[1] == 0) return MemoryFormat::Contiguous;
  int64_t min = 0;
  for (int d : {1, 3, 2, 0}) {
    if (sz[d] == 0 || st[d] < min) return MemoryFormat::Contiguous;
    if (d == 0 && min == st[1]) return MemoryFormat::Contiguous;  // ambiguous N111: torch defaults to NCHW
    min = st[d];
    if (sz[d] > 1) min *= sz[d];
  }
  return MemoryFormat::ChannelsLast;
}

void Tensor::throw_undefined() { throw Error("undefined tensor"); }

void Tensor::check_data_ptr(DType requested) const {
  AXLE_CHECK(requested == dtype(), DTypeError, "data_ptr<", requested, ">() called on a tensor of dtype ", dtype());
  AXLE_CHECK(device_runtime(device().type()).host_accessible(), DeviceError, "data_ptr<T>() on a ", device(),
             " tensor: its memory is not host-addressable; use .cpu() first");
}

namespace {
// Copies the single element of `t` to `out` (at least 8 bytes).
void read_single(const Tensor& t, void* out) {
  AXLE_CHECK(t.numel() == 1, ValueError, "a Tensor with ", t.numel(),
             " elements cannot be converted to Scalar (item() needs exactly one element)");
  DeviceRuntime& rt = device_runtime(t.device().type());
  if (rt.host_accessible())
    std::memcpy(out, t.data_ptr(), t.element_size());
  else
    rt.copy(CopyKind::DeviceToHost, t.device().index(), out, t.data_ptr(), t.element_size(), nullptr);
}
template <typename T>
T read_as(const Tensor& t) {
  alignas(8) unsigned char buf[8] = {};
  read_single(t, buf);
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(plugin::load_as<double>(buf, static_cast<axle_dtype>(t.dtype())));
  else if constexpr (std::is_same_v<T, bool>)
    return plugin::load_as<bool>(buf, static_cast<axle_dtype>(t.dtype()));
  else
    return static_cast<T>(is_floating_point(t.dtype())
                              ? static_cast<int64_t>(plugin::load_as<double>(buf, static_cast<axle_dtype>(t.dtype())))
                              : plugin::load_as<int64_t>(buf, static_cast<axle_dtype>(t.dtype())));
}
}  // namespace

template <>
float Tensor::item<float>() const {
  return read_as<float>(*this);
}
template <>
double Tensor::item<double>() const {
  return read_as<double>(*this);
}
template <>
int64_t Tensor::item<int64_t>() const {
  return read_as<int64_t>(*this);
}
template <>
int32_t Tensor::item<int32_t>() const {
  return read_as<int32_t>(*this);
}
template <>
bool Tensor::item<bool>() const {
  return read_as<bool>(*this);
}

Scalar Tensor::item() const {
  if (is_floating_point(dtype())) return Scalar(item<double>());
  if (dtype() == kBool) return Scalar(item<bool>());
  return Scalar(item<int64_t>());
}

std::string Tensor::toString() const {
  if (!defined()) return "undefined tensor";
  std::string s = std::string(dtype_name(dtype())) + "[";
  for (size_t i = 0; i < sizes().size(); ++i) s += (i ? ", " : "") + std::to_string(sizes()[i]);
  return s + "] on " + device().str();
}

}  // namespace axle
