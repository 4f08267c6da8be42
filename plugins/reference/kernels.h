// The reference plugin's kernels (one op family per .cpp file) and its host device.
#pragma once

#include <axle/plugin/helpers.hpp>

namespace axle::reference {

using plugin::KernelEntry;

const axle_device_interface* host_device();
// Registers the table-driven unary math kernels (unary_math.cpp).
axle_status register_unary_math(const axle_registrar* r);
// Registers the table-driven binary math kernels (binary_math.cpp).
axle_status register_binary_math(const axle_registrar* r);
// Further families register their own kernels (register_<family> in <family>.cpp):
axle_status register_random(const axle_registrar* r);
axle_status register_views(const axle_registrar* r);
axle_status register_activations(const axle_registrar* r);
axle_status register_nn(const axle_registrar* r);
axle_status register_blas(const axle_registrar* r);
axle_status register_conv_pool(const axle_registrar* r);
axle_status register_gather_scatter(const axle_registrar* r);
axle_status register_reduce_ops(const axle_registrar* r);

axle_status fill(void*, const axle_kernel_call* call);
axle_status arange(void*, const axle_kernel_call* call);
axle_status linspace(void*, const axle_kernel_call* call);
axle_status copy(void*, const axle_kernel_call* call);
axle_status cat(void*, const axle_kernel_call* call);
axle_status add(void*, const axle_kernel_call* call);
axle_status sub(void*, const axle_kernel_call* call);
axle_status mul(void*, const axle_kernel_call* call);
axle_status div(void*, const axle_kernel_call* call);
enum class Comparison { Eq, Ne, Lt, Le, Gt, Ge };
template <Comparison C>
axle_status compare(void*, const axle_kernel_call* call);
axle_status neg(void*, const axle_kernel_call* call);
axle_status exp(void*, const axle_kernel_call* call);
axle_status relu(void*, const axle_kernel_call* call);
axle_status sum(void*, const axle_kernel_call* call);
axle_status mean(void*, const axle_kernel_call* call);
axle_status matmul(void*, const axle_kernel_call* call);
axle_status nonzero(void*, const axle_kernel_call* call);

}  // namespace axle::reference
