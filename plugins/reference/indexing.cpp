// Reference kernels of the indexing family (nonzero: indexing_nonzero.cpp): index_select, gather, scatter
// (src / value / add), masked_fill, where, one_hot, index.Tensor, index_put_.
// Elements move as bytes (exact for every dtype); scatter_add and accumulating
// index_put_ add in double / int64 / bool. Every index value is checked before
// anything is written: out of range is AXLE_ERROR_INDEX naming op, value, dim, size.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kernels.h"

namespace axle::reference {

using namespace axle::plugin;

namespace {

// ---------------------------------------------------------------- helpers
// Calls fn(coord) for every coordinate of `sizes` in row-major order.
template <typename Fn>
void for_each_coord(int32_t ndim, const int64_t* sizes, Fn&& fn) {
  if (ndim < 0 || ndim > kMaxDims) return;  // axle makes no such tensor; coord has kMaxDims entries
  for (int32_t d = 0; d < ndim; ++d)
    if (sizes[d] == 0) return;
  int64_t coord[kMaxDims] = {0};
  for (;;) {
    fn(static_cast<const int64_t*>(coord));
    int32_t d = ndim - 1;
    for (; d >= 0; --d) {
      if (++coord[d] < sizes[d]) break;
      coord[d] = 0;
    }
    if (d < 0) return;
  }
}

// A view with a 0-dim tensor seen as 1-dim of size 1 (torch's ensure_nonempty).
struct Nonempty {
  int32_t ndim;
  const int64_t* sizes;
  const int64_t* strides;
  char* data;
  size_t esize;
  static constexpr int64_t kOne = 1, kZero = 0;
  explicit Nonempty(const axle_tensor_view& v)
      : ndim(v.ndim == 0 ? 1 : v.ndim),
        sizes(v.ndim == 0 ? &kOne : v.sizes),
        strides(v.ndim == 0 ? &kZero : v.strides),
        data(static_cast<char*>(v.data)),
        esize(dtype_size(v.dtype)) {}
  // Element at coord, with coord[dim] replaced by `at` when dim >= 0.
  char* at(const int64_t* coord, int32_t dim = -1, int64_t at_dim = 0) const {
    int64_t off = 0;
    for (int32_t d = 0; d < ndim; ++d) off += (d == dim ? at_dim : coord[d]) * strides[d];
    return data + off * static_cast<int64_t>(esize);
  }
};

// Checks every value of an index tensor: in [0, size), or [-size, size) when
// negatives wrap. Returns the first offending value's message, or "".
std::string check_indices(const char* op, const axle_tensor_view& index, int64_t dim, int64_t size, bool negatives) {
  std::string err;
  for_each_element<1>(index.ndim, index.sizes, {&index}, [&](char** p) {
    if (!err.empty()) return;
    const int64_t v = load_as<int64_t>(p[0], index.dtype);
    if (v >= size || v < (negatives ? -size : 0)) err = index_out_of_bounds(op, v, dim, size);
  });
  return err;
}

// out = self (same shape and dtype) unless they are the same memory.
void copy_into(const axle_tensor_view& out, const axle_tensor_view& self) {
  if (same_view(out, self)) return;
  const size_t es = dtype_size(out.dtype);
  if (plugin::is_contiguous(out) && plugin::is_contiguous(self) && out.dtype == self.dtype &&
      !plugin::views_overlap(out, self)) {
    std::memcpy(out.data, self.data, static_cast<size_t>(plugin::numel(out)) * es);  // one block, not per element
    return;
  }
  for_each_element<2>(out.ndim, out.sizes, {&out, &self}, [&](char** p) { std::memcpy(p[0], p[1], es); });
}

// *dst += *src in the dtype's compute type (bool: or; integers wrap).
void accumulate(char* dst, const char* src, axle_dtype d) {
  if (is_floating(d)) {
    store_from<double>(dst, d, load_as<double>(dst, d) + load_as<double>(src, d));
  } else if (d == AXLE_DTYPE_BOOL) {
    *reinterpret_cast<uint8_t*>(dst) = (*dst != 0 || *src != 0) ? 1 : 0;
  } else {
    const uint64_t s =
        static_cast<uint64_t>(load_as<int64_t>(dst, d)) + static_cast<uint64_t>(load_as<int64_t>(src, d));
    store_from<int64_t>(dst, d, static_cast<int64_t>(s));
  }
}

// A Scalar argument stored once in `dtype` (8 bytes hold any element).
struct ScalarBytes {
  alignas(8) char bytes[8] = {};
  ScalarBytes(const axle_kernel_call* c, int i, axle_dtype dtype) {
    if (arg_scalar_is_floating(c, i))
      store_from<double>(bytes, dtype, arg_double(c, i));
    else
      store_from<int64_t>(bytes, dtype, arg_int(c, i));
  }
};

// ---------------------------------------------------------------- index_select / gather
axle_status index_select(void*, const axle_kernel_call* c) {
  const axle_tensor_view& self = arg_tensor(c, 0);
  const int32_t dim = static_cast<int32_t>(arg_int(c, 1));
  const axle_tensor_view& index = arg_tensor(c, 2);
  const axle_tensor_view& out = c->outputs[0];
  const Nonempty s(self);
  const std::string err = check_indices("index_select()", index, dim, s.sizes[dim], false);
  if (!err.empty()) return fail(c, AXLE_ERROR_INDEX, err);
  const size_t es = dtype_size(self.dtype);
  if (self.ndim == 0) {
    std::memcpy(out.data, self.data, es);
    return AXLE_OK;
  }
  const int64_t istride = index.ndim == 1 ? index.strides[0] : 0;
  const char* ibase = static_cast<const char*>(index.data);
  const int64_t iesize = static_cast<int64_t>(dtype_size(index.dtype));
  const Nonempty o(out);
  for_each_coord(out.ndim, out.sizes, [&](const int64_t* coord) {
    const int64_t v = load_as<int64_t>(ibase + coord[dim] * istride * iesize, index.dtype);
    std::memcpy(o.at(coord), s.at(coord, dim, v), es);
  });
  return AXLE_OK;
}

axle_status gather(void*, const axle_kernel_call* c) {
  const axle_tensor_view& self = arg_tensor(c, 0);
  const int32_t dim = static_cast<int32_t>(arg_int(c, 1));
  const axle_tensor_view& index = arg_tensor(c, 2);
  const Nonempty s(self), i(index), o(c->outputs[0]);
  const std::string err = check_indices("gather()", index, dim, s.sizes[dim], false);
  if (!err.empty()) return fail(c, AXLE_ERROR_INDEX, err);
  for_each_coord(i.ndim, i.sizes, [&](const int64_t* coord) {
    const int64_t v = load_as<int64_t>(i.at(coord), index.dtype);
    std::memcpy(o.at(coord), s.at(coord, dim, v), s.esize);
  });
  return AXLE_OK;
}

// ---------------------------------------------------------------- scatter
enum class ScatterMode { Src, Value, Add };

template <ScatterMode M>
axle_status scatter(void*, const axle_kernel_call* c) {
  const axle_tensor_view& self = arg_tensor(c, 0);
  const int32_t dim = static_cast<int32_t>(arg_int(c, 1));
  const axle_tensor_view& index = arg_tensor(c, 2);
  const axle_tensor_view& out = c->outputs[0];
  const Nonempty o(out), i(index);
  const char* op = M == ScatterMode::Add ? "scatter_add()" : "scatter()";
  const std::string err = numel(index) == 0 ? "" : check_indices(op, index, dim, o.sizes[dim], false);
  if (!err.empty()) return fail(c, AXLE_ERROR_INDEX, err);
  copy_into(out, self);
  if (M == ScatterMode::Value) {
    const ScalarBytes value(c, 3, out.dtype);
    for_each_coord(i.ndim, i.sizes, [&](const int64_t* coord) {
      std::memcpy(o.at(coord, dim, load_as<int64_t>(i.at(coord), index.dtype)), value.bytes, o.esize);
    });
    return AXLE_OK;
  }
  const Nonempty src(arg_tensor(c, 3));
  for_each_coord(i.ndim, i.sizes, [&](const int64_t* coord) {
    char* dst = o.at(coord, dim, load_as<int64_t>(i.at(coord), index.dtype));
    if (M == ScatterMode::Add)
      accumulate(dst, src.at(coord), out.dtype);
    else
      std::memcpy(dst, src.at(coord), o.esize);
  });
  return AXLE_OK;
}

// ---------------------------------------------------------------- masked_fill / where
axle_status masked_fill(void*, const axle_kernel_call* c) {
  const axle_tensor_view& self = arg_tensor(c, 0);
  const axle_tensor_view& mask = arg_tensor(c, 1);
  const axle_tensor_view& out = c->outputs[0];
  const ScalarBytes value(c, 2, out.dtype);
  const size_t es = dtype_size(out.dtype);
  for_each_element<3>(out.ndim, out.sizes, {&out, &self, &mask}, [&](char** p) {
    if (*p[2] != 0)
      std::memcpy(p[0], value.bytes, es);
    else if (p[0] != p[1])
      std::memcpy(p[0], p[1], es);
  });
  return AXLE_OK;
}

axle_status where(void*, const axle_kernel_call* c) {
  const axle_tensor_view& cond = arg_tensor(c, 0);
  const axle_tensor_view& self = arg_tensor(c, 1);
  const axle_tensor_view& other = arg_tensor(c, 2);
  const axle_tensor_view& out = c->outputs[0];
  const axle_dtype od = out.dtype;
  const size_t es = dtype_size(od);
  for_each_element<4>(out.ndim, out.sizes, {&out, &cond, &self, &other}, [&](char** p) {
    const bool take_self = *p[1] != 0;
    const char* src = take_self ? p[2] : p[3];
    const axle_dtype sd = take_self ? self.dtype : other.dtype;
    if (sd == od)
      std::memcpy(p[0], src, es);
    else if (is_floating(od))
      store_from<double>(p[0], od, load_as<double>(src, sd));
    else if (od == AXLE_DTYPE_BOOL)
      store_from<bool>(p[0], od, load_as<bool>(src, sd));
    else
      store_from<int64_t>(p[0], od, load_as<int64_t>(src, sd));
  });
  return AXLE_OK;
}

// ---------------------------------------------------------------- one_hot
axle_status one_hot(void*, const axle_kernel_call* c) {
  const axle_tensor_view& self = arg_tensor(c, 0);
  const int64_t requested = arg_int(c, 1);
  int64_t lo = 0, hi = -1;
  bool any = false;
  for_each_element<1>(self.ndim, self.sizes, {&self}, [&](char** p) {
    const int64_t v = load_as<int64_t>(p[0], self.dtype);
    lo = any ? std::min(lo, v) : v;
    hi = any ? std::max(hi, v) : v;
    any = true;
  });
  if (any && lo < 0)
    return fail(c, AXLE_ERROR_INDEX, "one_hot: Class values must be non-negative (got " + std::to_string(lo) + ").");
  const int64_t classes = requested == -1 ? hi + 1 : requested;
  if (any && hi >= classes)
    return fail(c, AXLE_ERROR_INDEX,
                "one_hot: Class values must be smaller than num_classes (got " + std::to_string(hi) +
                    " with num_classes " + std::to_string(classes) + ").");
  axle_tensor_view out = c->outputs[0];
  std::vector<int64_t> sizes(self.sizes, self.sizes + self.ndim);
  sizes.push_back(classes);
  if (requested == -1) {
    const axle_status s = c->host->allocate_output(c->call_context, 0, AXLE_DTYPE_INT64,
                                                   static_cast<int32_t>(sizes.size()), sizes.data(), &out);
    if (s != AXLE_OK) return s;
  }
  const Nonempty o(out);
  for_each_coord(out.ndim, out.sizes, [&](const int64_t* coord) { *reinterpret_cast<int64_t*>(o.at(coord)) = 0; });
  std::vector<int64_t> oc(sizes.size());
  for_each_coord(self.ndim, self.sizes, [&](const int64_t* coord) {
    int64_t off = 0;
    for (int32_t d = 0; d < self.ndim; ++d) off += coord[d] * self.strides[d];
    const int64_t v = load_as<int64_t>(static_cast<const char*>(self.data) + off * 8, self.dtype);
    std::copy(coord, coord + self.ndim, oc.begin());
    oc.back() = v;
    *reinterpret_cast<int64_t*>(o.at(oc.data())) = 1;
  });
  return AXLE_OK;
}

// ---------------------------------------------------------------- advanced indexing
// self[indices]: each index (an int64 tensor, or one per dim of a bool/uint8
// mask, from its true coordinates) indexes one dim of self; they broadcast to
// `b`. The result is b surrounded by self's other dims: in place of the indexed
// dims when those are adjacent, else b first.
struct IndexPlan {
  std::vector<axle_tensor_view> idx;
  std::vector<int32_t> idx_dim;                              // the self dim each index indexes
  std::vector<std::unique_ptr<std::vector<int64_t>>> owned;  // mask coordinates, sizes and strides
  std::vector<int64_t> b, result;
  std::vector<int32_t> rest;      // self dims not indexed, in order
  std::vector<int32_t> rest_pos;  // their positions in the result
  int32_t b_pos = 0;
  bool has_mask = false;
};

std::string shape_str(int32_t n, const int64_t* s) {
  std::string out = "[";
  for (int32_t i = 0; i < n; ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

// Builds the plan and checks every index value; returns "" or the error (status in `status`).
std::string plan_indexing(const char* op, const axle_tensor_view& self, const axle_value& list, IndexPlan& p,
                          axle_status& status) {
  status = AXLE_ERROR_INDEX;
  int32_t dim = 0;
  for (int64_t k = 0; k < list.u.tensors.count; ++k) {
    const axle_tensor_view& t = list.u.tensors.items[k];
    if (t.ndim < 0) {  // None
      ++dim;
      continue;
    }
    if (t.dtype == AXLE_DTYPE_BOOL || t.dtype == AXLE_DTYPE_UINT8) {
      p.has_mask = true;
      std::vector<std::vector<int64_t>*> coords;
      for (int32_t j = 0; j < t.ndim; ++j) {
        p.owned.push_back(std::make_unique<std::vector<int64_t>>());
        coords.push_back(p.owned.back().get());
      }
      for_each_coord(t.ndim, t.sizes, [&](const int64_t* coord) {
        int64_t off = 0;
        for (int32_t d = 0; d < t.ndim; ++d) off += coord[d] * t.strides[d];
        if (static_cast<const char*>(t.data)[off] != 0)
          for (int32_t j = 0; j < t.ndim; ++j) coords[j]->push_back(coord[j]);
      });
      for (int32_t j = 0; j < t.ndim; ++j) {
        p.owned.push_back(std::make_unique<std::vector<int64_t>>(
            std::vector<int64_t>{static_cast<int64_t>(coords[j]->size()), 1}));  // sizes[0], strides[0]
        const int64_t* meta = p.owned.back()->data();
        p.idx.push_back({sizeof(axle_tensor_view), coords[j]->data(), AXLE_DTYPE_INT64, 1, meta, meta + 1, 0, 0});
        p.idx_dim.push_back(dim + j);
      }
      dim += t.ndim;
    } else {
      p.idx.push_back(t);
      p.idx_dim.push_back(dim++);
    }
  }
  if (dim > self.ndim || p.idx.empty())
    return std::string(op) + ": invalid indices for tensor of dimension " + std::to_string(self.ndim);
  // Broadcast the indices.
  std::string shapes;
  for (const axle_tensor_view& v : p.idx) {
    shapes += (shapes.empty() ? "" : ", ") + shape_str(v.ndim, v.sizes);
    if (static_cast<size_t>(v.ndim) > p.b.size()) p.b.insert(p.b.begin(), v.ndim - p.b.size(), 1);
  }
  for (const axle_tensor_view& v : p.idx) {
    const size_t lead = p.b.size() - static_cast<size_t>(v.ndim);
    for (int32_t d = 0; d < v.ndim; ++d) {
      int64_t& b = p.b[lead + d];
      if (v.sizes[d] == b || v.sizes[d] == 1) continue;
      if (b != 1)
        return std::string(op) + ": shape mismatch: indexing tensors could not be broadcast together with shapes " +
               shapes;
      b = v.sizes[d];
    }
  }
  const bool adjacent = p.idx_dim.back() - p.idx_dim.front() + 1 == static_cast<int32_t>(p.idx.size());
  std::vector<bool> indexed(static_cast<size_t>(self.ndim), false);
  for (int32_t d : p.idx_dim) indexed[d] = true;
  for (int32_t d = 0; d < self.ndim; ++d)
    if (!indexed[d]) p.rest.push_back(d);
  p.b_pos = 0;
  if (adjacent)
    for (int32_t d : p.rest) p.b_pos += d < p.idx_dim.front() ? 1 : 0;
  for (size_t r = 0; r < p.rest.size(); ++r) {
    const int32_t pos =
        static_cast<int32_t>(r) < p.b_pos ? static_cast<int32_t>(r) : static_cast<int32_t>(r + p.b.size());
    p.rest_pos.push_back(pos);
  }
  p.result.assign(p.rest.size() + p.b.size(), 0);
  for (size_t r = 0; r < p.rest.size(); ++r) p.result[p.rest_pos[r]] = self.sizes[p.rest[r]];
  for (size_t i = 0; i < p.b.size(); ++i) p.result[p.b_pos + i] = p.b[i];
  int64_t n = 1;
  for (int64_t s : p.result) n *= s;
  if (n > 0)
    for (size_t k = 0; k < p.idx.size(); ++k) {
      const std::string err = check_indices(op, p.idx[k], p.idx_dim[k], self.sizes[p.idx_dim[k]], true);
      if (!err.empty()) return err;
    }
  status = AXLE_OK;
  return "";
}

// fn(self element, result coordinate) for every element of the indexing result.
template <typename Fn>
void for_each_indexed(const axle_tensor_view& self, const IndexPlan& p, Fn&& fn) {
  const int64_t es = static_cast<int64_t>(dtype_size(self.dtype));
  for_each_coord(static_cast<int32_t>(p.result.size()), p.result.data(), [&](const int64_t* coord) {
    int64_t off = 0;
    for (size_t r = 0; r < p.rest.size(); ++r) off += coord[p.rest_pos[r]] * self.strides[p.rest[r]];
    const int64_t* bc = coord + p.b_pos;
    for (size_t k = 0; k < p.idx.size(); ++k) {
      const axle_tensor_view& v = p.idx[k];
      const size_t lead = p.b.size() - static_cast<size_t>(v.ndim);
      int64_t ioff = 0;
      for (int32_t d = 0; d < v.ndim; ++d) ioff += v.sizes[d] == 1 ? 0 : bc[lead + d] * v.strides[d];
      int64_t x = load_as<int64_t>(static_cast<const char*>(v.data) + ioff * static_cast<int64_t>(dtype_size(v.dtype)),
                                   v.dtype);
      const int32_t sd = p.idx_dim[k];
      if (x < 0) x += self.sizes[sd];
      off += x * self.strides[sd];
    }
    fn(static_cast<char*>(self.data) + off * es, coord);
  });
}

// Pointer into `v` broadcast (right-aligned) to the result shape at `coord`.
char* broadcast_at(const axle_tensor_view& v, size_t result_ndim, const int64_t* coord) {
  const size_t lead = result_ndim - static_cast<size_t>(v.ndim);
  int64_t off = 0;
  for (int32_t d = 0; d < v.ndim; ++d) off += v.sizes[d] == 1 ? 0 : coord[lead + d] * v.strides[d];
  return static_cast<char*>(v.data) + off * static_cast<int64_t>(dtype_size(v.dtype));
}

axle_status index(void*, const axle_kernel_call* c) {
  const axle_tensor_view& self = arg_tensor(c, 0);
  IndexPlan p;
  axle_status status;
  const std::string err = plan_indexing("index", self, c->args[1], p, status);
  if (status != AXLE_OK) return fail(c, status, err);
  axle_tensor_view out = c->outputs[0];
  if (p.has_mask) {
    const axle_status s = c->host->allocate_output(c->call_context, 0, self.dtype,
                                                   static_cast<int32_t>(p.result.size()), p.result.data(), &out);
    if (s != AXLE_OK) return s;
  }
  const size_t es = dtype_size(self.dtype);
  const size_t rn = p.result.size();
  for_each_indexed(self, p,
                   [&](char* src, const int64_t* coord) { std::memcpy(broadcast_at(out, rn, coord), src, es); });
  return AXLE_OK;
}

axle_status index_put(void*, const axle_kernel_call* c) {
  const axle_tensor_view& self = c->outputs[0];  // the same tensor as argument 0
  const axle_tensor_view& values = arg_tensor(c, 2);
  const bool acc = arg_bool(c, 3);
  IndexPlan p;
  axle_status status;
  const std::string err = plan_indexing("index_put_", self, c->args[1], p, status);
  if (status != AXLE_OK) return fail(c, status, err);
  const size_t rn = p.result.size();
  bool ok = static_cast<size_t>(values.ndim) <= rn;
  for (int32_t d = 0; ok && d < values.ndim; ++d) {
    const int64_t v = values.sizes[d], want = p.result[rn - values.ndim + d];
    ok = v == want || v == 1;
  }
  if (!ok)
    return fail(c, AXLE_ERROR_SHAPE,
                "index_put_: shape mismatch: value tensor of shape " + shape_str(values.ndim, values.sizes) +
                    " cannot be broadcast to indexing result of shape " +
                    shape_str(static_cast<int32_t>(rn), p.result.data()));
  const size_t es = dtype_size(self.dtype);
  for_each_indexed(self, p, [&](char* dst, const int64_t* coord) {
    const char* src = broadcast_at(values, rn, coord);
    if (acc)
      accumulate(dst, src, self.dtype);
    else
      std::memcpy(dst, src, es);
  });
  return AXLE_OK;
}

const KernelEntry kKernels[] = {
    {"index_select", &index_select, AXLE_HERE},
    {"gather", &gather, AXLE_HERE},
    {"scatter.src", &scatter<ScatterMode::Src>, AXLE_HERE},
    {"scatter.value", &scatter<ScatterMode::Value>, AXLE_HERE},
    {"scatter_add", &scatter<ScatterMode::Add>, AXLE_HERE},
    {"masked_fill.Scalar", &masked_fill, AXLE_HERE},
    {"where.self", &where, AXLE_HERE},
    {"one_hot", &one_hot, AXLE_HERE},
    {"index.Tensor", &index, AXLE_HERE},
    {"index_put_", &index_put, AXLE_HERE},
};

}  // namespace

axle_status register_indexing(const axle_registrar* r) { return register_kernels(r, "cpu", kKernels); }

}  // namespace axle::reference
