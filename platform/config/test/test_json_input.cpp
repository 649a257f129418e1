// Hostile JSON input (platform/config/document.hpp, docs/reliability.md): every class of input
// that once crashed or was silently misread, one test each, through the one reader that scenarios,
// --faults files, --set values and sweep SPECs share. Each must be a ScenarioError (exit 2) that
// names where the problem is.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "platform/config/scenario.hpp"
#include "platform/core/errors.hpp"
#include "platform/core/test/temp_file.hpp"

namespace trainvp {
namespace test_json_input {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

std::string nested(int depth, const std::string& open, const std::string& close, const std::string& leaf = "1") {
  std::string t;
  t.reserve(static_cast<std::size_t>(depth) * (open.size() + close.size()) + leaf.size());
  for (int i = 0; i < depth; ++i) t += open;
  t += leaf;
  for (int i = 0; i < depth; ++i) t += close;
  return t;
}

// Runs `f`, which must throw a ScenarioError; returns it.
template <class F>
ScenarioError error_of(F f) {
  try {
    f();
  } catch (const ScenarioError& e) {
    return e;
  }
  ADD_FAILURE() << "no ScenarioError";
  return ScenarioError("?", "none");
}

bool has(const ScenarioError& e, const std::string& part) {
  return std::string(e.what()).find(part) != std::string::npos;
}

// Class 1: nesting 100,000 deep used to crash (SIGSEGV) in the error path; it is refused at read
// time, at the 65th level, naming the pointer and the line.
TEST(JsonInput, DeepNestingIsRefusedAtTheLimitWithItsPlace) {
  const std::string text = "{\"trainvp\": 1,\n \"cluster\": " + nested(100000, "{\"a\": ", "}") + "}";
  ScenarioError e = error_of([&] { parse_json_text(text, "\"deep.json\""); });
  EXPECT_TRUE(has(e, "nesting deeper than 64 levels in \"deep.json\" at line 2")) << e.what();
  std::string ptr = "/cluster";
  for (int i = 0; i < 63; ++i) ptr += "/a";
  EXPECT_EQ(e.path, ptr);

  e = error_of([&] { parse_json_text(nested(100000, "[", "]"), ""); });
  EXPECT_TRUE(has(e, "nesting deeper than 64 levels at line 1, column 65")) << e.what();

  // 64 levels are fine; so is the same depth in a --set value, up to what its pointer leaves.
  EXPECT_NO_THROW(parse_json_text(nested(64, "[", "]"), ""));
  json doc = json::object();
  EXPECT_NO_THROW(apply_override(doc, "/a/b=" + nested(62, "[", "]")));
  e = error_of([&] { apply_override(doc, "/a/b=" + nested(63, "[", "]")); });
  EXPECT_TRUE(has(e, "--set /a/b at line 1")) << e.what();
}

// Class 2: 1e400 was the library's own message (exit 1); now the pointer and the line.
TEST(JsonInput, NumberBeyondDoubleRangeNamesThePointer) {
  ScenarioError e =
      error_of([&] { parse_json_text("{\"trainvp\": 1,\n \"cluster\": {\"nodes\": [1, 1e400]}}", "\"big.json\""); });
  EXPECT_EQ(e.path, "/cluster/nodes/1");
  EXPECT_TRUE(has(e, "number \"1e400\" in \"big.json\" at line 2, column 27 is beyond the range of a double"))
      << e.what();
  EXPECT_NO_THROW(parse_json_text("[1e308, -1e308, 1e-400]", ""));

  json doc = json::object();
  e = error_of([&] { apply_override(doc, "/training/iterations=1e400"); });
  EXPECT_EQ(e.path, "/training/iterations");
  // Not a number at all: a plain string, as before.
  apply_override(doc, "/workload/model=1e400abc");
  EXPECT_EQ(doc["workload"]["model"], "1e400abc");
}

// Class 3: duplicate keys were accepted, the last one winning; now both places are named.
TEST(JsonInput, DuplicateKeyNamesBothOccurrences) {
  ScenarioError e = error_of(
      [&] { parse_json_text("{\"trainvp\": 1,\n \"cluster\": {\"nodes\": 1,\n  \"nodes\": 2}}", "\"dup.json\""); });
  EXPECT_EQ(e.path, "/cluster/nodes");
  EXPECT_TRUE(has(e, "duplicate key \"nodes\" in \"dup.json\" at line 2, column 14 and again at line 3, column 3"))
      << e.what();
  // The same key in different objects, or spelt with an escape, is judged by its value.
  EXPECT_NO_THROW(parse_json_text("{\"a\": {\"x\": 1}, \"b\": {\"x\": 1}, \"c\": [{\"x\": 1}, {\"x\": 2}]}", ""));
  e = error_of([&] { parse_json_text("{\"ab\": 1, \"a\\u0062\": 2}", ""); });
  EXPECT_EQ(e.path, "/ab");
  // Inside an array element: the pointer has the index.
  e = error_of([&] { parse_json_text("{\"faults\": [{}, {\"kind\": 1, \"kind\": 2}]}", ""); });
  EXPECT_EQ(e.path, "/faults/1/kind");
}

// Class 4: the parser stopped at a NUL byte and ignored the rest; now it is an error with the
// byte offset.
TEST(JsonInput, NulByteIsAnErrorNamingItsOffset) {
  std::string text = "{\"trainvp\": 1}";
  text += '\0';
  text += "{\"anything\": true}";
  std::string path = test::write_temp("trainvp_nul.json", text);
  ScenarioError e = error_of([&] { read_json_file(path); });
  EXPECT_TRUE(has(e, "NUL byte at byte offset 14 (in \"" + path + "\" at line 1, column 15)")) << e.what();
}

// Class 4, --faults: an object may hold only `faults`; other keys were silently ignored.
TEST(JsonInput, FaultsFileWithAnUnknownKeyIsRefused) {
  std::string scenario =
      test::write_temp("trainvp_faults_base.json",
                       R"({"trainvp": 1, "cluster": {"nodes": 1, "node": {"gpus": 2, "gpu": "H100-SXM5-80GB"}},
                                        "workload": {"model": "gpt2-xl", "batch": 8, "seq": 1024}})");
  std::string faults = test::write_temp("trainvp_faults_extra.json", R"({"faults": [], "x": 1})");
  ScenarioError e = error_of([&] { load_scenario_file(scenario, {}, faults); });
  EXPECT_TRUE(has(e, "--faults \"" + faults + "\": unknown key /x")) << e.what();
  faults = test::write_temp("trainvp_faults_ok.json", R"({"faults": []})");
  EXPECT_NO_THROW(load_scenario_file(scenario, {}, faults));
}

// Class 5, file errors: a missing --faults file is a faults file; a directory is a directory.
TEST(JsonInput, FileErrorsSayWhatTheFileIsAndWhatIsWrong) {
  ScenarioError e = error_of([&] { read_json_file(testing::TempDir() + "trainvp_none.json", "faults file"); });
  EXPECT_TRUE(has(e, "cannot read faults file")) << e.what();
  EXPECT_TRUE(has(e, "no such file")) << e.what();
  e = error_of([&] { read_json_file(testing::TempDir()); });
  EXPECT_TRUE(has(e, "cannot read scenario file")) << e.what();
  EXPECT_TRUE(has(e, "it is a directory")) << e.what();
}

}  // namespace test_json_input
}  // namespace trainvp
