// Error texts (platform/core/errors.hpp, docs/reliability.md): what a message echoes of a user's
// value is bounded, whatever the value's size or depth.
#include <gtest/gtest.h>

#include <string>

#include "platform/core/errors.hpp"
#include "platform/core/params.hpp"
#include "platform/core/units.hpp"

namespace trainvp {
namespace test_errors {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

using json = nlohmann::json;

// Class 1: describe_found serialized the whole value before cutting it, which crashed (SIGSEGV,
// the recursive dump) on a value 100,000 deep. It now writes what it shows and no more.
TEST(ErrorTexts, DescribeFoundOfAHugeOrDeepValueIsShortAndSafe) {
  json deep = 1;
  for (int i = 0; i < 100000; ++i) {
    json outer = json::array();
    outer.push_back(std::move(deep));
    deep = std::move(outer);
  }
  EXPECT_EQ(describe_found(deep), "array " + std::string(57, '[') + "...");

  json wide = json::object();
  for (int i = 0; i < 10000; ++i) wide["k" + std::to_string(i)] = std::string(1000, 'x');
  std::string d = describe_found(wide);
  EXPECT_EQ(d.rfind("object {\"k0\":\"xxx", 0), 0u) << d;
  EXPECT_EQ(d.size(), std::string("object ").size() + 60);

  // Short values are whole, as before.
  EXPECT_EQ(describe_found(json::parse(R"({"a":[1,2,{"b":null}],"c":"d"})")),
            R"(object {"a":[1,2,{"b":null}],"c":"d"})");
  EXPECT_EQ(describe_found(json("x")), "string \"x\"");
  EXPECT_EQ(describe_found(json::array()), "array []");
  EXPECT_EQ(bounded_dump(json::parse(R"([1,[2,[3]],{}])"), 100), "[1,[2,[3]],{}]");
  // A cut never splits a UTF-8 character.
  EXPECT_EQ(bounded_dump(json(std::string(8, 'a') + "\xC3\xA9\xC3\xA9"), 13), "\"aaaaaaaa...");
}

// Class 5: a 100 kB quantity string was echoed whole; echoes stop at 80 characters.
TEST(ErrorTexts, EchoedValuesAreCapped) {
  const std::string huge = "1" + std::string(100000, '0') + "xyz";
  try {
    parse_bandwidth_bps(huge);
    FAIL() << "parsed";
  } catch (const UnitError& e) {
    EXPECT_LT(std::string(e.what()).size(), 300u) << e.what();
    EXPECT_NE(std::string(e.what()).find("...\" (100004 characters)"), std::string::npos) << e.what();
  }
  EXPECT_EQ(quote_clipped("short"), "\"short\"");
}

// Class 5: an integer too large for the field was "expected an integer >= 0"; it names the bound.
TEST(ErrorTexts, TooLargeIntegersNameTheUpperBound) {
  struct T {
    std::uint64_t seed = 0;
  };
  ParamSet<T> p("thing", "/thing", "");
  p.integer64("seed", &T::seed, 1, "");
  T t;
  for (const char* doc : {R"({"seed": 18446744073709551615})", R"({"seed": 1e19})"}) {
    try {
      p.load(t, json::parse(doc), "/thing");
      FAIL() << doc;
    } catch (const ScenarioError& e) {
      EXPECT_EQ(e.path, "/thing/seed");
      EXPECT_NE(std::string(e.what()).find("expected an integer >= 0 and <= 9223372036854775807"), std::string::npos)
          << e.what();
    }
  }
}

}  // namespace test_errors
}  // namespace trainvp
