// link_series.json (docs/scenario-format.md#link_seriesjson) of shipped scenarios against their
// results.json, parsed here: the same links in the same order; each link's busy time over the
// intervals adds up to its busy_s, in packet and flow fidelity and across fast-forward's skips;
// the interval is the closed form (1 ns x 2^k, the smallest covering the run in 128); without a
// skip, no interval is busier than its length. With jobs, every byte belongs to the job whose
// ranks sent it: a link of a node (its NVLink, PCIe and NIC links) carries its job's bytes only.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/command.hpp"

namespace trainvp {
namespace test_link_series {  // named for the file: unity builds join test files

namespace fs = std::filesystem;
using json = nlohmann::json;
using test::trainvp;

struct Outputs {
  json results, series;
};

Outputs run(const std::string& name, const std::string& scenario, const std::string& extra = "") {
  const fs::path dir = fs::path(testing::TempDir()) / ("trainvp-link-series-" + std::to_string(getpid())) / name;
  fs::remove_all(dir);
  auto c = trainvp("run " + scenario + " -q -o " + dir.string() + " " + extra);
  EXPECT_EQ(c.code, 0) << c.out;
  auto parse = [&](const char* file) {
    std::ifstream in(dir / file);
    std::ostringstream s;
    s << in.rdbuf();
    return json::parse(s.str());
  };
  Outputs r{parse("results.json"), parse("link_series.json")};
  fs::remove_all(dir);
  return r;
}

void expect_series_adds_up(const Outputs& r) {
  const double end = r.results["sim"]["simulated_s"];
  const bool skipped =
      r.results.contains("fast_forward") && r.results["fast_forward"].value("iterations_skipped", 0) > 0;
  EXPECT_EQ(r.series["simulated_s"].get<double>(), end);
  double interval = 1e-9;  // the closed form of interval_s
  while (interval * 128 < end * (1 - 1e-12)) interval *= 2;
  EXPECT_NEAR(r.series["interval_s"].get<double>(), interval, interval * 1e-12);
  const std::size_t n = r.series["intervals"];
  EXPECT_EQ(n, static_cast<std::size_t>(std::ceil(end / r.series["interval_s"].get<double>() - 1e-9)));
  const json& links = r.results["links"];
  ASSERT_EQ(r.series["links"].size(), links.size());
  ASSERT_GT(links.size(), 0u);
  for (std::size_t i = 0; i < links.size(); ++i) {
    const json &l = r.series["links"][i], &truth = links[i];
    ASSERT_EQ(l["name"], truth["name"]);
    EXPECT_EQ(l["bytes"], truth["bytes"]);
    EXPECT_EQ(l["busy_s"], truth["busy_s"]);
    ASSERT_EQ(l["busy"].size(), n) << l["name"];
    double sum = 0;
    for (const json& b : l["busy"]) {
      sum += b.get<double>();
      // One chunk at a time on a direction, a flow's load at most its capacity; a skip's spread
      // may overlap the iteration before it finishing (scenario-format.md#link_seriesjson).
      if (!skipped) {
        EXPECT_LE(b.get<double>(), r.series["interval_s"].get<double>() * (1 + 1e-9)) << l["name"];
      }
    }
    const double busy = truth["busy_s"];
    EXPECT_NEAR(sum, busy, busy * 1e-9 + 1e-12) << l["name"];
    EXPECT_NEAR(sum / end, truth["utilization"].get<double>(), 1e-9) << l["name"];
  }
}

TEST(LinkSeries, AddsUpToEachLinksBusyTimeInPacketFidelity) {
  expect_series_adds_up(run("packet", "scenarios/quickstart.json", "--set /training/iterations=4"));
}

TEST(LinkSeries, AddsUpToEachLinksBusyTimeInFlowFidelity) {
  const Outputs r =
      run("flow", "scenarios/quickstart.json", "--set /training/iterations=4 --set /cluster/fabric/fidelity=flow");
  ASSERT_EQ(r.results["sim"]["fidelity"], "flow");
  expect_series_adds_up(r);
}

// Fast-forward skips 193 of 200 iterations: their busy time is in the series too, spread evenly
// over the stretch they stand for (results.json fast_forward.skips[]: from at_s, simulated_s
// long), in both fidelities. So every interval inside that stretch is equally busy on every link,
// and the busiest link is busy in each.
TEST(LinkSeries, AddsUpAcrossFastForwardsSkips) {
  for (const char* fidelity : {"packet", "flow"}) {
    const Outputs r = run(std::string("ff-") + fidelity, "scenarios/quickstart.json",
                          std::string("--set /training/iterations=200 --set /output/trace=false "
                                      "--set /cluster/fabric/fidelity=") +
                              fidelity);
    ASSERT_EQ(r.results["fast_forward"]["skips"].size(), 1u) << fidelity;
    const json& skip = r.results["fast_forward"]["skips"][0];
    ASSERT_GT(skip["iterations"].get<int>(), 100) << fidelity;
    expect_series_adds_up(r);
    const double from = skip["at_s"], to = from + skip["simulated_s"].get<double>(), w = r.series["interval_s"];
    const auto first = static_cast<std::size_t>(std::ceil(from / w)),
               last = static_cast<std::size_t>(to / w);  // [first, last)
    ASSERT_GT(last, first + 10) << fidelity;
    for (const json& l : r.series["links"]) {
      for (std::size_t k = first + 1; k < last; ++k)
        EXPECT_NEAR(l["busy"][k].get<double>(), l["busy"][first].get<double>(), w * 1e-9)
            << fidelity << " " << l["name"];
    }
    const json* top = &r.series["links"][0];
    for (const json& l : r.series["links"])
      if (l["busy_s"].get<double>() > (*top)["busy_s"].get<double>()) top = &l;
    EXPECT_GT((*top)["busy"][first].get<double>(), 0.1 * w) << fidelity;
  }
}

TEST(LinkSeries, EachJobsBytesAreThoseItsRanksSent) {
  const Outputs r = run("jobs", "scenarios/fabric/two-jobs-spread.json");
  expect_series_adds_up(r);
  const json& jobs = r.results["jobs"];
  ASSERT_EQ(r.series["jobs"].size(), jobs.size());
  std::map<int, std::size_t> job_of_node;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    EXPECT_EQ(r.series["jobs"][j], jobs[j]["name"]);
    for (const json& node : jobs[j]["nodes"]) job_of_node[node.get<int>()] = j;
  }
  int of_a_node = 0, shared = 0;
  for (const json& l : r.series["links"]) {
    const json& by_job = l["job_bytes"];
    ASSERT_EQ(by_job.size(), jobs.size());
    std::uint64_t sum = 0;
    int carrying = 0;
    for (const json& b : by_job) sum += b.get<std::uint64_t>(), carrying += b.get<std::uint64_t>() > 0;
    EXPECT_EQ(sum, l["bytes"].get<std::uint64_t>()) << l["name"];  // no traffic of no job here
    shared += carrying >= 2;
    const std::string name = l["name"];
    if (name.rfind("node", 0) != 0) continue;  // a switch's link: any job's
    const int node = std::stoi(name.substr(4));
    ASSERT_TRUE(job_of_node.count(node)) << name;
    EXPECT_EQ(by_job[job_of_node[node]], l["bytes"]) << name;
    ++of_a_node;
  }
  EXPECT_GT(of_a_node, 0);
  EXPECT_GT(shared, 0);  // spread: both jobs cross the spines
}

}  // namespace test_link_series
}  // namespace trainvp
