// The reference plugin's host device and its kernels' registration: one
// register_<family>[_piece] function per .cpp file (register_<family> in
// <family>.cpp, register_<family>_<piece> in <family>_<piece>.cpp), each
// registering that file's kernels; plugin.cpp calls them all.
#pragma once

#include <axle/plugin/helpers.hpp>

namespace axle::reference {

using plugin::KernelEntry;

const axle_device_interface* host_device();

axle_status register_creation(const axle_registrar* r);
axle_status register_copy(const axle_registrar* r);
axle_status register_pointwise_binary(const axle_registrar* r);
axle_status register_pointwise_comparison(const axle_registrar* r);
axle_status register_pointwise_unary(const axle_registrar* r);
axle_status register_pointwise_unary_math(const axle_registrar* r);
axle_status register_pointwise_binary_math(const axle_registrar* r);
axle_status register_pointwise_special(const axle_registrar* r);
axle_status register_reduction(const axle_registrar* r);
axle_status register_blas(const axle_registrar* r);
axle_status register_blas_matmul(const axle_registrar* r);
axle_status register_indexing(const axle_registrar* r);
axle_status register_indexing_nonzero(const axle_registrar* r);
axle_status register_random(const axle_registrar* r);
axle_status register_views(const axle_registrar* r);
axle_status register_activations(const axle_registrar* r);
axle_status register_nn(const axle_registrar* r);
axle_status register_conv_pool(const axle_registrar* r);
axle_status register_conv_pool3d(const axle_registrar* r);
axle_status register_conv_pool_grid_sample(const axle_registrar* r);
axle_status register_linalg(const axle_registrar* r);
axle_status register_linalg_decomp(const axle_registrar* r);

}  // namespace axle::reference
