// Fuzz target: the plugin manifest reader (dispatcher/src/plugin_manifest.h,
// compiled into this target) on arbitrary text. Corpus: tests/fuzz/corpus/manifest.
#include "fuzz_target.h"
#include "plugin_manifest.h"

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  return axle_fuzz::guarded([&] { (void)axle::parse_manifest(text, "fuzz/axle_plugin.json"); });
}
