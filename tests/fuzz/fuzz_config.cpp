// Fuzz target: Config::parse on arbitrary text (a configuration file), then
// merging it over the defaults and reading some keys back.
// Corpus: tests/fuzz/corpus/config.
#include "fuzz_target.h"

#include <axle/axle.h>

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  return axle_fuzz::guarded([&] {
    const axle::Config c = axle::Config::parse(text, "fuzz.json");
    axle::Config merged;
    merged.merge(c);
    for (const char* key : {"cpu.threads", "log_level", "plugin_paths", "fallback.ops.conv2d", "plugins.cpu.rank",
                            "plugins.cpu.options", "plugins.cpu.options.threads"})
      (void)merged.get(key);
  });
}
