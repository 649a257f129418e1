#pragma once
// What built this binary, for `trainvp version --json` and the build record of every results.json
// and sweep.db (platform/report/build_record.hpp adds the SystemC, Verilator and RTL parts).
namespace trainvp {

// `git rev-parse --short=12 HEAD` of the source tree at build time, "-dirty" appended when
// tracked files differed from it; "unknown" outside a git checkout. Defined in a generated .cpp
// (cmake/git_revision.cmake), so a new commit recompiles only that file.
const char* build_git_revision();
// CMAKE_BUILD_TYPE at configure time ("Release", "Debug", ...; "" when none was set).
const char* build_type();

}  // namespace trainvp
