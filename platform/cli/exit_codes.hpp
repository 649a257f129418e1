#pragma once
// What every trainvp command shares: its exit codes (README, "Exit codes") and the help flag.
#include <string>
#include <vector>

namespace trainvp {

constexpr int kOk = 0, kRunFailed = 1, kBadInput = 2;

// -h or --help among a command's arguments.
inline bool wants_help(const std::vector<std::string>& args) {
  for (auto& a : args)
    if (a == "-h" || a == "--help") return true;
  return false;
}

}  // namespace trainvp
