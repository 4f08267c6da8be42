// See Note [Primitive cache] in dnnl_util.h.
#include "dnnl_util.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <list>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

namespace axle::cpu {

dnnl::engine& engine() {
  static dnnl::engine* e = new dnnl::engine(dnnl::engine::kind::cpu, 0);  // never destroyed (plugins stay loaded)
  return *e;
}

dnnl::stream& stream() {
  thread_local dnnl::stream s(engine());
  return s;
}

bool dnnl_type(axle_dtype d, dnnl::memory::data_type* out) {
  using dt = dnnl::memory::data_type;
  switch (d) {
    case AXLE_DTYPE_FLOAT32: *out = dt::f32; return true;
    case AXLE_DTYPE_BFLOAT16: *out = dt::bf16; return true;
    case AXLE_DTYPE_FLOAT16: *out = dt::f16; return true;
    case AXLE_DTYPE_INT32: *out = dt::s32; return true;
    case AXLE_DTYPE_INT8: *out = dt::s8; return true;
    case AXLE_DTYPE_UINT8: *out = dt::u8; return true;
    default: return false;
  }
}

Shape Shape::of(const axle_tensor_view& v) {
  Shape s;
  s.dims.assign(v.sizes, v.sizes + v.ndim);
  s.strides.assign(v.strides, v.strides + v.ndim);
  s.dtype = v.dtype;
  s.data = v.data;
  return s;
}

Shape& Shape::pad_front(int64_t n) {
  while (ndim() < n) {
    dims.insert(dims.begin(), 1);
    strides.insert(strides.begin(), strides.empty() ? 1 : strides.front() * dims[1]);
  }
  return *this;
}

Shape& Shape::insert_unit(int64_t d) {
  const int64_t stride = d < ndim() ? strides[d] * dims[d] : 1;
  dims.insert(dims.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  return *this;
}

Shape& Shape::unexpand() {
  for (int64_t d = 0; d < ndim(); ++d)
    if (strides[d] == 0) dims[d] = 1;
  int64_t inner = 1;
  for (int64_t d = ndim() - 1; d >= 0; --d) {
    if (dims[d] == 1) strides[d] = inner;
    inner = std::max<int64_t>(inner, strides[d] * dims[d]);
  }
  return *this;
}

bool Shape::has_zero_stride() const {
  for (int64_t d = 0; d < ndim(); ++d)
    if (strides[d] == 0 && dims[d] > 1) return true;
  return false;
}

bool Shape::is_dense() const {
  std::vector<int64_t> order(dims.size());
  for (size_t d = 0; d < order.size(); ++d) order[d] = static_cast<int64_t>(d);
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return strides[a] < strides[b]; });
  int64_t expected = 1;
  for (int64_t d : order) {
    if (dims[d] == 1) continue;
    if (strides[d] != expected) return false;
    expected *= dims[d];
  }
  return true;
}

bool Shape::same_layout(const Shape& o) const {
  if (dims != o.dims) return false;
  for (size_t d = 0; d < dims.size(); ++d)
    if (dims[d] != 1 && strides[d] != o.strides[d]) return false;
  return true;
}

int64_t Shape::numel() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

bool describe(const Shape& s, dnnl::memory::desc* out) {
  dnnl::memory::data_type t;
  if (!dnnl_type(s.dtype, &t) || s.ndim() > DNNL_MAX_NDIMS) return false;
  dnnl::memory::dims dims(s.dims.begin(), s.dims.end()), strides(s.strides.begin(), s.strides.end());
  if (dims.empty()) {  // 0-d: one element
    dims = {1};
    strides = {1};
  }
  *out = dnnl::memory::desc(dims, t, strides);
  return true;
}

// ---- cache: an LRU map of shared primitives.
namespace {
constexpr size_t kCapacity = 4096;
struct CacheState {
  std::shared_mutex mutex;
  std::list<std::string> lru;  // front: most recent
  struct Entry {
    std::shared_ptr<const Primitive> p;
    std::list<std::string>::iterator pos;
  };
  std::unordered_map<std::string, Entry> map;
};
CacheState& state() {
  static CacheState* s = new CacheState;
  return *s;
}
}  // namespace

std::shared_ptr<const Primitive> PrimitiveCache::get(const std::string& key, const Make& make) {
  CacheState& s = state();
  {
    std::unique_lock lock(s.mutex);  // LRU order changes on a hit
    auto it = s.map.find(key);
    if (it != s.map.end()) {
      s.lru.splice(s.lru.begin(), s.lru, it->second.pos);
      return it->second.p;
    }
  }
  std::shared_ptr<const Primitive> p;
  try {
    p = make();
  } catch (const dnnl::error& e) {
    // No implementation for this descriptor: remember the decline.
    p = declined(std::string("oneDNN: ") + e.what());
  }
  std::unique_lock lock(s.mutex);
  auto [it, inserted] = s.map.try_emplace(key);
  if (inserted) {
    s.lru.push_front(key);
    it->second = {p, s.lru.begin()};
    if (s.map.size() > kCapacity) {
      s.map.erase(s.lru.back());
      s.lru.pop_back();
    }
  }
  return it->second.p;
}
PrimitiveCache& cache() {
  static PrimitiveCache c;
  return c;
}

std::shared_ptr<Primitive> declined(std::string why) {
  auto p = std::make_shared<Primitive>();
  p->declined = std::move(why);
  return p;
}

dnnl::primitive_attr default_attr() {
  dnnl::primitive_attr a;
  a.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return a;
}

void* workspace(int slot, size_t bytes) {
  struct Buffer {
    void* p = nullptr;
    size_t size = 0;
    ~Buffer() { std::free(p); }
  };
  thread_local Buffer buffers[kWorkspaceSlots];
  Buffer& b = buffers[slot];
  if (b.size < bytes) {
    std::free(b.p);
    b.p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    b.size = b.p ? bytes : 0;
    if (!b.p) throw std::bad_alloc();
  }
  return b.p;
}

std::shared_ptr<const Primitive> reorder_primitive(const std::string& key, const dnnl::memory::desc& from,
                                                   const dnnl::memory::desc& to) {
  return cache().get(key + "/reorder", [&]() -> std::shared_ptr<Primitive> {
    const dnnl::reorder::primitive_desc pd(engine(), from, engine(), to, default_attr());
    return make_primitive<dnnl::reorder::primitive_desc, dnnl::reorder>(pd, {DNNL_ARG_FROM, DNNL_ARG_TO}, {from, to});
  });
}

uint64_t next_primitive_id() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

bool unpadded(const dnnl::memory::desc& md) {
  const dnnl_memory_desc_t& d = md.data;
  size_t elems = 1;
  for (int i = 0; i < d.ndims; ++i) {
    if (d.padded_dims[i] != d.dims[i] || d.padded_offsets[i] != 0) return false;
    elems *= static_cast<size_t>(d.dims[i]);
  }
  return d.format_kind != dnnl_blocked || md.get_size() == elems * dnnl::memory::data_type_size(md.data_type());
}

namespace {
// The argument memory objects of the last primitives this thread executed:
// a repeated call swaps their data handles instead of creating a dnnl::memory
// per argument and a map (allocations each).
using ArgMap = std::unordered_map<int, dnnl::memory>;
struct ArgSet {
  uint64_t id = 0;  // the primitive's; 0: none
  ArgMap args;
};
constexpr int kArgSets = 8;
thread_local ArgSet t_arg_sets[kArgSets];
thread_local int t_next_arg_set = 0;

template <typename Data>
void build_args(ArgMap& args, const Primitive& p, const Data& data) {
  args.clear();
  for (size_t i = 0; i < p.arg_ids.size(); ++i)
    args.emplace(p.arg_ids[i], dnnl::memory(p.arg_mds[i], engine(), data(i)));
}
}  // namespace

void execute(const Primitive& p, const std::vector<void*>& ptrs) {
  const size_t n = ptrs.size();
  auto data = [&](size_t i) { return i < n ? ptrs[i] : workspace(0, p.scratchpad_bytes); };
  ArgMap fresh;
  ArgMap* args = &fresh;
  if (!p.plain_args) {  // set_data_handle would zero the padding on every call: fresh objects
    build_args(fresh, p, data);
  } else if (auto set = std::find_if(std::begin(t_arg_sets), std::end(t_arg_sets),
                                     [&](const ArgSet& s) { return s.id == p.id; });
             set != std::end(t_arg_sets)) {
    for (size_t i = 0; i < p.arg_ids.size(); ++i) set->args.at(p.arg_ids[i]).set_data_handle(data(i));
    args = &set->args;
  } else {
    ArgSet& slot = t_arg_sets[t_next_arg_set];
    t_next_arg_set = (t_next_arg_set + 1) % kArgSets;
    slot.id = 0;  // claimed only once complete: a throw below leaves no half-built set
    build_args(slot.args, p, data);
    slot.id = p.id;
    args = &slot.args;
  }
  p.prim.execute(stream(), *args);
  stream().wait();
}

namespace {
std::atomic<int> g_threads{0};
std::atomic<int64_t> g_min_elements{4096};
}  // namespace
void set_dnnl_min_elements(int64_t n) { g_min_elements.store(n < 0 ? 0 : n); }
int64_t dnnl_min_elements() { return g_min_elements.load(std::memory_order_relaxed); }
void set_thread_count(int n) { g_threads.store(n > 0 ? n : omp_get_num_procs()); }
int thread_count() {
  int n = g_threads.load(std::memory_order_relaxed);
  return n > 0 ? n : omp_get_num_procs();
}

void apply_thread_count() {
  const int n = thread_count();
  if (omp_get_max_threads() != n) omp_set_num_threads(n);
}

axle_status report_exception(const axle_kernel_call* c) {
  try {
    throw;
  } catch (const dnnl::error& e) {
    return plugin::fail(c, AXLE_ERROR_INTERNAL, std::string(c->op_name) + ": oneDNN: " + e.what());
  } catch (const std::bad_alloc&) {
    return plugin::fail(c, AXLE_ERROR_OUT_OF_MEMORY, std::string(c->op_name) + ": out of host memory");
  } catch (const std::exception& e) {
    return plugin::fail(c, AXLE_ERROR_INTERNAL, std::string(c->op_name) + ": " + e.what());
  } catch (...) {
    return plugin::fail(c, AXLE_ERROR_INTERNAL, std::string(c->op_name) + ": unknown exception");
  }
}

}  // namespace axle::cpu
