// Hostile input through the whole CLI (docs/reliability.md): each class of input that crashed,
// exited 1 with the library's message, or was silently misread now exits 2 with a message naming
// where, whichever door it comes in by: the scenario, a --set value, a --faults file, a sweep SPEC.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/command.hpp"

namespace test_hostile_input {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

namespace fs = std::filesystem;

using trainvp::test::Cmd;
using trainvp::test::run_command;

const std::string kScenario = R"({"trainvp": 1, "cluster": {"nodes": 1, "node": {"gpus": 2, "gpu": "H100-SXM5-80GB"}},
 "workload": {"model": "gpt2-xl", "batch": 8, "seq": 1024},
 "training": {"iterations": 2, "warmup": 0, "sync": {"strategy": "none"}}, "output": {"trace": false}})";

std::string nested(int depth) {
  std::string t;
  for (int i = 0; i < depth; ++i) t += "{\"a\": ";
  t += "1";
  t += std::string(static_cast<std::size_t>(depth), '}');
  return t;
}

class HostileInput : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("trainvp-hostile-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    write("base.json", kScenario);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return (dir_ / name).string();
  }
  std::string base() const { return (dir_ / "base.json").string(); }
  // A SPEC over base.json with `params` as its parameters (JSON text, written as given).
  std::string spec(const std::string& name, const std::string& params) {
    return write(name, "{\"sweep\": 1, \"base\": \"base.json\",\n \"parameters\": " + params + "}");
  }
  static Cmd cli(const std::string& args) { return run_command(std::string(TRAINVP_BINARY) + " " + args); }
  // Exit 2 with `part` in the message, and no crash.
  static void expect_input_error(const Cmd& r, const std::string& part) {
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find(part), std::string::npos) << r.out.substr(0, 2000);
  }
  fs::path dir_;
};

TEST_F(HostileInput, DeepNestingExitsTwoInsteadOfCrashing) {
  std::string deep = write("deep.json", "{\"trainvp\": 1,\n \"cluster\": " + nested(100000) + "}");
  expect_input_error(cli("validate " + deep), "nesting deeper than 64 levels in \"" + deep + "\" at line 2");
  expect_input_error(
      cli("sweep " + spec("deep-spec.json", "[{\"path\": \"/x\", \"values\": [" + nested(100000) + "]}]") +
          " --dry-run"),
      "deep-spec.json: /parameters/0/values/0/a/a");
  expect_input_error(cli("validate " + base() + " --set '/cluster=" + nested(10000) + "'"),
                     "nesting deeper than 64 levels in --set /cluster");
}

TEST_F(HostileInput, NumberBeyondDoubleRangeExitsTwoNamingThePointer) {
  expect_input_error(cli("validate " + write("big.json", R"({"trainvp": 1, "seed": 1e400})")),
                     "/seed: number \"1e400\"");
  expect_input_error(cli("validate " + base() + " --set /training/iterations=1e400"),
                     "/training/iterations: number \"1e400\"");
  std::string faults = write("faults.json", R"([{"kind": "gpu_slowdown", "target": "node0.gpu0", "factor": 1e400}])");
  expect_input_error(cli("validate " + base() + " --faults " + faults), "/0/factor: number \"1e400\" in \"" + faults);
  expect_input_error(
      cli("sweep " + spec("big-spec.json", R"([{"path": "/seed", "values": [1, 1e400]}])") + " --dry-run"),
      "big-spec.json: /parameters/0/values/1: number \"1e400\"");
}

TEST_F(HostileInput, DuplicateKeysExitTwoNamingBothLines) {
  expect_input_error(cli("validate " + write("dup.json", "{\"trainvp\": 1,\n\"seed\": 1,\n\"seed\": 2}")),
                     "/seed: duplicate key \"seed\" in");
  std::string faults = write("dup-faults.json", "{\"faults\": [],\n \"faults\": []}");
  expect_input_error(
      cli("validate " + base() + " --faults " + faults),
      "duplicate key \"faults\" in \"" + faults + "\" at line 1, column 2 and again at line 2, column 2");
  expect_input_error(
      cli("sweep " + write("dup-spec.json", "{\"sweep\": 1, \"sweep\": 1}") + " --dry-run"),
      "dup-spec.json: /sweep: duplicate key \"sweep\" at line 1, column 2 and again at line 1, column 14");
}

TEST_F(HostileInput, NulByteAndUnknownFaultsKeysExitTwo) {
  std::string text = kScenario;
  text += '\0';
  text += "garbage";
  expect_input_error(cli("validate " + write("nul.json", text)),
                     "NUL byte at byte offset " + std::to_string(kScenario.size()));
  std::string faults = write("extra.json", R"({"faults": [], "x": 1})");
  expect_input_error(cli("validate " + base() + " --faults " + faults), "--faults \"" + faults + "\": unknown key /x");
}

TEST_F(HostileInput, FileErrorsSayWhichFileAndWhatIsWrong) {
  expect_input_error(cli("validate " + base() + " --faults " + (dir_ / "none.json").string()),
                     "cannot read faults file \"" + (dir_ / "none.json").string() + "\": no such file");
  expect_input_error(cli("validate " + dir_.string()),
                     "cannot read scenario file \"" + dir_.string() + "\": it is a directory");
  expect_input_error(cli("sweep " + dir_.string() + " --dry-run"), "it is a directory");
  // A 100 kB quantity is echoed in 80 characters.
  Cmd r = cli("validate " + base() + " --set /cluster/fabric/link_bw=" + std::string(100000, '9') + "xyz");
  expect_input_error(r, "/cluster/fabric/link_bw:");
  EXPECT_LT(r.out.size(), 1000u) << r.out.substr(0, 2000);
}

TEST_F(HostileInput, TimeLimitFailureNamesTheLimit) {
  Cmd r = cli("run " + base() + " --set /training/time_limit=1ns -o " + (dir_ / "out").string());
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("the simulated-time limit (/training/time_limit) was reached with work pending at t = 1.000 ns"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "results.json"));
}

TEST_F(HostileInput, Gpt2NamesGpt2SmallInDescribeAndScenarios) {
  Cmd d = cli("describe model gpt2 --json");
  EXPECT_EQ(d.code, 0) << d.out;
  EXPECT_NE(d.out.find("\"model\": \"gpt2-small\""), std::string::npos) << d.out.substr(0, 500);
  Cmd v = cli("validate " + base() + " --set /workload/model=gpt2");
  EXPECT_EQ(v.code, 0) << v.out;
}

TEST_F(HostileInput, PeriodicSyncWithFewerIterationsThanItsPeriodExitsTwo) {
  for (const char* strategy : {"localsgd", "plsgd", "dreamddp"})
    expect_input_error(cli("validate " + base() + " --set /training/sync/strategy=" + strategy +
                           " --set /training/sync/period=5 --set /training/iterations=3"),
                       "/training/iterations");
}

TEST_F(HostileInput, SizeOverflowExitsTwoNamingThePointer) {
  std::string layers =
      write("layers.json", R"({"trainvp": 1, "cluster": {"nodes": 1, "node": {"gpus": 2, "gpu": "H100-SXM5-80GB"}},
 "workload": {"grad_dtype": "fp32", "layers": [{"name": "a", "params": 4611686018427387904, "fwd_flops": 1, "bwd_flops": 1}]},
 "training": {"iterations": 2, "warmup": 0, "sync": {"strategy": "ddp"}}, "output": {"trace": false}})");
  expect_input_error(cli("validate " + layers), "/workload/layers/0/params");
  expect_input_error(
      cli("validate " + base() + " --set /workload/model=resnet50 --set /workload/image_size=2000000000"),
      "/workload/image_size");
}

TEST_F(HostileInput, CountsBeyondTheirBoundsExitTwo) {
  expect_input_error(cli("validate " + base() + " --set /cluster/fabric/spines=100000"), "/cluster/fabric/spines");
  expect_input_error(cli("validate " + base() + " --set /cluster/fabric/leaf_ports=1000000000"),
                     "/cluster/fabric/leaf_ports");
  expect_input_error(cli("validate " + base() + " --set /cluster/node/cxl/ports=1000000"), "/cluster/node/cxl/ports");
  expect_input_error(cli("validate " + base() + " --set /training/iterations=100000000"), "/training/iterations");
  expect_input_error(cli("validate " + base() + " --set /workload/micro_batches=1000000"), "/workload/micro_batches");
}

// The largest resident set of any command this test process has run and waited for, in MiB.
long children_peak_mib() {
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  return u.ru_maxrss / 1024;
}

TEST_F(HostileInput, ValidationAllocatesNothingPerIterationOrMicroBatch) {
  // At the bounds, validation elaborates the same two GPUs as with 2 iterations and 1
  // micro-batch. Before, the GPUs expanded every micro-batch's phases and the strategies sized
  // per-iteration tables for the whole run: gigabytes here, and std::bad_alloc at 1e9.
  for (const char* strategy : {"ddp", "layerwise"}) {
    Cmd r = cli("validate " + base() + " --set /training/sync/strategy=" + strategy +
                " --set /training/iterations=10000000 --set /workload/micro_batches=65536");
    EXPECT_EQ(r.code, 0) << r.out;
  }
  EXPECT_LT(children_peak_mib(), 400) << "validation memory grows with iterations or micro-batches";
}

TEST_F(HostileInput, RatesAndTimesBeyondTheTimeBaseExitTwo) {
  // 1e15 Tbps made a chunk take under a picosecond and the link's credit count overflow (a stall).
  expect_input_error(cli("validate " + base() + " --set /cluster/fabric/link_bw=1e15Tbps"),
                     "/cluster/fabric/link_bw: expected a bandwidth at most 1000Tbps");
  expect_input_error(cli("validate " + base() + " --set /training/time_limit=1000h"), "/training/time_limit");
  std::string fast_gpu = write("gpu.json", R"({"trainvp": 1, "cluster": {"nodes": 1, "node": {"gpus": 2,
 "gpu": {"preset": "H100-SXM5-80GB", "peak_bf16": "1e9PFLOPS"}}}, "workload": {"model": "gpt2-small"}})");
  expect_input_error(cli("validate " + fast_gpu),
                     "/cluster/node/gpu/peak_bf16: expected a compute rate at most 1000PFLOPS");
}

TEST_F(HostileInput, ExtremeButRepresentableRatesRunOrReachTheTimeLimit) {
  const std::string two_nodes = " --set /cluster/nodes=2 --set /cluster/node/gpus=1 --set /training/sync/strategy=ddp";
  // The fastest representable link runs to the end.
  Cmd fast =
      cli("run " + base() + two_nodes + " --set /cluster/fabric/link_bw=1000Tbps -q -o " + (dir_ / "fast").string());
  EXPECT_EQ(fast.code, 0) << fast.out;
  // A 1 bit/s link: a chunk takes longer than the clock can hold; the run ends at its limit.
  Cmd slow = cli("run " + base() + two_nodes +
                 " --set /cluster/fabric/link_bw=1bps --set /training/time_limit=1s -q -o " + (dir_ / "slow").string());
  EXPECT_EQ(slow.code, 1) << slow.out;
  EXPECT_NE(slow.out.find("the simulated-time limit (/training/time_limit) was reached"), std::string::npos)
      << slow.out;
}

TEST_F(HostileInput, UnknownKeysAreEchoedClipped) {
  const std::string key(100000, 'k');
  Cmd r = cli("validate " + write("key.json", R"({"trainvp": 1, ")" + key + R"(": 1})"));
  expect_input_error(r, "unknown key \"kkk");
  EXPECT_LT(r.out.size(), 1000u) << r.out.substr(0, 2000);
  Cmd nested = cli("validate " + base() + " --set /training/" + key + "=1");
  expect_input_error(nested, "unknown key");
  EXPECT_LT(nested.out.size(), 1000u) << nested.out.substr(0, 2000);
}

}  // namespace test_hostile_input
