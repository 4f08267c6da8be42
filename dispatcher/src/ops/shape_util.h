// Shared pieces of shape functions: broadcasting, type promotion (PyTorch's
// result_type with dim / zero-dim / wrapped-number categories), casting rules.
#pragma once

#include <axle/operator.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace axle::shape {

std::string str(const IntList& sizes);
// Broadcast shape of a and b; ShapeError in PyTorch's words otherwise.
IntList broadcast(const IntList& a, const IntList& b);
// torch.result_type over the given tensors (wrapped numbers rank lowest).
DType result_type(std::initializer_list<const Tensor*> tensors);
// PyTorch's canCast: no float->integral, no non-bool->bool.
bool can_cast(DType from, DType to);
// DTypeError "<op>: result type <from> can't be cast to the desired output type <to>"
// unless can_cast(from, to): the rule for in-place results and out= tensors.
void check_castable(const char* op, DType from, DType to);
// The in-place form of a functional shape function: the result must keep self's
// (argument 0's) shape and be castable to its dtype; the output is self's.
void finish_inplace(ShapeContext& c);
// torch's assert_no_internal_overlap: a tensor written in place must not have two
// elements at one address (a dimension of stride 0 and size > 1, as an expanded
// view has); ShapeError otherwise. Other overlaps (torch's "too hard") pass.
bool has_internal_overlap(const Tensor& t);
void check_no_internal_overlap(const char* op, const Tensor& t);
template <ShapeFn Functional>
void inplace(ShapeContext& c) {
  Functional(c);
  finish_inplace(c);
}
// The finite range of dtype d as doubles: every value of d lies in [lo, hi]; for
// int64 hi is 2^63 (float64 cannot hold 2^63 - 1), itself out of range.
struct Range {
  double lo, hi;
};
Range dtype_range(DType d);
// A Scalar written into integer dtype d must fit (c10's checked conversion): ints
// within the type's range (uint8 also takes -255..-1, which wrap), doubles strictly;
// doubles=false skips doubles (they promote the computation to float instead).
// DTypeError (RuntimeError in Python, as torch) "value cannot be converted to type ... without overflow" otherwise.
void check_scalar_fits(const char* op, DType d, const Value& v, bool doubles = true);
// Whether a backward op's int[3] output_mask (0 / 1 each: torch's bool[3])
// asks for output i; ValueError for a mask of another length.
bool output_wanted(const Value& mask, size_t i);
// The ops' family lists (one per file), concatenated by builtin_op_decls() (builtin_ops.cpp).
std::vector<OpDecl> creation_ops();
std::vector<OpDecl> copy_ops();
std::vector<OpDecl> pointwise_ops();
std::vector<OpDecl> pointwise_special_ops();
std::vector<OpDecl> reduction_ops();
std::vector<OpDecl> blas_ops();
std::vector<OpDecl> indexing_ops();
std::vector<OpDecl> random_ops();
std::vector<OpDecl> views_ops();
std::vector<OpDecl> activations_ops();
std::vector<OpDecl> nn_ops();
std::vector<OpDecl> conv_pool_ops();
std::vector<OpDecl> conv_pool_backward_ops();
std::vector<OpDecl> conv_pool3d_ops();
std::vector<OpDecl> conv_pool3d_backward_ops();
std::vector<OpDecl> conv_pool_grid_sample_ops();
std::vector<OpDecl> nn_backward_ops();
std::vector<OpDecl> nn_rnn_ops();
std::vector<OpDecl> optim_ops();
std::vector<OpDecl> linalg_ops();
std::vector<OpDecl> linalg_cholesky_ops();
std::vector<OpDecl> linalg_decomp_ops();
std::vector<OpDecl> linalg_spectral_ops();

}  // namespace axle::shape
