// View and shape-movement ops. The metadata views (view, permute, transpose,
// slice, select, expand, squeeze, ...) are composites over the core Tensor's view
// methods and share storage exactly where PyTorch's do; narrow, split, chunk,
// unbind, movedim, flatten and unflatten are composites of those views. flip,
// tril and triu have kernels (copies); roll, repeat, cat and stack are
// device-agnostic composites: one empty output filled by copy_ into its slices.
#include <axle/ops.h>

#include <algorithm>
#include <numeric>

#include "../derivatives/derivatives.h"
#include "shape_util.h"

namespace axle::shape {
namespace {

const Tensor& self_of(const Stack& a) { return a[0].tensor(); }

// torch's maybe_wrap_dim(dim, ndim, wrap_scalar=false): a 0-d tensor has no dims.
int64_t wrap_dim_no_scalar(int64_t dim, int64_t ndim, const char* op) {
  AXLE_CHECK(ndim > 0, IndexError, op, ": Dimension specified as ", dim, " but tensor has no dimensions");
  return wrap_dim(dim, ndim, op);
}

// ---------------------------------------------------------------- metadata views
Stack view_composite(const Stack& a) { return {self_of(a).view(a[1].int_list())}; }
Stack permute_composite(const Stack& a) { return {self_of(a).permute(a[1].int_list())}; }
Stack transpose_composite(const Stack& a) { return {self_of(a).transpose(a[1].to_int(), a[2].to_int())}; }
Stack t_composite(const Stack& a) { return {self_of(a).t()}; }
Stack squeeze_composite(const Stack& a) { return {self_of(a).squeeze()}; }
Stack squeeze_dim_composite(const Stack& a) { return {self_of(a).squeeze(a[1].to_int())}; }
Stack unsqueeze_composite(const Stack& a) { return {self_of(a).unsqueeze(a[1].to_int())}; }
Stack expand_composite(const Stack& a) { return {self_of(a).expand(a[1].int_list())}; }
Stack expand_as_composite(const Stack& a) { return {self_of(a).expand(a[1].tensor().sizes())}; }
Stack select_composite(const Stack& a) { return {self_of(a).select(a[1].to_int(), a[2].to_int())}; }

Stack slice_composite(const Stack& a) {
  auto opt = [](const Value& v) { return v.is_none() ? std::nullopt : std::optional<int64_t>(v.to_int()); };
  return {self_of(a).slice(a[1].to_int(), opt(a[2]), opt(a[3]), a[4].to_int())};
}

Stack as_strided_composite(const Stack& a) {
  const std::optional<int64_t> offset = a[3].is_none() ? std::nullopt : std::optional<int64_t>(a[3].to_int());
  return {self_of(a).as_strided(a[1].int_list(), a[2].int_list(), offset)};
}

// ---------------------------------------------------------------- views built from views
Tensor narrow_view(const Tensor& t, int64_t dim, int64_t start, int64_t length) {
  AXLE_CHECK(t.dim() > 0, IndexError, "narrow: narrow() cannot be applied to a 0-dim tensor.");
  dim = wrap_dim(dim, t.dim(), "narrow");
  const int64_t len = t.sizes()[dim];
  if (start != len) start = wrap_dim(start, len, "narrow");  // start == size is a valid empty narrow
  AXLE_CHECK(length >= 0 && start <= len - length, IndexError, "narrow: start (", start, ") + length (", length,
             ") exceeds dimension size (", len, ").");
  return t.slice(dim, start, start + length, 1);
}

Stack narrow_composite(const Stack& a) {
  return {narrow_view(self_of(a), a[1].to_int(), a[2].to_int(), a[3].to_int())};
}

Stack flatten_composite(const Stack& a) {
  const Tensor& t = self_of(a);
  const int64_t start = wrap_dim(a[1].to_int(), t.dim(), "flatten");
  const int64_t end = wrap_dim(a[2].to_int(), t.dim(), "flatten");
  AXLE_CHECK(start <= end, ValueError, "flatten: flatten() has invalid args: start_dim cannot come after end_dim (",
             a[1].to_int(), " > ", a[2].to_int(), ")");
  if (t.dim() == 0) return {t.reshape({1})};
  if (start == end) return {t};
  IntList shape(t.sizes().begin(), t.sizes().begin() + start);
  int64_t flat = 1;
  for (int64_t d = start; d <= end; ++d) flat *= t.sizes()[d];
  shape.push_back(flat);
  shape.insert(shape.end(), t.sizes().begin() + end + 1, t.sizes().end());
  return {t.reshape(shape)};  // a view when the strides allow, else a copy
}

Stack unflatten_composite(const Stack& a) {
  const Tensor& t = self_of(a);
  const int64_t dim = wrap_dim_no_scalar(a[1].to_int(), t.dim(), "unflatten");
  IntList sizes = a[2].int_list();
  AXLE_CHECK(!sizes.empty(), ValueError, "unflatten: sizes must be non-empty");
  const int64_t len = t.sizes()[dim];
  int64_t known = 1;
  std::optional<size_t> infer;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      AXLE_CHECK(!infer, ShapeError, "unflatten: only one dimension can be inferred (sizes ", str(sizes), ")");
      infer = i;
    } else {
      AXLE_CHECK(sizes[i] >= 0, ShapeError, "unflatten: invalid shape dimension ", sizes[i]);
      known *= sizes[i];
    }
  }
  auto mismatch = [&] {
    return detail::concat("unflatten: Provided sizes ", str(a[2].int_list()), " don't multiply up to the size of dim ",
                          dim, " (", len, ") in the input tensor");
  };
  if (infer) {
    AXLE_CHECK(known != 0, ShapeError, "unflatten: cannot reshape tensor of ", len, " elements into shape ", str(sizes),
               " because the unspecified dimension size -1 can be any value and is ambiguous");
    AXLE_CHECK(len % known == 0, ShapeError, mismatch());
    sizes[*infer] = len / known;
  } else {
    AXLE_CHECK(known == len, ShapeError, mismatch());
  }
  IntList shape(t.sizes().begin(), t.sizes().begin() + dim);
  shape.insert(shape.end(), sizes.begin(), sizes.end());
  shape.insert(shape.end(), t.sizes().begin() + dim + 1, t.sizes().end());
  return {t.view(shape)};  // splitting one dim is always expressible with strides
}

std::vector<Tensor> split_sizes_views(const Tensor& t, const IntList& sizes, int64_t dim, const char* op) {
  AXLE_CHECK(t.dim() > 0, ShapeError, op, ": split expects at least a 1-dimensional tensor");
  dim = wrap_dim(dim, t.dim(), op);
  const int64_t len = t.sizes()[dim];
  int64_t total = 0;
  for (int64_t s : sizes) {
    AXLE_CHECK(s >= 0, ValueError, op,
               ": split_with_sizes expects split_sizes have only non-negative entries, but got "
               "split_sizes=",
               str(sizes));
    total += s;
  }
  AXLE_CHECK(total == len, ShapeError, op, ": split_with_sizes expects split_sizes to sum exactly to ", len,
             " (input tensor's size at dimension ", dim, "), but got split_sizes=", str(sizes));
  std::vector<Tensor> out;
  int64_t start = 0;
  for (int64_t s : sizes) {
    out.push_back(t.slice(dim, start, start + s, 1));
    start += s;
  }
  return out;
}

std::vector<Tensor> split_views(const Tensor& t, int64_t split_size, int64_t dim) {
  AXLE_CHECK(t.dim() > 0, ShapeError, "split.Tensor: split expects at least a 1-dimensional tensor");
  AXLE_CHECK(split_size >= 0, ValueError,
             "split.Tensor: split expects split_size be non-negative, but got split_size=", split_size);
  dim = wrap_dim(dim, t.dim(), "split.Tensor");
  const int64_t len = t.sizes()[dim];
  AXLE_CHECK(split_size > 0 || len == 0, ValueError,
             "split.Tensor: split_size can only be 0 if dimension size is 0, but got dimension size of ", len);
  const int64_t count = split_size == 0 ? 1 : std::max<int64_t>((len + split_size - 1) / split_size, 1);
  std::vector<Tensor> out;
  for (int64_t i = 0; i < count; ++i) {
    const int64_t start = i * split_size;
    out.push_back(t.slice(dim, start, start + std::min(split_size, len - start), 1));
  }
  return out;
}

Stack split_composite(const Stack& a) { return {split_views(self_of(a), a[1].to_int(), a[2].to_int())}; }
Stack split_sizes_composite(const Stack& a) {
  return {split_sizes_views(self_of(a), a[1].int_list(), a[2].to_int(), "split.sizes")};
}
Stack split_with_sizes_composite(const Stack& a) {
  return {split_sizes_views(self_of(a), a[1].int_list(), a[2].to_int(), "split_with_sizes")};
}

Stack chunk_composite(const Stack& a) {
  const Tensor& t = self_of(a);
  const int64_t chunks = a[1].to_int();
  AXLE_CHECK(t.dim() > 0, ShapeError, "chunk: chunk expects at least a 1-dimensional tensor");
  AXLE_CHECK(chunks > 0, ValueError, "chunk: chunk expects `chunks` to be greater than 0, got: ", chunks);
  const int64_t dim = wrap_dim(a[2].to_int(), t.dim(), "chunk");
  const int64_t len = t.sizes()[dim];
  const int64_t split_size = (len + chunks - 1) / chunks;
  // Zero-size: `chunks` empty pieces (split would give one).
  if (split_size == 0 && len == 0) return {split_sizes_views(t, IntList(chunks, 0), dim, "chunk")};
  return {split_views(t, split_size, dim)};
}

Stack unbind_composite(const Stack& a) {
  const Tensor& t = self_of(a);
  const int64_t dim = wrap_dim_no_scalar(a[1].to_int(), t.dim(), "unbind");
  std::vector<Tensor> out;
  for (int64_t i = 0; i < t.sizes()[dim]; ++i) out.push_back(t.select(dim, i));
  return {out};
}

Tensor movedim_view(const Tensor& t, const IntList& src, const IntList& dst) {
  AXLE_CHECK(src.size() == dst.size(), ShapeError, "movedim: Invalid source or destination dims: source (", str(src),
             " dims) should contain the same number of dims as destination (", str(dst), " dims)");
  const int64_t n = t.dim();
  IntList s(src.size()), d(dst.size());
  for (size_t i = 0; i < src.size(); ++i) {
    s[i] = wrap_dim(src[i], n, "movedim");
    d[i] = wrap_dim(dst[i], n, "movedim");
  }
  auto unique = [](IntList v) {
    std::sort(v.begin(), v.end());
    return std::adjacent_find(v.begin(), v.end()) == v.end();
  };
  AXLE_CHECK(unique(s), ValueError, "movedim: repeated dim in `source` (", str(src), ")");
  AXLE_CHECK(unique(d), ValueError, "movedim: repeated dim in `destination` (", str(dst), ")");
  if (n == 0) return t.view({});
  // Moved dims go to their destinations; the others keep their order in the rest.
  IntList order(n, -1);
  std::vector<bool> src_used(n, false);
  for (size_t i = 0; i < s.size(); ++i) {
    order[d[i]] = s[i];
    src_used[s[i]] = true;
  }
  int64_t next_src = 0;
  for (int64_t pos = 0; pos < n; ++pos) {
    if (order[pos] >= 0) continue;
    while (src_used[next_src]) ++next_src;
    order[pos] = next_src++;
  }
  return t.permute(order);
}

Stack movedim_composite(const Stack& a) { return {movedim_view(self_of(a), {a[1].to_int()}, {a[2].to_int()})}; }
Stack movedim_list_composite(const Stack& a) { return {movedim_view(self_of(a), a[1].int_list(), a[2].int_list())}; }

// ---------------------------------------------------------------- copies with kernels
void flip_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  IntList dims;
  for (int64_t d : c.args[1].int_list()) {
    const int64_t w = wrap_dim(d, t.dim(), c.op);
    AXLE_CHECK(std::find(dims.begin(), dims.end(), w) == dims.end(), ValueError, c.op, ": dim ", w,
               " appears multiple times in the list of dims");
    dims.push_back(w);
  }
  if (t.dim() == 0) dims.clear();  // a 0-d tensor accepts dim 0 / -1; nothing to reverse
  c.args[1] = dims;
  c.outputs = {{t.sizes(), t.dtype()}};
}

void triangle_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  AXLE_CHECK(t.dim() >= 2, IndexError, c.op, ": input tensor must have at least 2 dimensions, got ", t.dim(),
             "-d (Dimension out of range for dim -2)");
  c.outputs = {{t.sizes(), t.dtype()}};
}

// ---------------------------------------------------------------- copies as composites
// Copies `in` rolled by shift[k] along dims[k] into `out` (same sizes): for each
// rolled dim the two blocks [n-s, n) and [0, n-s) trade places, 2^k block copies.
void roll_into(Tensor out, Tensor in, const IntList& dims, const IntList& shifts, size_t k) {
  if (k == dims.size()) {
    out.copy_(in);
    return;
  }
  const int64_t d = dims[k], n = in.sizes()[d], s = shifts[k];
  if (s == 0) return roll_into(out, in, dims, shifts, k + 1);
  roll_into(out.slice(d, s, n), in.slice(d, 0, n - s), dims, shifts, k + 1);
  roll_into(out.slice(d, 0, s), in.slice(d, n - s, n), dims, shifts, k + 1);
}

Stack roll_composite(const Stack& a) {
  const Tensor& t = self_of(a);
  const IntList& shifts = a[1].int_list();
  const IntList& dims = a[2].int_list();
  AXLE_CHECK(!shifts.empty(), ValueError, "roll: `shifts` required");
  const bool flat = dims.empty() && shifts.size() == 1;
  AXLE_CHECK(flat || shifts.size() == dims.size(), ValueError,
             "roll: shifts and dimensions must align. shifts: ", shifts.size(), ", dims:", dims.size());
  Tensor out = make_empty(t.sizes(), t.dtype(), t.device());
  if (flat) {
    if (t.numel() > 0) {
      const int64_t n = t.numel();
      roll_into(out.view({-1}), t.reshape({-1}), {0}, {((shifts[0] % n) + n) % n}, 0);
    }
    return {out};
  }
  // Repeated dims add up (torch rolls dim by dim).
  IntList rdims, rshifts;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim_no_scalar(dims[i], t.dim(), "roll");
    auto it = std::find(rdims.begin(), rdims.end(), d);
    if (it == rdims.end()) {
      rdims.push_back(d);
      rshifts.push_back(shifts[i]);
    } else {
      rshifts[it - rdims.begin()] += shifts[i];
    }
  }
  if (t.numel() == 0) return {out};
  for (size_t i = 0; i < rdims.size(); ++i) {
    const int64_t n = t.sizes()[rdims[i]];
    rshifts[i] = ((rshifts[i] % n) + n) % n;
  }
  roll_into(out, t, rdims, rshifts, 0);
  return {out};
}

Stack repeat_composite(const Stack& a) {
  const Tensor& t = self_of(a);
  const IntList& repeats = a[1].int_list();
  const int64_t n = t.dim(), m = static_cast<int64_t>(repeats.size());
  AXLE_CHECK(m >= n, ShapeError,
             "repeat: Number of dimensions of repeat dims can not be smaller than number of "
             "dimensions of tensor (",
             m, " repeats for a ", n, "-d tensor)");
  IntList target(m), inner_sizes, inner_strides;
  for (int64_t i = 0; i < m; ++i) {
    const int64_t src = i - (m - n);
    const int64_t size = src < 0 ? 1 : t.sizes()[src];
    target[i] = repeats[i] * size;
    AXLE_CHECK(target[i] >= 0, ValueError, "repeat: Trying to create tensor with negative dimension ", target[i], ": ",
               str(target));
    // out viewed as [r0, s0, r1, s1, ...] receives self broadcast along the r dims.
    inner_sizes.insert(inner_sizes.end(), {repeats[i], size});
    inner_strides.insert(inner_strides.end(), {0, src < 0 ? 0 : t.strides()[src]});
  }
  Tensor out = make_empty(target, t.dtype(), t.device());
  if (out.numel() > 0) out.view(inner_sizes).copy_(make_view(t, inner_sizes, inner_strides, t.storage_offset()));
  return {out};
}

// torch's cat_should_skip_tensor: legacy 1-d empty tensors take no part in shapes.
bool cat_skips(const Tensor& t) { return t.dim() == 1 && t.sizes()[0] == 0; }

// cat's checks (torch's), output dtype (promoted) and sizes; legacy empty 1-D
// inputs are skipped as torch does. Shared by the shape function and the composite.
struct CatPlan {
  DType dtype;
  IntList sizes;
  int64_t dim = 0;
  Device device;
};
CatPlan cat_plan(const Stack& a) {
  const std::vector<Tensor>& ts = a[0].tensors();
  AXLE_CHECK(!ts.empty(), ValueError, "cat: torch.cat(): expected a non-empty list of Tensors");
  DType dtype = ts[0].dtype();
  for (size_t i = 0; i < ts.size(); ++i) {
    AXLE_CHECK(ts[i].dim() > 0, ShapeError, "cat: zero-dimensional tensor (at position ", i,
               ") cannot be concatenated");
    dtype = promote_types(dtype, ts[i].dtype());
  }
  const auto valid = std::find_if(ts.begin(), ts.end(), [](const Tensor& t) { return !cat_skips(t); });
  if (valid == ts.end()) return {dtype, IntList{0}, 0, ts[0].device()};
  const Tensor& ref = *valid;
  const int64_t dim = wrap_dim(a[1].to_int(), ref.dim(), "cat");
  IntList sizes = ref.sizes();
  int64_t total = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    const Tensor& t = ts[i];
    if (cat_skips(t)) continue;
    AXLE_CHECK(t.dim() == ref.dim(), ShapeError, "cat: Tensors must have same number of dimensions: got ", ref.dim(),
               " and ", t.dim());
    AXLE_CHECK(t.device() == ref.device(), DeviceError, "cat: expected all tensors on the same device, got ",
               ref.device(), " and ", t.device());
    for (int64_t d = 0; d < ref.dim(); ++d)
      AXLE_CHECK(d == dim || t.sizes()[d] == ref.sizes()[d], ShapeError,
                 "cat: Sizes of tensors must match except in dimension ", dim, ". Expected size ", ref.sizes()[d],
                 " but got size ", t.sizes()[d], " for tensor number ", i, " in the list.");
    total += t.sizes()[dim];
  }
  sizes[dim] = total;
  return {dtype, sizes, dim, ref.device()};
}

// A shape function besides the composite lets a plugin serve cat in one call
// (oneDNN's concat, the reference plugin's kernel); the composite of copies
// serves device types without a cat kernel.
void cat_shape(ShapeContext& c) {
  CatPlan p = cat_plan(c.args);
  c.outputs.push_back(OutputSpec{std::move(p.sizes), p.dtype});
}

Stack cat_composite(const Stack& a) {
  const std::vector<Tensor>& ts = a[0].tensors();
  const CatPlan p = cat_plan(a);
  Tensor out = make_empty(p.sizes, p.dtype, p.device);
  if (out.numel() == 0) return {out};
  int64_t offset = 0;
  for (const Tensor& t : ts) {
    if (cat_skips(t) || t.sizes()[p.dim] == 0) continue;
    out.slice(p.dim, offset, offset + t.sizes()[p.dim]).copy_(t);  // copy_ converts to the promoted dtype
    offset += t.sizes()[p.dim];
  }
  return {out};
}

Stack stack_composite(const Stack& a) {
  const std::vector<Tensor>& ts = a[0].tensors();
  AXLE_CHECK(!ts.empty(), ValueError, "stack: stack expects a non-empty TensorList");
  const int64_t dim = wrap_dim(a[1].to_int(), ts[0].dim() + 1, "stack");
  std::vector<Tensor> parts;
  for (size_t i = 0; i < ts.size(); ++i) {
    AXLE_CHECK(ts[i].sizes() == ts[0].sizes(), ShapeError,
               "stack: stack expects each tensor to be equal size, but got ", str(ts[0].sizes()), " at entry 0 and ",
               str(ts[i].sizes()), " at entry ", i);
    parts.push_back(ts[i].unsqueeze(dim));
  }
  return call_op("cat", {parts, dim});
}

}  // namespace

std::vector<OpDecl> views_ops() {
  return {
      {.schema = "view(Tensor(a) self, SymInt[] size) -> Tensor(a)",
       .composite = &view_composite,
       .doc = "A view with a new shape (one -1 inferred); ShapeError when the strides do not allow it.",
       .derivative = {.vjp = &derivatives::view}},
      {.schema = "flatten.using_ints(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)",
       .composite = &flatten_composite,
       .doc = "Merges dims start_dim..end_dim (a view when the strides allow, else a copy).",
       .derivative = {.decomposes = true}},
      {.schema = "unflatten.int(Tensor(a) self, int dim, int[] sizes) -> Tensor(a)",
       .composite = &unflatten_composite,
       .doc = "Splits dim into sizes (one -1 inferred); a view.",
       .derivative = {.decomposes = true}},
      {.schema = "permute(Tensor(a) self, int[] dims) -> Tensor(a)",
       .composite = &permute_composite,
       .doc = "Reorders the dims (a view).",
       .derivative = {.vjp = &derivatives::permute}},
      {.schema = "transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
       .composite = &transpose_composite,
       .doc = "Swaps two dims (a view).",
       .derivative = {.vjp = &derivatives::transpose}},
      {.schema = "t(Tensor(a) self) -> Tensor(a)",
       .composite = &t_composite,
       .doc = "Transposes a tensor of <= 2 dims (a view).",
       .derivative = {.vjp = &derivatives::t}},
      {.schema = "squeeze(Tensor(a) self) -> Tensor(a)",
       .composite = &squeeze_composite,
       .doc = "Drops every size-1 dim (a view).",
       .derivative = {.vjp = &derivatives::squeeze}},
      {.schema = "squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)",
       .composite = &squeeze_dim_composite,
       .doc = "Drops dim if its size is 1 (a view).",
       .derivative = {.vjp = &derivatives::squeeze}},
      {.schema = "unsqueeze(Tensor(a) self, int dim) -> Tensor(a)",
       .composite = &unsqueeze_composite,
       .doc = "Inserts a size-1 dim (a view).",
       .derivative = {.vjp = &derivatives::unsqueeze}},
      {.schema = "expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)",
       .composite = &expand_composite,
       .doc = "Broadcasts size-1 dims to size with stride 0 (a view; -1 keeps a size).",
       .derivative = {.vjp = &derivatives::expand}},
      {.schema = "expand_as(Tensor(a) self, Tensor other) -> Tensor(a)",
       .composite = &expand_as_composite,
       .doc = "expand(other.size()) (a view).",
       .derivative = {.vjp = &derivatives::expand}},
      {.schema = "narrow(Tensor(a) self, int dim, int start, int length) -> Tensor(a)",
       .composite = &narrow_composite,
       .doc = "length elements of dim from start (a view).",
       .derivative = {.decomposes = true}},
      {.schema =
           "slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)",
       .composite = &slice_composite,
       .doc = "self[start:end:step] along dim, clamped as Python slices (a view).",
       .derivative = {.decomposes = true}},
      {.schema = "select.int(Tensor(a) self, int dim, int index) -> Tensor(a)",
       .composite = &select_composite,
       .doc = "The slice at index along dim, dim removed (a view).",
       .derivative = {.vjp = &derivatives::select}},
      {.schema = "split.Tensor(Tensor(a -> *) self, int split_size, int dim=0) -> Tensor(a)[]",
       .composite = &split_composite,
       .doc = "Views of split_size elements along dim (the last may be shorter).",
       .derivative = {.decomposes = true}},
      {.schema = "split.sizes(Tensor(a -> *) self, int[] split_size, int dim=0) -> Tensor(a)[]",
       .composite = &split_sizes_composite,
       .doc = "Views of the given sizes along dim (as split_with_sizes).",
       .derivative = {.decomposes = true}},
      {.schema = "split_with_sizes(Tensor(a -> *) self, int[] split_sizes, int dim=0) -> Tensor(a)[]",
       .composite = &split_with_sizes_composite,
       .doc = "Views of the given sizes along dim; the sizes sum to the dim's size.",
       .derivative = {.decomposes = true}},
      {.schema = "chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]",
       .composite = &chunk_composite,
       .doc = "At most `chunks` views of ceil(size / chunks) elements along dim.",
       .derivative = {.decomposes = true}},
      {.schema = "unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]",
       .composite = &unbind_composite,
       .doc = "Every select(dim, i) (views).",
       .derivative = {.decomposes = true}},
      {.schema = "movedim.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)",
       .composite = &movedim_list_composite,
       .doc = "Moves dims source to positions destination, the rest keep their order (a view).",
       .derivative = {.decomposes = true}},
      {.schema = "movedim.int(Tensor(a) self, int source, int destination) -> Tensor(a)",
       .composite = &movedim_composite,
       .doc = "Moves one dim (a view).",
       .derivative = {.decomposes = true}},
      {.schema = "as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)",
       .composite = &as_strided_composite,
       .doc = "A view with explicit sizes, strides and offset, within the storage.",
       .derivative = {.decomposes = true}},
      {.schema = "flip(Tensor self, int[] dims) -> Tensor",
       .shape = &flip_shape,
       .doc = "A copy reversed along dims.",
       .derivative = {.vjp = &derivatives::flip}},
      {.schema = "roll(Tensor self, int[1] shifts, int[1] dims=[]) -> Tensor",
       .composite = &roll_composite,
       .doc = "A copy rolled by shifts along dims (the flattened tensor when dims is empty).",
       .derivative = {.vjp = &derivatives::roll}},
      {.schema = "repeat(Tensor self, SymInt[] repeats) -> Tensor",
       .composite = &repeat_composite,
       .doc = "A copy tiled repeats times along each dim (leading dims added).",
       .derivative = {.vjp = &derivatives::repeat}},
      {.schema = "tril(Tensor self, int diagonal=0) -> Tensor",
       .shape = &triangle_shape,
       .doc = "A copy with elements above the diagonal-th diagonal of the last two dims zeroed.",
       .derivative = {.vjp = &derivatives::tril}},
      {.schema = "triu(Tensor self, int diagonal=0) -> Tensor",
       .shape = &triangle_shape,
       .doc = "A copy with elements below the diagonal-th diagonal of the last two dims zeroed.",
       .derivative = {.vjp = &derivatives::triu}},
      {.schema = "cat(Tensor[] tensors, int dim=0) -> Tensor",
       .shape = &cat_shape,
       .composite = &cat_composite,
       .doc = "Concatenates along dim in the promoted dtype (1-d empty tensors are skipped).",
       .derivative = {.vjp = &derivatives::cat}},
      {.schema = "stack(Tensor[] tensors, int dim=0) -> Tensor",
       .composite = &stack_composite,
       .doc = "Joins equal-size tensors along a new dim.",
       .derivative = {.vjp = &derivatives::stack}},
  };
}

}  // namespace axle::shape
