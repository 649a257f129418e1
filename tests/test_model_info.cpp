// What each platform model declares of itself for `trainvp describe` (platform/core/model_info.hpp):
// sockets and statistics, parameters from schemas that exist, and statistics that results.json
// really holds: every entry of the model's results array, in the result of every shipped
// scenario that uses the model (tests/golden/ holds them, equal to fresh runs by CTest).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "platform/config/scenario.hpp"
#include "platform/report/describe.hpp"

namespace trainvp {
namespace test_model_info {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using json = nlohmann::json;

std::vector<json> shipped_results() {
  std::vector<json> out;
  for (auto& e : std::filesystem::recursive_directory_iterator(std::string(TRAINVP_SOURCE_DIR) + "/tests/golden"))
    if (e.path().extension() == ".json") out.push_back(json::parse(std::ifstream(e.path())));
  return out;
}

TEST(ModelInfo, EveryModelDeclaresSocketsStatisticsAndExistingSchemas) {
  std::set<std::string> schemas, names;
  for (const SchemaInfo& s : all_schemas()) schemas.insert(s.name);
  ASSERT_FALSE(platform_models().empty());
  for (const ModelInfo* m : platform_models()) {
    EXPECT_TRUE(names.insert(m->name).second) << m->name;
    EXPECT_FALSE(m->sockets.empty()) << m->name;
    EXPECT_FALSE(m->statistics.empty()) << m->name;
    EXPECT_FALSE(m->schemas.empty()) << m->name;
    for (const std::string& s : m->schemas) EXPECT_TRUE(schemas.count(s)) << m->name << ": no schema " << s;
    for (const StatInfo& st : m->statistics)
      EXPECT_FALSE(st.unit.empty() || st.meaning.empty()) << m->name << " " << st.name;
  }
}

TEST(ModelInfo, EveryDeclaredStatisticIsInTheResultsOfEveryScenarioUsingTheModel) {
  const std::vector<json> results = shipped_results();
  ASSERT_FALSE(results.empty());
  for (const ModelInfo* m : platform_models()) {
    int entries = 0;
    for (const json& r : results) {
      if (!r.contains(m->results)) continue;
      for (const json& entry : r[m->results]) {
        ++entries;
        for (const StatInfo& st : m->statistics)
          if (st.when.empty()) {  // the others appear only with a setting (StatInfo::when)
            EXPECT_TRUE(entry.contains(st.name))
                << m->name << ": " << st.name << " missing in " << r["scenario"]["name"];
          }
      }
    }
    EXPECT_GT(entries, 0) << m->name << ": no shipped scenario reports it";
  }
}

TEST(ModelInfo, DescribeShowsEachModelsSocketsAndStatistics) {
  const std::string all = describe_text();
  const nlohmann::ordered_json listed = describe_json()["models"];
  ASSERT_EQ(listed.size(), platform_models().size());
  for (const ModelInfo* m : platform_models()) {
    const std::string one = describe_model_text(m->name, WorkloadShape{});
    const nlohmann::ordered_json j = describe_model_json(m->name, WorkloadShape{});
    EXPECT_EQ(j["parameters"].size(), m->schemas.size()) << m->name;
    for (const SocketInfo& s : m->sockets) {
      EXPECT_NE(one.find("    " + s.name + "  "), std::string::npos) << m->name << " " << s.name;
      EXPECT_NE(all.find("    " + s.name + "  "), std::string::npos) << m->name << " " << s.name;
    }
    for (const StatInfo& st : m->statistics) {
      EXPECT_NE(one.find("    " + st.name + " "), std::string::npos) << m->name << " " << st.name;
      EXPECT_NE(all.find("    " + st.name + " "), std::string::npos) << m->name << " " << st.name;
    }
  }
}

}  // namespace test_model_info
}  // namespace trainvp
