// The parity finder: run the same operator calls on two backends and report the
// first call whose outputs differ beyond tolerance, with the kernels that ran on
// each side (plugin, source file:line) and the max abs / rel error. A backend
// is a device, optionally with one plugin's kernels first ("cpu@reference",
// "cpu@cpu", "cuda"): the plugins ranked above it on that device type are kept
// out, lower-ranked ones serve what it lacks or declines. Calls are recorded once (host copies of the arguments,
// as the application passed them, and of the results) and each is replayed on
// both backends from the recorded inputs, so an early difference does not hide
// behind the ones it causes downstream.
#pragma once

#include <axle/export.h>
#include <axle/value.h>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace axle {

struct RecordedCall {
  std::string op;   // full operator name ("add.Tensor")
  Stack args;       // host copies of the arguments (generators as (seed, offset) snapshots)
  Stack outputs;    // host copies of the results
  std::string ran;  // what ran it when recorded ("kernel of plugin 'cpu' (file:line)")
};

class AXLE_API Recording {
 public:
  std::vector<RecordedCall> calls;
  // One safetensors file: the tensors, and the calls as JSON in its metadata.
  void save(const std::string& path) const;
  // Throws ValueError naming the file and what is wrong.
  static Recording load(const std::string& path);
};

// Records the operator calls the application makes on the calling thread while
// it lives (calls made inside other ops are not recorded separately).
class AXLE_API RecordScope {
 public:
  RecordScope();
  ~RecordScope();
  RecordScope(const RecordScope&) = delete;
  RecordScope& operator=(const RecordScope&) = delete;
  Recording take();  // the calls so far (the scope keeps recording)

 private:
  struct Impl;
  Impl* impl_;
};
AXLE_API Recording record(const std::function<void()>& fn);

struct AXLE_API Backend {
  std::string device = "cpu";  // "cpu", "cuda:0"
  std::string plugin;          // "" = the dispatcher's choice; else the plugins ranked above it kept out
  // "DEVICE[@PLUGIN]"; throws ValueError on a malformed text or unknown device type.
  static Backend parse(std::string_view text);
  std::string str() const;
};

struct ParityOptions {
  double rtol = 1e-4;
  double atol = 1e-5;
};

struct ParityResult {
  bool ok = true;
  size_t compared = 0;               // calls replayed on both backends and compared
  std::vector<std::string> skipped;  // "#3 rand: ..." calls that could not be compared
  // The first difference (when !ok):
  size_t index = 0;  // position of the call in the recording
  std::string op;
  size_t output = 0;                // which output
  double max_abs = 0, max_rel = 0;  // over finite elements
  std::string ran_a, ran_b;         // what ran it on each backend
  std::string detail;               // what differs (values, shapes, dtypes, an error on one side)
};

// Replays every recorded call on `a` and on `b` and compares the outputs.
AXLE_API ParityResult find_parity(const Recording& recording, const Backend& a, const Backend& b,
                                  const ParityOptions& options = {});
// Records `fn` (run once as is), then find_parity on the recording.
AXLE_API ParityResult find_parity(const std::function<void()>& fn, const Backend& a, const Backend& b,
                                  const ParityOptions& options = {});
// A few lines for people: the verdict, then the call, its kernels and errors.
AXLE_API std::string format_parity(const ParityResult& r, const Backend& a, const Backend& b);

}  // namespace axle
