#pragma once
// What every fast-forward campaign test checks of a run with it on against one with it off: it
// skipped more than once, the skips add up, the run without it did not skip, several faults were
// applied, and no skip spans a fault's start or end.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace trainvp::test {

inline void expect_skips_between_faults(const nlohmann::json& on, const nlohmann::json& off, int iterations) {
  const nlohmann::json& ff = on["fast_forward"];
  EXPECT_TRUE(ff["enabled"].get<bool>()) << ff.dump();
  EXPECT_GE(ff["skips"].size(), 2u) << ff.dump();
  EXPECT_EQ(ff["iterations_simulated"].get<int>() + ff["iterations_skipped"].get<int>(), iterations);
  int sum = 0;
  for (const nlohmann::json& s : ff["skips"]) sum += s["iterations"].get<int>();
  EXPECT_EQ(sum, ff["iterations_skipped"].get<int>());
  EXPECT_EQ(off["fast_forward"]["iterations_skipped"].get<int>(), 0);
  int applied = 0;
  for (const nlohmann::json& f : on["faults"]) applied += f["applied"].get<bool>();
  EXPECT_GE(applied, 3);
  for (const nlohmann::json& s : ff["skips"])
    for (const nlohmann::json& f : on["faults"]) {
      if (!f["applied"].get<bool>()) continue;
      const double a = s["at_s"].get<double>(), b = a + s["simulated_s"].get<double>();
      for (const char* edge : {"start_s", "end_s"})
        EXPECT_FALSE(f[edge].get<double>() > a && f[edge].get<double>() < b) << f.dump() << " " << s.dump();
    }
}

}  // namespace trainvp::test
