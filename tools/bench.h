// `axle bench`: axle's own throughput figures on one device (tools/bench.cpp).
#pragma once

#include <string>

namespace axle::cli {

struct BenchOptions {
  std::string device = "cpu";
  std::string only;  // run the cases whose name starts with this
  bool quick = false;
  bool json = false;
};
int cmd_bench(const BenchOptions& options);

}  // namespace axle::cli
