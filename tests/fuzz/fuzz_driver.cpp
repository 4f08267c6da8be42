// A standalone main for the fuzz targets in builds without libFuzzer (gcc, the
// sanitizer builds of scripts/test): runs LLVMFuzzerTestOneInput once on every
// file named on the command line and every file under the folders named there
// (sorted, recursively), so each target's corpus runs as a regression test.
#include "fuzz_target.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  std::vector<fs::path> files;
  for (int i = 1; i < argc; ++i) {
    const fs::path p(argv[i]);
    if (fs::is_directory(p)) {
      for (const auto& e : fs::recursive_directory_iterator(p))
        if (e.is_regular_file()) files.push_back(e.path());
    } else if (fs::is_regular_file(p)) {
      files.push_back(p);
    } else {
      std::cerr << "fuzz driver: no such file or folder: " << p << "\n";
      return 2;
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    std::cerr << "fuzz driver: no inputs\n";
    return 2;
  }
  for (const fs::path& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::cerr << "running " << f.string() << " (" << bytes.size() << " bytes)\n";
    // A copy of exactly the input's size, so ASan sees reads past its end.
    auto* copy = new uint8_t[bytes.size()];
    std::copy(bytes.begin(), bytes.end(), copy);
    LLVMFuzzerTestOneInput(copy, bytes.size());
    delete[] copy;
  }
  std::cout << files.size() << " inputs ran\n";
  return 0;
}
