// Reductions and ops along a dim: sum and mean (over all dims as composites, or
// a dim list), prod, amax/amin, max/min (whole and with indices, or elementwise
// with another tensor), argmax/argmin, var/std, norm, logsumexp, all/any,
// cumsum/cumprod, count_nonzero, topk, sort/argsort. Shape functions wrap and
// normalize dims (dim lists become sorted explicit lists, see reduction_util.h)
// before kernels run.
#include "../derivatives/derivatives.h"
#include "reduction_util.h"

#include <axle/ops.h>

#include <cmath>

namespace axle::shape {
namespace {

// Normalizes args[1] (None | int[]) into a sorted list of unique dims (empty for
// a 0-dim input) and computes the output sizes.
IntList reduce_sizes(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  const IntList dims = normalize_reduce_dims(t, c.args[1], c.op);
  c.args[1] = dims;
  return reduced_sizes(t.sizes(), dims, c.args[2].to_bool());
}

void sum_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  const DType dt = !c.args[3].is_none() ? c.args[3].dtype() : is_integral(t.dtype(), true) ? kInt64 : t.dtype();
  c.outputs = {{reduce_sizes(c), dt}};
}

void mean_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  const DType dt = c.args[3].is_none() ? t.dtype() : c.args[3].dtype();
  AXLE_CHECK(is_floating_point(dt), DTypeError, c.op,
             ": mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
             "Got: ",
             dtype_name(dt));
  c.outputs = {{reduce_sizes(c), dt}};
}

DType int_to_int64(DType d) { return is_integral(d, true) ? kInt64 : d; }

// Reduced dims must not be empty where the reduction has no identity (max, argmax, amax).
void check_nonzero_dims(ShapeContext& c, const Tensor& t, const IntList& dims) {
  for (int64_t d : dims)
    AXLE_CHECK(t.sizes()[d] != 0, IndexError, c.op, ": Expected reduction dim ", d, " to have non-zero size.");
}
void check_nonempty_whole(ShapeContext& c, const Tensor& t) {
  AXLE_CHECK(t.numel() != 0, IndexError, c.op,
             ": Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the "
             "'dim' argument.");
}

// Wraps the int dim at args[i] in place (0-d inputs accept 0 and -1); returns it.
int64_t wrap_dim_arg(ShapeContext& c, size_t i) {
  const int64_t d = wrap_dim(c.args[i].to_int(), c.arg(0).tensor().dim(), c.op);
  c.args[i] = d;
  return d;
}

// Sizes after reducing the single dim `d` (nothing for a 0-d input).
IntList one_dim_sizes(const Tensor& t, int64_t d, bool keepdim) {
  return t.dim() == 0 ? IntList{} : reduced_sizes(t.sizes(), {d}, keepdim);
}

// Normalizes the dim list at args[i] (see normalize_reduce_dims) in place.
IntList dims_arg(ShapeContext& c, size_t i) {
  const IntList dims = normalize_reduce_dims(c.arg(0).tensor(), c.args[i], c.op);
  c.args[i] = dims;
  return dims;
}

// ---- prod
DType prod_dtype(const Tensor& t, const Value& dtype) {
  return dtype.is_none() ? int_to_int64(t.dtype()) : dtype.dtype();
}

void prod_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  c.outputs = {{{}, prod_dtype(t, c.args[1])}};
}

void prod_dim_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  const int64_t d = wrap_dim_arg(c, 1);
  c.outputs = {{one_dim_sizes(t, d, c.args[2].to_bool()), prod_dtype(t, c.args[3])}};
}

// ---- amax / amin / max / min / argmax / argmin
void amax_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  if (c.args[1].int_list().empty()) check_nonempty_whole(c, t);
  const IntList dims = dims_arg(c, 1);
  check_nonzero_dims(c, t, dims);
  c.outputs = {{reduced_sizes(t.sizes(), dims, c.args[2].to_bool()), t.dtype()}};
}

void max_all_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  check_nonempty_whole(c, t);
  c.outputs = {{{}, t.dtype()}};
}

void max_dim_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  const int64_t d = wrap_dim_arg(c, 1);
  if (t.dim() > 0) check_nonzero_dims(c, t, {d});
  const IntList sizes = one_dim_sizes(t, d, c.args[2].to_bool());
  c.outputs = {{sizes, t.dtype()}, {sizes, kInt64}};
}

void argmax_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  const bool keepdim = c.args[2].to_bool();
  if (c.args[1].is_none()) {
    AXLE_CHECK(t.numel() != 0, IndexError, c.op, ": Expected reduction dim to be specified for input.numel() == 0.");
    c.outputs = {{keepdim ? IntList(static_cast<size_t>(t.dim()), 1) : IntList{}, kInt64}};
    return;
  }
  const int64_t d = wrap_dim_arg(c, 1);
  if (t.dim() > 0) check_nonzero_dims(c, t, {d});
  c.outputs = {{one_dim_sizes(t, d, keepdim), kInt64}};
}

// ---- var / std (args: self, dim, correction, keepdim)
void var_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  AXLE_CHECK(is_floating_point(t.dtype()), DTypeError, c.op,
             ": std and var only support floating point and complex dtypes (got ", dtype_name(t.dtype()), ")");
  const IntList dims = dims_arg(c, 1);
  if (c.args[2].is_none()) c.args[2] = int64_t{1};
  c.outputs = {{reduced_sizes(t.sizes(), dims, c.args[3].to_bool()), t.dtype()}};
}

Stack var_unbiased(const char* op, const Stack& a) {  // var(self, unbiased)
  return call_op(op, {a[0], Value(), int64_t{a[1].to_bool() ? 1 : 0}, false});
}
Stack var_dim(const char* op, const Stack& a) {  // var.dim(self, dim, unbiased, keepdim)
  return call_op(op, {a[0], a[1], int64_t{a[2].to_bool() ? 1 : 0}, a[3]});
}

// ---- norm (self, p, dim, keepdim): torch.linalg.vector_norm's semantics
void norm_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  AXLE_CHECK(is_floating_point(t.dtype()), DTypeError, c.op,
             ": norm(): input dtype should be either floating point or complex. Got ", dtype_name(t.dtype()),
             " instead.");
  if (c.args[1].is_none()) c.args[1] = 2.0;
  const IntList dims = dims_arg(c, 2);
  c.outputs = {{reduced_sizes(t.sizes(), dims, c.args[3].to_bool()), t.dtype()}};
}

// norm with a string p, as torch.norm: 'fro' is the 2-norm over at most 2 dims.
Stack norm_str_composite(const Stack& a) {
  const std::string& p = a[1].str();
  if (p == "nuc")  // the linalg family's nuclear_norm (the sum of the singular values)
    return a[2].is_none() ? call_op("nuclear_norm", {a[0], a[3]}) : call_op("nuclear_norm.dim", {a[0], a[2], a[3]});
  AXLE_CHECK(p == "fro", ValueError, "norm: only valid string values are 'fro' and 'nuc', found ", p);
  AXLE_CHECK(a[2].is_none() || a[2].int_list().size() <= 2, ShapeError, "norm: Expected at most 2 dimensions, but got ",
             a[2].int_list().size(), " dimensions instead.");
  return call_op("norm.ScalarOpt_dim", {a[0], 2.0, a[2].is_none() ? Value(IntList{}) : a[2], a[3]});
}

// ---- logsumexp (self, dim, keepdim)
void logsumexp_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  const IntList dims = dims_arg(c, 1);
  const DType dt = is_floating_point(t.dtype()) ? t.dtype() : get_default_dtype();
  c.outputs = {{reduced_sizes(t.sizes(), dims, c.args[2].to_bool()), dt}};
}

// ---- all / any: bool results, uint8 for uint8 inputs (as torch 1.13)
DType all_dtype(const Tensor& t) { return t.dtype() == kUInt8 ? kUInt8 : kBool; }
void all_shape(ShapeContext& c) { c.outputs = {{{}, all_dtype(c.arg(0).tensor())}}; }
void all_dim_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  const int64_t d = wrap_dim_arg(c, 1);
  c.outputs = {{one_dim_sizes(t, d, c.args[2].to_bool()), all_dtype(t)}};
}

// ---- cumsum / cumprod (self, dim, dtype)
void cumulative_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  wrap_dim_arg(c, 1);
  const DType dt = c.args[2].is_none() ? int_to_int64(t.dtype()) : c.args[2].dtype();
  AXLE_CHECK(dt != kBool, DTypeError, c.op, ": not implemented for a bool result (dtype=bool)");
  c.outputs = {{t.sizes(), dt}};
}

// ---- count_nonzero
void count_nonzero_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  const IntList dims = dims_arg(c, 1);
  c.outputs = {{reduced_sizes(t.sizes(), dims, false), kInt64}};
}

Stack count_nonzero_composite(const Stack& a) {
  return call_op("count_nonzero.dim_IntList", {a[0], a[1].is_none() ? IntList{} : IntList{a[1].to_int()}});
}

// ---- topk (self, k, dim, largest, sorted), sort (self, dim, descending)
void topk_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  const int64_t d = wrap_dim_arg(c, 2);
  const int64_t k = c.args[1].to_int();
  const int64_t n = t.dim() > 0 ? t.sizes()[d] : 1;
  AXLE_CHECK(k >= 0 && k <= n, IndexError, c.op, ": selected index k out of range (k = ", k, ", size of dim ", d, " = ",
             n, ")");
  IntList sizes = t.sizes();
  if (t.dim() > 0) sizes[d] = k;
  c.outputs = {{sizes, t.dtype()}, {sizes, kInt64}};
}

void sort_shape(ShapeContext& c) {
  const Tensor& t = c.arg(0).tensor();
  wrap_dim_arg(c, 1);
  c.outputs = {{t.sizes(), t.dtype()}, {t.sizes(), kInt64}};
}

// The sort kernel is always stable, so sort.stable / argsort.stable only reorder arguments.
Stack sort_stable_composite(const Stack& a) { return call_op("sort", {a[0], a[2], a[3]}); }
Stack argsort_composite(const Stack& a) { return {call_op("sort", {a[0], a[1], a[2]})[1]}; }
Stack argsort_stable_composite(const Stack& a) { return {call_op("sort", {a[0], a[2], a[3]})[1]}; }

}  // namespace

std::vector<OpDecl> reduction_ops() {
  return {
      {.schema = "sum(Tensor self, *, ScalarType? dtype=None) -> Tensor",
       .composite =
           [](const Stack& a) {
             return call_op("sum.dim_IntList", {a[0], Value(), false, a[1]});
           },
       .doc = "Sum of all elements.",
       .derivative = {.decomposes = true}},
      {.schema = "sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
       .shape = &sum_shape,
       .doc = "Sum over dims (integers and bool sum to int64).",
       .derivative = {.vjp = &derivatives::sum_dim}},
      {.schema = "mean(Tensor self, *, ScalarType? dtype=None) -> Tensor",
       .composite =
           [](const Stack& a) {
             return call_op("mean.dim", {a[0], Value(), false, a[1]});
           },
       .doc = "Mean of all elements.",
       .derivative = {.decomposes = true}},
      {.schema = "mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
       .shape = &mean_shape,
       .doc = "Mean over dims (floating dtypes only).",
       .derivative = {.vjp = &derivatives::mean_dim}},
      {.schema = "prod(Tensor self, *, ScalarType? dtype=None) -> Tensor",
       .shape = &prod_shape,
       .doc = "Product of all elements (integers and bool give int64; empty gives 1).",
       .derivative = {.vjp = &derivatives::prod, .saves = save_arg(0)}},
      {.schema = "prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
       .shape = &prod_dim_shape,
       .doc = "Product along a dim.",
       .derivative = {.vjp = &derivatives::prod_dim, .saves = save_arg(0)}},
      {.schema = "amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
       .shape = &amax_shape,
       .doc = "Maximum over dims (all when empty); NaN propagates.",
       .derivative = {.vjp = &derivatives::amax_amin, .saves = save_arg(0) | save_output(0)}},
      {.schema = "amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
       .shape = &amax_shape,
       .doc = "Minimum over dims (all when empty); NaN propagates.",
       .derivative = {.vjp = &derivatives::amax_amin, .saves = save_arg(0) | save_output(0)}},
      {.schema = "max(Tensor self) -> Tensor",
       .shape = &max_all_shape,
       .doc = "Maximum of all elements; NaN propagates.",
       .derivative = {.vjp = &derivatives::max_min_all, .saves = save_arg(0) | save_output(0)}},
      {.schema = "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
       .shape = &max_dim_shape,
       .doc = "Maximum along a dim and the index of its first occurrence (NaN counts as the maximum).",
       .derivative = {.vjp = &derivatives::max_min_dim, .saves = save_output(1)}},
      // After max.dim, so that max(t, 1) picks the dim form from Python.
      {.schema = "max.other(Tensor self, Tensor other) -> Tensor",
       .composite =
           [](const Stack& a) {
             return call_op("maximum", {a[0], a[1]});
           },
       .doc = "maximum(self, other).",
       .derivative = {.decomposes = true}},
      {.schema = "min(Tensor self) -> Tensor",
       .shape = &max_all_shape,
       .doc = "Minimum of all elements; NaN propagates.",
       .derivative = {.vjp = &derivatives::max_min_all, .saves = save_arg(0) | save_output(0)}},
      {.schema = "min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
       .shape = &max_dim_shape,
       .doc = "Minimum along a dim and the index of its first occurrence (NaN counts as the minimum).",
       .derivative = {.vjp = &derivatives::max_min_dim, .saves = save_output(1)}},
      {.schema = "min.other(Tensor self, Tensor other) -> Tensor",
       .composite =
           [](const Stack& a) {
             return call_op("minimum", {a[0], a[1]});
           },
       .doc = "minimum(self, other).",
       .derivative = {.decomposes = true}},
      {.schema = "argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
       .shape = &argmax_shape,
       .doc = "Index of the first maximum along a dim, or in the flattened tensor.",
       .derivative = {.none = "integer output"}},
      {.schema = "argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor",
       .shape = &argmax_shape,
       .doc = "Index of the first minimum along a dim, or in the flattened tensor.",
       .derivative = {.none = "integer output"}},
      {.schema = "var(Tensor self, bool unbiased=True) -> Tensor",
       .composite = [](const Stack& a) { return var_unbiased("var.correction", a); },
       .doc = "Variance of all elements.",
       .derivative = {.decomposes = true}},
      {.schema = "var.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor",
       .composite = [](const Stack& a) { return var_dim("var.correction", a); },
       .doc = "Variance over dims.",
       .derivative = {.decomposes = true}},
      {.schema = "var.correction(Tensor self, int[1]? dim=None, *, int? correction=None, bool keepdim=False) -> Tensor",
       .shape = &var_shape,
       .doc = "Variance over dims, dividing by max(0, N - correction) (correction defaults to 1).",
       .derivative = {.vjp = &derivatives::var_correction, .saves = save_arg(0)}},
      {.schema = "std(Tensor self, bool unbiased=True) -> Tensor",
       .composite = [](const Stack& a) { return var_unbiased("std.correction", a); },
       .doc = "Standard deviation of all elements.",
       .derivative = {.decomposes = true}},
      {.schema = "std.dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor",
       .composite = [](const Stack& a) { return var_dim("std.correction", a); },
       .doc = "Standard deviation over dims.",
       .derivative = {.decomposes = true}},
      {.schema = "std.correction(Tensor self, int[1]? dim=None, *, int? correction=None, bool keepdim=False) -> Tensor",
       .shape = &var_shape,
       .doc = "sqrt(var.correction).",
       .derivative = {.vjp = &derivatives::std_correction, .saves = save_arg(0) | save_output(0)}},
      {.schema = "norm.Scalar(Tensor self, Scalar p=2) -> Tensor",
       .composite =
           [](const Stack& a) {
             return call_op("norm.ScalarOpt_dim", {a[0], a[1], IntList{}, false});
           },
       .doc = "The p-norm of all elements.",
       .derivative = {.decomposes = true}},
      {.schema = "norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor",
       .shape = &norm_shape,
       .doc = "The vector p-norm over dims (p = 0 counts non-zeros, inf / -inf: max / min of |x|; None: 2).",
       .derivative = {.vjp = &derivatives::norm_dim, .saves = save_arg(0) | save_output(0)}},
      {.schema = "norm.str(Tensor self, str p='fro', int[1]? dim=None, bool keepdim=False) -> Tensor",
       .composite = &norm_str_composite,
       .doc = "torch.norm with a string p: 'fro' (the 2-norm over at most 2 dims) or 'nuc' (nuclear_norm).",
       .derivative = {.decomposes = true}},
      {.schema = "logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor",
       .shape = &logsumexp_shape,
       .doc = "log(sum(exp(self))) over dims, computed stably (integers give the default float dtype).",
       .derivative = {.vjp = &derivatives::logsumexp, .saves = save_arg(0) | save_output(0)}},
      {.schema = "all(Tensor self) -> Tensor",
       .shape = &all_shape,
       .doc = "Whether every element is non-zero (uint8 stays uint8).",
       .derivative = {.none = "bool output"}},
      {.schema = "all.dim(Tensor self, int dim, bool keepdim=False) -> Tensor",
       .shape = &all_dim_shape,
       .doc = "all() along a dim.",
       .derivative = {.none = "bool output"}},
      {.schema = "any(Tensor self) -> Tensor",
       .shape = &all_shape,
       .doc = "Whether any element is non-zero (uint8 stays uint8).",
       .derivative = {.none = "bool output"}},
      {.schema = "any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor",
       .shape = &all_dim_shape,
       .doc = "any() along a dim.",
       .derivative = {.none = "bool output"}},
      {.schema = "cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
       .shape = &cumulative_shape,
       .doc = "Cumulative sum along a dim (integers and bool give int64).",
       .derivative = {.vjp = &derivatives::cumsum}},
      {.schema = "cumprod(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
       .shape = &cumulative_shape,
       .doc = "Cumulative product along a dim (integers and bool give int64).",
       .derivative = {.vjp = &derivatives::cumprod, .saves = save_arg(0)}},
      {.schema = "count_nonzero(Tensor self, int? dim=None) -> Tensor",
       .composite = &count_nonzero_composite,
       .doc = "Number of non-zero elements, along a dim or in all.",
       .derivative = {.decomposes = true}},
      {.schema = "count_nonzero.dim_IntList(Tensor self, int[] dim) -> Tensor",
       .shape = &count_nonzero_shape,
       .doc = "Number of non-zero elements over dims (all when empty).",
       .derivative = {.none = "integer output"}},
      {.schema = "topk(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor "
                 "indices)",
       .shape = &topk_shape,
       .doc = "The k largest (or smallest) elements along a dim and their indices (always sorted).",
       .derivative = {.vjp = &derivatives::topk, .saves = save_output(1)}},
      {.schema = "sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)",
       .shape = &sort_shape,
       .doc = "Sorted values along a dim and their indices; stable; NaN sorts as the greatest.",
       .derivative = {.vjp = &derivatives::sort, .saves = save_output(1)}},
      {.schema = "sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> (Tensor values, "
                 "Tensor indices)",
       .composite = &sort_stable_composite,
       .doc = "sort (always stable).",
       .derivative = {.decomposes = true}},
      {.schema = "argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor",
       .composite = &argsort_composite,
       .doc = "The indices that sort self along a dim.",
       .derivative = {.decomposes = true}},
      {.schema = "argsort.stable(Tensor self, *, bool stable, int dim=-1, bool descending=False) -> Tensor",
       .composite = &argsort_stable_composite,
       .doc = "argsort (always stable).",
       .derivative = {.none = "integer output"}},
  };
}

}  // namespace axle::shape
