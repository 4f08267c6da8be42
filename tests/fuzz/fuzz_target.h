// Shared by the fuzz targets (tests/fuzz/meson.build): the libFuzzer entry
// point, and the rule that axle's typed errors are expected results while any
// other exception is a finding (printed, then abort(), as a crash would be).
#pragma once

#include <axle/error.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <typeinfo>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace axle_fuzz {

// Runs `body`; an axle::Error (a rejected input) is fine, anything else aborts.
template <class F>
int guarded(F&& body) {
  try {
    body();
  } catch (const axle::Error&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz target: unexpected %s: %s\n", typeid(e).name(), e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "fuzz target: unexpected non-std exception\n");
    std::abort();
  }
  return 0;
}

// The input as an in-memory file for loaders that take a path: a memfd named
// through /proc/self/fd, closed when this object dies.
class MemFile {
 public:
  MemFile(const uint8_t* data, size_t size) : fd_(memfd_create("axle-fuzz", MFD_CLOEXEC)) {
    if (fd_ < 0) {
      std::perror("memfd_create");
      std::abort();
    }
    size_t done = 0;
    while (done < size) {
      const ssize_t n = write(fd_, data + done, size - done);
      if (n <= 0) {
        std::perror("write");
        std::abort();
      }
      done += static_cast<size_t>(n);
    }
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  ~MemFile() { close(fd_); }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  int fd_;
  std::string path_;
};

}  // namespace axle_fuzz
