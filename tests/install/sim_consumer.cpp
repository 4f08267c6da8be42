// Uses the out-of-tree "sim" plugin from an installed axle (run by
// test_install.sh with AXLE_PLUGIN_PATH naming the plugin's build folder).
#include <axle/axle.h>

#include <cmath>
#include <cstdio>
#include <string>

int main() {
  using namespace axle;
  const Device sim("sim");
  const Tensor t = ones({3}, TensorOptions().device(sim)) + 1;  // sim's fill_ and add kernels
  if (t.device() != sim) return std::puts("result not on sim"), 1;
  const Tensor h = t.cpu();
  for (int i = 0; i < 3; ++i)
    if (h.data_ptr<float>()[i] != 2.0f) return std::puts("ones + 1 != 2"), 1;
  const Tensor e = exp(t).cpu();  // sim has no exp: the host fallback runs it
  if (std::fabs(e.data_ptr<float>()[0] - std::exp(2.0f)) > 1e-5f) return std::puts("exp through fallback wrong"), 1;
  Config strict;
  strict.fallback_policy = FallbackPolicy::Error;
  configure(strict);
  try {
    exp(t);
    return std::puts("exp with fallback policy 'error' did not raise"), 1;
  } catch (const NotImplementedError& err) {
    const std::string what = err.what();
    if (what.find("exp") == std::string::npos || what.find("sim") == std::string::npos)
      return std::printf("the error does not name the op and device: %s\n", what.c_str()), 1;
  }
  std::puts("sim from C++: ok");
  return 0;
}
