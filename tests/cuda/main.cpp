// doctest main for the CUDA tests: runs every case, then exits 77 (meson: SKIP)
// when no GPU is present, after saying why, so that a machine without a GPU never
// reports the GPU cases as passed.
#define DOCTEST_CONFIG_IMPLEMENT
#include <axle/axle.h>

#include <doctest/doctest.h>

#include <cstdio>

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int rc = context.run();
  if (rc != 0 || context.shouldExit()) return rc;
  for (const axle::DeviceInfo& d : axle::devices()) {
    if (d.type == "cuda" && d.count == 0) {
      std::printf("SKIP: the GPU cases did not run: %s\n", d.note.c_str());
      return 77;
    }
  }
  return 0;
}
