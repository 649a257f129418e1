// The trace's event cap: the first N events are kept, later ones are counted and dropped, and the
// file written stays a whole JSON document.
#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

#include "platform/core/trace.hpp"

namespace trainvp {
namespace test_trace_cap {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

TEST(TraceCap, KeepsTheFirstEventsAndCountsTheRest) {
  TraceRecorder t(true);
  t.set_max_events(3);
  const int track = t.track("node0", "gpu0");
  const int name = t.name("fwd");
  for (int i = 0; i < 5; ++i) t.slice(track, name, "compute", i * 100, i * 100 + 50, i);
  t.instant(track, "late", "fault", 900);
  EXPECT_EQ(t.size(), 3u);
  EXPECT_EQ(t.dropped(), 3u);
  EXPECT_EQ(t.first_dropped_ps(), 350);  // the end of the fourth slice, the first not kept
  std::ostringstream out;
  t.write(out);
  const auto doc = nlohmann::json::parse(out.str());
  int slices = 0;
  for (auto& e : doc["traceEvents"])
    if (e["ph"] != "M") {
      ++slices;
      EXPECT_LT(e["args"]["iteration"].get<int>(), 3);
    }
  EXPECT_EQ(slices, 3);
}

TEST(TraceCap, UnderTheCapNothingIsDropped) {
  TraceRecorder t(true);
  t.set_max_events(10);
  const int track = t.track("node0", "gpu0");
  for (int i = 0; i < 10; ++i) t.slice(track, t.name("x"), "compute", 0, 1, i);
  EXPECT_EQ(t.size(), 10u);
  EXPECT_EQ(t.dropped(), 0u);
}

}  // namespace test_trace_cap
}  // namespace trainvp
