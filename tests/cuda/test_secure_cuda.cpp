// Secure execution and the CUDA plugin: the CUDA driver, cuBLAS, cuBLASLt and
// cuDNN read variables that load a library (CUDA_INJECTION64_PATH) or name
// files they write (CUDA_CACHE_PATH, CUBLAS_LOGDEST_DBG, ...). In a
// secure-execution process (driven here through set_secure_execution_check)
// the plugin removes them before its first CUDA call and turns the JIT cache
// off (plugins/cuda/plugin.cpp); the control run (not secure) shows that the
// plugin leaves the environment alone otherwise. Needs no GPU: registration
// touches no device. Usage: test_secure_cuda secure|control
#include <axle/axle.h>
#include <axle/config.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "secure" && mode != "control") {
    std::fprintf(stderr, "usage: %s secure|control\n", argv[0]);
    return 2;
  }
  const bool secure = mode == "secure";
  const char* planted[] = {"CUDA_INJECTION64_PATH", "CUDA_CACHE_PATH", "CUBLAS_LOGDEST_DBG", "CUBLASLT_LOG_FILE",
                           "CUDNN_LOGDEST_DBG"};
  for (const char* name : planted) setenv(name, "/tmp/axle-planted-path", 1);
  unsetenv("CUDA_CACHE_DISABLE");
  if (secure) axle::detail::set_secure_execution_check([] { return true; });

  axle::load_all_plugins();
  bool loaded = false;
  for (const auto& p : axle::plugins()) loaded |= p.name == "cuda" && p.status == axle::PluginStatus::Loaded;
  int left = 0;
  for (const char* name : planted) left += std::getenv(name) != nullptr;
  const char* cache = std::getenv("CUDA_CACHE_DISABLE");
  const bool cache_off = cache && std::strcmp(cache, "1") == 0;
  std::printf("%s: cuda plugin loaded %d, %d of %zu planted variables left, JIT cache disabled %d\n", mode.c_str(),
              loaded, left, std::size(planted), cache_off);
  if (!loaded) return 1;
  if (secure) return left == 0 && cache_off ? 0 : 1;
  return left == static_cast<int>(std::size(planted)) && !cache_off ? 0 : 1;
}
