// The cpu plugin's shared layer over oneDNN: the engine, a stream per thread,
// memory descriptors from axle views, and the primitive cache.
//
// Note [Primitive cache]
// Creating a oneDNN primitive descriptor walks its implementation list (tens of
// microseconds); creating the primitive JIT-compiles code (milliseconds). Every
// kernel builds a key from what determines the primitive (op, sizes, strides,
// dtypes, attributes) and asks `cache().get(key, make)`: a hit returns the
// primitive, the memory descriptors of its arguments and its scratchpad size; a
// miss calls `make` once. A decline decision (no implementation, or only oneDNN's
// slow `ref:` one) is cached as well, so a declined shape costs a hash lookup.
// Primitives run with a user scratchpad taken from a per-thread buffer, so one
// primitive may execute on several threads at once.
#pragma once

#include <algorithm>
#include <axle/plugin/helpers.hpp>

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace axle::cpu {

dnnl::engine& engine();
dnnl::stream& stream();  // one per thread

// The float types this plugin computes in (oneDNN 2.6 has no f16 compute here).
inline bool is_f32_or_bf16(axle_dtype d) { return d == AXLE_DTYPE_FLOAT32 || d == AXLE_DTYPE_BFLOAT16; }

// oneDNN 2.6 has f32, bf16, f16, s32, s8, u8; axle's others are declined.
bool dnnl_type(axle_dtype d, dnnl::memory::data_type* out);

// A view as (dims, strides) that can be reshaped before describing it.
struct Shape {
  std::vector<int64_t> dims, strides;
  axle_dtype dtype = AXLE_DTYPE_FLOAT32;
  void* data = nullptr;
  static Shape of(const axle_tensor_view& v);
  int64_t ndim() const { return static_cast<int64_t>(dims.size()); }
  // Prepends size-1 dims up to `n` dims.
  Shape& pad_front(int64_t n);
  // Inserts a size-1 dim before dim `d` (d may equal ndim()).
  Shape& insert_unit(int64_t d);
  // Dims of size > 1 with stride 0 (expanded) become size 1 (oneDNN broadcasts
  // them); size-1 dims get the dense stride oneDNN expects.
  Shape& unexpand();
  bool has_zero_stride() const;
  int64_t numel() const;
  // Exactly numel() elements in some dim order (contiguous, channels_last, any
  // permutation): an elementwise op over it is an op over flat memory.
  bool is_dense() const;
  // Same sizes, and the same strides wherever a dim has more than one element.
  bool same_layout(const Shape& o) const;
};

// The oneDNN memory descriptor of a shape; false when oneDNN cannot hold it
// (dtype, more than DNNL_MAX_NDIMS dims).
bool describe(const Shape& s, dnnl::memory::desc* out);

// ---- the primitive cache
struct Primitive {
  dnnl::primitive prim;
  std::vector<int> arg_ids;                 // DNNL_ARG_* in the order pointers are passed
  std::vector<dnnl::memory::desc> arg_mds;  // matching memory descriptors
  size_t scratchpad_bytes = 0;
  uint64_t id = 0;          // unique per primitive made (never reused, unlike its address)
  bool plain_args = false;  // no argument has a zero-padded area (see execute)
  std::string impl;         // oneDNN's implementation name
  std::string declined;     // non-empty: why this key is declined
};

// Builds a cache key from raw values.
class Key {
 public:
  explicit Key(const char* op) : s_(op) { s_.push_back('\0'); }
  Key& add(int64_t v) {
    s_.append(reinterpret_cast<const char*>(&v), sizeof v);
    return *this;
  }
  Key& add(double v) {
    s_.append(reinterpret_cast<const char*>(&v), sizeof v);
    return *this;
  }
  Key& add(const Shape& s) {
    add(static_cast<int64_t>(s.dtype)).add(s.ndim());
    for (int64_t d : s.dims) add(d);
    for (int64_t d : s.strides) add(d);
    return *this;
  }
  const std::string& str() const { return s_; }

 private:
  std::string s_;
};

class PrimitiveCache {
 public:
  using Make = std::function<std::shared_ptr<Primitive>()>;
  std::shared_ptr<const Primitive> get(const std::string& key, const Make& make);
};
PrimitiveCache& cache();

// A per-thread buffer of at least `bytes` (64-byte aligned), one per slot; slot
// 0 is the primitives' scratchpad. Valid until the next call for the same slot.
void* workspace(int slot, size_t bytes);
constexpr int kWorkspaceSlots = 7;
// Slot 6: a reordered input two primitives of one kernel share (slots 1-5 are
// run_with_reorders' and the matmul's dense copies).
constexpr int kSharedReorderSlot = 6;

// A cached reorder between two layouts of the same tensor; `key` names the
// purpose (the caller's key plus the argument).
std::shared_ptr<const Primitive> reorder_primitive(const std::string& key, const dnnl::memory::desc& from,
                                                   const dnnl::memory::desc& to);

// Fills the scratchpad (if any) and runs the primitive on this thread's stream.
// `ptrs` follow `p.arg_ids`.
void execute(const Primitive& p, const std::vector<void*>& ptrs);

// Wraps a kernel body: oneDNN exceptions become an error status with oneDNN's
// message, and the plugin's thread count is applied to the calling thread.
// (A template: no std::function on the per-call path.)
void apply_thread_count();
axle_status report_exception(const axle_kernel_call* c);  // inside a catch block
template <typename Body>
axle_status guarded(const axle_kernel_call* c, Body&& body) {
  apply_thread_count();
  try {
    return body();
  } catch (...) {
    return report_exception(c);
  }
}

uint64_t next_primitive_id();
// Whether a memory descriptor has no zero-padded area (its size is its
// elements' bytes): set_data_handle then writes nothing into the buffer.
bool unpadded(const dnnl::memory::desc& md);

// Builds a Primitive from a primitive descriptor, or a declined one when only a
// reference implementation exists.
template <typename PD, typename PRIM>
std::shared_ptr<Primitive> make_primitive(const PD& pd, std::vector<int> ids, std::vector<dnnl::memory::desc> mds) {
  auto p = std::make_shared<Primitive>();
  p->impl = pd.impl_info_str();
  if (p->impl.find("ref") != std::string::npos) {  // "ref:any", "bnorm_ref:any"...
    p->declined = "oneDNN has only its reference implementation (" + p->impl + ")";
    return p;
  }
  p->prim = PRIM(pd);
  p->arg_ids = std::move(ids);
  p->arg_mds = std::move(mds);
  p->scratchpad_bytes = pd.scratchpad_desc().get_size();
  if (p->scratchpad_bytes) {
    p->arg_ids.push_back(DNNL_ARG_SCRATCHPAD);
    p->arg_mds.push_back(pd.scratchpad_desc());
  }
  p->id = next_primitive_id();
  p->plain_args = std::all_of(p->arg_mds.begin(), p->arg_mds.end(), unpadded);
  return p;
}
std::shared_ptr<Primitive> declined(std::string why);

// Attributes every primitive uses: user scratchpad.
dnnl::primitive_attr default_attr();

// Elementwise calls below this many elements run faster in a plain loop than
// through a oneDNN execute; those kernels decline them. Option
// plugins.cpu.options.dnnl_min_elements (default 4096; the test suite sets 0 to
// exercise the oneDNN paths on small samples).
void set_dnnl_min_elements(int64_t n);
int64_t dnnl_min_elements();

// Threads (cpu.threads / plugins.cpu.options.threads; default: all cores).
void set_thread_count(int n);
int thread_count();

}  // namespace axle::cpu
