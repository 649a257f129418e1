// The event calendar's order: by time, then first made first run; entries for the current time
// run at that time; an earlier entry moves the calendar's wake-up forward.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include <systemc>

#include "platform/core/calendar.hpp"
#include "platform/core/sim_time.hpp"
#include "platform/core/test/own_process.hpp"

namespace trainvp {
namespace test_calendar {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using test::in_own_process;

// Records (time, tag) of every entry it is called for, and runs an optional reaction.
struct Recorder : EventCalendar::Client {
  std::vector<std::pair<std::int64_t, std::uint32_t>> seen;
  std::function<void(std::uint32_t)> react;
  void on_due(std::uint32_t, std::uint32_t tag) override {
    seen.emplace_back(now_ps(), tag);
    if (react) react(tag);
  }
};

using Seen = std::vector<std::pair<std::int64_t, std::uint32_t>>;

TEST(EventCalendar, EntriesRunByTimeThenInTheOrderTheyWereMade) {
  in_own_process([] {
    EventCalendar cal;
    Recorder a, b;
    cal.at(30, &a, 0, 1);
    cal.at(10, &b, 0, 2);
    cal.at(10, &a, 0, 3);
    cal.at(20, &b, 0, 4);
    cal.at(10, &b, 0, 5);
    EXPECT_EQ(cal.pending(), 5u);
    sc_core::sc_start();
    EXPECT_EQ(a.seen, (Seen{{10, 3}, {30, 1}}));
    EXPECT_EQ(b.seen, (Seen{{10, 2}, {10, 5}, {20, 4}}));
    EXPECT_EQ(cal.pending(), 0u);
  });
}

TEST(EventCalendar, AnEntryForNowRunsAtNowAfterThoseAlreadyDue) {
  in_own_process([] {
    EventCalendar cal;
    Recorder r;
    std::vector<std::uint32_t> order;
    r.react = [&](std::uint32_t tag) {
      order.push_back(tag);
      if (tag == 1) cal.at(now_ps(), &r, 0, 9);  // made while the calendar runs
    };
    cal.at(0, &r, 0, 0);  // before the start: the first delta cycle at 0
    cal.at(40, &r, 0, 1);
    cal.at(40, &r, 0, 2);
    sc_core::sc_start();
    EXPECT_EQ(r.seen, (Seen{{0, 0}, {40, 1}, {40, 2}, {40, 9}}));
  });
}

TEST(EventCalendar, AnEarlierEntryMovesTheWakeUpForwardAndStopsHoldIt) {
  in_own_process([] {
    EventCalendar cal;
    Recorder r;
    r.react = [&](std::uint32_t tag) {
      if (tag == 1) cal.at(now_ps() + 20, &r, 0, 2);  // at 25, before the pending 100
    };
    cal.at(100, &r, 0, 3);
    cal.at(5, &r, 0, 1);
    // sc_start(d) stops before what is due at its end: the entry at 25 waits for the next start.
    sc_core::sc_start(ps_time(25));
    EXPECT_EQ(r.seen, (Seen{{5, 1}}));
    EXPECT_EQ(cal.pending(), 2u);
    sc_core::sc_start();
    EXPECT_EQ(r.seen, (Seen{{5, 1}, {25, 2}, {100, 3}}));
  });
}

}  // namespace test_calendar
}  // namespace trainvp
