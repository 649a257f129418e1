// Reading results.json for the report: a missing key or a wrong type is one error naming the file
// and the JSON pointer.
#include <gtest/gtest.h>

#include <functional>

#include "platform/core/errors.hpp"
#include "platform/core/test/temp_file.hpp"
#include "platform/report/html/json_view.hpp"

namespace trainvp::html {
namespace test_json_view {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "no error";
}

TEST(HtmlJsonView, ReadsValuesAndNamesThePointerOfAWrongOne) {
  const nlohmann::json doc = nlohmann::json::parse(R"({"iterations":[{"duration_s":1.5},{"duration_s":"x"}]})");
  const JsonView r(doc, "out/results.json");
  EXPECT_EQ(r["iterations"][0]["duration_s"].number(), 1.5);
  EXPECT_EQ(r["iterations"].items().size(), 2u);
  EXPECT_EQ(error_of([&] { r["iterations"][1]["duration_s"].number(); }),
            "/iterations/1/duration_s: expected a number in out/results.json, found string \"x\"");
  EXPECT_EQ(error_of([&] { r["sim"]; }), "/sim: missing in out/results.json");
  EXPECT_EQ(error_of([&] { r["iterations"][5]; }),
            "/iterations/5: missing in out/results.json (the array has 2 elements)");
  EXPECT_FALSE(r.has("sim"));
  EXPECT_EQ(r.number_or("sim", 7), 7);
}

TEST(HtmlJsonView, AFileThatIsNotJsonIsNamed) {
  const std::string path = test::write_temp("report-not-json.json", "{\"a\": ");
  const std::string e = error_of([&] { read_input_json(path, "results file"); });
  EXPECT_NE(e.find(path), std::string::npos) << e;
  EXPECT_NE(e.find("malformed JSON"), std::string::npos) << e;
  EXPECT_NE(error_of([&] { read_input_json(path + ".missing", "results file"); }).find("cannot read results file"),
            std::string::npos);
  // Nesting beyond the scenario reader's limit is refused, not recursed into.
  const std::string deep = test::write_temp("report-deep.json", std::string(100000, '[') + std::string(100000, ']'));
  EXPECT_NE(error_of([&] { read_input_json(deep, "results file"); }).find("deep"), std::string::npos);
}

}  // namespace test_json_view
}  // namespace trainvp::html
