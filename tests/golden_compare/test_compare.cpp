// The golden comparison itself: what it accepts and what it reports, on small documents.
#include <gtest/gtest.h>

#include "tests/golden_compare/compare.hpp"

using nlohmann::json;
using trainvp::golden::compare;
using trainvp::golden::default_options;
using trainvp::golden::Options;

TEST(GoldenCompare, EqualDocumentsAndIgnoredFieldsPass) {
  json a = {{"sim", {{"wall_s", 1.5}, {"events", 10}, {"simulated_s", 0.25}}},
            {"scenario", {{"output", {{"dir", "/a"}}}}}};
  json b = {{"sim", {{"wall_s", 9.0}, {"events", 7}, {"simulated_s", 0.25}}},
            {"scenario", {{"output", {{"dir", "/b"}}}}}};
  EXPECT_TRUE(compare(a, b, default_options()).empty());
}

TEST(GoldenCompare, FloatsWithinOnePartInABillionPassAndBeyondFail) {
  json a = {{"t", 1.0}};
  EXPECT_TRUE(compare(a, json{{"t", 1.0 + 0.5e-9}}, default_options()).empty());
  auto d = compare(a, json{{"t", 1.0 + 3e-9}}, default_options());
  ASSERT_EQ(d.size(), 1u);
  EXPECT_NE(d[0].find("/t:"), std::string::npos);
}

TEST(GoldenCompare, IntegersMustBeExact) {
  EXPECT_EQ(compare(json{{"n", 1000000000001}}, json{{"n", 1000000000000}}, default_options()).size(), 1u);
}

TEST(GoldenCompare, IntegersRelativeWhenAskedForMethodComparisons) {
  Options o = default_options();
  o.rel_tol = 1e-3, o.integers_relative = true;
  EXPECT_TRUE(compare(json{{"n", 100000}}, json{{"n", 100099}}, o).empty());   // 0.099 %
  EXPECT_EQ(compare(json{{"n", 100000}}, json{{"n", 100101}}, o).size(), 1u);  // 0.101 %
}

TEST(GoldenCompare, LargestRelativeDifferenceAndWhere) {
  const auto m = trainvp::golden::max_difference(json{{"a", {1.0, 200}}, {"b", 4.0}},
                                                 json{{"a", {1.0, 201}}, {"b", 4.0}}, default_options());
  EXPECT_DOUBLE_EQ(m.relative, 1.0 / 201);
  EXPECT_EQ(m.pointer, "/a/1");
}

TEST(GoldenCompare, MissingExtraKeysTypesAndLengthsAreReportedWithTheirPointers) {
  json e = {{"a", {1, 2, 3}}, {"b", "x"}, {"c", true}, {"d/e", 1}};
  json g = {{"a", {1, 2}}, {"b", 3}, {"c", false}, {"z", 0}};
  auto d = compare(e, g, default_options());
  std::string all;
  for (auto& s : d) all += s + "\n";
  EXPECT_NE(all.find("/a: expected 3 elements, got 2"), std::string::npos) << all;
  EXPECT_NE(all.find("/b: expected string"), std::string::npos) << all;
  EXPECT_NE(all.find("/c: expected true, got false"), std::string::npos) << all;
  EXPECT_NE(all.find("/d~1e: missing"), std::string::npos) << all;
  EXPECT_NE(all.find("/z: unexpected key"), std::string::npos) << all;
}

TEST(GoldenCompare, ReportsAreCappedWithACount) {
  json e = json::array(), g = json::array();
  for (int i = 0; i < 30; ++i) e.push_back(i), g.push_back(i + 1);
  auto d = compare(e, g, default_options());
  ASSERT_EQ(d.size(), 21u);
  EXPECT_EQ(d.back(), "... and 10 more differences");
}
