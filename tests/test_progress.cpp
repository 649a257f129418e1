// The progress display of `trainvp run` (platform/system/run_progress.hpp): one carriage-return
// updated line on stderr with --progress or on a terminal, none with -q or without either, and
// results the same with it as without.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/core/units.hpp"
#include "tests/command.hpp"
#include "tests/golden_compare/compare.hpp"

namespace test_progress {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

namespace fs = std::filesystem;
using json = nlohmann::json;
using trainvp::test::Cmd;
using trainvp::test::run_command;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// 8 iterations of GPT-2 small on 2 x 2 H100s with DDP: well under a second of wall time.
const std::string kScenario = R"({"trainvp": 1, "name": "progress",
 "cluster": {"nodes": 2, "node": {"gpus": 2, "gpu": "H100-SXM5-80GB"}},
 "workload": {"model": "gpt2-small", "batch": 4, "seq": 512},
 "training": {"iterations": 8, "warmup": 1, "sync": {"strategy": "ddp"}}, "output": {"trace": false}})";

// "trainvp: 1.23 ms simulated | iterations 3/8 | 2.41 it/s, 0.0028 simulated s/s | 0:03 left"
// (or "| done in 0:01" on the final line).
const std::regex kLine(
    R"(trainvp: (\S+ \S+) simulated \| iterations (\d+)/(\d+) \| \S+ it/s, \S+ simulated s/s \| (\d+:\d\d left|-:-- left|done in \d+:\d\d) *)");

class RunProgress : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("trainvp-progress-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "s.json") << kScenario;
  }
  void TearDown() override { fs::remove_all(dir_); }
  // Runs with stdout and stderr in files of their own; returns the exit code.
  int run(const std::string& opts, const std::string& out) {
    const std::string o = (dir_ / out).string();
    // Not run_command: it sends stderr to stdout.
    const int status =
        std::system(("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 " + std::string(TRAINVP_BINARY) + " run " +
                     (dir_ / "s.json").string() + " -o " + o + " " + opts + " >" + o + ".stdout 2>" + o + ".stderr")
                        .c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string err(const std::string& out) { return slurp(dir_ / (out + ".stderr")); }
  fs::path dir_;
};

// The lines drawn: the text between carriage returns and newlines.
std::vector<std::string> drawn(const std::string& text) {
  std::vector<std::string> lines;
  std::string cur;
  for (char c : text) {
    if (c == '\r' || c == '\n') {
      if (!cur.empty()) lines.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) lines.push_back(cur);
  return lines;
}

TEST_F(RunProgress, ProgressDrawsOneLineEndingWithEveryIterationAndChangesNoResult) {
  ASSERT_EQ(run("--progress", "p"), 0) << err("p");
  ASSERT_EQ(run("", "plain"), 0) << err("plain");
  const std::string e = err("p");
  ASSERT_FALSE(e.empty());
  EXPECT_EQ(e.front(), '\r');  // each line is drawn over the one before
  EXPECT_EQ(e.back(), '\n');   // and the last one is left standing
  EXPECT_EQ(e.find('\n'), e.size() - 1);
  const auto lines = drawn(e);
  std::smatch m;
  int previous = 0;
  for (const std::string& l : lines) {
    ASSERT_TRUE(std::regex_match(l, m, kLine)) << "\"" << l << "\"";
    EXPECT_EQ(m[3].str(), "8");
    EXPECT_GE(std::stoi(m[2].str()), previous);  // never goes back
    previous = std::stoi(m[2].str());
  }
  const json r = json::parse(slurp(dir_ / "p" / "results.json"));
  ASSERT_TRUE(std::regex_match(lines.back(), m, kLine));
  EXPECT_EQ(m[2].str(), "8");
  EXPECT_EQ(m[1].str(), trainvp::format_time_s(r["sim"]["simulated_s"].get<double>()));
  EXPECT_EQ(m[4].str().rfind("done in ", 0), 0u);
  // Nothing of it reaches stdout or a file of the run, and the results are those of a run without it.
  EXPECT_EQ(slurp(dir_ / "p.stdout").find("trainvp: 0"), std::string::npos);
  EXPECT_EQ(slurp(dir_ / "p.stdout").find("simulated |"), std::string::npos);
  for (auto& f : fs::directory_iterator(dir_ / "p"))
    EXPECT_EQ(slurp(f.path()).find("simulated |"), std::string::npos) << f.path();
  EXPECT_TRUE(trainvp::golden::compare(json::parse(slurp(dir_ / "plain" / "results.json")), r,
                                       trainvp::golden::default_options())
                  .empty());
}

TEST_F(RunProgress, QuietWinsAndNoTerminalMeansNoLine) {
  ASSERT_EQ(run("-q --progress", "q"), 0);
  EXPECT_EQ(err("q"), "");
  EXPECT_EQ(slurp(dir_ / "q.stdout"), "");
  ASSERT_EQ(run("", "plain"), 0);  // stderr is a file, not a terminal
  EXPECT_EQ(err("plain"), "");
}

// On a terminal (script(1) gives the run a pseudo-terminal) the line is drawn without --progress,
// and -q still silences it.
TEST_F(RunProgress, ATerminalGetsTheLineUnlessQuiet) {
  if (run_command("script --version").code != 0) GTEST_SKIP() << "script(1) is not installed";
  auto on_tty = [&](const std::string& opts, const std::string& out) {
    const std::string o = (dir_ / out).string();
    return run_command("script -qec '" + std::string(TRAINVP_BINARY) + " run " + (dir_ / "s.json").string() + " -o " +
                       o + " " + opts + "' /dev/null");
  };
  Cmd tty = on_tty("", "t");
  ASSERT_EQ(tty.code, 0) << tty.out;
  EXPECT_NE(tty.out.find("iterations 8/8"), std::string::npos) << tty.out;
  Cmd quiet = on_tty("-q", "tq");
  ASSERT_EQ(quiet.code, 0) << quiet.out;
  EXPECT_EQ(quiet.out.find("iterations"), std::string::npos) << quiet.out;
}

}  // namespace test_progress
