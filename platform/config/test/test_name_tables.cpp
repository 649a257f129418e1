// One name table per enum (platform/core/name_table.hpp): each enum's names are unique, its name
// function and its schemas' choices read the same table.
#include <gtest/gtest.h>

#include <set>

#include "platform/config/scenario.hpp"

namespace trainvp {
namespace test_name_tables {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

template <class E>
std::vector<std::string> names_of(const NameTable<E>& table) {
  std::vector<std::string> out;
  for (auto& nv : table) out.push_back(nv.first);
  return out;
}

template <class E, class NameFn>
void expect_round_trip(const NameTable<E>& table, NameFn name) {
  std::set<std::string> names;
  std::set<E> values;
  for (auto& [n, v] : table) {
    EXPECT_TRUE(names.insert(n).second) << n << " twice";
    EXPECT_TRUE(values.insert(v).second) << n << ": value named twice";
    EXPECT_EQ(name(v), n);
    EXPECT_EQ(value_in(table, n), v) << n;
  }
}

TEST(NameTables, EveryEnumNameRoundTrips) {
  expect_round_trip(collective_algo_names(), algo_name);
  expect_round_trip(collective_op_names(), op_name);
  expect_round_trip(dtype_names(), dtype_name);
  expect_round_trip(compression_kind_names(), compression_name);
  expect_round_trip(fault_kind_names(), fault_kind_name);
  expect_round_trip(sync_strategy_names(), sync_strategy_name);
  expect_round_trip(cxl_fidelity_names(), cxl_fidelity_name);
  EXPECT_EQ(dtype_from_name("bf16"), DType::BF16);
  EXPECT_FALSE(dtype_from_name("int8"));
  EXPECT_STREQ(name_in(collective_algo_names(), static_cast<CollectiveAlgo>(99)), "?");
}

TEST(NameTables, QuotedNamesListsThemInOrder) {
  EXPECT_EQ(quoted_names(compression_kind_names()), "\"none\", \"topk\", \"powersgd\"");
}

// The choices `trainvp describe` lists for a key.
std::vector<std::string> choices(const std::string& schema, const std::string& key) {
  for (const SchemaInfo& s : all_schemas())
    if (s.name == schema)
      for (const ParamInfo& p : s.params)
        if (p.name == key) return p.choices;
  ADD_FAILURE() << schema << "." << key << " not registered";
  return {};
}

TEST(NameTables, SchemasOfferExactlyTheTablesNames) {
  EXPECT_EQ(choices("sync", "strategy"), names_of(sync_strategy_names()));
  EXPECT_EQ(choices("sync", "algorithm"), names_of(collective_algo_names()));
  EXPECT_EQ(choices("collective_workload", "algorithm"), names_of(collective_algo_names()));
  EXPECT_EQ(choices("collective_workload", "op"), names_of(collective_op_names()));
  EXPECT_EQ(choices("workload", "dtype"), names_of(dtype_names()));
  EXPECT_EQ(choices("workload", "grad_dtype"), names_of(dtype_names()));
  EXPECT_EQ(choices("compression", "kind"), names_of(compression_kind_names()));
  EXPECT_EQ(choices("cxl", "fidelity"), names_of(cxl_fidelity_names()));
  for (auto& [name, kind] : fault_kind_names()) {
    EXPECT_EQ(choices("fault_" + name, "kind"), names_of(fault_kind_names()));
    EXPECT_EQ(fault_kind_schema(kind).info().name, "fault_" + name);
  }
}

}  // namespace test_name_tables
}  // namespace trainvp
