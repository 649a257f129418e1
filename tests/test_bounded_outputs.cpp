// Bounded outputs (docs/reliability.md, "Bounded outputs"): the CXL engine's waveform file stops at
// /output/waves_max_bytes and the trace at /output/trace_max_events, each file staying whole and
// readable, with a warning in the summary and in results.json `warnings`; FST beside VCD.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "models/cxl/rtl_engine.hpp"
#include "models/cxl/test/require_rtl.hpp"
#include "tests/command.hpp"
#include "tests/golden_compare/compare.hpp"

namespace test_bounded_outputs {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

namespace fs = std::filesystem;
using json = nlohmann::json;
using trainvp::test::Cmd;
using trainvp::test::trainvp;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// One 1 MiB all-reduce (3 iterations and a warm-up) through the Verilated engine of 8 RTX-A6000s'
// CXL device: about 1.2 GB of VCD uncapped.
const std::string kRtlBench =
    "scenarios/cxl/pcie-node-ring-vs-cxl.json --set /cluster/node/cxl/fidelity=rtl --set /workload/min_bytes=1MiB "
    "--set /workload/max_bytes=1MiB --set /output/waves=true";

const std::string kTraining = R"({"trainvp": 1, "name": "capped",
 "cluster": {"nodes": 2, "node": {"gpus": 2, "gpu": "H100-SXM5-80GB"}},
 "workload": {"model": "gpt2-small", "batch": 4, "seq": 512},
 "training": {"iterations": 3, "warmup": 1, "sync": {"strategy": "ddp"}}})";

class BoundedOutputs : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("trainvp-bounded-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "training.json") << kTraining;
  }
  void TearDown() override { fs::remove_all(dir_); }
  Cmd run(const std::string& args, const std::string& out) {
    return trainvp("run " + args + " -o " + (dir_ / out).string());
  }
  json results(const std::string& out) { return json::parse(slurp(dir_ / out / "results.json")); }
  fs::path dir_;
};

// The time of the last "#<time>" line of a VCD: what the file says it ends at.
std::uint64_t last_vcd_time(const std::string& vcd) {
  const std::size_t at = vcd.rfind("\n#");
  return at == std::string::npos ? 0 : std::stoull(vcd.substr(at + 2));
}

TEST_F(BoundedOutputs, WavesStopAtTheirCapAndTheFileEndsCleanlyWithAWarning) {
  TRAINVP_REQUIRE_RTL();
  const std::uint64_t cap = 1 << 20;
  Cmd r = run(kRtlBench + " --set /output/waves_max_bytes=1MiB", "w");
  ASSERT_EQ(r.code, 0) << r.out;
  const fs::path vcd = dir_ / "w" / "waves.vcd";
  ASSERT_TRUE(fs::exists(vcd));
  EXPECT_FALSE(fs::exists(dir_ / "w" / ".waves.vcd.tmp"));
  // Recording stops at the first cycle after the writer has written `cap` bytes; it writes in
  // flushes of at most 48 KiB (6 chunks of 8 KiB) plus one cycle, and closing adds what it buffered.
  const std::uint64_t size = fs::file_size(vcd);
  EXPECT_GE(size, cap);
  EXPECT_LE(size, cap + 2 * 48 * 1024 + 8 * 1024);
  json j = results("w");
  ASSERT_TRUE(j.contains("warnings")) << j.dump().substr(0, 400);
  ASSERT_EQ(j["warnings"].size(), 1u);
  const json& w = j["warnings"][0];
  EXPECT_EQ(w["output"], "waves.vcd");
  EXPECT_EQ(w["key"], "/output/waves_max_bytes");
  EXPECT_EQ(w["limit"], cap);
  EXPECT_GE(w["recorded"].get<std::uint64_t>(), cap);
  EXPECT_LE(w["recorded"].get<std::uint64_t>(), size);
  // The file ends at the cycle recording stopped at, well before the run's end.
  const std::string text = slurp(vcd);
  EXPECT_NE(text.find("$enddefinitions $end"), std::string::npos);
  EXPECT_EQ(text.back(), '\n');
  const double stopped_s = w["stopped_at_s"].get<double>();
  EXPECT_EQ(last_vcd_time(text), static_cast<std::uint64_t>(std::llround(stopped_s * 1e12)));
  EXPECT_LT(stopped_s, j["sim"]["simulated_s"].get<double>());
  EXPECT_NE(r.out.find("  warning          waves.vcd reached /output/waves_max_bytes (1"), std::string::npos) << r.out;
}

// FST's header block (fstapi): type 0 (header), its length 329 as a big-endian 64-bit number, the
// start and end times, the double e written natively (the file's byte order), then the writer's
// memory, scope, variable and block counts.
struct FstHeader {
  bool valid = false;
  std::uint64_t start = 0, end = 0, vars = 0, blocks = 0;
};
FstHeader fst_header(const std::string& b) {
  FstHeader h;
  if (b.size() <= 329) return h;
  auto be64 = [&](std::size_t at) {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < 8; ++i) v = v << 8 | static_cast<unsigned char>(b[at + i]);
    return v;
  };
  double e = 0;
  std::memcpy(&e, b.data() + 25, sizeof e);
  h.valid = b[0] == 0 && be64(1) == 329 && e == 2.7182818284590452354;
  h.start = be64(9), h.end = be64(17), h.vars = be64(57), h.blocks = be64(65);
  return h;
}

TEST_F(BoundedOutputs, FstWavesCarryTheFstHeaderAndStopAtTheirCapToo) {
  TRAINVP_REQUIRE_RTL();
  // Jobs that start in the first 100 us: the warm-up's all-reduce, one engine job.
  ASSERT_EQ(run(kRtlBench + " --set /output/waves_format=fst --set /output/waves_to=100us", "one").code, 0);
  EXPECT_FALSE(fs::exists(dir_ / "one" / "waves.vcd"));
  const FstHeader h = fst_header(slurp(dir_ / "one" / "waves.fst"));
  ASSERT_TRUE(h.valid);
  EXPECT_GT(h.vars, 0u);
  EXPECT_GE(h.blocks, 1u);
  // The job's first dump is half a cycle after its start (the rising edge), its last at the end of
  // its last cycle: (cycles - 1/2) periods of 1 ns (rtl_clock 1 GHz); the jobs are equal.
  json one = results("one");
  const std::uint64_t cycles =
      one["cxl"][0]["engine_cycles"].get<std::uint64_t>() / one["cxl"][0]["jobs"].get<std::uint64_t>();
  EXPECT_EQ(h.end - h.start, cycles * 1000 - 500);
  EXPECT_FALSE(one.contains("warnings"));

  // The whole run capped at 1 MiB: that one job alone is 2.6 MB of FST, so recording stops inside
  // it (same first cycle, an earlier last one) and the header is written on closing.
  ASSERT_EQ(run(kRtlBench + " --set /output/waves_format=fst --set /output/waves_max_bytes=1MiB", "cap").code, 0);
  const std::string capped = slurp(dir_ / "cap" / "waves.fst");
  ASSERT_GT(fs::file_size(dir_ / "one" / "waves.fst"), 2u << 20);
  const FstHeader c = fst_header(capped);
  ASSERT_TRUE(c.valid);
  EXPECT_GE(capped.size(), 1u << 20);
  EXPECT_EQ(c.start, h.start);
  EXPECT_LT(c.end, h.end);
  json j = results("cap");
  ASSERT_EQ(j["warnings"].size(), 1u);
  EXPECT_EQ(j["warnings"][0]["output"], "waves.fst");
  EXPECT_EQ(c.end, static_cast<std::uint64_t>(std::llround(j["warnings"][0]["stopped_at_s"].get<double>() * 1e12)));
}

TEST_F(BoundedOutputs, TraceKeepsItsFirstEventsAtTheCapWithAWarningAndResultsUnchanged) {
  const std::string scenario = (dir_ / "training.json").string();
  ASSERT_EQ(run(scenario, "full").code, 0);
  Cmd r = run(scenario + " --set /output/trace_max_events=1000", "capped");
  ASSERT_EQ(r.code, 0) << r.out;
  auto events = [&](const std::string& out) {
    json t = json::parse(slurp(dir_ / out / "trace.json"));  // a whole document either way
    std::uint64_t n = 0;
    for (auto& e : t["traceEvents"]) n += e["ph"] != "M";
    return n;
  };
  const std::uint64_t all = events("full");
  ASSERT_GT(all, 1000u);
  EXPECT_EQ(events("capped"), 1000u);
  json j = results("capped");
  ASSERT_EQ(j["warnings"].size(), 1u);
  const json& w = j["warnings"][0];
  EXPECT_EQ(w["output"], "trace.json");
  EXPECT_EQ(w["key"], "/output/trace_max_events");
  EXPECT_EQ(w["limit"], 1000);
  EXPECT_EQ(w["recorded"], 1000);
  EXPECT_EQ(w["dropped"].get<std::uint64_t>(), all - 1000);
  EXPECT_NE(r.out.find("  warning          trace.json reached /output/trace_max_events (1000 events)"),
            std::string::npos)
      << r.out;
  // The cap changes what is recorded, never what is simulated.
  json full = results("full");
  EXPECT_FALSE(full.contains("warnings"));
  j.erase("warnings");
  auto opt = trainvp::golden::default_options();
  opt.ignored.push_back("/scenario/output/trace_max_events");
  EXPECT_TRUE(trainvp::golden::compare(full, j, opt).empty());
}

}  // namespace test_bounded_outputs
