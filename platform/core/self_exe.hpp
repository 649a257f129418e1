#pragma once
// The running executable's absolute path, from which an installed trainvp finds what lies beside
// its prefix (share/trainvp/scenarios, lib/trainvp/rtl) and a sweep starts its child runs.
#include <string>

namespace trainvp {

// The path /proc/self/exe links to; "" when it cannot be read.
std::string self_executable();

}  // namespace trainvp
