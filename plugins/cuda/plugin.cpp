// The CUDA plugin's descriptor and registration: device type "cuda" (indices
// 0..N-1), its runtime (runtime.cpp) and kernels; ops without a CUDA kernel run
// through the core's host fallback per the fallback policy. Loaded lazily (its
// manifest names "cuda"): no CUDA call happens before a cuda device is used.
#include "cuda_util.h"
#include "kernels.h"

#include <cublas_v2.h>
#include <cudnn.h>

#include <sys/auxv.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace axle::cuda {
namespace {

const char* const kDeviceTypes[] = {"cuda"};

// What `axle info` shows: the CUDA runtime, driver, cuBLAS and cuDNN versions
// as loaded (no device is touched: registration stays lazy-safe).
char g_description[160] = "CUDA";
void describe() {
  int runtime = 0, driver = 0;
  cudaRuntimeGetVersion(&runtime);
  cudaDriverGetVersion(&driver);
  int blas[3] = {};
  cublasGetProperty(MAJOR_VERSION, &blas[0]);
  cublasGetProperty(MINOR_VERSION, &blas[1]);
  cublasGetProperty(PATCH_LEVEL, &blas[2]);
  const size_t cudnn = cudnnGetVersion();
  std::snprintf(g_description, sizeof g_description,
                "CUDA runtime %d.%d, driver %d.%d (0.0: none), cuBLAS %d.%d.%d, cuDNN %zu.%zu.%zu", runtime / 1000,
                runtime % 1000 / 10, driver / 1000, driver % 1000 / 10, blas[0], blas[1], blas[2], cudnn / 10000,
                cudnn % 10000 / 100, cudnn % 100);
}

// A secure-execution process (setuid, setgid, file capabilities: AT_SECURE;
// the host says so through get_option(NULL, "secure_execution"), else the
// auxiliary vector). The CUDA driver and libraries read variables with plain
// getenv when they initialize, also there: the driver loads the library named
// by CUDA_INJECTION64_PATH (NVTX: NVTX_INJECTION64_PATH), writes its JIT cache
// under CUDA_CACHE_PATH and core dumps to CUDA_COREDUMP_FILE, cuBLAS, cuBLASLt
// and cuDNN append logs to the files their *_LOGDEST_DBG / LOG_FILE variables
// name: code loaded and files written with the process's privileges. Before
// the first CUDA call, the plugin removes those variables from the
// environment and turns the JIT cache off (glibc strips LD_* the same way);
// docs/cuda-plugin.md, "Secure execution".
constexpr const char* kUnsafeVariables[] = {"CUDA_INJECTION64_PATH",
                                            "NVTX_INJECTION64_PATH",
                                            "CUDA_CACHE_PATH",
                                            "CUDA_COREDUMP_FILE",
                                            "CUDA_ENABLE_COREDUMP_ON_EXCEPTION",
                                            "CUDA_ENABLE_CPU_COREDUMP_ON_EXCEPTION",
                                            "CUDA_MPS_PIPE_DIRECTORY",
                                            "CUDA_MPS_LOG_DIRECTORY",
                                            "CUBLAS_LOGINFO_DBG",
                                            "CUBLAS_LOGDEST_DBG",
                                            "CUBLASLT_LOG_LEVEL",
                                            "CUBLASLT_LOG_MASK",
                                            "CUBLASLT_LOG_FILE",
                                            "CUDNN_LOGINFO_DBG",
                                            "CUDNN_LOGWARN_DBG",
                                            "CUDNN_LOGERR_DBG",
                                            "CUDNN_LOGLEVEL_DBG",
                                            "CUDNN_LOGDEST_DBG"};
bool secure_execution(const axle_host_api* host) {
  const char* secure = plugin::option(host, nullptr, "secure_execution");
  return (secure && std::strcmp(secure, "true") == 0) || getauxval(AT_SECURE) != 0;
}
void harden_environment() {
  for (const char* name : kUnsafeVariables) unsetenv(name);
  setenv("CUDA_CACHE_DISABLE", "1", 1);
}

axle_status register_plugin(const axle_registrar* r) {
  if (!r || r->struct_size < sizeof(axle_registrar)) return AXLE_ERROR_INVALID_ARGUMENT;
  if (secure_execution(r->host)) harden_environment();
  describe();
  if (axle_status s = r->register_device_type(r->context, device_interface())) return s;
  axle_status (*const families[])(const axle_registrar*) = {
      &register_pointwise, &register_blas,      &register_conv_pool, &register_nn,
      &register_indexing,  &register_reduction, &register_random};
  for (auto family : families)
    if (axle_status s = family(r)) return s;
  return AXLE_OK;
}

const axle_plugin_descriptor kDescriptor = [] {
  auto d = plugin::plugin_descriptor();
  d.name = "cuda";
  d.version = "0.1.0";
  d.device_types = kDeviceTypes;
  d.num_device_types = 1;
  d.default_rank = 50;
  d.register_plugin = &register_plugin;
  d.description = g_description;  // filled by register_plugin
  return d;
}();

}  // namespace
}  // namespace axle::cuda

extern "C" AXLE_PLUGIN_EXPORT const axle_plugin_descriptor* axle_plugin_get_descriptor(void) {
  return &axle::cuda::kDescriptor;
}
