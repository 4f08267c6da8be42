// Samples for the reductions (dispatcher/src/ops/reduction.cpp). Lines along
// sorted dims are at most 16 long: torch's CPU sort is then stable, like axle's.
// argmax/argmin and topk skip bool, which torch 1.13 does not implement.
#include "samples.h"

#include <cmath>
#include <limits>

namespace axle::conformance {
namespace {

std::vector<Sample> all_dims(SampleContext& c) { return unary_samples(c); }

// (self, dim, keepdim) over dim forms; `extra` follows keepdim (e.g. dtype).
std::vector<Sample> dim_samples(SampleContext& c) {
  std::vector<Sample> out;
  out.push_back(ok({c.make({3, 4}), IntList{1}, false}, "dim 1"));
  out.push_back(ok({c.make({3, 4}), IntList{-2}, true}, "dim -2 keepdim"));
  out.push_back(ok({c.make({2, 3, 4}, Layout::Transposed), IntList{0, 2}, false}, "transposed, dims [0, 2]"));
  out.push_back(ok({c.make({3, 5}, Layout::Stepped), Value(), false}, "stepped, all dims"));
  out.push_back(ok({c.make({4, 3}, Layout::Expanded), IntList{0}, false}, "expanded along the reduced dim"));
  out.push_back(ok({c.make({}), IntList{0}, false}, "0-d, dim 0"));
  out.push_back(ok({c.make({0, 3}), IntList{0}, true}, "zero-size reduced dim"));
  out.push_back(ok({c.make({2, 3}), IntList{}, false}, "empty dim list = all dims"));
  out.push_back(fails({c.make({2, 3}), IntList{2}, false}, "dim out of range", "IndexError"));
  out.push_back(fails({c.make({2, 3}), IntList{1, -1}, false}, "repeated dim", "ValueError"));
  return out;
}

std::vector<Sample> mean_dim_samples(SampleContext& c) {
  if (!is_floating_point(c.dtype()))
    return {fails({c.make({2, 3}), IntList{1}, false}, "integral input", "DTypeError")};
  return dim_samples(c);
}
std::vector<Sample> mean_samples(SampleContext& c) {
  if (!is_floating_point(c.dtype())) return {fails({c.make({2, 3})}, "integral input", "DTypeError")};
  return unary_samples(c);
}

const Layout C = Layout::Contiguous;
const double kInf = std::numeric_limits<double>::infinity();

// Floating: about half the values NaN (sqrt of negatives); others: plain values.
Tensor with_nans(SampleContext& c, const IntList& sizes) {
  Tensor t = c.make(sizes);
  return is_floating_point(c.dtype()) ? sqrt(t) : t;
}
// Mostly zeros and ones, for all / any / count_nonzero.
Tensor zeros_and_ones(SampleContext& c, const IntList& sizes) { return c.make(sizes, C, kBool).to(c.dtype()); }
// Distinct values (a shuffled range; >= 0 for uint8), so that top-k indices are unique.
Tensor distinct(SampleContext& c, const IntList& sizes, bool transposed = false) {
  IntList base = sizes;
  if (transposed) std::swap(base[base.size() - 1], base[base.size() - 2]);
  Tensor t = make_empty(base, kInt64, Device("cpu"));
  const int64_t n = t.numel();
  const int64_t shift = c.dtype() == kUInt8 ? 0 : n / 2;
  int64_t* p = t.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) p[i] = (i * 7 + 3) % n - shift;  // n is never a multiple of 7 here
  Tensor out = t.to(c.dtype()).to(c.device());
  return transposed ? out.transpose(-1, -2) : out;
}

// ---- prod
std::vector<Sample> prod_samples(SampleContext& c) {
  std::vector<Sample> out = unary_samples(c, {Value()});
  out.push_back(ok({c.make({3, 4}), kFloat64}, "dtype float64"));
  out.push_back(ok({c.make({2, 3}, C, {}, 0, 3), kInt32}, "dtype int32"));
  out.push_back(ok({c.make({2, 3}), kBool}, "dtype bool"));
  return out;
}
std::vector<Sample> prod_dim_samples(SampleContext& c) {
  std::vector<Sample> out;
  out.push_back(ok({c.make({3, 4}), 1, false, Value()}, "dim 1"));
  out.push_back(ok({c.make({3, 4}), -2, true, Value()}, "dim -2 keepdim"));
  out.push_back(ok({c.make({2, 3, 4}, Layout::Transposed), 0, false, Value()}, "transposed, dim 0"));
  out.push_back(ok({c.make({3, 5}, Layout::Stepped), 1, false, Value()}, "stepped, dim 1"));
  out.push_back(ok({c.make({4, 3}, Layout::Expanded), 0, true, Value()}, "expanded, reduced along the expansion"));
  out.push_back(ok({c.make({}), 0, false, Value()}, "0-d, dim 0"));
  out.push_back(ok({c.make({}), -1, true, Value()}, "0-d, dim -1 keepdim"));
  out.push_back(ok({c.make({0, 3}), 0, false, Value()}, "zero-size reduced dim gives ones"));
  out.push_back(ok({c.make({3, 4}), 1, false, kFloat64}, "dtype float64"));
  out.push_back(fails({c.make({2, 3}), 2, false, Value()}, "dim out of range", "IndexError"));
  return out;
}

// ---- amax / amin (self, dim, keepdim)
std::vector<Sample> amax_samples(SampleContext& c) {
  std::vector<Sample> out;
  out.push_back(ok({c.make({3, 4}), IntList{1}, false}, "dim [1]"));
  out.push_back(ok({c.make({3, 4}), IntList{-2}, true}, "dim [-2] keepdim"));
  out.push_back(ok({c.make({2, 3, 4}, Layout::Transposed), IntList{0, 2}, false}, "transposed, dims [0, 2]"));
  out.push_back(ok({c.make({3, 5}, Layout::Stepped), IntList{}, false}, "stepped, all dims"));
  out.push_back(ok({c.make({2, 3}, Layout::Offset), IntList{}, true}, "offset, all dims keepdim"));
  out.push_back(ok({c.make({4, 3}, Layout::Expanded), IntList{0}, false}, "expanded along the reduced dim"));
  out.push_back(ok({c.make({}), IntList{0}, false}, "0-d, dim [0]"));
  out.push_back(ok({c.make({}), IntList{}, true}, "0-d, all dims"));
  out.push_back(ok({with_nans(c, {3, 4}), IntList{1}, false}, "NaN propagates"));
  out.push_back(ok({c.make({0, 3}), IntList{1}, false}, "zero-size, non-empty reduced dim"));
  out.push_back(fails({c.make({0, 3}), IntList{0}, false}, "zero-size reduced dim", "IndexError"));
  out.push_back(fails({c.make({0, 3}), IntList{}, false}, "zero-size, all dims", "IndexError"));
  out.push_back(fails({c.make({2, 3}), IntList{2}, false}, "dim out of range", "IndexError"));
  out.push_back(fails({c.make({2, 3}), IntList{1, -1}, false}, "repeated dim", "ValueError"));
  return out;
}

// ---- max / min (whole tensor)
std::vector<Sample> max_all_samples(SampleContext& c) {
  std::vector<Sample> out;
  for (auto& [t, note] : c.unary_variety()) {
    if (t.numel() == 0)
      out.push_back(fails({t}, note + " (no identity)", "IndexError"));
    else
      out.push_back(ok({t}, note));
  }
  out.push_back(ok({with_nans(c, {3, 4})}, "NaN propagates"));
  return out;
}

// ---- max.dim / min.dim (self, dim, keepdim) -> values, indices
std::vector<Sample> max_dim_samples(SampleContext& c) {
  std::vector<Sample> out;
  out.push_back(ok({c.make({3, 4}), 1, false}, "dim 1"));
  out.push_back(ok({c.make({3, 4}), -2, true}, "dim -2 keepdim"));
  out.push_back(ok({c.make({2, 3, 4}, Layout::Transposed), 1, false}, "transposed, dim 1"));
  out.push_back(ok({c.make({3, 5}, Layout::Stepped), 0, false}, "stepped, dim 0"));
  out.push_back(ok({c.make({4, 3}, Layout::Expanded), 0, false}, "expanded: ties give the first index"));
  out.push_back(ok({c.make({6, 5}, C, {}, 0, 2), 1, false}, "many ties"));
  out.push_back(ok({c.make({}), 0, false}, "0-d, dim 0"));
  out.push_back(ok({c.make({}), -1, true}, "0-d, dim -1 keepdim"));
  out.push_back(ok({with_nans(c, {3, 4}), 1, false}, "NaN wins, first NaN's index"));
  out.push_back(ok({c.make({0, 3}), 1, false}, "zero-size, non-empty reduced dim"));
  out.push_back(fails({c.make({0, 3}), 0, false}, "zero-size reduced dim", "IndexError"));
  out.push_back(fails({c.make({2, 3}), 2, false}, "dim out of range", "IndexError"));
  out.push_back(fails({c.make({}), 1, false}, "0-d, dim 1", "IndexError"));
  return out;
}

std::vector<Sample> max_other_samples(SampleContext& c) { return binary_samples(c); }

// ---- argmax / argmin (self, dim?, keepdim)
std::vector<Sample> argmax_samples(SampleContext& c) {
  std::vector<Sample> out;
  out.push_back(ok({c.make({3, 4}), Value(), false}, "flattened"));
  out.push_back(ok({c.make({3, 4}), Value(), true}, "flattened keepdim"));
  out.push_back(ok({c.make({3, 4}), 1, false}, "dim 1"));
  out.push_back(ok({c.make({3, 4}), -2, true}, "dim -2 keepdim"));
  out.push_back(ok({c.make({2, 3, 4}, Layout::Transposed), Value(), false}, "transposed, flattened"));
  out.push_back(ok({c.make({2, 3, 4}, Layout::Transposed), 2, false}, "transposed, dim 2"));
  out.push_back(ok({c.make({3, 5}, Layout::Stepped), 0, false}, "stepped, dim 0"));
  out.push_back(ok({c.make({4, 3}, Layout::Expanded), 0, false}, "expanded: ties give the first index"));
  out.push_back(ok({c.make({6, 5}, C, {}, 0, 2), 1, false}, "many ties"));
  out.push_back(ok({c.make({}), Value(), false}, "0-d, flattened"));
  out.push_back(ok({c.make({}), 0, true}, "0-d, dim 0 keepdim"));
  out.push_back(ok({with_nans(c, {3, 4}), 1, false}, "NaN wins"));
  out.push_back(ok({c.make({0, 3}), 1, false}, "zero-size, non-empty reduced dim"));
  out.push_back(fails({c.make({0, 3}), Value(), false}, "zero-size, flattened", "IndexError"));
  out.push_back(fails({c.make({0, 3}), 0, false}, "zero-size reduced dim", "IndexError"));
  out.push_back(fails({c.make({2, 3}), -3, false}, "dim out of range", "IndexError"));
  return out;
}

// ---- var / std
bool floating_or_fail(SampleContext& c, std::vector<Sample>& out, Stack args) {
  if (is_floating_point(c.dtype())) return true;
  out.push_back(fails(std::move(args), "integral input", "DTypeError"));
  return false;
}
std::vector<Sample> var_correction_samples(SampleContext& c) {
  std::vector<Sample> out;
  if (!floating_or_fail(c, out, {c.make({2, 3}), IntList{1}, Value(), false})) return out;
  out.push_back(ok({c.make({3, 4}), IntList{1}, Value(), false}, "dim [1], default correction"));
  out.push_back(ok({c.make({3, 4}), Value(), int64_t{0}, false}, "all dims, correction 0"));
  out.push_back(ok({c.make({3, 4}), IntList{-2}, int64_t{1}, true}, "dim [-2] keepdim"));
  out.push_back(ok({c.make({3, 4}), IntList{}, int64_t{2}, true}, "empty list = all dims, keepdim"));
  out.push_back(ok({c.make({2, 3, 4}, Layout::Transposed), IntList{0, 2}, int64_t{1}, false}, "transposed"));
  out.push_back(ok({c.make({3, 5}, Layout::Stepped), IntList{1}, int64_t{1}, false}, "stepped"));
  out.push_back(ok({c.make({4, 3}, Layout::Expanded), IntList{0}, int64_t{1}, false}, "expanded: zero variance"));
  out.push_back(ok({c.make({3, 4}), IntList{1}, int64_t{6}, false}, "correction > N gives inf"));
  out.push_back(ok({c.make({}), IntList{0}, int64_t{0}, false}, "0-d, correction 0"));
  out.push_back(ok({c.make({}), Value(), Value(), false}, "0-d, default correction gives NaN"));
  out.push_back(ok({c.make({0, 3}), IntList{0}, Value(), false}, "zero-size reduced dim gives NaN"));
  out.push_back(ok({with_nans(c, {3, 4}), IntList{1}, Value(), false}, "NaN propagates"));
  out.push_back(fails({c.make({2, 3}), IntList{2}, Value(), false}, "dim out of range", "IndexError"));
  out.push_back(fails({c.make({2, 3}), IntList{0, 0}, Value(), false}, "repeated dim", "ValueError"));
  return out;
}
std::vector<Sample> var_samples(SampleContext& c) {  // var(self, unbiased)
  std::vector<Sample> out;
  if (!floating_or_fail(c, out, {c.make({2, 3}), true})) return out;
  for (Sample& s : unary_samples(c, {true})) out.push_back(std::move(s));
  out.push_back(ok({c.make({3, 4}), false}, "biased"));
  return out;
}
std::vector<Sample> var_dim_samples(SampleContext& c) {  // var.dim(self, dim, unbiased, keepdim)
  std::vector<Sample> out;
  if (!floating_or_fail(c, out, {c.make({2, 3}), IntList{1}, true, false})) return out;
  out.push_back(ok({c.make({3, 4}), IntList{1}, true, false}, "dim [1] unbiased"));
  out.push_back(ok({c.make({3, 4}), IntList{0}, false, true}, "dim [0] biased keepdim"));
  out.push_back(ok({c.make({2, 3, 4}, Layout::Transposed), Value(), true, false}, "transposed, all dims"));
  out.push_back(ok({c.make({}), IntList{0}, false, false}, "0-d"));
  out.push_back(fails({c.make({2, 3}), IntList{-3}, true, false}, "dim out of range", "IndexError"));
  return out;
}

// ---- norm
std::vector<Sample> norm_scalar_samples(SampleContext& c) {  // norm.Scalar(self, p)
  std::vector<Sample> out;
  if (!floating_or_fail(c, out, {c.make({2, 3}), 2})) return out;
  for (Sample& s : unary_samples(c, {2})) out.push_back(std::move(s));
  for (double p : {0.0, 1.0, 3.0, 0.5, -1.0, kInf, -kInf}) {
    out.push_back(ok({c.make({3, 4}), p}, "p = " + std::to_string(p)));
  }
  out.push_back(ok({c.make({0, 3}), kInf}, "zero-size, p = inf gives 0"));
  out.push_back(ok({with_nans(c, {3, 4}), 1}, "NaN propagates"));
  return out;
}
std::vector<Sample> norm_dim_samples(SampleContext& c) {  // norm.ScalarOpt_dim(self, p, dim, keepdim)
  std::vector<Sample> out;
  if (!floating_or_fail(c, out, {c.make({2, 3}), 2, IntList{1}, false})) return out;
  out.push_back(ok({c.make({3, 4}), Value(), IntList{1}, false}, "p None (2), dim [1]"));
  out.push_back(ok({c.make({3, 4}), 1, IntList{1}, true}, "p 1, dim [1] keepdim"));
  out.push_back(ok({c.make({3, 4}), kInf, IntList{0}, false}, "p inf, dim [0]"));
  out.push_back(ok({c.make({3, 4}), -kInf, IntList{-1}, false}, "p -inf, dim [-1]"));
  out.push_back(ok({c.make({3, 4}), 0, IntList{1}, false}, "p 0 counts non-zeros"));
  out.push_back(ok({c.make({3, 4}), 2.5, IntList{}, true}, "p 2.5, all dims keepdim"));
  out.push_back(ok({c.make({2, 3, 4}, Layout::Transposed), 2, IntList{0, 2}, false}, "transposed, dims [0, 2]"));
  out.push_back(ok({c.make({3, 5}, Layout::Stepped), 3, IntList{1}, false}, "stepped, p 3"));
  out.push_back(ok({c.make({4, 3}, Layout::Expanded), -1, IntList{0}, false}, "expanded, p -1"));
  out.push_back(ok({c.make({}), 2, IntList{0}, false}, "0-d"));
  out.push_back(ok({c.make({0, 3}), 2, IntList{0}, false}, "zero-size reduced dim gives 0"));
  out.push_back(fails({c.make({2, 3}), 2, IntList{2}, false}, "dim out of range", "IndexError"));
  out.push_back(fails({c.make({2, 3}), 2, IntList{1, 1}, false}, "repeated dim", "ValueError"));
  return out;
}
std::vector<Sample> norm_str_samples(SampleContext& c) {  // norm.str(self, p, dim, keepdim) = torch.norm
  std::vector<Sample> out;
  if (!floating_or_fail(c, out, {c.make({2, 3}), "fro", Value(), false})) return out;
  out.push_back(ok({c.make({3, 4}), "fro", Value(), false}, "fro, all dims"));
  out.push_back(ok({c.make({3, 4}), "fro", IntList{1}, true}, "fro, dim [1] keepdim"));
  out.push_back(ok({c.make({2, 3, 4}, Layout::Transposed), "fro", IntList{0, 2}, false}, "fro, transposed, 2 dims"));
  out.push_back(ok({c.make({}), "fro", Value(), false}, "fro, 0-d"));
  out.push_back(fails({c.make({2, 2, 2}), "fro", IntList{0, 1, 2}, false}, "fro over 3 dims", "ShapeError"));
  out.push_back(fails({c.make({2, 3}), "abc", Value(), false}, "unknown norm name", "ValueError"));
  if (c.dtype() == kFloat32 || c.dtype() == kFloat64) {  // the SVD's dtypes
    out.push_back(ok({c.make({3, 4}), "nuc", Value(), false}, "nuc"));
    out.push_back(ok({c.make({2, 3, 4}, Layout::Transposed), "nuc", IntList{2, 0}, true}, "nuc, dims [2, 0], keepdim"));
  }
  return out;
}

// ---- logsumexp (self, dim, keepdim)
std::vector<Sample> logsumexp_samples(SampleContext& c) {
  std::vector<Sample> out;
  out.push_back(ok({c.make({3, 4}), IntList{1}, false}, "dim [1]"));
  out.push_back(ok({c.make({3, 4}), IntList{-2}, true}, "dim [-2] keepdim"));
  // All dims through an empty list: torch 1.13 fails without keepdim (a bug), so keepdim here.
  out.push_back(ok({c.make({3, 4}), IntList{}, true}, "empty list = all dims, keepdim"));
  out.push_back(ok({c.make({2, 3, 4}, Layout::Transposed), IntList{0, 2}, false}, "transposed, dims [0, 2]"));
  out.push_back(ok({c.make({3, 5}, Layout::Stepped), IntList{1}, false}, "stepped"));
  out.push_back(ok({c.make({4, 3}, Layout::Expanded), IntList{0}, false}, "expanded"));
  out.push_back(ok({c.make({}), IntList{0}, false}, "0-d"));
  out.push_back(ok({c.make({0, 3}), IntList{0}, false}, "zero-size reduced dim gives -inf"));
  if (c.dtype() == kFloat32 || c.dtype() == kFloat64)
    out.push_back(ok({c.make({3, 4}, C, {}, 500, 1000), IntList{1}, false}, "large values stay finite"));
  out.push_back(ok({with_nans(c, {3, 4}), IntList{1}, false}, "NaN propagates"));
  out.push_back(fails({c.make({2, 3}), IntList{2}, false}, "dim out of range", "IndexError"));
  out.push_back(fails({c.make({2, 3}), IntList{0, -2}, false}, "repeated dim", "ValueError"));
  return out;
}

// ---- all / any
std::vector<Sample> all_samples_(SampleContext& c) {
  std::vector<Sample> out = unary_samples(c);
  out.push_back(ok({zeros_and_ones(c, {3, 4})}, "zeros and ones"));
  out.push_back(ok({c.make({3, 4}, C, {}, 1, 3)}, "no zeros"));
  if (is_floating_point(c.dtype())) out.push_back(ok({with_nans(c, {3, 4})}, "NaN is non-zero"));
  return out;
}
std::vector<Sample> all_dim_samples(SampleContext& c) {
  std::vector<Sample> out;
  out.push_back(ok({zeros_and_ones(c, {3, 4}), 1, false}, "dim 1"));
  out.push_back(ok({zeros_and_ones(c, {3, 4}), -2, true}, "dim -2 keepdim"));
  out.push_back(ok({c.make({2, 3, 4}, Layout::Transposed), 2, false}, "transposed, dim 2"));
  out.push_back(ok({c.make({3, 5}, Layout::Stepped), 0, false}, "stepped"));
  out.push_back(ok({c.make({4, 3}, Layout::Expanded), 0, false}, "expanded"));
  out.push_back(ok({c.make({}), 0, false}, "0-d"));
  out.push_back(ok({c.make({0, 3}), 0, false}, "zero-size reduced dim"));
  out.push_back(fails({c.make({2, 3}), 2, false}, "dim out of range", "IndexError"));
  return out;
}

// ---- cumsum / cumprod (self, dim, dtype)
std::vector<Sample> cumulative_samples(SampleContext& c) {
  std::vector<Sample> out;
  out.push_back(ok({c.make({3, 4}), 1, Value()}, "dim 1"));
  out.push_back(ok({c.make({3, 4}), -2, Value()}, "dim -2"));
  out.push_back(ok({c.make({2, 3, 4}, Layout::Transposed), 2, Value()}, "transposed, dim 2"));
  out.push_back(ok({c.make({3, 5}, Layout::Stepped), 1, Value()}, "stepped"));
  out.push_back(ok({c.make({4, 3}, Layout::Expanded), 0, Value()}, "expanded along the dim"));
  out.push_back(ok({c.make({2, 3}, Layout::Offset), 0, Value()}, "offset"));
  out.push_back(ok({c.make({}), 0, Value()}, "0-d, dim 0"));
  out.push_back(ok({c.make({}), -1, Value()}, "0-d, dim -1"));
  out.push_back(ok({c.make({0, 3}), 0, Value()}, "zero-size"));
  out.push_back(ok({c.make({3, 4}), 1, kFloat64}, "dtype float64"));
  out.push_back(ok({c.make({3, 4}), 0, kInt32}, "dtype int32"));
  if (is_floating_point(c.dtype())) out.push_back(ok({with_nans(c, {3, 4}), 1, Value()}, "NaN propagates"));
  out.push_back(fails({c.make({2, 3}), 2, Value()}, "dim out of range", "IndexError"));
  out.push_back(fails({c.make({2, 3}), 1, kBool}, "bool result", "DTypeError"));
  return out;
}

// ---- count_nonzero
std::vector<Sample> count_nonzero_dims_samples(SampleContext& c) {
  std::vector<Sample> out;
  out.push_back(ok({zeros_and_ones(c, {3, 4}), IntList{1}}, "dim [1]"));
  out.push_back(ok({zeros_and_ones(c, {3, 4}), IntList{}}, "empty list = all dims"));
  out.push_back(ok({c.make({2, 3, 4}, Layout::Transposed, {}, 0, 2), IntList{0, 2}}, "transposed, dims [0, 2]"));
  out.push_back(ok({c.make({3, 5}, Layout::Stepped, {}, 0, 2), IntList{-1}}, "stepped"));
  out.push_back(ok({c.make({}), IntList{0}}, "0-d"));
  out.push_back(ok({c.make({0, 3}), IntList{0}}, "zero-size reduced dim"));
  if (is_floating_point(c.dtype())) out.push_back(ok({with_nans(c, {3, 4}), IntList{1}}, "NaN counts"));
  out.push_back(fails({c.make({2, 3}), IntList{2}}, "dim out of range", "IndexError"));
  out.push_back(fails({c.make({2, 3}), IntList{1, 1}}, "repeated dim", "ValueError"));
  return out;
}
std::vector<Sample> count_nonzero_samples(SampleContext& c) {
  std::vector<Sample> out;
  out.push_back(ok({zeros_and_ones(c, {3, 4}), Value()}, "all"));
  out.push_back(ok({zeros_and_ones(c, {3, 4}), -1}, "dim -1"));
  out.push_back(ok({c.make({2, 3, 4}, Layout::Transposed, {}, 0, 2), 1}, "transposed, dim 1"));
  out.push_back(ok({c.make({}), Value()}, "0-d"));
  out.push_back(ok({c.make({0, 3}), 0}, "zero-size"));
  out.push_back(fails({c.make({2, 3}), 2}, "dim out of range", "IndexError"));
  return out;
}

// ---- topk (self, k, dim, largest, sorted)
std::vector<Sample> topk_samples(SampleContext& c) {
  std::vector<Sample> out;
  out.push_back(ok({distinct(c, {3, 5}), 2, -1, true, true}, "k 2, last dim"));
  out.push_back(ok({distinct(c, {3, 5}), 3, 0, false, true}, "k 3, dim 0, smallest"));
  out.push_back(ok({distinct(c, {4, 5}, true), 2, 0, true, true}, "transposed, dim 0"));
  out.push_back(ok({distinct(c, {2, 3, 4}, true), 3, 1, true, true}, "transposed 3-d, dim 1"));
  out.push_back(ok({distinct(c, {3, 5}), 5, 1, true, true}, "k = size"));
  out.push_back(ok({distinct(c, {3, 5}), 0, 1, true, true}, "k 0"));
  out.push_back(ok({distinct(c, {3, 5}), 1, 1, false, false}, "k 1 unsorted"));
  out.push_back(ok({c.make({}), 1, 0, true, true}, "0-d, k 1"));
  out.push_back(ok({c.make({}), 0, -1, true, true}, "0-d, k 0"));
  out.push_back(ok({c.make({0, 3}), 0, 0, true, true}, "zero-size, k 0"));
  out.push_back(ok({c.make({0, 3}), 2, 1, true, true}, "zero-size other dim"));
  out.push_back(fails({c.make({3, 4}), 5, 1, true, true}, "k > size", "IndexError"));
  out.push_back(fails({c.make({3, 4}), -1, 1, true, true}, "negative k", "IndexError"));
  out.push_back(fails({c.make({}), 2, 0, true, true}, "0-d, k 2", "IndexError"));
  out.push_back(fails({c.make({3, 4}), 1, 2, true, true}, "dim out of range", "IndexError"));
  return out;
}

// ---- sort (self, dim, descending) and the variants
std::vector<Sample> sort_cases(SampleContext& c, const std::function<Stack(Tensor, int64_t, bool)>& args) {
  std::vector<Sample> out;
  out.push_back(ok(args(c.make({3, 5}), -1, false), "last dim"));
  out.push_back(ok(args(c.make({3, 5}), 0, true), "dim 0 descending"));
  out.push_back(ok(args(c.make({5, 6}, C, {}, 0, 3), 1, false), "many ties (stable)"));
  out.push_back(ok(args(c.make({5, 6}, C, {}, 0, 3), 1, true), "many ties descending (stable)"));
  out.push_back(ok(args(c.make({2, 3, 4}, Layout::Transposed), 1, false), "transposed, dim 1"));
  out.push_back(ok(args(c.make({3, 5}, Layout::Stepped), -1, true), "stepped"));
  out.push_back(ok(args(c.make({4, 3}, Layout::Expanded), 0, false), "expanded along the dim"));
  out.push_back(ok(args(c.make({}), 0, false), "0-d"));
  out.push_back(ok(args(c.make({0, 3}), 0, false), "zero-size"));
  if (is_floating_point(c.dtype())) {
    out.push_back(ok(args(with_nans(c, {3, 6}), 1, false), "NaN sorts last"));
    out.push_back(ok(args(with_nans(c, {3, 6}), 1, true), "NaN sorts first descending"));
  }
  out.push_back(fails(args(c.make({2, 3}), 2, false), "dim out of range", "IndexError"));
  return out;
}
std::vector<Sample> sort_samples(SampleContext& c) {
  return sort_cases(c, [](Tensor t, int64_t dim, bool desc) { return Stack{std::move(t), dim, desc}; });
}
std::vector<Sample> sort_stable_samples(SampleContext& c) {
  std::vector<Sample> out = sort_cases(c, [](Tensor t, int64_t dim, bool desc) {
    return Stack{std::move(t), true, dim, desc};
  });
  out.push_back(ok({c.make({5, 6}, C, {}, 0, 3), false, 1, false}, "stable=False"));
  return out;
}

}  // namespace

std::vector<OpSamples> reduction_samples() {
  return {
      {"sum", &all_dims, {}, 8},
      {"sum.dim_IntList", &dim_samples, {}, 8},
      {"mean", &mean_samples, {}, 8},
      {"mean.dim", &mean_dim_samples, {}, 8},
      {"prod", &prod_samples, {}, 8},
      {"prod.dim_int", &prod_dim_samples, {}, 8},
      {"amax", &amax_samples},
      {"amin", &amax_samples},
      {"max", &max_all_samples},
      {"min", &max_all_samples},
      {"max.dim", &max_dim_samples},
      {"min.dim", &max_dim_samples},
      {"max.other", &max_other_samples},
      {"min.other", &max_other_samples},
      {"argmax", &argmax_samples, kNumeric},
      {"argmin", &argmax_samples, kNumeric},
      {"var", &var_samples, {}, 8},
      {"var.dim", &var_dim_samples, {}, 8},
      {"var.correction", &var_correction_samples, {}, 8},
      {"std", &var_samples, {}, 8},
      {"std.dim", &var_dim_samples, {}, 8},
      {"std.correction", &var_correction_samples, {}, 8},
      {"norm.Scalar", &norm_scalar_samples, {}, 8},
      {"norm.ScalarOpt_dim", &norm_dim_samples, {}, 8},
      {"norm.str", &norm_str_samples, {}, 8},
      {"logsumexp", &logsumexp_samples, {}, 8},
      {"all", &all_samples_},
      {"all.dim", &all_dim_samples},
      {"any", &all_samples_},
      {"any.dim", &all_dim_samples},
      {"cumsum", &cumulative_samples, {}, 8},
      {"cumprod", &cumulative_samples, {}, 8},
      {"count_nonzero.dim_IntList", &count_nonzero_dims_samples},
      {"count_nonzero", &count_nonzero_samples},
      {"topk", &topk_samples, kNumeric},
      {"sort", &sort_samples},
      {"sort.stable", &sort_stable_samples},
      {"argsort", &sort_samples},
      {"argsort.stable", &sort_stable_samples},
  };
}

}  // namespace axle::conformance
