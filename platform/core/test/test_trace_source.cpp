// TraceSource and TraceSources (platform/core/trace_source.hpp), the models' one observer
// mechanism: listeners are called in the order they connected (the order the per-class lists it
// replaced kept, on which results depend), connecting by name checks the name and the listener's
// arguments.
#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "platform/core/trace_source.hpp"

namespace trainvp {
namespace test_trace_source {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

TEST(TraceSource, CallsItsListenersInTheOrderTheyConnected) {
  TraceSource<int, const std::string&> s("tick");
  EXPECT_STREQ(s.name(), "tick");
  EXPECT_TRUE(s.empty());
  s(0, "nobody listens");  // no listener: nothing happens
  std::vector<std::string> heard;
  for (const char* who : {"a", "b", "c"})
    s.connect([&heard, who](int n, const std::string& what) { heard.push_back(who + std::to_string(n) + what); });
  EXPECT_FALSE(s.empty());
  s(1, "x");
  s(2, "y");
  EXPECT_EQ(heard, (std::vector<std::string>{"a1x", "b1x", "c1x", "a2y", "b2y", "c2y"}));
}

TEST(TraceSources, ConnectByNameReachesTheNamedSourceOnly) {
  TraceSource<int> ticks("tick");
  TraceSource<double, bool> levels("level");
  const TraceSources table({&ticks, &levels});
  int tick_sum = 0;
  double level = 0;
  table.connect("tick", std::function<void(int)>([&](int n) { tick_sum += n; }));
  table.connect("level", std::function<void(double, bool)>([&](double v, bool on) { level = on ? v : -v; }));
  ticks(3), ticks(4), levels(2.5, false);
  EXPECT_EQ(tick_sum, 7);
  EXPECT_EQ(level, -2.5);
  ASSERT_EQ(table.all().size(), 2u);
  EXPECT_STREQ(table.all()[1]->name(), "level");
}

TEST(TraceSources, AnUnknownNameOrOtherArgumentsAreErrors) {
  TraceSource<int> ticks("tick");
  const TraceSources table({&ticks});
  EXPECT_THROW(table.connect("tock", std::function<void(int)>([](int) {})), std::invalid_argument);
  EXPECT_THROW(table.connect("tick", std::function<void(double)>([](double) {})), std::invalid_argument);
  EXPECT_TRUE(ticks.empty());  // neither connected
}

}  // namespace test_trace_source
}  // namespace trainvp
