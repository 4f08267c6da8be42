// View operations: metadata-only, sharing storage, returning views exactly where
// PyTorch does. Errors follow PyTorch's wording and name the values.
#include <axle/tensor.h>

#include <algorithm>

namespace axle {

std::string shape_string(const IntList& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

namespace {

// Resolves a single -1 in `shape` against `numel` (torch's infer_size).
IntList infer_size(const IntList& shape, int64_t numel, const char* op) {
  check_tensor_rank(shape.size(), op);
  IntList out = shape;
  int64_t known = 1;
  std::optional<size_t> infer;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      AXLE_CHECK(!infer, ShapeError, op, "(): only one dimension can be inferred");
      infer = i;
    } else {
      AXLE_CHECK(shape[i] >= 0, ShapeError, op, "(): invalid shape dimension ", shape[i]);
      AXLE_CHECK(!__builtin_mul_overflow(known, shape[i], &known), ValueError, op, "(): shape ", shape_string(shape),
                 " overflows int64");
    }
  }
  if (infer) {
    AXLE_CHECK(known != 0 && numel % known == 0, ShapeError, op, "(): shape '", shape_string(shape),
               "' is invalid for input of size ", numel);
    out[*infer] = numel / known;
  } else {
    AXLE_CHECK(known == numel, ShapeError, op, "(): shape '", shape_string(shape), "' is invalid for input of size ",
               numel);
  }
  return out;
}

}  // namespace

// PyTorch's computeStride: strides for viewing (old sizes, strides) as `newshape`
// without copying, or nullopt when a dimension would span non-contiguous chunks.
std::optional<IntList> compute_view_strides(const IntList& oldshape, const IntList& oldstride,
                                            const IntList& newshape) {
  IntList newstride(newshape.size(), 1);
  if (oldshape.empty()) return newstride;
  int64_t numel = 1;
  for (int64_t s : oldshape) numel *= s;
  if (numel == 0 && oldshape == newshape) return oldstride;
  if (numel == 0) {
    for (size_t k = newshape.size(); k-- > 0;)
      newstride[k] = (k == newshape.size() - 1) ? 1 : std::max<int64_t>(newshape[k + 1], 1) * newstride[k + 1];
    return newstride;
  }
  int64_t view_d = static_cast<int64_t>(newshape.size()) - 1;
  int64_t chunk_base_stride = oldstride.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t tensor_d = static_cast<int64_t>(oldshape.size()) - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= oldshape[tensor_d];
    if (tensor_d == 0 || (oldshape[tensor_d - 1] != 1 && oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || newshape[view_d] == 1)) {
        newstride[view_d] = view_numel * chunk_base_stride;
        view_numel *= newshape[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (tensor_d > 0) {
        chunk_base_stride = oldstride[tensor_d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return newstride;
}

IntList infer_view_shape(const IntList& shape, int64_t numel, const char* op) { return infer_size(shape, numel, op); }

Tensor Tensor::view(const IntList& shape) const {
  IntList sz = infer_size(shape, numel(), "view");
  auto st = compute_view_strides(sizes(), strides(), sz);
  AXLE_CHECK(st.has_value(), ShapeError,
             "view(): view size is not compatible with input tensor's size and stride (at least one dimension spans "
             "across two contiguous subspaces). Use .reshape(...) instead. (sizes ",
             shape_string(sizes()), ", strides ", shape_string(strides()), ", requested ", shape_string(shape), ")");
  return make_view(*this, std::move(sz), std::move(*st), storage_offset());
}

Tensor Tensor::as_strided(const IntList& sz, const IntList& st, std::optional<int64_t> offset) const {
  check_tensor_rank(sz.size(), "as_strided");
  AXLE_CHECK(sz.size() == st.size(), ShapeError, "as_strided(): mismatch in length of strides and shape (", sz.size(),
             " vs ", st.size(), ")");
  const int64_t off = offset.value_or(storage_offset());
  AXLE_CHECK(off >= 0, ValueError, "as_strided(): negative storage offset ", off);
  bool empty = false;
  for (size_t i = 0; i < sz.size(); ++i) {
    AXLE_CHECK(sz[i] >= 0, ValueError, "as_strided(): negative size ", sz[i]);
    AXLE_CHECK(st[i] >= 0, ValueError, "as_strided(): negative stride ", st[i]);
    empty |= sz[i] == 0;
  }
  checked_numel(sz);
  if (!empty) {
    // Highest element index touched, in overflow-checked arithmetic, then bounds-checked.
    int64_t max_index = off, step = 0, needed = 0;
    bool overflow = false;
    for (size_t i = 0; i < sz.size(); ++i) {
      overflow |= __builtin_mul_overflow(sz[i] - 1, st[i], &step);
      overflow |= __builtin_add_overflow(max_index, step, &max_index);
    }
    overflow |= __builtin_mul_overflow(max_index + (overflow ? 0 : 1), static_cast<int64_t>(element_size()), &needed);
    AXLE_CHECK(!overflow, ValueError, "as_strided(): size ", shape_string(sz), ", stride ", shape_string(st),
               ", offset ", off, " address more memory than int64 can count");
    AXLE_CHECK(static_cast<size_t>(needed) <= storage()->nbytes, ValueError, "as_strided(): size ", shape_string(sz),
               ", stride ", shape_string(st), ", offset ", off, " needs ", needed, " bytes but the storage has ",
               storage()->nbytes);
  }
  return make_view(*this, sz, st, off);
}

Tensor Tensor::permute(const IntList& dims) const {
  const int64_t n = dim();
  AXLE_CHECK(static_cast<int64_t>(dims.size()) == n, ShapeError, "permute(): number of dims don't match in permute (",
             dims.size(), " given for a ", n, "-d tensor)");
  IntList sz(n), st(n);
  std::vector<bool> seen(n, false);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = wrap_dim(dims[i], n, "permute");
    AXLE_CHECK(!seen[d], ShapeError, "permute(): repeated dim ", dims[i], " in ", shape_string(dims));
    seen[d] = true;
    sz[i] = sizes()[d];
    st[i] = strides()[d];
  }
  return make_view(*this, std::move(sz), std::move(st), storage_offset());
}

Tensor Tensor::transpose(int64_t d0, int64_t d1) const {
  const int64_t n = dim();
  if (n == 0) {
    wrap_dim(d0, n, "transpose");
    wrap_dim(d1, n, "transpose");
    return make_view(*this, sizes(), strides(), storage_offset());
  }
  d0 = wrap_dim(d0, n, "transpose");
  d1 = wrap_dim(d1, n, "transpose");
  IntList sz = sizes(), st = strides();
  std::swap(sz[d0], sz[d1]);
  std::swap(st[d0], st[d1]);
  return make_view(*this, std::move(sz), std::move(st), storage_offset());
}

Tensor Tensor::t() const {
  AXLE_CHECK(dim() <= 2, ShapeError, "t() expects a tensor with <= 2 dimensions, but self is ", dim(), "D");
  return dim() < 2 ? transpose(0, 0) : transpose(0, 1);
}

Tensor Tensor::slice(int64_t d, std::optional<int64_t> start_opt, std::optional<int64_t> end_opt, int64_t step) const {
  AXLE_CHECK(dim() > 0, IndexError, "slice() cannot be applied to a 0-dim tensor.");
  d = wrap_dim(d, dim(), "slice");
  AXLE_CHECK(step > 0, ValueError, "slice(): slice step must be positive, got ", step);
  const int64_t len = sizes()[d];
  int64_t start = start_opt.value_or(0), end = end_opt.value_or(len);
  if (start < 0) start += len;
  if (end < 0) end += len;
  start = std::clamp<int64_t>(start, 0, len);
  end = std::clamp<int64_t>(end, start, len);
  IntList sz = sizes(), st = strides();
  sz[d] = (end - start + step - 1) / step;
  st[d] = strides()[d] * step;
  return make_view(*this, std::move(sz), std::move(st), storage_offset() + start * strides()[d]);
}

Tensor Tensor::select(int64_t d, int64_t index) const {
  AXLE_CHECK(dim() > 0, IndexError, "select() cannot be applied to a 0-dim tensor.");
  d = wrap_dim(d, dim(), "select");
  const int64_t len = sizes()[d];
  AXLE_CHECK(index >= -len && index < len, IndexError, "select(): index ", index, " out of range for tensor of size ",
             shape_string(sizes()), " at dimension ", d);
  if (index < 0) index += len;
  IntList sz = sizes(), st = strides();
  sz.erase(sz.begin() + d);
  st.erase(st.begin() + d);
  return make_view(*this, std::move(sz), std::move(st), storage_offset() + index * strides()[d]);
}

Tensor Tensor::expand(const IntList& target) const {
  check_tensor_rank(target.size(), "expand");
  const int64_t n = dim(), m = static_cast<int64_t>(target.size());
  AXLE_CHECK(m >= n, ShapeError, "expand(): the number of sizes provided (", m,
             ") must be greater or equal to the number of dimensions in the tensor (", n, ")");
  IntList sz(m), st(m);
  for (int64_t i = m - 1; i >= 0; --i) {
    const int64_t src = i - (m - n);
    int64_t want = target[i];
    if (src < 0) {
      AXLE_CHECK(want >= 0, ShapeError, "expand(): the expanded size of the tensor (", want,
                 ") isn't allowed in a leading, non-existing dimension ", i);
      sz[i] = want;
      st[i] = 0;
      continue;
    }
    const int64_t have = sizes()[src];
    if (want == -1) want = have;
    AXLE_CHECK(have == want || have == 1, ShapeError, "expand(): the expanded size of the tensor (", want,
               ") must match the existing size (", have, ") at non-singleton dimension ", i,
               ".  Target sizes: ", shape_string(target), ".  Tensor sizes: ", shape_string(sizes()));
    sz[i] = want;
    st[i] = (have == want) ? strides()[src] : 0;
  }
  checked_numel(sz);
  return make_view(*this, std::move(sz), std::move(st), storage_offset());
}

Tensor Tensor::squeeze() const {
  IntList sz, st;
  for (int64_t i = 0; i < dim(); ++i)
    if (sizes()[i] != 1) {
      sz.push_back(sizes()[i]);
      st.push_back(strides()[i]);
    }
  return make_view(*this, std::move(sz), std::move(st), storage_offset());
}

Tensor Tensor::squeeze(int64_t d) const {
  if (dim() == 0) {
    wrap_dim(d, 0, "squeeze");
    return make_view(*this, sizes(), strides(), storage_offset());
  }
  d = wrap_dim(d, dim(), "squeeze");
  if (sizes()[d] != 1) return make_view(*this, sizes(), strides(), storage_offset());
  IntList sz = sizes(), st = strides();
  sz.erase(sz.begin() + d);
  st.erase(st.begin() + d);
  return make_view(*this, std::move(sz), std::move(st), storage_offset());
}

Tensor Tensor::unsqueeze(int64_t d) const {
  check_tensor_rank(sizes().size() + 1, "unsqueeze");
  d = wrap_dim(d, dim() + 1, "unsqueeze");
  IntList sz = sizes(), st = strides();
  const int64_t new_stride = d >= dim() ? 1 : sizes()[d] * strides()[d];
  sz.insert(sz.begin() + d, 1);
  st.insert(st.begin() + d, new_stride);
  return make_view(*this, std::move(sz), std::move(st), storage_offset());
}

}  // namespace axle
