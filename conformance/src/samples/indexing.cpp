// Samples for the indexing family (dispatcher/src/ops/indexing.cpp): index
// tensors live on the device under test; self, src and index come contiguous,
// transposed, stepped, expanded and offset; 0-d and zero-size where torch
// allows; bad inputs raise IndexError (values), DTypeError, ShapeError.
#include "samples.h"

namespace axle::conformance {
namespace {

const Layout C = Layout::Contiguous, T = Layout::Transposed, S = Layout::Stepped, E = Layout::Expanded,
             O = Layout::Offset;

// int64 indices in [0, bound) on the device under test.
Tensor idx(SampleContext& c, const IntList& sizes, int64_t bound) { return c.indices(sizes, bound, c.device()); }
// int64 indices all equal to v (out of range or negative for bad cases).
Tensor idx_const(SampleContext& c, const IntList& sizes, int64_t v) { return idx(c, sizes, 1) + Scalar(v); }
// start, start + step, ... (distinct indices) on the device under test.
Tensor range(SampleContext& c, int64_t start, int64_t end, int64_t step = 1) {
  return arange(start, end, step, TensorOptions().dtype(kInt64).device(c.device()));
}
Tensor mask(SampleContext& c, const IntList& sizes, Layout l = C) { return c.make(sizes, l, kBool); }
// A fill value that every dtype under test holds.
Value fill_value(SampleContext& c) {
  if (c.dtype() == kBool) return true;
  if (is_floating_point(c.dtype())) return 2.5;
  return int64_t{3};
}
// A value that overflows the dtype under test (c10's rule), or None when none does.
Value overflow_value(SampleContext& c) {
  switch (c.dtype()) {
    case kBool:
    case kFloat64: return Value();
    case kInt64: return 1e300;
    case kFloat32:
    case kFloat16:
    case kBFloat16: return 1e300;
    default: return int64_t{1} << 40;
  }
}
DType other_dtype(SampleContext& c) { return c.dtype() == kFloat64 ? kFloat32 : kFloat64; }
Value list(std::vector<Tensor> ts) { return Value(std::move(ts)); }

// ---------------------------------------------------------------- index_select
std::vector<Sample> index_select_samples(SampleContext& c) {
  std::vector<Sample> out;
  out.push_back(ok({c.make({3, 4}), 0, idx(c, {5}, 3)}, "dim 0, repeated indices"));
  out.push_back(ok({c.make({3, 4}), -1, idx(c, {2}, 4)}, "dim -1"));
  out.push_back(ok({c.make({2, 3, 4}, T), 1, idx(c, {4}, 3)}, "transposed self"));
  out.push_back(ok({c.make({3, 5}, S), 1, idx(c, {12}, 5).slice(0, 0, std::nullopt, 2)}, "stepped self and index"));
  out.push_back(ok({c.make({4, 3}, E), 0, idx(c, {}, 4)}, "expanded self, 0-d index"));
  out.push_back(ok({c.make({2, 3}, O), 1, idx(c, {3}, 3).to(kInt32)}, "offset self, int32 index"));
  out.push_back(ok({c.make({}), 0, idx(c, {1}, 1)}, "0-d self"));
  out.push_back(ok({c.make({0, 3}), 1, idx(c, {2}, 3)}, "zero-size self"));
  out.push_back(ok({c.make({3, 4}), 0, idx(c, {0}, 3)}, "empty index"));
  out.push_back(fails({c.make({3, 4}), 0, idx_const(c, {2}, 3)}, "index 3 out of range", "IndexError"));
  out.push_back(fails({c.make({3, 4}), 1, idx_const(c, {2}, -1)}, "negative index", "IndexError"));
  out.push_back(fails({c.make({3, 4}), 0, c.make({2}, C, kFloat32, 0, 3)}, "float index", "DTypeError"));
  out.push_back(fails({c.make({3, 4}), 0, idx(c, {2, 2}, 3)}, "2-d index", "IndexError"));
  out.push_back(fails({c.make({3, 4}), 2, idx(c, {2}, 3)}, "dim out of range", "IndexError"));
  out.push_back(fails({c.make({0, 3}), 0, idx(c, {1}, 1)}, "index into a zero-size dim", "IndexError"));
  return out;
}

// ---------------------------------------------------------------- gather
std::vector<Sample> gather_samples(SampleContext& c) {
  std::vector<Sample> out;
  out.push_back(ok({c.make({3, 4}), 1, idx(c, {3, 2}, 4)}, "dim 1"));
  out.push_back(ok({c.make({3, 4}), 0, idx(c, {5, 4}, 3)}, "dim 0, index longer than self along dim"));
  out.push_back(ok({c.make({3, 4}), -1, idx(c, {2, 3}, 4)}, "dim -1, index smaller than self"));
  out.push_back(ok({c.make({2, 3, 4}, T), 2, idx(c, {2, 4, 3}, 4).transpose(1, 2)}, "transposed self and index"));
  out.push_back(ok({c.make({3, 5}, S), 1, idx(c, {3, 10}, 5).slice(1, 0, std::nullopt, 2)}, "stepped self and index"));
  out.push_back(ok({c.make({4, 3}, E), 0, idx(c, {4, 3}, 4)}, "expanded self"));
  out.push_back(ok({c.make({2, 3}, O), 1, idx(c, {1, 3}, 1).expand({2, 3})}, "offset self, expanded index"));
  out.push_back(ok({c.make({}), 0, idx(c, {}, 1)}, "0-d"));
  out.push_back(ok({c.make({0, 3}), 1, idx(c, {0, 2}, 3)}, "zero-size"));
  out.push_back(fails({c.make({3, 4}), 1, idx_const(c, {2, 2}, 4)}, "index 4 out of range", "IndexError"));
  out.push_back(fails({c.make({3, 4}), 1, idx_const(c, {2, 2}, -1)}, "negative index", "IndexError"));
  out.push_back(fails({c.make({3, 4}), 1, idx(c, {2, 2}, 4).to(kInt32)}, "int32 index", "DTypeError"));
  out.push_back(fails({c.make({3, 4}), 1, idx(c, {4}, 4)}, "index with fewer dims", "ShapeError"));
  out.push_back(fails({c.make({3, 4}), 1, idx(c, {4, 1}, 4)}, "index larger than self apart from dim", "ShapeError"));
  return out;
}

// ---------------------------------------------------------------- scatter
// scatter.src, scatter_add and their in-place forms (no expanded self in place).
std::vector<Sample> scatter_src_common(SampleContext& c, bool inplace) {
  std::vector<Sample> out;
  out.push_back(ok({c.make({3, 4}), 1, idx(c, {3, 2}, 4), c.make({3, 3})}, "dim 1, src larger than index"));
  out.push_back(ok({c.make({3, 4}), 0, idx(c, {2, 4}, 3), c.make({2, 4})}, "dim 0"));
  out.push_back(ok({c.make({2, 3, 4}, T), 2, idx(c, {2, 3, 2}, 4), c.make({2, 3, 4}, T)}, "transposed self and src"));
  out.push_back(ok({c.make({3, 5}, S), 1, idx(c, {3, 8}, 5).slice(1, 0, std::nullopt, 2), c.make({3, 5}, S)},
                   "stepped self, index and src"));
  out.push_back(ok({c.make({2, 3}, O), -1, idx(c, {3, 2}, 3).transpose(0, 1), c.make({4, 3}, E)},
                   "offset self, transposed index, expanded src"));
  if (!inplace) out.push_back(ok({c.make({4, 3}, E), 0, idx(c, {2, 3}, 4), c.make({2, 3})}, "expanded self"));
  out.push_back(ok({c.make({}), 0, idx(c, {}, 1), c.make({})}, "0-d"));
  out.push_back(ok({c.make({0, 3}), 1, idx(c, {0, 2}, 3), c.make({0, 2})}, "zero-size"));
  out.push_back(ok({c.make({3, 4}), 1, idx(c, {0}, 4), c.make({2})}, "empty index (no shape checks)"));
  out.push_back(
      fails({c.make({3, 4}), 1, idx_const(c, {1, 2}, 4), c.make({1, 2})}, "index out of range", "IndexError"));
  out.push_back(fails({c.make({3, 4}), 1, idx_const(c, {1, 2}, -1), c.make({1, 2})}, "negative index", "IndexError"));
  out.push_back(fails({c.make({3, 4}), 1, idx(c, {1, 2}, 4).to(kInt32), c.make({1, 2})}, "int32 index", "DTypeError"));
  out.push_back(fails({c.make({3, 4}), 1, idx(c, {1, 2}, 4), c.make({1, 2}, C, other_dtype(c))},
                      "src dtype differs from self", "DTypeError"));
  out.push_back(fails({c.make({3, 4}), 1, idx(c, {1, 2}, 4), c.make({1, 1})}, "index larger than src", "ShapeError"));
  out.push_back(fails({c.make({3, 4}), 1, idx(c, {4, 1}, 4), c.make({4, 1})}, "index larger than self apart from dim",
                      "ShapeError"));
  out.push_back(fails({c.make({3, 4}), 1, idx(c, {1, 1}, 4), c.make({})}, "0-d src with 2-d index", "ShapeError"));
  return out;
}
std::vector<Sample> scatter_src_samples(SampleContext& c) { return scatter_src_common(c, false); }
std::vector<Sample> scatter_src_inplace_samples(SampleContext& c) { return scatter_src_common(c, true); }

std::vector<Sample> scatter_value_common(SampleContext& c, bool inplace) {
  std::vector<Sample> out;
  const Value v = fill_value(c);
  out.push_back(ok({c.make({3, 4}), 1, idx(c, {3, 2}, 4), v}, "dim 1"));
  out.push_back(ok({c.make({3, 4}), 0, idx(c, {2, 4}, 3), v}, "dim 0"));
  out.push_back(ok({c.make({2, 3, 4}, T), 2, idx(c, {2, 2, 3}, 4).transpose(1, 2), v}, "transposed self and index"));
  out.push_back(ok({c.make({3, 5}, S), 1, idx(c, {3, 4}, 5), int64_t{-1}}, "stepped self, int value -1"));
  out.push_back(ok({c.make({2, 3}, O), -1, idx(c, {1, 3}, 3), false}, "offset self, bool value"));
  if (!inplace) out.push_back(ok({c.make({4, 3}, E), 0, idx(c, {2, 3}, 4), v}, "expanded self"));
  if (!is_floating_point(c.dtype()) && c.dtype() != kBool)
    out.push_back(ok({c.make({3, 4}), 1, idx(c, {3, 2}, 4), 2.5}, "float value into an integer tensor (truncates)"));
  out.push_back(ok({c.make({}), 0, idx(c, {}, 1), v}, "0-d"));
  out.push_back(ok({c.make({0, 3}), 1, idx(c, {0, 2}, 3), v}, "zero-size"));
  out.push_back(fails({c.make({3, 4}), 0, idx_const(c, {1, 2}, 3), v}, "index out of range", "IndexError"));
  out.push_back(fails({c.make({3, 4}), 1, idx(c, {1, 2}, 4).to(kInt32), v}, "int32 index", "DTypeError"));
  out.push_back(
      fails({c.make({3, 4}), 1, idx(c, {4, 1}, 4), v}, "index larger than self apart from dim", "ShapeError"));
  const Value big = overflow_value(c);
  if (!big.is_none())
    out.push_back(fails({c.make({3, 4}), 1, idx(c, {1, 2}, 4), big}, "value overflows the dtype", "DTypeError"));
  return out;
}
std::vector<Sample> scatter_value_samples(SampleContext& c) { return scatter_value_common(c, false); }
std::vector<Sample> scatter_value_inplace_samples(SampleContext& c) { return scatter_value_common(c, true); }

// ---------------------------------------------------------------- masked_fill
// `value(c)` gives the third argument (a Scalar or a 0-d tensor).
std::vector<Sample> masked_fill_common(SampleContext& c, bool inplace, bool tensor_value) {
  std::vector<Sample> out;
  auto value = [&]() -> Value { return tensor_value ? Value(c.make({})) : fill_value(c); };
  out.push_back(ok({c.make({3, 4}), mask(c, {3, 4}), value()}, "same shape"));
  out.push_back(ok({c.make({3, 4}), mask(c, {4}), value()}, "mask broadcast"));
  out.push_back(ok({c.make({2, 3, 4}, T), mask(c, {2, 3, 4}, T), value()}, "transposed self and mask"));
  out.push_back(ok({c.make({3, 5}, S), mask(c, {3, 5}, S), value()}, "stepped self and mask"));
  out.push_back(ok({c.make({2, 3}, O), mask(c, {2, 3}, E), value()}, "offset self, expanded mask"));
  out.push_back(ok({c.make({3, 4}), c.make({3, 4}, C, kUInt8, 0, 2), value()}, "uint8 mask"));
  out.push_back(ok({c.make({}), mask(c, {}), value()}, "0-d"));
  out.push_back(ok({c.make({0, 3}), mask(c, {0, 3}), value()}, "zero-size"));
  if (!inplace) {
    out.push_back(ok({c.make({4}), mask(c, {3, 4}), value()}, "self broadcast by the mask"));
    out.push_back(ok({c.make({4, 3}, E), mask(c, {4, 3}), value()}, "expanded self"));
  } else {
    out.push_back(fails({c.make({4}), mask(c, {3, 4}), value()}, "mask larger than self in place", "ShapeError"));
  }
  if (tensor_value) {
    out.push_back(ok({c.make({3, 4}), mask(c, {3, 4}), c.make({}, C, other_dtype(c), 0, 5)}, "value of another dtype"));
    out.push_back(fails({c.make({3, 4}), mask(c, {3, 4}), c.make({1})}, "1-d value", "ShapeError"));
  } else {
    const Value big = overflow_value(c);
    if (!big.is_none())
      out.push_back(fails({c.make({3, 4}), mask(c, {3, 4}), big}, "value overflows the dtype", "DTypeError"));
  }
  out.push_back(fails({c.make({2, 3}), mask(c, {4}), value()}, "mask does not broadcast", "ShapeError"));
  return out;
}
std::vector<Sample> masked_fill_scalar_samples(SampleContext& c) { return masked_fill_common(c, false, false); }
std::vector<Sample> masked_fill_tensor_samples(SampleContext& c) { return masked_fill_common(c, false, true); }
std::vector<Sample> masked_fill_scalar_inplace_samples(SampleContext& c) { return masked_fill_common(c, true, false); }
std::vector<Sample> masked_fill_tensor_inplace_samples(SampleContext& c) { return masked_fill_common(c, true, true); }

// ---------------------------------------------------------------- where
std::vector<Sample> where_samples(SampleContext& c) {
  std::vector<Sample> out;
  out.push_back(ok({mask(c, {3, 4}), c.make({3, 4}), c.make({3, 4})}, "same shape"));
  out.push_back(ok({mask(c, {4}), c.make({3, 1}), c.make({2, 1, 1})}, "three-way broadcast"));
  out.push_back(ok({mask(c, {2, 3}), c.make({2, 3}), c.make({2, 3}, C, kInt32)}, "other int32 (promotion)"));
  out.push_back(ok({mask(c, {2, 3}), c.make({2, 3}, C, kFloat64), c.make({2, 3})}, "self float64 (promotion)"));
  out.push_back(ok({mask(c, {3, 4}, T), c.make({3, 4}, S), c.make({3, 4}, O)}, "transposed, stepped, offset"));
  out.push_back(ok({mask(c, {4, 3}), c.make({4, 3}, E), c.make({})}, "expanded self, 0-d other"));
  out.push_back(ok({c.make({3, 4}, C, kUInt8, 0, 2), c.make({3, 4}), c.make({3, 4})}, "uint8 condition"));
  out.push_back(ok({mask(c, {}), c.make({}), c.make({})}, "0-d"));
  out.push_back(ok({mask(c, {0, 3}), c.make({0, 3}), c.make({3})}, "zero-size"));
  out.push_back(fails({c.make({3, 4}, C, kFloat32), c.make({3, 4}), c.make({3, 4})}, "float condition", "DTypeError"));
  out.push_back(fails({mask(c, {2, 3}), c.make({4}), c.make({2, 3})}, "shapes do not broadcast", "ShapeError"));
  return out;
}

// ---------------------------------------------------------------- embedding / one_hot
std::vector<Sample> embedding_samples(SampleContext& c) {
  std::vector<Sample> out;
  out.push_back(ok({c.make({5, 3}), idx(c, {2, 4}, 5)}, "2-d indices"));
  out.push_back(ok({c.make({5, 3}), idx(c, {}, 5)}, "0-d index"));
  out.push_back(ok({c.make({5, 3}, T), idx(c, {6}, 5).to(kInt32)}, "transposed weight, int32 indices"));
  out.push_back(ok({c.make({4, 3}, E), idx(c, {4, 3}, 4).transpose(0, 1)}, "expanded weight, transposed indices"));
  out.push_back(ok({c.make({5, 3}, S), idx(c, {3}, 5), 2}, "stepped weight, padding_idx 2"));
  out.push_back(ok({c.make({5, 3}), idx(c, {0}, 5)}, "zero-size indices"));
  out.push_back(ok({c.make({5, 0}), idx(c, {2}, 5)}, "zero embedding dim"));
  out.push_back(fails({c.make({5, 3}), idx_const(c, {2}, 5)}, "index out of range", "IndexError"));
  out.push_back(fails({c.make({5, 3}), idx_const(c, {2}, -1)}, "negative index", "IndexError"));
  out.push_back(fails({c.make({5}), idx(c, {2}, 5)}, "1-d weight", "ShapeError"));
  out.push_back(fails({c.make({5, 3}), c.make({2}, C, kFloat32, 0, 5)}, "float indices", "DTypeError"));
  return out;
}

std::vector<Sample> one_hot_samples(SampleContext& c) {
  std::vector<Sample> out;
  out.push_back(ok({idx(c, {5}, 4)}, "num_classes inferred (data-dependent)"));
  out.push_back(ok({idx(c, {5}, 4), 6}, "num_classes 6"));
  out.push_back(ok({idx(c, {4, 3}, 3).transpose(0, 1), -1}, "transposed 2-d"));
  out.push_back(ok({idx(c, {6}, 3).slice(0, 0, std::nullopt, 2), 3}, "stepped"));
  out.push_back(ok({idx(c, {}, 4)}, "0-d"));
  out.push_back(ok({idx(c, {0}, 4), 3}, "zero-size with num_classes"));
  out.push_back(fails({idx_const(c, {3}, -1), 5}, "negative class", "IndexError"));
  out.push_back(fails({idx_const(c, {3}, 5), 5}, "class not smaller than num_classes", "IndexError"));
  out.push_back(fails({idx(c, {3}, 4), 0}, "num_classes 0", "IndexError"));
  out.push_back(fails({idx(c, {3}, 4).to(kInt32)}, "int32 input", "DTypeError"));
  out.push_back(fails({idx(c, {0}, 4)}, "empty input, num_classes inferred", "ValueError"));
  return out;
}

// ---------------------------------------------------------------- index / index_put_
std::vector<Sample> index_samples(SampleContext& c) {
  std::vector<Sample> out;
  const Tensor none;
  out.push_back(ok({c.make({3, 4}), list({idx(c, {2}, 3)})}, "one index"));
  out.push_back(ok({c.make({3, 4}), list({none, idx(c, {2, 2}, 4)})}, "None then a 2-d index"));
  out.push_back(ok({c.make({2, 3, 4}), list({idx(c, {3}, 2), none, idx(c, {3}, 4)})}, "separated indices"));
  out.push_back(ok({c.make({2, 3, 4}), list({none, idx(c, {2, 1}, 3), idx(c, {3}, 4)})}, "adjacent broadcast indices"));
  out.push_back(ok({c.make({3, 4}), list({idx(c, {3}, 3) - Scalar(3)})}, "negative indices"));
  out.push_back(ok({c.make({3, 4}), list({mask(c, {3, 4})})}, "bool mask (data-dependent)"));
  out.push_back(ok({c.make({2, 3, 4}), list({none, c.make({3}, C, kUInt8, 0, 2)})}, "uint8 mask after None"));
  out.push_back(ok({c.make({2, 3, 4}), list({mask(c, {2}), none, idx(c, {1}, 4)})}, "mask and index"));
  out.push_back(ok({c.make({2, 3, 4}, T), list({idx(c, {2}, 2), idx(c, {8}, 3).slice(0, 0, std::nullopt, 4)})},
                   "transposed self, stepped index"));
  out.push_back(ok({c.make({4, 3}, E), list({idx(c, {1, 3}, 4).expand({2, 3})})}, "expanded self and index"));
  out.push_back(ok({c.make({2, 3}, O), list({none, idx(c, {}, 3)})}, "offset self, 0-d index"));
  out.push_back(ok({c.make({0, 3}), list({idx(c, {0}, 1)})}, "zero-size"));
  out.push_back(fails({c.make({3, 4}), list({idx_const(c, {2}, 3)})}, "index out of range", "IndexError"));
  out.push_back(
      fails({c.make({3, 4}), list({none, idx_const(c, {2}, -5)})}, "negative index out of range", "IndexError"));
  out.push_back(fails({c.make({3, 4}), list({idx(c, {2}, 3).to(kInt32)})}, "int32 index", "IndexError"));
  out.push_back(fails({c.make({3, 4}), list({c.make({2}, C, kFloat32, 0, 3)})}, "float index", "IndexError"));
  out.push_back(fails({c.make({3, 4}), list({idx(c, {1}, 3), idx(c, {1}, 4), idx(c, {1}, 1)})}, "too many indices",
                      "IndexError"));
  out.push_back(fails({c.make({3, 4}), list({mask(c, {4})})}, "mask shape mismatch", "IndexError"));
  out.push_back(
      fails({c.make({3, 4}), list({idx(c, {2}, 3), idx(c, {3}, 4)})}, "indices do not broadcast", "IndexError"));
  out.push_back(fails({c.make({3, 4}), list({none})}, "only None", "IndexError"));
  return out;
}

std::vector<Sample> index_put_samples(SampleContext& c) {
  std::vector<Sample> out;
  const Tensor none;
  out.push_back(ok({c.make({5, 3}), list({range(c, 0, 5, 2)}), c.make({3, 3})}, "distinct rows"));
  out.push_back(ok({c.make({5, 3}), list({range(c, 4, -1, -2)}), c.make({3})}, "values broadcast"));
  out.push_back(ok({c.make({3, 4}), list({range(c, 0, 3), range(c, 1, 4)}), c.make({})}, "two indices, 0-d value"));
  out.push_back(ok({c.make({3, 4}), list({none, range(c, -1, -4, -2)}), c.make({3, 2})}, "None, negative indices"));
  out.push_back(ok({c.make({5, 3}), list({idx(c, {6}, 5)}), c.make({6, 3}), true}, "accumulate repeated indices"));
  out.push_back(ok({c.make({3, 4}), list({mask(c, {3, 4})}), c.make({})}, "bool mask"));
  out.push_back(ok({c.make({3, 4}), list({mask(c, {3})}), c.make({4}), true}, "bool mask, accumulate"));
  out.push_back(ok({c.make({2, 3, 4}, T), list({none, range(c, 0, 3, 2), range(c, 3, 0, -2)}), c.make({2, 2}, S)},
                   "transposed self, stepped values"));
  out.push_back(ok({c.make({2, 3}, O), list({range(c, 1, 2)}), c.make({1, 3}, E)}, "offset self, expanded values"));
  out.push_back(ok({c.make({0, 3}), list({idx(c, {0}, 1)}), c.make({})}, "zero-size"));
  out.push_back(fails({c.make({3, 4}), list({idx_const(c, {2}, 3)}), c.make({})}, "index out of range", "IndexError"));
  out.push_back(fails({c.make({3, 4}), list({idx(c, {2}, 3).to(kInt32)}), c.make({})}, "int32 index", "IndexError"));
  out.push_back(fails({c.make({3, 4}), list({range(c, 0, 2)}), c.make({}, C, other_dtype(c))}, "values dtype differs",
                      "DTypeError"));
  out.push_back(
      fails({c.make({3, 4}), list({range(c, 0, 2)}), c.make({2, 5})}, "values do not broadcast", "ShapeError"));
  return out;
}

std::vector<Sample> nonzero_samples(SampleContext& c) {
  std::vector<Sample> out = unary_samples(c);
  out.push_back(ok({c.make({3, 4}, Layout::Contiguous, {}, 0, 2)}, "many zeros"));
  return out;
}

}  // namespace

std::vector<OpSamples> indexing_samples() {
  return {
      {"nonzero", &nonzero_samples},
      {"index_select", &index_select_samples},
      {"gather", &gather_samples},
      {"scatter.value", &scatter_value_samples},
      {"scatter.src", &scatter_src_samples},
      {"scatter_.value", &scatter_value_inplace_samples},
      {"scatter_.src", &scatter_src_inplace_samples},
      {"scatter_add", &scatter_src_samples},
      {"scatter_add_", &scatter_src_inplace_samples},
      {"masked_fill.Scalar", &masked_fill_scalar_samples},
      {"masked_fill.Tensor", &masked_fill_tensor_samples},
      {"masked_fill_.Scalar", &masked_fill_scalar_inplace_samples},
      {"masked_fill_.Tensor", &masked_fill_tensor_inplace_samples},
      {"where.self", &where_samples},
      {"embedding", &embedding_samples},
      {"one_hot", &one_hot_samples, {kInt64}},
      {"index.Tensor", &index_samples},
      {"index_put_", &index_put_samples, {}, 4},
  };
}

}  // namespace axle::conformance
