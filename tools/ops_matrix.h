// `axle ops`: the coverage matrix, every operator x every backend (plugin on a
// device type), as a terminal table, JSON or a self-contained HTML heat-map
// (tools/ops_matrix.cpp).
#pragma once

#include <string>
#include <vector>

namespace axle::cli {

// `args`: the command line after the word "ops". Returns the exit code
// (0 ok, 1 error, 2 usage).
int cmd_ops(const std::vector<std::string>& args);

}  // namespace axle::cli
