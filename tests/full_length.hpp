#pragma once
// Tests that shorten a long campaign for the default suite run it at full length when
// TRAINVP_TEST_FULL_LENGTH=1: scripts/check-release runs them so (docs/reliability.md#the-release-check).
#include <cstdlib>
#include <cstring>

namespace trainvp::test {

inline bool full_length() {
  const char* v = std::getenv("TRAINVP_TEST_FULL_LENGTH");
  return v && std::strcmp(v, "1") == 0;
}

}  // namespace trainvp::test
