#pragma once
// The sweep commands of the trainvp command line (docs/sweeps.md):
//   sweep SPEC -o DIR [-j N] [--shard I/N] [--resume] [--dry-run]
//   sweep-export DIR [--csv] [-o FILE]
//   merge OUT DIR...
//   plot DIR --x COLUMN --y COLUMN [--by COLUMN] [--where P=V]... [--logx] [--logy] [--title T] [-o FILE]
// Each prints its own errors and returns the exit code: 0 success, 1 a point or an I/O step
// failed, 2 bad input or usage.
#include <string>
#include <vector>

namespace trainvp {

int cli_sweep(const std::vector<std::string>& args);
int cli_sweep_export(const std::vector<std::string>& args);
int cli_merge(const std::vector<std::string>& args);
int cli_plot(const std::vector<std::string>& args);

}  // namespace trainvp
