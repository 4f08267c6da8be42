// The cpu plugin's descriptor and registration. It serves kernels for the host
// device type "cpu" whose runtime (allocator, copies) the reference plugin
// provides, at rank 50 (the reference plugin has 0).
#include "kernels.h"

#include <sys/auxv.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace axle::cpu {
namespace {

const char* const kDeviceTypes[] = {"cpu"};

// A secure-execution process (setuid, setgid, file capabilities: AT_SECURE):
// the host says so (get_option(NULL, "secure_execution"), which tests can
// drive), and so does the kernel's auxiliary vector (a host that did not
// answer). axle ignores its own variables there, but oneDNN reads
// ONEDNN_VERBOSE / ONEDNN_JIT_DUMP / ONEDNN_JIT_PROFILE (and their DNNL_
// names) with plain getenv on first use: the JIT dump writes files into the
// current folder and the profiler writes perf maps, through any planted
// symlink, with the process's privileges. Set before any primitive runs, the
// settings win over the environment. libgomp reads OMP_* when it loads, before
// any plugin code runs (docs/cpu-plugin.md, Secure execution).
bool secure_execution(const axle_host_api* host) {
  const char* secure = plugin::option(host, nullptr, "secure_execution");
  return (secure && std::strcmp(secure, "true") == 0) || getauxval(AT_SECURE) != 0;
}
void harden_onednn() {
  dnnl_set_verbose(0);
  dnnl_set_jit_dump(0);
  dnnl_set_jit_profiling_flags(DNNL_JIT_PROFILE_NONE);
}

// Options: threads (plugins.cpu.options.threads, else the global cpu.threads,
// else every core) and dnnl_min_elements (see dnnl_util.h).
void configure(const axle_host_api* host) {
  if (secure_execution(host)) harden_onednn();
  const char* threads = plugin::option(host, "cpu", "threads");
  if (!threads) threads = plugin::option(host, nullptr, "cpu.threads");
  set_thread_count(threads ? std::atoi(threads) : 0);
  const char* min_elements = plugin::option(host, "cpu", "dnnl_min_elements");
  if (min_elements) set_dnnl_min_elements(std::atoll(min_elements));
}

// What `axle info` shows: the oneDNN library actually loaded and its threading.
char g_description[128] = "oneDNN";
void describe() {
  const dnnl_version_t* v = dnnl_version();
  const char* runtime = v->cpu_runtime == DNNL_RUNTIME_OMP   ? "OpenMP"
                        : v->cpu_runtime == DNNL_RUNTIME_TBB ? "TBB"
                        : v->cpu_runtime == DNNL_RUNTIME_SEQ ? "sequential"
                                                             : "threadpool";
  std::snprintf(g_description, sizeof g_description, "oneDNN %d.%d.%d (%s threading, commit %.8s)", v->major, v->minor,
                v->patch, runtime, v->hash ? v->hash : "?");
}

axle_status register_plugin(const axle_registrar* r) {
  if (!r || r->struct_size < sizeof(axle_registrar)) return AXLE_ERROR_INVALID_ARGUMENT;
  configure(r->host);
  describe();
  axle_status (*const families[])(const axle_registrar*) = {
      &register_blas,
      &register_nn,
      &register_nn_backward,
      &register_nn_rnn,
      &register_optim,
      &register_random,
      &register_pointwise_unary,
      &register_pointwise_binary,
      &register_conv_pool,
      &register_conv_pool_backward,
      &register_conv_pool_max,
      &register_copy,
      &register_creation,
      &register_indexing,
      &register_reduction,
  };
  for (auto family : families)
    if (axle_status s = family(r)) return s;
  return AXLE_OK;
}

const axle_plugin_descriptor kDescriptor = [] {
  auto d = plugin::plugin_descriptor();
  d.name = "cpu";
  d.version = "0.1.0";
  d.device_types = kDeviceTypes;
  d.num_device_types = 1;
  d.default_rank = 50;
  d.register_plugin = &register_plugin;
  d.description = g_description;  // filled by register_plugin
  return d;
}();

}  // namespace
}  // namespace axle::cpu

extern "C" AXLE_PLUGIN_EXPORT const axle_plugin_descriptor* axle_plugin_get_descriptor(void) {
  return &axle::cpu::kDescriptor;
}
