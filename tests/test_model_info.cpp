// What each platform model declares of itself for `trainvp describe` (platform/core/model_info.hpp):
// sockets (or interfaces) and statistics, parameters from schemas that exist, and statistics that
// results.json really holds: every entry of the model's results (an array's elements or one
// object), in the result of every shipped scenario that uses the model (tests/golden/ holds them,
// equal to fresh runs by CTest).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
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

// A model's entries in one results.json: the elements of "a.b[*]", or the object "a.b" (none
// where the path is absent).
std::vector<json> entries_of(const json& result, const std::string& path) {
  const bool array = path.size() > 3 && path.compare(path.size() - 3, 3, "[*]") == 0;
  std::istringstream steps(array ? path.substr(0, path.size() - 3) : path);
  const json* at = &result;
  for (std::string key; std::getline(steps, key, '.');) {
    if (!at->is_object() || !at->contains(key)) return {};
    at = &(*at)[key];
  }
  if (!array) return {*at};
  EXPECT_TRUE(at->is_array()) << path;
  return at->is_array() ? std::vector<json>(at->begin(), at->end()) : std::vector<json>{};
}

TEST(ModelInfo, EveryModelDeclaresSocketsStatisticsAndExistingSchemas) {
  std::set<std::string> schemas, names;
  for (const SchemaInfo& s : all_schemas()) schemas.insert(s.name);
  ASSERT_FALSE(platform_models().empty());
  for (const ModelInfo* m : platform_models()) {
    EXPECT_TRUE(names.insert(m->name).second) << m->name;
    // A model meets the others through TLM sockets or, without them, named C++ interfaces.
    EXPECT_FALSE(m->sockets.empty() && m->interfaces.empty()) << m->name;
    // Statistics of its own with the results they are in, or where its figures are instead.
    EXPECT_NE(m->statistics.empty(), m->reported_by.empty()) << m->name;
    EXPECT_EQ(m->statistics.empty(), m->results.empty()) << m->name;
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
    if (m->statistics.empty()) continue;  // reported by others (ModelInfo::reported_by)
    int entries = 0;
    for (const json& r : results) {
      for (const json& entry : entries_of(r, m->results)) {
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
    for (const std::vector<SocketInfo>* ports : {&m->sockets, &m->interfaces})
      for (const SocketInfo& s : *ports) {
        EXPECT_NE(one.find("    " + s.name + "  "), std::string::npos) << m->name << " " << s.name;
        EXPECT_NE(all.find("    " + s.name + "  "), std::string::npos) << m->name << " " << s.name;
      }
    if (!m->reported_by.empty()) {
      EXPECT_NE(one.find(m->reported_by), std::string::npos) << m->name;
    }
    for (const TraceSourceInfo& t : m->trace_sources) {
      EXPECT_NE(one.find("    " + t.name + "  ("), std::string::npos) << m->name << " " << t.name;
      EXPECT_NE(all.find("    " + t.name + "  ("), std::string::npos) << m->name << " " << t.name;
    }
    for (const StatInfo& st : m->statistics) {
      EXPECT_NE(one.find("    " + st.name + " "), std::string::npos) << m->name << " " << st.name;
      EXPECT_NE(all.find("    " + st.name + " "), std::string::npos) << m->name << " " << st.name;
    }
  }
}

// The models' table in docs/architecture.md is what describe generates now; when a model's
// ModelInfo changes, scripts/update-docs rewrites it.
TEST(ModelInfo, DocsModelTableMatchesDescribe) {
  std::ifstream in(std::string(TRAINVP_SOURCE_DIR) + "/docs/architecture.md");
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string begin = std::string(kModelTableBegin) + "\n", end = std::string(kModelTableEnd) + "\n";
  const std::size_t b = doc.find(begin), e = doc.find(end);
  ASSERT_NE(b, std::string::npos) << "docs/architecture.md lacks " << kModelTableBegin;
  ASSERT_NE(e, std::string::npos) << "docs/architecture.md lacks " << kModelTableEnd;
  ASSERT_LT(b, e);
  EXPECT_EQ(doc.substr(b + begin.size(), e - b - begin.size()), model_table())
      << "docs/architecture.md's model table is stale: run scripts/update-docs";
  for (const ModelInfo* m : platform_models())
    EXPECT_NE(model_table().find("| `" + m->name + "` |"), std::string::npos) << m->name;
}

}  // namespace test_model_info
}  // namespace trainvp
