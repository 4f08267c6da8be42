// Fuzz target: FunctionSchema::parse on arbitrary text, then the parsed
// schema's queries and default filling. Corpus: tests/fuzz/corpus/schema.
#include "fuzz_target.h"

#include <axle/axle.h>

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  return axle_fuzz::guarded([&] {
    const axle::FunctionSchema s = axle::FunctionSchema::parse(text);
    (void)s.full_name();
    (void)s.find_argument("self");
    axle::Stack args;
    s.complete_arguments(args);
  });
}
