#pragma once
// Shared checks for bad scenarios: loading a mutated copy of a good document, or elaborating one,
// must fail with a ScenarioError at a given JSON pointer.
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "platform/core/errors.hpp"
#include "platform/config/scenario.hpp"
#include "platform/system/simulation.hpp"
#include "tests/sim_child.hpp"

namespace trainvp::test {

struct BadCase {
  const char* name;
  std::function<void(nlohmann::json&)> mutate;
  const char* path;  // where the error must point
};

// Each case's mutation of `good` is rejected by the loader at the case's path.
inline void expect_load_errors(const nlohmann::json& good, const std::vector<BadCase>& cases) {
  for (const BadCase& c : cases) {
    nlohmann::json doc = good;
    c.mutate(doc);
    try {
      load_scenario(doc, "t");
      ADD_FAILURE() << c.name << ": accepted";
    } catch (const ScenarioError& e) {
      EXPECT_EQ(e.path, c.path) << c.name << ": " << e.what();
    }
  }
}

// Loads and elaborates `doc` in a child process (SystemC elaborates once per process): the
// ScenarioError it throws as "path|message", or "no error".
inline std::string elaboration_error(const nlohmann::json& doc) {
  auto r = in_child([&] {
    Scenario s = load_scenario(doc, "t");
    try {
      Simulation sim(s);
    } catch (const ScenarioError& e) {
      return e.path + "|" + e.what();
    }
    return std::string("no error");
  });
  return r.ok ? r.value : "child failed: " + r.value;
}

}  // namespace trainvp::test
