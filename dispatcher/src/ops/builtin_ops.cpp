// The list of every built-in op declaration: each family's rows
// (dispatcher/src/ops/<family>.cpp, shape::<family>_ops()) concatenated in the
// order below. Declaration order is observable: a Python call tries an op's
// overloads in it, a bare name finds its first overload, and an in-place or out
// variant's kernel_op must be declared before it.
#include "shape_util.h"

namespace axle {

const std::vector<OpDecl>& builtin_op_decls() {
  static const std::vector<OpDecl> all = [] {
    std::vector<OpDecl> v;
    // One family per line (.gitattributes merges this file's lines as a union).
    // clang-format off
    std::vector<OpDecl> (*const families[])() = {
        &shape::creation_ops,
        &shape::copy_ops,
        &shape::pointwise_ops,
        &shape::pointwise_special_ops,
        &shape::reduction_ops,
        &shape::blas_ops,
        &shape::indexing_ops,
        &shape::random_ops,
        &shape::views_ops,
        &shape::activations_ops,
        &shape::nn_ops,
        &shape::conv_pool_ops,
        &shape::conv_pool3d_ops,
        &shape::conv_pool_grid_sample_ops,
        &shape::nn_backward_ops,
        &shape::nn_rnn_ops,
        &shape::optim_ops,
        &shape::conv_pool_backward_ops,
        &shape::conv_pool3d_backward_ops,
        &shape::linalg_ops,
        &shape::linalg_cholesky_ops,
        &shape::linalg_decomp_ops,
        &shape::linalg_spectral_ops,
    };
    // clang-format on
    for (auto family : families) {
      std::vector<OpDecl> list = family();
      v.insert(v.end(), list.begin(), list.end());
    }
    return v;
  }();
  return all;
}

}  // namespace axle
