// An NVLS unit wired alone, with no GPU: the reductions handed to it end in the next delta cycle
// (NVLink SHARP sums in the crossbar as the data streams through, so a reduction takes no time of
// its own once its last contribution is in), in the order they came, never inside the call that
// hands them over; its statistics count them. (Its port is the aggregators' EndpointPort, whose
// delivery test_aggregator.cpp checks through a protocol checker.)
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "models/nvswitch/nvls_unit.hpp"
#include "platform/core/sim_time.hpp"
#include "platform/core/test/own_process.hpp"

namespace trainvp {
namespace test_nvls_unit {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using test::in_own_process;

TEST(NvlsUnit, ReductionsEndInTheNextDeltaCycleInTheOrderTheyCame) {
  in_own_process([] {
    NvlsUnit unit("nvls");
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
    std::vector<int> order;
    bool inside = true;
    for (int i = 0; i < 3; ++i)
      unit.reduce(1 << 20, 8, [&order, &inside, i] {
        EXPECT_FALSE(inside) << "a reduction ended inside the call that handed it over";
        order.push_back(i);
      });
    inside = false;
    EXPECT_TRUE(order.empty());
    const std::uint64_t deltas = sc_core::sc_delta_count();
    sc_core::sc_start();
    EXPECT_EQ(order, (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(now_ps(), 0);
    EXPECT_EQ(sc_core::sc_delta_count(), deltas + 1);
    EXPECT_EQ(unit.stats().reductions, 3u);
    EXPECT_EQ(unit.stats().bytes_reduced, 3u * 8 * (1 << 20));
  });
}

}  // namespace test_nvls_unit
}  // namespace trainvp
