// Secure execution and the cpu plugin: with ONEDNN_JIT_DUMP=1 and
// ONEDNN_VERBOSE=1 in the environment, oneDNN writes dnnl_dump_*.bin files into
// the current folder and prints a line per primitive on stdout. In a
// secure-execution process (driven here through set_secure_execution_check)
// the cpu plugin turns both off (plugins/cpu/plugin.cpp); the control run (not
// secure) shows that the variables do take effect, so the secure run's silence
// is the plugin's doing. Usage: test_secure_cpu secure|control
#include <axle/axle.h>
#include <axle/config.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode != "secure" && mode != "control") {
    std::fprintf(stderr, "usage: %s secure|control\n", argv[0]);
    return 2;
  }
  const bool secure = mode == "secure";
  setenv("ONEDNN_JIT_DUMP", "1", 1);
  setenv("ONEDNN_VERBOSE", "1", 1);
  char dir_template[] = "/tmp/axle_secure_cpu_XXXXXX";
  const char* dir = mkdtemp(dir_template);
  if (!dir || chdir(dir) != 0) {
    std::perror("mkdtemp/chdir");
    return 1;
  }
  if (secure) axle::detail::set_secure_execution_check([] { return true; });

  // oneDNN prints on stdout: into a file while the primitives run.
  std::fflush(stdout);
  const int saved = dup(1);
  const int capture = open("stdout.txt", O_WRONLY | O_CREAT | O_TRUNC, 0600);
  dup2(capture, 1);
  bool served = false;
  try {
    const axle::Tensor a = axle::ones({64, 64});
    const axle::Tensor c = axle::matmul(a, a);  // a oneDNN matmul in the cpu plugin
    served = c.sum().item<double>() == 64.0 * 64 * 64;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "matmul failed: %s\n", e.what());
  }
  std::fflush(stdout);
  dup2(saved, 1);
  close(capture);

  int dumps = 0;
  for (const auto& entry : fs::directory_iterator("."))
    if (entry.path().filename().string().rfind("dnnl_dump_", 0) == 0) ++dumps;
  std::stringstream log;
  log << std::ifstream("stdout.txt").rdbuf();
  const bool verbose =
      log.str().find("onednn_verbose") != std::string::npos || log.str().find("dnnl_verbose") != std::string::npos;
  bool cpu_loaded = false;
  for (const auto& p : axle::plugins()) cpu_loaded |= p.name == "cpu" && p.status == axle::PluginStatus::Loaded;
  std::error_code ec;
  fs::current_path("/", ec);
  fs::remove_all(dir, ec);

  std::printf("%s: cpu plugin loaded %d, matmul ok %d, %d JIT dump files, verbose output %d\n", mode.c_str(),
              cpu_loaded, served, dumps, verbose);
  if (!cpu_loaded || !served) return 1;
  if (secure) return dumps == 0 && !verbose ? 0 : 1;
  return dumps > 0 && verbose ? 0 : 1;  // control: the variables work, so the secure run proves something
}
