// Samples for the view and shape-movement ops (dispatcher/src/ops/views.cpp):
// views of views, negative dims, 0-d and zero-size inputs, strided layouts,
// type promotion in cat/stack, and bad dims / sizes with their error classes.
#include "samples.h"

namespace axle::conformance {
namespace {

using TL = std::vector<Tensor>;
const Layout C = Layout::Contiguous, T = Layout::Transposed, S = Layout::Stepped, E = Layout::Expanded,
             O = Layout::Offset;

std::vector<Sample> view_samples(SampleContext& c) {
  return {ok({c.make({2, 6}), IntList{3, 4}}, "[2, 6] -> [3, 4]"),
          ok({c.make({2, 6}), IntList{-1}}, "-1 -> flat"),
          ok({c.make({2, 6}), IntList{2, -1, 2}}, "-1 inferred in the middle"),
          ok({c.make({2, 3, 4}, S), IntList{6, 4}}, "stepped, merging dims whose strides allow it"),
          ok({c.make({4, 6}).slice(1, 1, 5), IntList{4, 2, 2}}, "view of a narrowed view"),
          ok({c.make({4, 3}, E), IntList{4, 3, 1}}, "expanded, adding a size-1 dim"),
          ok({c.make({2, 3}, O), IntList{3, 2}}, "offset"),
          ok({c.make({}), IntList{1}}, "0-d -> [1]"),
          ok({c.make({1, 1}), IntList{}}, "[1, 1] -> 0-d"),
          ok({c.make({0, 3}), IntList{3, 0}}, "zero-size"),
          fails({c.make({2, 3, 4}, T), IntList{-1}}, "transposed -> flat needs a copy", "ShapeError"),
          fails({c.make({4, 3}, E), IntList{12}}, "expanded -> flat needs a copy", "ShapeError"),
          fails({c.make({2, 3}), IntList{4, -1}}, "6 elements into [4, -1]", "ShapeError"),
          fails({c.make({2, 3}), IntList{-1, -1}}, "two -1", "ShapeError"),
          fails({c.make({2, 3}), IntList{-2, 3}}, "negative size", "ShapeError"),
          fails({c.make({0, 3}), IntList{0, -1}}, "-1 is ambiguous with 0 elements", "ShapeError")};
}

std::vector<Sample> flatten_samples(SampleContext& c) {
  return {ok({c.make({2, 3, 4}), 0, -1}, "all dims"),
          ok({c.make({2, 3, 4}), 1, 2}, "dims 1..2"),
          ok({c.make({2, 3, 4}), -3, -2}, "negative dims"),
          ok({c.make({2, 3, 4}), 1, 1}, "start == end: self"),
          ok({c.make({2, 3, 4}, T), 1, 2}, "transposed: copies"),
          ok({c.make({2, 3, 4}, T), 0, 1}, "transposed, leading dims: a view"),
          ok({c.make({3, 5}, S), 0, 1}, "stepped"),
          ok({c.make({4, 3}, E), 0, -1}, "expanded"),
          ok({c.make({}), 0, -1}, "0-d -> [1]"),
          ok({c.make({0, 3, 2}), 0, 1}, "zero-size"),
          fails({c.make({2, 3}), 1, 0}, "start after end", "ValueError"),
          fails({c.make({2, 3}), 2, -1}, "start out of range", "IndexError"),
          fails({c.make({}), 1, -1}, "0-d, dim 1", "IndexError")};
}

std::vector<Sample> unflatten_samples(SampleContext& c) {
  return {ok({c.make({2, 6}), 1, IntList{2, 3}}, "[2, 6] dim 1 -> [2, 3]"),
          ok({c.make({2, 6}), -1, IntList{3, -1}}, "negative dim, -1 inferred"),
          ok({c.make({6}), 0, IntList{1, 6, 1}}, "size-1 dims"),
          ok({c.make({4, 6}, T), 0, IntList{2, 2}}, "transposed"),
          ok({c.make({3, 8}, S), 1, IntList{2, 4}}, "stepped"),
          ok({c.make({4, 6}).select(0, 1), 0, IntList{3, 2}}, "view of a select"),
          ok({c.make({0, 3}), 0, IntList{0, 5}}, "zero-size"),
          fails({c.make({2, 6}), 1, IntList{}}, "empty sizes", "ValueError"),
          fails({c.make({2, 6}), 1, IntList{4, 2}}, "sizes do not multiply to 6", "ShapeError"),
          fails({c.make({2, 6}), 1, IntList{-1, -1}}, "two -1", "ShapeError"),
          fails({c.make({0, 3}), 0, IntList{-1, 0}}, "-1 is ambiguous with 0 elements", "ShapeError"),
          fails({c.make({2, 6}), 2, IntList{6}}, "dim out of range", "IndexError"),
          fails({c.make({}), 0, IntList{1}}, "0-d", "IndexError")};
}

std::vector<Sample> permute_samples(SampleContext& c) {
  return {ok({c.make({2, 3, 4}), IntList{2, 0, 1}}, "[2, 0, 1]"),
          ok({c.make({2, 3, 4}), IntList{-1, 0, 1}}, "negative dim"),
          ok({c.make({2, 3, 4, 5}, Layout::ChannelsLast), IntList{0, 2, 3, 1}}, "channels-last -> NHWC"),
          ok({c.make({2, 3, 4}, T).select(1, 2), IntList{1, 0}}, "view of a transposed view"),
          ok({c.make({}), IntList{}}, "0-d"),
          ok({c.make({0, 3}), IntList{1, 0}}, "zero-size"),
          fails({c.make({2, 3}), IntList{0, 0}}, "repeated dim", "ShapeError"),
          fails({c.make({2, 3}), IntList{0}}, "too few dims", "ShapeError"),
          fails({c.make({2, 3}), IntList{0, 2}}, "dim out of range", "IndexError")};
}

std::vector<Sample> transpose_samples(SampleContext& c) {
  return {ok({c.make({2, 3, 4}), 0, 2}, "dims 0, 2"),
          ok({c.make({2, 3, 4}), -1, -3}, "negative dims"),
          ok({c.make({5}), 0, 0}, "1-d"),
          ok({c.make({}), 0, -1}, "0-d"),
          ok({c.make({3, 5}, S), 0, 1}, "stepped"),
          ok({c.make({2, 3, 4}, T), 1, 2}, "transposed back"),
          ok({c.make({0, 3}), 0, 1}, "zero-size"),
          fails({c.make({2, 3}), 0, 2}, "dim out of range", "IndexError"),
          fails({c.make({}), 0, 1}, "0-d, dim 1", "IndexError")};
}

std::vector<Sample> t_samples(SampleContext& c) {
  return {ok({c.make({2, 3})}, "2-d"),
          ok({c.make({3})}, "1-d"),
          ok({c.make({})}, "0-d"),
          ok({c.make({3, 4}, T)}, "transposed"),
          ok({c.make({4, 3}, E)}, "expanded"),
          ok({c.make({0, 3})}, "zero-size"),
          fails({c.make({2, 3, 4})}, "3-d", "ShapeError")};
}

std::vector<Sample> squeeze_samples(SampleContext& c) {
  return {ok({c.make({1, 3, 1, 2})}, "[1, 3, 1, 2]"),
          ok({c.make({})}, "0-d"),
          ok({c.make({1})}, "[1] -> 0-d"),
          ok({c.make({0, 1})}, "zero-size"),
          ok({c.make({4, 1, 3}, E)}, "expanded"),
          ok({c.make({1, 3, 1}, T)}, "transposed")};
}

std::vector<Sample> squeeze_dim_samples(SampleContext& c) {
  return {ok({c.make({1, 3, 1}), 0}, "size-1 dim 0"),
          ok({c.make({1, 3, 1}), -1}, "negative dim"),
          ok({c.make({1, 3, 1}), 1}, "size-3 dim: unchanged"),
          ok({c.make({}), 0}, "0-d"),
          ok({c.make({}), -1}, "0-d, dim -1"),
          ok({c.make({0, 1}), 1}, "zero-size"),
          ok({c.make({3, 1}, T), 1}, "transposed"),
          fails({c.make({2, 3}), 2}, "dim out of range", "IndexError"),
          fails({c.make({}), 1}, "0-d, dim 1", "IndexError")};
}

std::vector<Sample> unsqueeze_samples(SampleContext& c) {
  return {ok({c.make({2, 3}), 0}, "dim 0"),
          ok({c.make({2, 3}), 2}, "last position"),
          ok({c.make({2, 3}), -1}, "dim -1"),
          ok({c.make({2, 3}), -3}, "dim -3"),
          ok({c.make({}), 0}, "0-d"),
          ok({c.make({}), -1}, "0-d, dim -1"),
          ok({c.make({3, 4}, T), 1}, "transposed"),
          ok({c.make({3, 5}, S), 2}, "stepped"),
          ok({c.make({0, 3}), 1}, "zero-size"),
          fails({c.make({2, 3}), 3}, "dim out of range", "IndexError"),
          fails({c.make({2, 3}), -4}, "negative dim out of range", "IndexError")};
}

std::vector<Sample> expand_samples(SampleContext& c) {
  return {ok({c.make({3, 1}), IntList{3, 4}}, "[3, 1] -> [3, 4]"),
          ok({c.make({3, 1}), IntList{2, -1, 4}}, "new leading dim, -1 keeps a size"),
          ok({c.make({}), IntList{2, 3}}, "0-d"),
          ok({c.make({1, 0}), IntList{4, 0}}, "zero-size"),
          ok({c.make({1, 3}, T), IntList{5, 3}}, "transposed"),
          ok({c.make({4, 1, 3}, E), IntList{2, 4, 2, 3}}, "expand an expanded tensor"),
          fails({c.make({2, 3}), IntList{3, 3}}, "non-singleton dim differs", "ShapeError"),
          fails({c.make({2, 3}), IntList{3}}, "fewer sizes than dims", "ShapeError"),
          fails({c.make({2, 3}), IntList{-1, 2, 3}}, "-1 in a new leading dim", "ShapeError")};
}

std::vector<Sample> expand_as_samples(SampleContext& c) {
  return {ok({c.make({3, 1}), c.make({2, 3, 4})}, "[3, 1] as [2, 3, 4]"),
          ok({c.make({}), c.make({2, 2})}, "0-d"),
          ok({c.make({1, 3}, S), c.make({4, 3}, T)}, "stepped as transposed"),
          ok({c.make({1, 3}), c.make({0, 3})}, "zero-size"),
          fails({c.make({2, 3}), c.make({3})}, "fewer dims", "ShapeError"),
          fails({c.make({2, 3}), c.make({4, 3})}, "non-singleton dim differs", "ShapeError")};
}

std::vector<Sample> narrow_samples(SampleContext& c) {
  return {ok({c.make({4, 5}), 1, 1, 3}, "dim 1 [1, 4)"),
          ok({c.make({4, 5}), 0, -2, 2}, "negative start"),
          ok({c.make({4, 5}), -1, 5, 0}, "start == size, length 0"),
          ok({c.make({4, 5}), 1, 2, 0}, "length 0"),
          ok({c.make({4, 5}, T), 0, 1, 2}, "transposed"),
          ok({c.make({3, 5}, S), 1, 1, 3}, "stepped"),
          ok({c.make({4, 6}).slice(1, 1, 5), 1, 1, 2}, "narrow of a narrowed view"),
          ok({c.make({0, 3}), 1, 0, 2}, "zero-size"),
          fails({c.make({}), 0, 0, 1}, "0-d", "IndexError"),
          fails({c.make({4, 5}), 1, 6, 0}, "start out of range", "IndexError"),
          fails({c.make({4, 5}), 1, 3, 3}, "start + length beyond the size", "IndexError"),
          fails({c.make({4, 5}), 1, 0, -1}, "negative length", "IndexError"),
          fails({c.make({4, 5}), 2, 0, 1}, "dim out of range", "IndexError")};
}

std::vector<Sample> slice_samples(SampleContext& c) {
  return {ok({c.make({6, 4}), 0, 1, 5, 2}, "[1:5:2]"),
          ok({c.make({6, 4}), 1, Value(), Value(), 1}, "[:] along dim 1"),
          ok({c.make({6, 4}), -1, -3, Value(), 1}, "negative dim and start"),
          ok({c.make({6, 4}), 0, -100, 100, 3}, "bounds clamped"),
          ok({c.make({6, 4}), 0, 4, 2, 1}, "start after end: empty"),
          ok({c.make({4, 6}, T), 1, 1, Value(), 2}, "transposed"),
          ok({c.make({6, 4}).slice(0, 1, 6, 2), 0, 1, 3, 1}, "slice of a stepped slice"),
          ok({c.make({0, 3}), 1, 1, 2, 1}, "zero-size"),
          fails({c.make({}), 0, 0, 1, 1}, "0-d", "IndexError"),
          fails({c.make({6, 4}), 0, 0, 4, 0}, "step 0", "ValueError"),
          fails({c.make({6, 4}), 2, 0, 1, 1}, "dim out of range", "IndexError")};
}

std::vector<Sample> select_samples(SampleContext& c) {
  return {ok({c.make({3, 4}), 0, 1}, "dim 0"),
          ok({c.make({3, 4}), 1, -1}, "negative index"),
          ok({c.make({3, 4}), -1, 0}, "negative dim"),
          ok({c.make({3, 4}, T), 1, 2}, "transposed"),
          ok({c.make({3, 5}, S), 1, 4}, "stepped"),
          ok({c.make({2, 3, 4}).select(0, 1), 1, 3}, "select of a select"),
          ok({c.make({4}), 0, 2}, "1-d -> 0-d"),
          fails({c.make({}), 0, 0}, "0-d", "IndexError"),
          fails({c.make({3, 4}), 1, 4}, "index out of range", "IndexError"),
          fails({c.make({3, 4}), 1, -5}, "negative index out of range", "IndexError"),
          fails({c.make({3, 4}), 2, 0}, "dim out of range", "IndexError"),
          fails({c.make({0, 3}), 0, 0}, "zero-size dim", "IndexError")};
}

std::vector<Sample> split_samples(SampleContext& c) {
  return {ok({c.make({5, 4}), 2, 0}, "5 by 2"),
          ok({c.make({5, 4}), 3, 1}, "4 by 3 along dim 1"),
          ok({c.make({5, 4}), 2, -1}, "negative dim"),
          ok({c.make({5, 4}), 10, 0}, "split_size beyond the size"),
          ok({c.make({5, 4}, T), 2, 1}, "transposed"),
          ok({c.make({3, 5}, S), 2, 1}, "stepped"),
          ok({c.make({0, 3}), 0, 0}, "zero-size, split_size 0"),
          ok({c.make({0, 3}), 2, 0}, "zero-size"),
          fails({c.make({}), 1, 0}, "0-d", "ShapeError"),
          fails({c.make({5, 4}), -1, 0}, "negative split_size", "ValueError"),
          fails({c.make({5, 4}), 0, 0}, "split_size 0 with a non-empty dim", "ValueError"),
          fails({c.make({5, 4}), 2, 2}, "dim out of range", "IndexError")};
}

std::vector<Sample> split_sizes_samples(SampleContext& c) {
  return {ok({c.make({5, 4}), IntList{2, 3}, 0}, "[2, 3]"),
          ok({c.make({5, 4}), IntList{1, 0, 3}, 1}, "a zero size, dim 1"),
          ok({c.make({5, 4}), IntList{4}, -1}, "one piece, negative dim"),
          ok({c.make({4, 5}, T), IntList{2, 3}, 1}, "transposed"),
          ok({c.make({4, 3}, E), IntList{1, 3}, 0}, "expanded"),
          ok({c.make({0, 3}), IntList{0, 0}, 0}, "zero-size"),
          ok({c.make({0, 3}), IntList{}, 0}, "zero-size, no pieces"),
          fails({c.make({5, 4}), IntList{1, 1}, 0}, "sizes do not sum to 5", "ShapeError"),
          fails({c.make({5, 4}), IntList{6, -1}, 0}, "negative size", "ValueError"),
          fails({c.make({}), IntList{1}, 0}, "0-d", "ShapeError"),
          fails({c.make({5, 4}), IntList{5}, 2}, "dim out of range", "IndexError")};
}

std::vector<Sample> chunk_samples(SampleContext& c) {
  return {ok({c.make({5, 4}), 2, 0}, "5 into 2"),
          ok({c.make({5, 4}), 3, 1}, "4 into 3 along dim 1"),
          ok({c.make({5, 3}), 5, 1}, "more chunks than elements"),
          ok({c.make({6}), 4, 0}, "6 into 4 gives 3"),
          ok({c.make({5, 4}), 2, -1}, "negative dim"),
          ok({c.make({5, 4}, T), 2, 0}, "transposed"),
          ok({c.make({0, 3}), 3, 0}, "zero-size: 3 empty chunks"),
          ok({c.make({2, 0}), 3, -1}, "zero-size last dim"),
          fails({c.make({5, 4}), 0, 0}, "0 chunks", "ValueError"),
          fails({c.make({5, 4}), -1, 0}, "negative chunks", "ValueError"),
          fails({c.make({}), 1, 0}, "0-d", "ShapeError"),
          fails({c.make({5, 4}), 2, 2}, "dim out of range", "IndexError")};
}

std::vector<Sample> unbind_samples(SampleContext& c) {
  return {ok({c.make({3, 4}), 0}, "dim 0"),
          ok({c.make({3, 4}), 1}, "dim 1"),
          ok({c.make({3, 4}), -1}, "negative dim"),
          ok({c.make({3, 4}, T), 0}, "transposed"),
          ok({c.make({4, 3}, E), 0}, "expanded"),
          ok({c.make({0, 3}), 0}, "zero-size dim: no pieces"),
          ok({c.make({0, 3}), 1}, "zero-size pieces"),
          fails({c.make({}), 0}, "0-d", "IndexError"),
          fails({c.make({3, 4}), 2}, "dim out of range", "IndexError")};
}

std::vector<Sample> movedim_list_samples(SampleContext& c) {
  return {ok({c.make({2, 3, 4}), IntList{0, 1}, IntList{2, 0}}, "two dims"),
          ok({c.make({2, 3, 4}), IntList{-1}, IntList{0}}, "negative source"),
          ok({c.make({2, 3, 4}), IntList{}, IntList{}}, "no dims"),
          ok({c.make({2, 3, 4}, T), IntList{1}, IntList{2}}, "transposed"),
          ok({c.make({}), IntList{0}, IntList{-1}}, "0-d"),
          ok({c.make({0, 3, 2}), IntList{0}, IntList{2}}, "zero-size"),
          fails({c.make({2, 3}), IntList{0}, IntList{1, 0}}, "lengths differ", "ShapeError"),
          fails({c.make({2, 3}), IntList{0, 0}, IntList{1, 0}}, "repeated source", "ValueError"),
          fails({c.make({2, 3}), IntList{0, 1}, IntList{1, 1}}, "repeated destination", "ValueError"),
          fails({c.make({2, 3}), IntList{2}, IntList{0}}, "source out of range", "IndexError")};
}

std::vector<Sample> movedim_samples(SampleContext& c) {
  return {ok({c.make({2, 3, 4}), 0, 2}, "0 -> 2"),
          ok({c.make({2, 3, 4}), -1, 0}, "-1 -> 0"),
          ok({c.make({3, 5}, S), 1, 0}, "stepped"),
          ok({c.make({}), 0, 0}, "0-d"),
          fails({c.make({2, 3}), 2, 0}, "source out of range", "IndexError"),
          fails({c.make({2, 3}), 0, -3}, "destination out of range", "IndexError")};
}

// as_strided addresses the storage: contiguous inputs only, so the storage is
// exactly the tensor on every device and in PyTorch.
std::vector<Sample> as_strided_samples(SampleContext& c) {
  return {
      ok({c.make({2, 3}), IntList{3, 2}, IntList{1, 3}, 0}, "transposing strides"),
      ok({c.make({2, 3}), IntList{2, 2}, IntList{1, 2}, 1}, "with an offset"),
      ok({c.make({2, 3}), IntList{2, 3}, IntList{0, 1}, Value()}, "stride 0"),
      ok({c.make({2, 3}), IntList{}, IntList{}, 5}, "0-d at the last element"),
      ok({c.make({2, 3}), IntList{0, 4}, IntList{1, 1}, Value()}, "zero-size"),
      fails({c.make({2, 3}), IntList{3, 3}, IntList{3, 1}, Value()}, "beyond the storage", "ValueError"),
      fails({c.make({2, 3}), IntList{2}, IntList{-1}, Value()}, "negative stride", "ValueError"),
      fails({c.make({2, 3}), IntList{2, 3}, IntList{1}, Value()}, "sizes and strides differ in length", "ShapeError")};
}

std::vector<Sample> flip_samples(SampleContext& c) {
  return {ok({c.make({3, 4}), IntList{0}}, "dim 0"),
          ok({c.make({3, 4}), IntList{-1, 0}}, "both dims, negative"),
          ok({c.make({3, 4}), IntList{}}, "no dims: a copy"),
          ok({c.make({2, 3, 4}, T), IntList{1, 2}}, "transposed"),
          ok({c.make({3, 5}, S), IntList{1}}, "stepped"),
          ok({c.make({4, 3}, E), IntList{0, 1}}, "expanded"),
          ok({c.make({2, 3}, O), IntList{1}}, "offset"),
          ok({c.make({}), IntList{0}}, "0-d"),
          ok({c.make({0, 3}), IntList{0, 1}}, "zero-size"),
          fails({c.make({3, 4}), IntList{0, 0}}, "repeated dim", "ValueError"),
          fails({c.make({3, 4}), IntList{2}}, "dim out of range", "IndexError"),
          fails({c.make({}), IntList{1}}, "0-d, dim 1", "IndexError")};
}

std::vector<Sample> roll_samples(SampleContext& c) {
  return {ok({c.make({3, 4}), IntList{1}}, "flattened"),
          ok({c.make({3, 4}), IntList{-7}}, "flattened, negative shift"),
          ok({c.make({3, 4}), IntList{-1}, IntList{1}}, "dim 1"),
          ok({c.make({3, 4}), IntList{1, 6}, IntList{0, -1}}, "two dims, shift beyond the size"),
          ok({c.make({3, 4}), IntList{1, 1}, IntList{0, 0}}, "repeated dim adds up"),
          ok({c.make({3, 4}, T), IntList{2}}, "transposed, flattened"),
          ok({c.make({3, 5}, S), IntList{1, -2}, IntList{0, 1}}, "stepped"),
          ok({c.make({4, 3}, E), IntList{1}, IntList{0}}, "expanded"),
          ok({c.make({2, 3}, O), IntList{1}, IntList{1}}, "offset"),
          ok({c.make({}), IntList{1}}, "0-d"),
          ok({c.make({0, 3}), IntList{1}, IntList{1}}, "zero-size"),
          fails({c.make({3, 4}), IntList{}, IntList{}}, "no shifts", "ValueError"),
          fails({c.make({3, 4}), IntList{1, 2}}, "two shifts, no dims", "ValueError"),
          fails({c.make({3, 4}), IntList{1}, IntList{2}}, "dim out of range", "IndexError"),
          fails({c.make({}), IntList{1}, IntList{0}}, "0-d with a dim", "IndexError")};
}

std::vector<Sample> repeat_samples(SampleContext& c) {
  return {ok({c.make({2, 3}), IntList{2, 2}}, "[2, 2]"),
          ok({c.make({2, 3}), IntList{1, 2, 3}}, "a new leading dim"),
          ok({c.make({2, 3}), IntList{0, 2}}, "zero repeats"),
          ok({c.make({3, 4}, T), IntList{2, 1}}, "transposed"),
          ok({c.make({3, 5}, S), IntList{1, 2}}, "stepped"),
          ok({c.make({4, 3}, E), IntList{2, 1}}, "expanded"),
          ok({c.make({2, 3}, O), IntList{2, 1}}, "offset"),
          ok({c.make({}), IntList{}}, "0-d, no repeats"),
          ok({c.make({}), IntList{2, 3}}, "0-d"),
          ok({c.make({0, 3}), IntList{2, 1}}, "zero-size"),
          fails({c.make({2, 3}), IntList{2}}, "fewer repeats than dims", "ShapeError"),
          fails({c.make({2, 3}), IntList{-1, 2}}, "negative repeat", "ValueError")};
}

std::vector<Sample> triangle_samples(SampleContext& c) {
  return {ok({c.make({3, 4})}, "[3, 4]"),
          ok({c.make({3, 4}), 1}, "diagonal 1"),
          ok({c.make({3, 4}), -1}, "diagonal -1"),
          ok({c.make({3, 4}), -5}, "diagonal below every element"),
          ok({c.make({3, 4}), 10}, "diagonal above every element"),
          ok({c.make({2, 3, 4})}, "batched"),
          ok({c.make({2, 4, 3}, T), 1}, "transposed"),
          ok({c.make({3, 5}, S)}, "stepped"),
          ok({c.make({2, 3, 3}, E), -1}, "expanded"),
          ok({c.make({2, 3}, O)}, "offset"),
          ok({c.make({0, 3})}, "zero-size"),
          ok({c.make({2, 0, 3})}, "zero-size batch element"),
          fails({c.make({3})}, "1-d", "IndexError"),
          fails({c.make({})}, "0-d", "IndexError")};
}

std::vector<Sample> cat_samples(SampleContext& c) {
  const DType wide = is_floating_point(c.dtype()) ? kFloat64 : kInt64;
  return {ok({TL{c.make({2, 3}), c.make({4, 3})}, 0}, "dim 0"),
          ok({TL{c.make({2, 3}), c.make({2, 1})}, 1}, "dim 1"),
          ok({TL{c.make({2, 3}), c.make({2, 2}), c.make({2, 1})}, -1}, "three, negative dim"),
          ok({TL{c.make({2, 3})}, 0}, "one tensor"),
          ok({TL{c.make({2, 3}, T), c.make({2, 3}, S), c.make({2, 3}, E), c.make({2, 3}, O)}, 0}, "strided inputs"),
          ok({TL{c.make({2, 3}), c.make({2, 3}, C, kFloat64)}, 1}, "promotes with float64"),
          ok({TL{c.make({2, 3}), c.make({2, 3}, C, kInt32)}, 0}, "promotes with int32"),
          ok({TL{c.make({2, 3}, C, kBool), c.make({2, 3})}, 0}, "promotes with bool"),
          ok({TL{c.make({2, 3}), c.make({2, 3}, C, wide)}, 0}, "promotes with " + std::string(dtype_name(wide))),
          ok({TL{c.make({0}), c.make({2, 3})}, 1}, "legacy 1-d empty tensor skipped"),
          ok({TL{c.make({2, 3}), c.make({0}, C, kFloat64)}, 0}, "skipped tensor still promotes"),
          ok({TL{c.make({0}), c.make({0})}, 5}, "only 1-d empty tensors: no dim check"),
          ok({TL{c.make({0, 3}), c.make({2, 3})}, 0}, "zero-size"),
          ok({TL{c.make({2, 0}), c.make({2, 0})}, 1}, "zero-size result"),
          fails({TL{}, 0}, "empty list", "ValueError"),
          fails({TL{c.make({}), c.make({})}, 0}, "0-d tensors", "ShapeError"),
          fails({TL{c.make({2, 3}), c.make({2, 3, 1})}, 0}, "different ranks", "ShapeError"),
          fails({TL{c.make({2, 3}), c.make({2, 2})}, 0}, "sizes differ outside dim", "ShapeError"),
          fails({TL{c.make({2, 0}), c.make({2, 3})}, 0}, "zero-size differs outside dim", "ShapeError"),
          fails({TL{c.make({2, 3}), c.make({2, 3})}, 2}, "dim out of range", "IndexError")};
}

std::vector<Sample> stack_samples(SampleContext& c) {
  return {ok({TL{c.make({2, 3}), c.make({2, 3})}, 0}, "dim 0"),
          ok({TL{c.make({2, 3}), c.make({2, 3}), c.make({2, 3})}, 2}, "new last dim"),
          ok({TL{c.make({2, 3}), c.make({2, 3})}, -1}, "negative dim"),
          ok({TL{c.make({2, 3})}, 1}, "one tensor"),
          ok({TL{c.make({}), c.make({})}, 0}, "0-d"),
          ok({TL{c.make({2, 3}, T), c.make({2, 3}, S), c.make({2, 3}, E)}, 1}, "strided inputs"),
          ok({TL{c.make({2, 3}), c.make({2, 3}, C, kFloat64)}, 0}, "promotes with float64"),
          ok({TL{c.make({0, 3}), c.make({0, 3})}, 1}, "zero-size"),
          ok({TL{c.make({0}), c.make({0})}, 0}, "1-d empty tensors"),
          fails({TL{}, 0}, "empty list", "ValueError"),
          fails({TL{c.make({2, 3}), c.make({3, 2})}, 0}, "sizes differ", "ShapeError"),
          fails({TL{c.make({2, 3}), c.make({2, 3})}, 3}, "dim out of range", "IndexError")};
}

}  // namespace

std::vector<OpSamples> views_samples() {
  return {
      {"view", &view_samples},
      {"flatten.using_ints", &flatten_samples},
      {"unflatten.int", &unflatten_samples},
      {"permute", &permute_samples},
      {"transpose.int", &transpose_samples},
      {"t", &t_samples},
      {"squeeze", &squeeze_samples},
      {"squeeze.dim", &squeeze_dim_samples},
      {"unsqueeze", &unsqueeze_samples},
      {"expand", &expand_samples},
      {"expand_as", &expand_as_samples},
      {"narrow", &narrow_samples},
      {"slice.Tensor", &slice_samples},
      {"select.int", &select_samples},
      {"split.Tensor", &split_samples},
      {"split.sizes", &split_sizes_samples},
      {"split_with_sizes", &split_sizes_samples},
      {"chunk", &chunk_samples},
      {"unbind.int", &unbind_samples},
      {"movedim.intlist", &movedim_list_samples},
      {"movedim.int", &movedim_samples},
      {"as_strided", &as_strided_samples},
      {"flip", &flip_samples},
      {"roll", &roll_samples},
      {"repeat", &repeat_samples},
      {"tril", &triangle_samples},
      {"triu", &triangle_samples},
      {"cat", &cat_samples},
      {"stack", &stack_samples},
  };
}

}  // namespace axle::conformance
