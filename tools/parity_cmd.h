// `axle parity` and `axle trace` (tools/parity_cmd.cpp).
#pragma once

#include <string>
#include <vector>

namespace axle::cli {

// Arguments after the command word. Exit codes: 0 the backends agree, 1 error,
// 2 usage, 3 a difference was found.
int cmd_parity(const std::vector<std::string>& args);

}  // namespace axle::cli
