#pragma once
// SystemC elaborates once per process, so a unit test that builds modules runs its body, assertions
// included, in a forked child; the child prints its failures and the test fails in the parent too.
// The whole executable can then run in one process as well as one test per process under CTest.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <string>

#include "platform/core/child_process.hpp"

namespace trainvp::test {

inline void in_own_process(const std::function<void()>& body) {
  const ChildResult r = run_in_child([&] {
    body();
    std::fflush(stdout);  // the child leaves by _exit: flush its failure messages first
    return std::string(::testing::Test::HasFailure() ? "failed" : "");
  });
  ASSERT_TRUE(r.ok) << r.value;
  EXPECT_EQ(r.value, "") << "an assertion failed in the child process (see above)";
}

}  // namespace trainvp::test
