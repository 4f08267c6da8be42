// AXLE_PLUGIN_HOST_DEVICE: `__host__ __device__` when compiled by nvcc, nothing
// otherwise, for header-only helpers a plugin calls from host and CUDA device
// code alike (random.hpp).
#pragma once

#ifndef AXLE_PLUGIN_HOST_DEVICE
#if defined(__CUDACC__)
#define AXLE_PLUGIN_HOST_DEVICE __host__ __device__
#else
#define AXLE_PLUGIN_HOST_DEVICE
#endif
#endif
