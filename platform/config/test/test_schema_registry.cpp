// The schema registry (platform/config/schema_registry.hpp): every schema once, in describe's
// order, each reference between schemas resolvable, and docs/scenario-format.md's generated key
// table equal to what the registry generates.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "platform/config/scenario.hpp"
#include "platform/core/glob.hpp"

namespace trainvp {
namespace test_schema_registry {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

std::vector<std::string> schema_names() {
  std::vector<std::string> names;
  for (const SchemaInfo& s : all_schemas()) names.push_back(s.name);
  return names;
}

TEST(SchemaRegistry, ListsEverySchemaOnceInDescribesOrder) {
  const std::vector<std::string> expected = {"scenario",
                                             "cluster",
                                             "node",
                                             "gpu",
                                             "nvlink",
                                             "pcie",
                                             "fabric",
                                             "nccl",
                                             "dcqcn",
                                             "pfc",
                                             "gpu_override",
                                             "workload",
                                             "train",
                                             "transformer",
                                             "layer",
                                             "layer_tp_replicated",
                                             "layer_kernel",
                                             "collective_workload",
                                             "chakra_workload",
                                             "training",
                                             "fast_forward",
                                             "parallel",
                                             "sync",
                                             "job",
                                             "placement",
                                             "checkpoint",
                                             "slo",
                                             "validation",
                                             "health",
                                             "health_detector",
                                             "health_mitigation",
                                             "compression",
                                             "class_streams",
                                             "elastic",
                                             "retry",
                                             "profile_layer",
                                             "cxl",
                                             "aggregators",
                                             "cpu",
                                             "fault_link_degrade",
                                             "fault_gpu_slowdown",
                                             "fault_cpu_contention",
                                             "fault_link_down",
                                             "fault_packet_loss",
                                             "fault_congestion",
                                             "fault_generator",
                                             "fault_generator_kind",
                                             "fault_generator_duration",
                                             "fault_generator_severity",
                                             "fault_generator_levels",
                                             "output"};
  EXPECT_EQ(schema_names(), expected);
}

TEST(SchemaRegistry, SchemaAndKeyNamesAreUnique) {
  std::set<std::string> schemas;
  for (const SchemaInfo& s : all_schemas()) {
    EXPECT_TRUE(schemas.insert(s.name).second) << "schema " << s.name << " registered twice";
    EXPECT_FALSE(s.params.empty()) << s.name;
    std::set<std::string> keys;
    for (const ParamInfo& p : s.params) EXPECT_TRUE(keys.insert(p.name).second) << s.name << "." << p.name;
  }
}

// A help text's "(see `x`)" names the schema of a nested value; each must be registered (a glob
// such as `fault_*` must match at least one). "(see `trainvp describe`)" names no schema.
TEST(SchemaRegistry, EverySchemaAHelpRefersToIsRegistered) {
  const std::vector<std::string> names = schema_names();
  const std::regex see("see `([a-z_*]+)`");
  int references = 0;
  for (const SchemaInfo& s : all_schemas())
    for (const ParamInfo& p : s.params)
      for (std::sregex_iterator it(p.help.begin(), p.help.end(), see), end; it != end; ++it) {
        const std::string ref = (*it)[1];
        bool found = false;
        for (auto& n : names) found = found || glob_match(ref, n);
        EXPECT_TRUE(found) << s.name << "." << p.name << " refers to unregistered schema `" << ref << "`";
        ++references;
      }
  EXPECT_GE(references, 20);
}

std::string read_source(const char* rel) {
  std::ifstream in(std::string(TRAINVP_SOURCE_DIR) + "/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(SchemaRegistry, KeyTableHasARowPerKeyOfEverySchema) {
  const std::string table = schema_key_table();
  std::size_t rows = 0, keys = 0;
  for (char c : table) rows += c == '\n';
  for (const SchemaInfo& s : all_schemas()) {
    keys += s.params.size();
    EXPECT_NE(table.find("| `" + s.name + "` (`" + s.where + "`) | `" + s.params.front().name + "` |"),
              std::string::npos)
        << s.name;
  }
  EXPECT_EQ(rows, keys + 2);  // the header and its rule
}

// No value holds a `|` that would split its cell.
TEST(SchemaRegistry, KeyTableRowsHaveFiveCells) {
  std::istringstream table(schema_key_table());
  for (std::string line; std::getline(table, line);) EXPECT_EQ(std::count(line.begin(), line.end(), '|'), 6) << line;
}

// The generated region of docs/scenario-format.md is what the registry generates now; when a key
// changes, scripts/update-docs rewrites it.
TEST(SchemaRegistry, DocsKeyTableMatchesTheRegistry) {
  const std::string doc = read_source("docs/scenario-format.md");
  ASSERT_FALSE(doc.empty());
  const std::string begin = std::string(kKeyTableBegin) + "\n", end = std::string(kKeyTableEnd) + "\n";
  const std::size_t b = doc.find(begin), e = doc.find(end);
  ASSERT_NE(b, std::string::npos) << "docs/scenario-format.md lacks " << kKeyTableBegin;
  ASSERT_NE(e, std::string::npos) << "docs/scenario-format.md lacks " << kKeyTableEnd;
  ASSERT_LT(b, e);
  EXPECT_EQ(doc.substr(b + begin.size(), e - b - begin.size()), schema_key_table())
      << "docs/scenario-format.md's key table is stale: run scripts/update-docs";
}

}  // namespace test_schema_registry
}  // namespace trainvp
