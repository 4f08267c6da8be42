// Indexing family: index_select, gather, scatter (src / value / add, and in
// place), masked_fill, where, embedding, one_hot, advanced indexing
// (index.Tensor), index_put_ and nonzero. Shape functions check everything
// knowable without the data; index values are checked by the kernels
// (IndexError). Index lists are Tensor?[]: None items are undefined Tensors.
// nonzero's output shape depends on the data: its kernel allocates the output
// through the host (axle_host_api.allocate_output).
#include "../api/op_handle.h"
#include "../derivatives/derivatives.h"
#include "shape_util.h"

#include <axle/ops.h>

#include <cmath>
#include <limits>

namespace axle::shape {
namespace {

bool is_mask_dtype(DType d) { return d == kBool || d == kUInt8; }

// c10's `overflows`: can the number `v` be stored in `dt`? Integers may wrap
// into unsigned types (-1 -> 255); floats out of range (not inf) and NaN/inf
// into integers overflow; bool takes anything.
bool fits(const Value& v, DType dt) {
  if (dt == kBool || dt == kFloat64 || v.tag() == Value::Tag::Bool) return true;
  const Range r = dtype_range(dt);
  if (v.tag() == Value::Tag::Int) {
    const int64_t i = v.to_int();
    if (dt == kInt64) return true;
    if (dt == kUInt8) return i <= 255 && i >= -255;  // negatives wrap (two's complement) as in c10
    return static_cast<double>(i) >= r.lo && static_cast<double>(i) <= r.hi;
  }
  const double d = v.to_double();
  if (std::isinf(d) || std::isnan(d)) return is_floating_point(dt);
  if (dt == kInt64) return d >= r.lo && d < r.hi;  // 2^63 itself does not fit
  return d >= r.lo && d <= r.hi;
}

void check_fits(ShapeContext& c, const Value& v, DType dt) {
  AXLE_CHECK(fits(v, dt), DTypeError, c.op, ": value ", v.repr(), " cannot be converted to type ", dtype_name(dt),
             " without overflow");
}

// ---------------------------------------------------------------- index_select
void index_select_shape(ShapeContext& c) {
  const Tensor& self = c.arg(0).tensor();
  const Tensor& index = c.arg(2).tensor();
  const int64_t dim = wrap_dim(c.args[1].to_int(), std::max<int64_t>(self.dim(), 1), c.op);
  AXLE_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32, DTypeError, c.op,
             ": Expected dtype int32 or int64 for index, got ", dtype_name(index.dtype()));
  AXLE_CHECK(index.dim() <= 1, IndexError, c.op, ": Index is supposed to be a vector, got ", index.dim(), " dims");
  IntList sizes = self.sizes();
  if (self.dim() > 0) {
    AXLE_CHECK(self.sizes()[dim] > 0 || index.numel() == 0, IndexError, c.op, ": index is out of bounds for dimension ",
               dim, " with size 0");
    sizes[dim] = index.numel();
  }
  c.args[1] = dim;
  c.outputs = {{sizes, self.dtype()}};
}

// ---------------------------------------------------------------- gather / scatter
int64_t nonempty_dim(const Tensor& t) { return std::max<int64_t>(t.dim(), 1); }
int64_t nonempty_size(const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.sizes()[d]; }

void gather_shape(ShapeContext& c) {
  const Tensor& self = c.arg(0).tensor();
  const Tensor& index = c.arg(2).tensor();
  const int64_t dim = wrap_dim(c.args[1].to_int(), nonempty_dim(self), c.op);
  AXLE_CHECK(index.dtype() == kInt64, DTypeError, c.op, ": Expected dtype int64 for index, got ",
             dtype_name(index.dtype()));
  if (index.numel() > 0) {
    AXLE_CHECK(nonempty_dim(self) == nonempty_dim(index), ShapeError, c.op,
               ": Index tensor must have the same number of dimensions as input tensor (", index.dim(), " vs ",
               self.dim(), ")");
    for (int64_t d = 0; d < nonempty_dim(self); ++d)
      AXLE_CHECK(d == dim || nonempty_size(index, d) <= nonempty_size(self, d), ShapeError, c.op,
                 ": Size does not match at dimension ", d, " expected index ", str(index.sizes()),
                 " to be smaller than self ", str(self.sizes()), " apart from dimension ", dim);
  }
  c.args[1] = dim;
  c.outputs = {{index.sizes(), self.dtype()}};
}

// scatter.src / scatter_add (src_arg = 3 is a Tensor) and scatter.value (a Scalar).
void scatter_common(ShapeContext& c, bool src_is_tensor) {
  const Tensor& self = c.arg(0).tensor();
  const Tensor& index = c.arg(2).tensor();
  const int64_t dim = wrap_dim(c.args[1].to_int(), nonempty_dim(self), c.op);
  AXLE_CHECK(index.dtype() == kInt64, DTypeError, c.op, ": Expected dtype int64 for index, got ",
             dtype_name(index.dtype()));
  if (src_is_tensor) {
    const Tensor& src = c.arg(3).tensor();
    AXLE_CHECK(src.dtype() == self.dtype(), DTypeError, c.op, ": Expected self.dtype to be equal to src.dtype (got ",
               dtype_name(self.dtype()), " and ", dtype_name(src.dtype()), ")");
  } else {
    check_fits(c, c.args[3], self.dtype());
  }
  if (index.numel() > 0) {
    AXLE_CHECK(nonempty_dim(self) == nonempty_dim(index), ShapeError, c.op,
               ": Index tensor must have the same number of dimensions as self tensor (", index.dim(), " vs ",
               self.dim(), ")");
    if (src_is_tensor) {
      const Tensor& src = c.arg(3).tensor();
      AXLE_CHECK(nonempty_dim(src) == nonempty_dim(index), ShapeError, c.op,
                 ": Index tensor must have the same number of dimensions as src tensor (", index.dim(), " vs ",
                 src.dim(), ")");
      for (int64_t d = 0; d < nonempty_dim(self); ++d)
        AXLE_CHECK((d == dim || nonempty_size(index, d) <= nonempty_size(self, d)) &&
                       nonempty_size(index, d) <= nonempty_size(src, d),
                   ShapeError, c.op, ": Expected index ", str(index.sizes()), " to be smaller than self ",
                   str(self.sizes()), " apart from dimension ", dim, " and to be smaller size than src ",
                   str(src.sizes()));
    } else {
      for (int64_t d = 0; d < nonempty_dim(self); ++d)
        AXLE_CHECK(d == dim || nonempty_size(index, d) <= nonempty_size(self, d), ShapeError, c.op, ": Expected index ",
                   str(index.sizes()), " to be smaller than self ", str(self.sizes()), " apart from dimension ", dim);
    }
  }
  c.args[1] = dim;
  c.outputs = {{self.sizes(), self.dtype()}};
}

void scatter_src_shape(ShapeContext& c) { scatter_common(c, true); }
void scatter_value_shape(ShapeContext& c) { scatter_common(c, false); }

template <ShapeFn Functional>
void inplace_self_shape(ShapeContext& c) {
  Functional(c);
  c.outputs[0].alias_arg = 0;
}

// ---------------------------------------------------------------- masked_fill / where
void masked_fill_shape(ShapeContext& c) {
  const Tensor& self = c.arg(0).tensor();
  const Tensor& mask = c.arg(1).tensor();
  AXLE_CHECK(is_mask_dtype(mask.dtype()), DTypeError, c.op, ": only supports boolean masks, but got mask with dtype ",
             dtype_name(mask.dtype()));
  check_fits(c, c.args[2], self.dtype());
  c.outputs = {{broadcast(self.sizes(), mask.sizes()), self.dtype()}};
}

void masked_fill_inplace_shape(ShapeContext& c) {
  masked_fill_shape(c);
  const Tensor& self = c.arg(0).tensor();
  AXLE_CHECK(c.outputs[0].sizes == self.sizes(), ShapeError, c.op, ": output with shape ", str(self.sizes()),
             " doesn't match the broadcast shape ", str(c.outputs[0].sizes));
  c.outputs[0].alias_arg = 0;
}

// masked_fill.Tensor: the value is a 0-dim tensor; filled as its number.
Scalar fill_value(const char* op, const Tensor& value) {
  AXLE_CHECK(value.dim() == 0, ShapeError, op, ": only supports a 0-dimensional value tensor, but got tensor with ",
             value.dim(), " dimension(s).");
  return value.item();
}

Stack masked_fill_tensor(const Stack& a) {
  return call_op(AXLE_OP("masked_fill.Scalar"), {a[0], a[1], fill_value("masked_fill.Tensor", a[2].tensor())});
}
Stack masked_fill_tensor_(const Stack& a) {
  return call_op(AXLE_OP("masked_fill_.Scalar"), {a[0], a[1], fill_value("masked_fill_.Tensor", a[2].tensor())});
}

void where_shape(ShapeContext& c) {
  const Tensor& cond = c.arg(0).tensor();
  const Tensor& self = c.arg(1).tensor();
  const Tensor& other = c.arg(2).tensor();
  AXLE_CHECK(is_mask_dtype(cond.dtype()), DTypeError, c.op,
             ": expected condition to be a boolean tensor, but got a tensor with dtype ", dtype_name(cond.dtype()));
  c.outputs = {{broadcast(broadcast(cond.sizes(), self.sizes()), other.sizes()), result_type({&self, &other})}};
}

// ---------------------------------------------------------------- embedding / one_hot
Stack embedding_composite(const Stack& a) {
  const Tensor& weight = a[0].tensor();
  const Tensor& indices = a[1].tensor();
  AXLE_CHECK(weight.dim() == 2, ShapeError, "embedding: 'weight' must be 2-D, got ", weight.dim(), " dims");
  AXLE_CHECK(indices.dtype() == kInt64 || indices.dtype() == kInt32, DTypeError,
             "embedding: Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, "
             "Int; but got ",
             dtype_name(indices.dtype()));
  Tensor rows;
  try {
    rows = call_op(AXLE_OP("index_select"), {weight, int64_t{0}, indices.reshape({-1})})[0].tensor();
  } catch (const IndexError& e) {
    throw IndexError(detail::concat("embedding: ", e.what()));
  }
  IntList sizes = indices.sizes();
  sizes.push_back(weight.sizes()[1]);
  return {rows.view(sizes)};
}

void one_hot_shape(ShapeContext& c) {
  const Tensor& self = c.arg(0).tensor();
  const int64_t n = c.args[1].to_int();
  AXLE_CHECK(self.dtype() == kInt64, DTypeError, c.op, ": one_hot is only applicable to index tensor (int64), got ",
             dtype_name(self.dtype()));
  OutputSpec o;
  o.dtype = kInt64;
  if (self.numel() == 0) {
    AXLE_CHECK(n > 0, ValueError, c.op, ": Can not infer total number of classes from empty tensor.");
  } else {
    AXLE_CHECK(n >= -1, IndexError, c.op, ": Class values must be smaller than num_classes (", n, ").");
  }
  if (n == -1) {
    o.data_dependent = true;
  } else {
    o.sizes = self.sizes();
    o.sizes.push_back(n);
  }
  c.outputs = {o};
}

// ---------------------------------------------------------------- advanced indexing
// Validates a Tensor?[] index list against self and returns the shape of the
// indexing result, or nullopt when a boolean mask makes it data-dependent.
std::optional<IntList> index_result_shape(ShapeContext& c, const Tensor& self, const std::vector<Tensor>& indices) {
  int64_t consumed = 0, defined = 0;
  bool has_mask = false;
  for (const Tensor& t : indices) {
    if (!t.defined()) {
      ++consumed;
      continue;
    }
    ++defined;
    AXLE_CHECK(t.dtype() == kInt64 || is_mask_dtype(t.dtype()), IndexError, c.op,
               ": tensors used as indices must be long, byte or bool tensors, got ", dtype_name(t.dtype()));
    if (is_mask_dtype(t.dtype())) {
      AXLE_CHECK(t.dim() > 0, IndexError, c.op, ": 0-dim boolean indices are not supported");
      has_mask = true;
      for (int64_t j = 0; j < t.dim(); ++j) {
        const int64_t d = consumed + j;
        AXLE_CHECK(d < self.dim(), IndexError, c.op, ": too many indices for tensor of dimension ", self.dim());
        AXLE_CHECK(t.sizes()[j] == self.sizes()[d], IndexError, c.op, ": The shape of the mask ", str(t.sizes()),
                   " at index ", j, " does not match the shape of the indexed tensor ", str(self.sizes()), " at index ",
                   d);
      }
      consumed += t.dim();
    } else {
      ++consumed;
    }
  }
  AXLE_CHECK(consumed <= self.dim(), IndexError, c.op, ": too many indices for tensor of dimension ", self.dim(),
             " (got ", consumed, ")");
  AXLE_CHECK(defined > 0, IndexError, c.op, ": at least one index must be a tensor (got only None)");
  if (has_mask) return std::nullopt;
  // Broadcast the index tensors; the result is self's other dims around them.
  std::optional<IntList> b;
  std::string shapes;
  bool ok = true;
  for (const Tensor& t : indices) {
    if (!t.defined()) continue;
    shapes += (shapes.empty() ? "" : ", ") + str(t.sizes());
    if (!ok) continue;
    try {
      b = b ? broadcast(*b, t.sizes()) : t.sizes();
    } catch (const ShapeError&) {
      ok = false;
    }
  }
  AXLE_CHECK(ok, IndexError, c.op, ": shape mismatch: indexing tensors could not be broadcast together with shapes ",
             shapes);
  int64_t first_dim = -1, last_dim = -1;
  for (size_t d = 0; d < indices.size(); ++d) {
    if (!indices[d].defined()) continue;
    if (first_dim < 0) first_dim = static_cast<int64_t>(d);
    last_dim = static_cast<int64_t>(d);
  }
  bool adjacent = true;
  for (int64_t d = first_dim; d <= last_dim; ++d) adjacent = adjacent && indices[d].defined();
  IntList rest_before, rest_after;
  for (int64_t d = 0; d < self.dim(); ++d) {
    const bool indexed = d < static_cast<int64_t>(indices.size()) && indices[d].defined();
    if (indexed) continue;
    (adjacent && d > last_dim ? rest_after : rest_before).push_back(self.sizes()[d]);
  }
  IntList out = adjacent ? rest_before : IntList{};
  out.insert(out.end(), b->begin(), b->end());
  if (!adjacent) out.insert(out.end(), rest_before.begin(), rest_before.end());
  out.insert(out.end(), rest_after.begin(), rest_after.end());
  // An index into a dimension of size 0 can only be out of bounds.
  if (checked_numel(out) > 0)
    for (size_t d = 0; d < indices.size(); ++d)
      AXLE_CHECK(!indices[d].defined() || indices[d].numel() == 0 || self.sizes()[d] > 0, IndexError, c.op,
                 ": index is out of bounds for dimension ", d, " with size 0");
  return out;
}

void index_shape(ShapeContext& c) {
  const Tensor& self = c.arg(0).tensor();
  OutputSpec o;
  o.dtype = self.dtype();
  if (auto sizes = index_result_shape(c, self, c.args[1].tensors()))
    o.sizes = *sizes;
  else
    o.data_dependent = true;
  c.outputs = {o};
}

void index_put_shape(ShapeContext& c) {
  const Tensor& self = c.arg(0).tensor();
  const Tensor& values = c.arg(2).tensor();
  AXLE_CHECK(values.dtype() == self.dtype(), DTypeError, c.op,
             ": Index put requires the source and destination dtypes match, got ", dtype_name(self.dtype()),
             " for the destination and ", dtype_name(values.dtype()), " for the source.");
  if (auto r = index_result_shape(c, self, c.args[1].tensors())) {
    bool ok = values.dim() <= static_cast<int64_t>(r->size());
    for (int64_t i = 1; ok && i <= values.dim(); ++i) {
      const int64_t v = values.sizes()[values.dim() - i], want = (*r)[r->size() - i];
      ok = v == want || v == 1;
    }
    AXLE_CHECK(ok, ShapeError, c.op, ": shape mismatch: value tensor of shape ", str(values.sizes()),
               " cannot be broadcast to indexing result of shape ", str(*r));
  }
  c.outputs = {{self.sizes(), self.dtype(), 0}};
}

void nonzero_shape(ShapeContext& c) {
  OutputSpec o;
  o.dtype = kInt64;
  o.data_dependent = true;
  c.outputs = {o};
}

}  // namespace

std::vector<OpDecl> indexing_ops() {
  return {
      {.schema = "nonzero(Tensor self) -> Tensor",
       .shape = &nonzero_shape,
       .doc = "Indices of non-zero elements, shape (count, ndim); data-dependent output.",
       .derivative = {.none = "integer output"}},
      {.schema = "index_select(Tensor self, int dim, Tensor index) -> Tensor",
       .shape = &index_select_shape,
       .doc = "Entries of self along dim at the positions in a 1-d index (int64 or int32).",
       .derivative = {.vjp = &derivatives::index_select, .saves = save_arg(2)}},
      {.schema = "gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor",
       .shape = &gather_shape,
       .doc = "out[i][j] = self[index[i][j]][j] (dim 0); index is int64 with self's number of dims.",
       .derivative = {.vjp = &derivatives::gather, .saves = save_arg(2)}},
      // .value is declared before .src so that Python numbers bind to it.
      {.schema = "scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor",
       .shape = &scatter_value_shape,
       .doc = "A copy of self with value written at the positions index gives along dim.",
       .derivative = {.vjp = &derivatives::scatter_value, .saves = save_arg(2)}},
      {.schema = "scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
       .shape = &scatter_src_shape,
       .doc = "A copy of self with self[index[i][j]][j] = src[i][j] (dim 0).",
       .derivative = {.vjp = &derivatives::scatter_src, .saves = save_arg(2)}},
      {.schema = "scatter_.value(Tensor(a!) self, int dim, Tensor index, Scalar value) -> Tensor(a!)",
       .shape = &inplace_self_shape<&scatter_value_shape>,
       .doc = "In-place scatter of a value.",
       .kernel_op = "scatter.value"},
      {.schema = "scatter_.src(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)",
       .shape = &inplace_self_shape<&scatter_src_shape>,
       .doc = "In-place scatter.",
       .kernel_op = "scatter.src"},
      {.schema = "scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor",
       .shape = &scatter_src_shape,
       .doc = "A copy of self with self[index[i][j]][j] += src[i][j] (dim 0); repeated indices accumulate.",
       .derivative = {.vjp = &derivatives::scatter_add, .saves = save_arg(2)}},
      {.schema = "scatter_add_(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)",
       .shape = &inplace_self_shape<&scatter_src_shape>,
       .doc = "In-place scatter_add.",
       .kernel_op = "scatter_add"},
      {.schema = "masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor",
       .shape = &masked_fill_shape,
       .doc = "self (broadcast with mask) with value where mask is true.",
       .derivative = {.vjp = &derivatives::masked_fill, .saves = save_arg(1)}},
      {.schema = "masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor",
       .composite = &masked_fill_tensor,
       .doc = "masked_fill with a 0-dim tensor value.",
       .derivative = {.vjp = &derivatives::masked_fill_tensor, .saves = save_arg(1)}},
      {.schema = "masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)",
       .shape = &masked_fill_inplace_shape,
       .doc = "In-place masked_fill (mask broadcasts to self).",
       .kernel_op = "masked_fill.Scalar"},
      {.schema = "masked_fill_.Tensor(Tensor(a!) self, Tensor mask, Tensor value) -> Tensor(a!)",
       .composite = &masked_fill_tensor_,
       .doc = "In-place masked_fill with a 0-dim tensor value.",
       .derivative = {.vjp = &derivatives::masked_fill_tensor, .saves = save_arg(1)}},
      {.schema = "where.self(Tensor condition, Tensor self, Tensor other) -> Tensor",
       .shape = &where_shape,
       .doc = "self where condition else other; broadcast, self and other promoted.",
       .derivative = {.vjp = &derivatives::where, .saves = save_arg(0)}},
      {.schema = "embedding(Tensor weight, Tensor indices, int padding_idx=-1, bool scale_grad_by_freq=False, bool "
                 "sparse=False) -> Tensor",
       .composite = &embedding_composite,
       .doc = "Rows of a 2-d weight at indices: shape indices.shape + [weight.size(1)].",
       .flags = kNNFunctional,
       .derivative = {.vjp = &derivatives::embedding, .saves = save_arg(1)}},
      {.schema = "one_hot(Tensor self, int num_classes=-1) -> Tensor",
       .shape = &one_hot_shape,
       .doc = "int64 one-hot encoding along a new last dim (num_classes=-1: max + 1, data-dependent).",
       .flags = kNNOnly,
       .derivative = {.none = "integer output"}},
      {.schema = "index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
       .shape = &index_shape,
       .doc = "Advanced indexing self[indices] (int64 indices, bool/uint8 masks, None for a full slice).",
       .derivative = {.vjp = &derivatives::index, .saves = save_arg(1)}},
      {.schema = "index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)",
       .shape = &index_put_shape,
       .doc = "self[indices] = values (or += with accumulate=True).",
       .derivative = {.vjp = &derivatives::index_put, .saves = save_arg(1)}},
  };
}

}  // namespace axle::shape
