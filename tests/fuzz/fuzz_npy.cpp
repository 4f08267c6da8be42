// Fuzz target: load_npy on arbitrary bytes (written to a memfd, since the
// loader takes a path). Corpus: tests/fuzz/corpus/npy.
#include "fuzz_target.h"

#include <axle/axle.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const axle_fuzz::MemFile file(data, size);
  return axle_fuzz::guarded([&] {
    const axle::Tensor t = axle::load_npy(file.path());
    if (!t.device().is_cpu() || t.numel() != axle::checked_numel(t.sizes())) std::abort();
  });
}
