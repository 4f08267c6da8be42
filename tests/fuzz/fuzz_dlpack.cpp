// Fuzz target: the checks axle.from_dlpack makes on a producer's DLTensor
// (bindings/python/src/dlpack_import.h, compiled into this target), then
// from_blob over the result, as from_dlpack does. The input is read as: device
// type and id, dtype code, bits and lanes, ndim, flags (shape present, strides
// present, data pointer present), a byte offset, then ndim sizes and ndim
// strides (int64, little-endian; missing bytes read as zero). The data pointer
// names a buffer of the input's remaining bytes; nothing is read through it.
// Corpus: tests/fuzz/corpus/dlpack.
#include "dlpack_import.h"
#include "fuzz_target.h"

#include <cstring>
#include <vector>

namespace {

struct Reader {
  const uint8_t* p;
  size_t left;
  template <class T>
  T take() {
    T v{};
    const size_t n = std::min(sizeof(T), left);
    std::memcpy(&v, p, n);
    p += n;
    left -= n;
    return v;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader r{data, size};
  DLTensor dl{};
  const int32_t device_type = r.take<uint8_t>();  // any value, as a C producer may store
  std::memcpy(&dl.device.device_type, &device_type, sizeof device_type);
  dl.device.device_id = r.take<int8_t>();
  dl.dtype.code = r.take<uint8_t>();
  dl.dtype.bits = r.take<uint8_t>();
  dl.dtype.lanes = r.take<uint16_t>();
  dl.ndim = r.take<int8_t>();
  const uint8_t flags = r.take<uint8_t>();
  dl.byte_offset = r.take<uint64_t>();
  // The producer's arrays hold ndim entries (the DLPack contract): at most 127.
  const size_t n = dl.ndim > 0 ? static_cast<size_t>(dl.ndim) : 0;
  std::vector<int64_t> shape(n), strides(n);
  for (auto& s : shape) s = r.take<int64_t>();
  for (auto& s : strides) s = r.take<int64_t>();
  std::vector<uint8_t> payload(r.p, r.p + r.left);
  dl.shape = (flags & 1) ? shape.data() : nullptr;
  dl.strides = (flags & 2) ? strides.data() : nullptr;
  static uint8_t one_byte = 0;  // a non-null pointer for an empty payload
  void* const buffer = payload.empty() ? static_cast<void*>(&one_byte) : static_cast<void*>(payload.data());
  dl.data = (flags & 4) ? buffer : nullptr;
  return axle_fuzz::guarded([&] {
    const axle::python::DLPackImport in = axle::python::check_dlpack(dl, "from_dlpack()");
    const axle::Tensor t = axle::from_blob(
        in.data, in.sizes, in.strides, [](void*) {}, axle::TensorOptions().dtype(in.dtype).device(in.device));
    if (t.numel() != axle::checked_numel(in.sizes)) std::abort();
  });
}
