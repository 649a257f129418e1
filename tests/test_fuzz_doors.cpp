// The fuzz doors (tests/fuzz/doors.hpp) in every build, clang or not: each shipped input passes
// its door (so the fuzzer starts from inputs that reach the end of the loader, not from errors),
// a bad one is an input error, and every input the fuzzer once broke trainvp with
// (tests/fuzz/regressions/) now ends as an input error or is accepted.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/fuzz/doors.hpp"

namespace test_fuzz_doors {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

namespace fs = std::filesystem;
using trainvp::fuzz::Door;
using trainvp::fuzz::encode;
using trainvp::fuzz::Outcome;
using trainvp::fuzz::run_input;

const std::string kScenarios = TRAINVP_SOURCE_DIR "/scenarios";

const std::vector<trainvp::fuzz::Shipped>& bases() {
  static const auto b = trainvp::fuzz::shipped_scenarios(kScenarios);
  return b;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const char* kind_name(Outcome::Kind k) {
  return k == Outcome::Accepted ? "accepted" : k == Outcome::InputError ? "input error" : "defect";
}

TEST(FuzzDoors, EveryShippedInputPassesItsDoor) {
  ASSERT_GE(bases().size(), 30u);  // every scenario of scenarios/ but the sweep SPECs
  for (std::size_t i = 0; i < bases().size(); ++i) {
    const auto& b = bases()[i];
    // The scenario door reads text without a file, so a relative /workload/hf_config is found from
    // the current directory: the scenario's own, as `trainvp run` finds it.
    const fs::path cwd = fs::current_path();
    fs::current_path(b.dir);
    Outcome o = run_input(encode(Door::Scenario, 0, read_text(fs::path(kScenarios) / b.name)), bases());
    fs::current_path(cwd);
    EXPECT_EQ(o.kind, Outcome::Accepted) << b.name << ": " << o.what;
    std::string lines;                              // the scenario set onto itself, leaf by leaf
    const nlohmann::json leaves = b.doc.flatten();  // named: items() of a temporary would dangle
    for (auto& [ptr, v] : leaves.items()) lines += ptr + "=" + v.dump() + "\n";
    o = run_input(encode(Door::Set, i, lines), bases());
    EXPECT_EQ(o.kind, Outcome::Accepted) << b.name << " --set: " << o.what;
    o = run_input(
        encode(Door::Faults, i, nlohmann::json{{"faults", b.doc.value("faults", nlohmann::json::array())}}.dump()),
        bases());
    EXPECT_EQ(o.kind, Outcome::Accepted) << b.name << " --faults: " << o.what;
  }
  const auto specs = trainvp::fuzz::shipped_specs(kScenarios);
  ASSERT_GE(specs.size(), 5u);
  for (const auto& s : specs) {
    // Every shipped SPEC sweeps a base whose first scenario in path order is a valid base for it
    // only by chance, so each is applied to its own base.
    const std::string base =
        (fs::path(s.name).parent_path() / s.doc["base"].get<std::string>()).lexically_normal().string();
    std::size_t idx = bases().size();
    for (std::size_t i = 0; i < bases().size(); ++i)
      if (bases()[i].name == base) idx = i;
    ASSERT_LT(idx, bases().size()) << s.name << ": base " << base << " is not a shipped scenario";
    // As for the scenario door above: the base's relative /workload/hf_config is found from its directory.
    const fs::path cwd = fs::current_path();
    fs::current_path(bases()[idx].dir);
    Outcome o = run_input(encode(Door::Spec, idx, read_text(fs::path(kScenarios) / s.name)), bases());
    fs::current_path(cwd);
    EXPECT_EQ(o.kind, Outcome::Accepted) << s.name << ": " << o.what;
  }
}

TEST(FuzzDoors, BadInputIsAnInputErrorAtEveryDoor) {
  const std::size_t q = 0;
  struct Case {
    std::string input, message;
  } cases[] = {
      {encode(Door::Scenario, 0, R"({"trainvp": 1, "cluster": {"nodes": 1}})"), "/workload: missing required key"},
      {encode(Door::Scenario, 0, "{\"trainvp\": 1,"), "malformed JSON in \"fuzz.json\" at line 1"},
      {encode(Door::Set, q, "/cluster/nodes=0"), "/cluster/nodes"},
      {encode(Door::Set, q, "cluster/nodes=1"), "expected /json/pointer=VALUE"},
      {encode(Door::Faults, q, R"({"faults": [], "x": 1})"), "unknown key /x"},
      {encode(Door::Spec, q,
              R"({"sweep": 1, "base": "b.json", "parameters": [{"path": "/cluster/nodes", "values": [0]}]})"),
       "point #0 (/cluster/nodes=0): /cluster/nodes"},
      {encode(Door::Spec, q, R"({"sweep": 2})"), "/sweep"},
  };
  for (const Case& c : cases) {
    Outcome o = run_input(c.input, bases());
    EXPECT_EQ(o.kind, Outcome::InputError) << c.input << ": " << kind_name(o.kind) << ": " << o.what;
    EXPECT_NE(o.what.find(c.message), std::string::npos) << c.input << ": " << o.what;
  }
}

// tests/fuzz/regressions/ holds crash-* inputs the fuzzer found (named as libFuzzer names them)
// and hostile-* inputs of the classes of docs/reliability.md, one per door; all are fuzz seeds too.
TEST(FuzzDoors, KeptFuzzInputsEndAsInputErrorsOrAreAccepted) {
  const fs::path dir = TRAINVP_SOURCE_DIR "/tests/fuzz/regressions";
  std::size_t n = 0;
  for (auto& e : fs::directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    ++n;
    Outcome o = run_input(read_text(e.path()), bases());
    EXPECT_NE(o.kind, Outcome::Defect) << e.path().filename() << ": " << o.what;
    if (e.path().filename().string().rfind("hostile-", 0) == 0) {
      EXPECT_EQ(o.kind, Outcome::InputError) << e.path().filename() << ": " << kind_name(o.kind);
    }
  }
  EXPECT_GE(n, 6u) << "kept fuzz inputs missing from " << dir;
}

}  // namespace test_fuzz_doors
