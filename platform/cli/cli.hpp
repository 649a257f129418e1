#pragma once
// The `trainvp` command line: run, validate, describe, version. Exit codes: 0 success,
// 1 a run that failed (stall, time limit, I/O), 2 bad input or usage.
namespace trainvp {
int cli_main(int argc, char* argv[]);
}
