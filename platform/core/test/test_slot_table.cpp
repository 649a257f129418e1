// SlotTable: found by index from the oldest id held, trimmed as the oldest go, references stable.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "platform/core/slot_table.hpp"

namespace trainvp {
namespace test_slot_table {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

TEST(SlotTable, FindsByIdKeepsReferencesAndVisitsInIdOrder) {
  SlotTable<std::string> t;
  std::string& a = t.add(5);
  a = "five";
  t.add(6) = "six";
  t.add(9) = "nine";  // ids may skip
  EXPECT_EQ(t.size(), 3u);
  EXPECT_EQ(t.find(4), nullptr);
  EXPECT_EQ(t.find(7), nullptr);
  EXPECT_EQ(t.find(10), nullptr);
  for (int i = 10; i < 1000; ++i) t.add(i) = std::to_string(i);  // growth does not move the objects
  EXPECT_EQ(&a, t.find(5));
  EXPECT_EQ(*t.find(9), "nine");
  t.erase(6);
  EXPECT_FALSE(t.contains(6));
  EXPECT_TRUE(t.contains(5));
  std::vector<int> ids;
  t.for_each([&](int id, const std::string&) { ids.push_back(id); });
  ASSERT_EQ(ids.size(), 992u);  // 5, 9 and 10 to 999
  EXPECT_EQ(ids[0], 5);
  EXPECT_EQ(ids[1], 9);
  EXPECT_EQ(ids.back(), 999);
  EXPECT_EQ(*t.take(5), "five");
  EXPECT_EQ(t.find(5), nullptr);
  EXPECT_EQ(t.size(), 991u);
  EXPECT_EQ(t.take(5), nullptr);
  EXPECT_THROW(t.add(900), std::logic_error);  // ids increase
}

TEST(SlotTable, AnEmptiedTableStartsAgainAtAnyLaterId) {
  SlotTable<int> t;
  t.add(1) = 1;
  t.erase(1);
  EXPECT_EQ(t.size(), 0u);
  t.add(100) = 100;
  EXPECT_EQ(*t.find(100), 100);
  EXPECT_EQ(t.find(1), nullptr);
}

}  // namespace test_slot_table
}  // namespace trainvp
