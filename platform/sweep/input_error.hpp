#pragma once
// Bad input to a sweep command that is not a SPEC error with a JSON pointer: a DIR that
// already holds a sweep, an unknown plot column, shards of different sweeps. Exit code 2.
#include <stdexcept>

namespace trainvp::sweep {

struct SweepInputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace trainvp::sweep
