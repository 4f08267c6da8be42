// Fuzz target: load_safetensors on arbitrary bytes (written to a memfd, since
// the loader takes a path). Corpus: tests/fuzz/corpus/safetensors.
#include "fuzz_target.h"

#include <axle/axle.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const axle_fuzz::MemFile file(data, size);
  return axle_fuzz::guarded([&] {
    std::map<std::string, std::string> metadata;
    const auto tensors = axle::load_safetensors(file.path(), &metadata);
    for (const auto& [name, t] : tensors) {
      // Every loaded tensor is a well-formed host tensor.
      if (!t.device().is_cpu() || t.numel() != axle::checked_numel(t.sizes())) std::abort();
    }
  });
}
