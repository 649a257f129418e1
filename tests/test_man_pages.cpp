// The man pages, the bash completion and the build record (docs: README.md "Installing").
// The pages the build wrote (build/share/man1, installed by `cmake --install`) must be what the
// binary makes now, and read back as text they must be its --help, verbatim: a page cannot drift
// from the help or from `trainvp describe`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "platform/cli/completion.hpp"
#include "platform/cli/help_text.hpp"
#include "platform/cli/man_page.hpp"
#include "tests/command.hpp"

namespace trainvp {
namespace test_man_pages {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

namespace fs = std::filesystem;
using test::run_command;
using test::trainvp;

const fs::path kShare = fs::path(TRAINVP_BINARY).parent_path() / "share";

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The text of a page's no-fill blocks, section by section ("SYNOPSIS" -> its lines), unescaped.
std::map<std::string, std::string> page_sections(const std::string& roff) {
  std::map<std::string, std::string> out;
  std::istringstream in(roff);
  std::string section;
  bool nf = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(".SH ", 0) == 0) section = line.substr(4);
    else if (line == ".nf") nf = true;
    else if (line == ".fi") nf = false;
    else if (nf) {
      if (line.rfind("\\&", 0) == 0) line.erase(0, 2);
      std::string text;
      for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == 'e') text += '\\', ++i;
        else if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '-') text += '-', ++i;
        else text += line[i];
      }
      out[section] += text + "\n";
    }
  }
  return out;
}

TEST(ManPages, EveryCommandHasAPageAndTheBuildWroteExactlyThose) {
  std::set<std::string> expected, built;
  for (auto& c : command_helps()) expected.insert(man_page_file(c.name));
  for (auto& e : fs::directory_iterator(kShare / "man1")) built.insert(e.path().filename().string());
  EXPECT_EQ(built, expected) << "the command list of platform/cli/CMakeLists.txt and help_text.cpp differ";
}

TEST(ManPages, BuiltPagesAreCurrentAndReadBackAsTheHelp) {
  for (auto& c : command_helps()) {
    const std::string name = c.name;
    SCOPED_TRACE(name);
    const std::string page = read_file(kShare / "man1" / man_page_file(name));
    ASSERT_FALSE(page.empty());
    EXPECT_EQ(page, trainvp("help-man " + name).out);
    // The help as the binary prints it: SYNOPSIS (with "usage: " back) + blank line + DESCRIPTION.
    const std::string help = trainvp(name == "trainvp" ? "--help" : name + " --help").out;
    auto s = page_sections(page);
    std::string synopsis, line;
    std::istringstream syn(s["SYNOPSIS"]);
    for (bool first = true; std::getline(syn, line); first = false)
      synopsis += (first ? "usage: " : "       ") + line + "\n";
    EXPECT_EQ(synopsis + "\n" + s["DESCRIPTION"], help);
    if (name == "describe") {
      EXPECT_EQ(s["SCENARIO KEYS"], trainvp("describe").out);
    }
    EXPECT_NE(page.find(".TH " + std::string(name == "trainvp" ? "TRAINVP" : "TRAINVP-")), std::string::npos);
  }
}

TEST(ManPages, RenderWithMan) {
  if (run_command("command -v man >/dev/null").code != 0) GTEST_SKIP() << "no man(1) here";
  auto r = run_command("MANWIDTH=100 man -l " + (kShare / "man1" / "trainvp-run.1").string() + " 2>&1 | col -b");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("--set P=VALUE"), std::string::npos) << r.out;
}

// Runs the generated completion in bash for the words typed so far; the candidates, one a line.
std::string complete(const std::string& words) {
  std::ofstream(testing::TempDir() + "trainvp_completion.bash") << bash_completion();
  auto r = run_command("bash -c 'source " + testing::TempDir() + "trainvp_completion.bash; COMP_WORDS=(" + words +
                       "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _trainvp; printf \"%s\\n\" \"${COMPREPLY[@]}\"'");
  EXPECT_EQ(r.code, 0) << r.out;
  return r.out;
}

TEST(Completion, CommandsOptionsAndPointersFromTheHelpAndTheSchemaRegistry) {
  EXPECT_EQ(complete("trainvp sw"), "sweep\nsweep-export\n");
  EXPECT_EQ(complete("trainvp run --pr"), "--progress\n");
  EXPECT_EQ(complete("trainvp sweep --sh"), "--shard\n");
  const std::string nodes = complete("trainvp run q.json --set /cluster/no");
  EXPECT_NE(nodes.find("/cluster/nodes=\n"), std::string::npos) << nodes;
  EXPECT_EQ(nodes.find("/workload"), std::string::npos) << nodes;
  // A key of an array element (index 0) and of a nested schema.
  EXPECT_NE(complete("trainvp run q.json --set /cluster/node/gpu/").find("/cluster/node/gpu/peak_bf16=\n"),
            std::string::npos);
  EXPECT_NE(complete("trainvp validate q.json --set /workload/layers/0/").find("/workload/layers/0/"),
            std::string::npos);
}

TEST(Completion, OptionsInHelpFindEveryOptionOnce) {
  EXPECT_EQ(options_in_help("usage: x [-o DIR] [--set P=V]...\n  -o, --output DIR   out\n  --set P  again\n"),
            (std::vector<std::string>{"-o", "--set", "--output"}));
}

TEST(BuildRecord, VersionJsonNamesTheBuild) {
  auto r = trainvp("version --json");
  ASSERT_EQ(r.code, 0) << r.out;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["version"], TRAINVP_VERSION);
  // The revision of the source tree, when it is a git checkout; else "unknown".
  auto git = run_command(std::string("git -C ") + TRAINVP_SOURCE_DIR + " rev-parse --short=12 HEAD 2>/dev/null");
  const std::string rev = j["git_revision"];
  if (git.code == 0) EXPECT_EQ(rev.substr(0, 12), git.out.substr(0, 12));
  else EXPECT_EQ(rev, "unknown");
  EXPECT_FALSE(j["systemc"].get<std::string>().empty());
  EXPECT_NE(j["systemc"].get<std::string>().find("2.3"), std::string::npos);  // Debian 12: SystemC 2.3.4
  ASSERT_TRUE(j["rtl_lanes"].is_array());
  EXPECT_EQ(j["rtl_lanes"].empty(), j["verilator"] == "");
  EXPECT_TRUE(j.contains("build_type"));
}

TEST(BuildRecord, ResultsAndSweepDbCarryIt) {
  const std::string dir = testing::TempDir() + "trainvp_build_record";
  fs::remove_all(dir);
  auto r = trainvp("run scenarios/quickstart.json -q -o " + dir +
                   "/run --set /training/iterations=3 --set /training/warmup=1");
  ASSERT_EQ(r.code, 0) << r.out;
  auto build = nlohmann::json::parse(trainvp("version --json").out);
  auto results = nlohmann::json::parse(read_file(dir + "/run/results.json"));
  EXPECT_EQ(results["build"], build);
  r = trainvp("sweep tests/cluster/tiny-sweep.json -o " + dir + "/sweep --shard 1/4 -j 1");
  ASSERT_EQ(r.code, 0) << r.out;
  auto q = run_command("sqlite3 " + dir + "/sweep/sweep.db \"SELECT value FROM sweep WHERE key = 'build'\"");
  if (q.code != 0) GTEST_SKIP() << "no sqlite3 shell: " << q.out;
  EXPECT_EQ(nlohmann::json::parse(q.out), build);
}

}  // namespace test_man_pages
}  // namespace trainvp
