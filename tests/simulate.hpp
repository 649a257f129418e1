#pragma once
// Runs a scenario document to completion in a forked child (tests/sim_child.hpp) and returns its
// results.json; throws std::runtime_error with the child's error when the run fails.
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "platform/report/results.hpp"
#include "platform/config/scenario.hpp"
#include "platform/system/simulation.hpp"
#include "tests/sim_child.hpp"

namespace trainvp::test {

inline nlohmann::json simulate(const nlohmann::json& doc) {
  auto r = in_child([&] {
    Scenario s = load_scenario(doc, "t");
    Simulation sim(s);
    sim.run();
    return collect_results(sim).json.dump();
  });
  if (!r.ok) throw std::runtime_error(r.value);
  return nlohmann::json::parse(r.value);
}

}  // namespace trainvp::test
