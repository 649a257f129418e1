// Self-documenting parameters (platform/core/params.hpp) on a small local struct using every kind of
// declaration, and target globs (platform/core/glob.hpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "platform/core/errors.hpp"
#include "platform/core/glob.hpp"
#include "platform/core/params.hpp"

namespace trainvp {
namespace test_params {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

enum class Mode { Fast, Slow };

struct Knobs {
  int count = -100;
  int offset = -100;  // no default: keeps what the struct holds when missing
  std::uint64_t big = 0;
  double ratio = -1;
  bool on = false;
  std::string label;
  Mode mode = Mode::Slow;
  double link = -1;
  std::int64_t latency = -1;
  std::uint64_t buffer = 0;
  double peak = -1;
  std::string id;
};

const ParamSet<Knobs>& knobs_schema() {
  static const ParamSet<Knobs> s = [] {
    ParamSet<Knobs> p("knobs", "/thing", "A test parameter set.");
    p.integer("count", &Knobs::count, 4, "How many", Range::at_least(1))
        .integer("offset", &Knobs::offset, nullptr, "Signed offset, unbounded")
        .integer64("big", &Knobs::big, std::uint64_t{1} << 40, "A large count")
        .number("ratio", &Knobs::ratio, 0.5, "A fraction", Range::unit_open_closed())
        .flag("on", &Knobs::on, true, "Switch")
        .text("label", &Knobs::label, "plain", "A label")
        .choice("mode", &Knobs::mode, "fast", {{"fast", Mode::Fast}, {"slow", Mode::Slow}}, "Mode")
        .bandwidth("link", &Knobs::link, "100Gbps", "Link bandwidth")
        .time("latency", &Knobs::latency, "1.5us", "Latency")
        .size("buffer", &Knobs::buffer, "4MiB", "Buffer size")
        .flop_rate("peak", &Knobs::peak, "10TFLOPS", "Peak")
        .nested("children", "array", json::array(), "Nested children, read by the owner")
        .text("id", &Knobs::id, nullptr, "Identifier")
        .required("id");
    return p;
  }();
  return s;
}

json load(Knobs& k, const json& obj, bool apply_defaults = true) {
  return knobs_schema().load(k, obj, "/thing", apply_defaults);
}

// The ScenarioError that loading `obj` throws; a test failure if it throws none.
ScenarioError load_error(const json& obj) {
  Knobs k;
  try {
    load(k, obj);
  } catch (const ScenarioError& e) {
    return e;
  }
  ADD_FAILURE() << "no ScenarioError for " << obj.dump();
  return ScenarioError("<none>", "");
}

// `obj` with "id" added, so that only the key under test is wrong.
json with_id(json obj) {
  obj["id"] = "k";
  return obj;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// ---- loading ----

TEST(ParamsLoad, MissingKeysTakeTheirDeclaredDefaults) {
  Knobs k;
  load(k, {{"id", "k1"}});
  EXPECT_EQ(k.count, 4);
  EXPECT_EQ(k.offset, -100);  // no default declared: untouched
  EXPECT_EQ(k.big, std::uint64_t{1} << 40);
  EXPECT_DOUBLE_EQ(k.ratio, 0.5);
  EXPECT_TRUE(k.on);
  EXPECT_EQ(k.label, "plain");
  EXPECT_EQ(k.mode, Mode::Fast);
  EXPECT_DOUBLE_EQ(k.link, 1e11);
  EXPECT_EQ(k.latency, 1500000);
  EXPECT_EQ(k.buffer, 4194304u);
  EXPECT_DOUBLE_EQ(k.peak, 1e13);
  EXPECT_EQ(k.id, "k1");
}

TEST(ParamsLoad, ResolvedJsonReportsDefaultsAsDeclared) {
  Knobs k;
  json r = load(k, {{"id", "k1"}});
  const json expected = {{"count", 4},
                         {"big", std::uint64_t{1} << 40},
                         {"ratio", 0.5},
                         {"on", true},
                         {"label", "plain"},
                         {"mode", "fast"},
                         {"link", "100Gbps"},
                         {"latency", "1.5us"},
                         {"buffer", "4MiB"},
                         {"peak", "10TFLOPS"},
                         {"children", json::array()},
                         {"id", "k1"}};
  EXPECT_EQ(r, expected) << r.dump(1);
  EXPECT_FALSE(r.contains("offset"));  // null default: nothing to report
}

TEST(ParamsLoad, ExplicitValuesAreParsedAndReportedAsWritten) {
  Knobs k;
  json in = {{"count", 12},       {"offset", -7},      {"big", 123456789012345}, {"ratio", 1.0},
             {"on", false},       {"label", "fancy"},  {"mode", "slow"},         {"link", "50GB/s"},
             {"latency", "2min"}, {"buffer", "25MiB"}, {"peak", "989TFLOPS"},    {"children", {1, 2}},
             {"id", "k2"}};
  json r = load(k, in);
  EXPECT_EQ(k.count, 12);
  EXPECT_EQ(k.offset, -7);
  EXPECT_EQ(k.big, 123456789012345u);
  EXPECT_DOUBLE_EQ(k.ratio, 1.0);
  EXPECT_FALSE(k.on);
  EXPECT_EQ(k.label, "fancy");
  EXPECT_EQ(k.mode, Mode::Slow);
  EXPECT_DOUBLE_EQ(k.link, 4e11);
  EXPECT_EQ(k.latency, 120000000000000);
  EXPECT_EQ(k.buffer, 26214400u);
  EXPECT_DOUBLE_EQ(k.peak, 9.89e14);
  EXPECT_EQ(k.id, "k2");
  EXPECT_EQ(r, in);
}

TEST(ParamsLoad, IntegralFloatsAreAcceptedAsIntegers) {
  Knobs k;
  load(k, with_id({{"count", 4.0}, {"big", 1e6}}));
  EXPECT_EQ(k.count, 4);
  EXPECT_EQ(k.big, 1000000u);
}

TEST(ParamsLoad, WithoutApplyDefaultsMissingKeysKeepTheStructsValues) {
  Knobs k;
  k.count = 7;
  k.label = "from preset";
  k.link = 123;
  k.mode = Mode::Slow;
  json r = load(k, {{"id", "k3"}, {"ratio", 0.25}}, /*apply_defaults=*/false);
  EXPECT_EQ(k.count, 7);
  EXPECT_EQ(k.label, "from preset");
  EXPECT_DOUBLE_EQ(k.link, 123);
  EXPECT_EQ(k.mode, Mode::Slow);
  EXPECT_DOUBLE_EQ(k.ratio, 0.25);
  EXPECT_EQ(r, json({{"ratio", 0.25}, {"id", "k3"}}));  // only what was given
}

TEST(ParamsLoad, RequiredKeyIsRequiredEvenWithoutApplyDefaults) {
  Knobs k;
  EXPECT_THROW(load(k, json::object(), false), ScenarioError);
}

// ---- errors name the JSON pointer and what was expected ----

TEST(ParamsErrors, MissingRequiredKeyNamesItsPointer) {
  auto e = load_error(json::object());
  EXPECT_EQ(e.path, "/thing/id");
  EXPECT_TRUE(contains(e.what(), "missing required key \"id\" (Identifier)")) << e.what();
}

TEST(ParamsErrors, NonObjectNamesTheObjectsPointer) {
  auto e = load_error(json::array({1}));
  EXPECT_EQ(e.path, "/thing");
  EXPECT_TRUE(contains(e.what(), "expected an object (knobs), found array [1]")) << e.what();
  EXPECT_EQ(load_error("x").path, "/thing");
}

TEST(ParamsErrors, UnknownKeyNamesItsPointerAndSuggestsTheClosestKey) {
  auto e = load_error(with_id({{"lable", "x"}}));
  EXPECT_EQ(e.path, "/thing/lable");
  EXPECT_TRUE(contains(e.what(), "unknown key \"lable\" in knobs")) << e.what();
  EXPECT_TRUE(contains(e.what(), "(did you mean \"label\"?)")) << e.what();
  EXPECT_TRUE(contains(e.what(), "`trainvp describe` lists the keys")) << e.what();

  EXPECT_TRUE(contains(load_error(with_id({{"latncy", "1us"}})).what(), "did you mean \"latency\""));
  EXPECT_TRUE(contains(load_error(with_id({{"Count", 1}})).what(), "did you mean \"count\""));
}

TEST(ParamsErrors, UnknownKeyFarFromEveryKeyGetsNoSuggestion) {
  auto e = load_error(with_id({{"temperature", 3}}));
  EXPECT_EQ(e.path, "/thing/temperature");
  EXPECT_FALSE(contains(e.what(), "did you mean")) << e.what();
}

TEST(ParamsErrors, UnknownKeyIsReportedBeforeAMissingRequiredOne) {
  EXPECT_EQ(load_error({{"idd", "k"}}).path, "/thing/idd");
}

TEST(ParamsErrors, UnknownKeyPointerEscapesSlashAndTilde) {
  EXPECT_EQ(load_error(with_id({{"a/b", 1}})).path, "/thing/a~1b");
  EXPECT_EQ(load_error(with_id({{"a~b", 1}})).path, "/thing/a~0b");
}

struct BadValue {
  const char* name;
  json obj;  // merged with {"id": "k"}
  const char* path;
  const char* fragment;  // part of the message
};

TEST(ParamsErrors, WrongTypesAndOutOfRangeValuesNameThePointerAndTheExpectedThing) {
  const std::vector<BadValue> cases = {
      {"integer given a string", {{"count", "4"}}, "/thing/count", "expected an integer >= 1, found string \"4\""},
      {"integer given a fraction", {{"count", 2.5}}, "/thing/count", "expected an integer >= 1, found number 2.5"},
      {"integer below its range", {{"count", 0}}, "/thing/count", "expected an integer >= 1, found number 0"},
      {"integer given a boolean", {{"count", true}}, "/thing/count", "found boolean true"},
      {"integer above 2^31", {{"count", 3000000000LL}}, "/thing/count", "expected an integer below 2^31"},
      {"integer64 negative", {{"big", -1}}, "/thing/big", "expected an integer >= 0, found number -1"},
      {"integer64 above 2^63",
       {{"big", std::numeric_limits<std::uint64_t>::max()}},
       "/thing/big",
       "expected an integer >= 0"},
      {"number given a string", {{"ratio", "half"}}, "/thing/ratio", "expected a number in (0, 1], found string"},
      {"number above its range", {{"ratio", 1.5}}, "/thing/ratio", "expected a number in (0, 1], found number 1.5"},
      {"number at an open bound", {{"ratio", 0}}, "/thing/ratio", "expected a number in (0, 1]"},
      {"flag given a string", {{"on", "yes"}}, "/thing/on", "expected true or false, found string \"yes\""},
      {"flag given a number", {{"on", 1}}, "/thing/on", "expected true or false"},
      {"text given a number", {{"label", 5}}, "/thing/label", "expected a string, found number 5"},
      {"choice given an unknown name",
       {{"mode", "medium"}},
       "/thing/mode",
       "expected one of \"fast\", \"slow\", found string \"medium\""},
      {"choice given a number", {{"mode", 1}}, "/thing/mode", "expected one of \"fast\", \"slow\""},
      {"bandwidth given a number",
       {{"link", 100}},
       "/thing/link",
       "expected a bandwidth string with a unit (bps, Kbps"},
      {"bandwidth of zero", {{"link", "0Gbps"}}, "/thing/link", "expected a bandwidth greater than zero"},
      {"bandwidth with a bad unit", {{"link", "100Gbs"}}, "/thing/link", "unknown bandwidth unit \"Gbs\""},
      {"bandwidth negative", {{"link", "-1Gbps"}}, "/thing/link", "negative bandwidth"},
      {"time negative", {{"latency", "-1us"}}, "/thing/latency", "negative time"},
      {"time given a size", {{"latency", "1MB"}}, "/thing/latency", "unknown time unit \"MB\""},
      {"size in fractional bytes", {{"buffer", "0.5B"}}, "/thing/buffer", "not a whole number of bytes"},
      {"size given a number", {{"buffer", 4096}}, "/thing/buffer", "expected a size string with a unit"},
      {"flop rate garbage", {{"peak", "fast"}}, "/thing/peak", "expected a compute rate such as a number"},
      {"flop rate zero", {{"peak", "0TFLOPS"}}, "/thing/peak", "expected a compute rate greater than zero"},
      {"required text given null", {{"id", nullptr}}, "/thing/id", "expected a string, found null"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    json obj = c.obj;
    if (!obj.contains("id")) obj["id"] = "k";
    auto e = load_error(obj);
    EXPECT_EQ(e.path, c.path);
    EXPECT_TRUE(contains(e.what(), c.fragment)) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind(std::string(c.path) + ": ", 0), 0u) << e.what();
  }
}

TEST(ParamsErrors, UnboundedIntegerBelowMinus2To31IsRejectedNotTruncated) {
  auto e = load_error(with_id({{"offset", -3000000000LL}}));
  EXPECT_EQ(e.path, "/thing/offset");
  EXPECT_TRUE(contains(e.what(), "2^31")) << e.what();
  Knobs k;
  load(k, with_id({{"offset", std::numeric_limits<int>::min()}}));
  EXPECT_EQ(k.offset, std::numeric_limits<int>::min());
}

TEST(ParamsErrors, AnInvalidDeclaredDefaultFailsAtTheKeysPointer) {
  struct S {
    double bw = 0;
  };
  ParamSet<S> p("s", "/s", "");
  p.bandwidth("bw", &S::bw, "fast", "bad default");
  S s;
  try {
    p.load(s, json::object(), "/s");
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(e.path, "/s/bw");
  }
}

TEST(ParamsErrors, ErrorAtTheRootIsPrintedAsSlash) {
  ScenarioError e("", "boom");
  EXPECT_EQ(e.path, "");
  EXPECT_STREQ(e.what(), "/: boom");
  EXPECT_STREQ(ScenarioError("/a/b", "boom").what(), "/a/b: boom");
}

// ---- info(): what `trainvp describe` prints ----

const ParamInfo& param(const SchemaInfo& info, const std::string& name) {
  for (const auto& p : info.params)
    if (p.name == name) return p;
  throw std::runtime_error("no parameter " + name);
}

TEST(ParamsInfo, ListsEveryParameterInDeclarationOrder) {
  const SchemaInfo& info = knobs_schema().info();
  EXPECT_EQ(info.name, "knobs");
  EXPECT_EQ(info.where, "/thing");
  EXPECT_EQ(info.help, "A test parameter set.");
  std::vector<std::string> names;
  for (const auto& p : info.params) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"count", "offset", "big", "ratio", "on", "label", "mode", "link",
                                             "latency", "buffer", "peak", "children", "id"}));
}

TEST(ParamsInfo, EachParameterHasTypeUnitsDefaultRangeAndHelp) {
  const SchemaInfo& info = knobs_schema().info();
  struct Row {
    const char* name;
    const char* type;
    json def;
    const char* range;
  };
  const std::vector<Row> rows = {
      {"count", "integer", 4, ">= 1"},
      {"offset", "integer", nullptr, ""},
      {"big", "integer", std::uint64_t{1} << 40, ">= 0"},
      {"ratio", "number", 0.5, "(0, 1]"},
      {"on", "boolean", true, ""},
      {"label", "string", "plain", ""},
      {"mode", "choice", "fast", ""},
      {"link", "bandwidth", "100Gbps", "> 0"},
      {"latency", "time", "1.5us", ">= 0"},
      {"buffer", "size", "4MiB", ">= 0"},
      {"peak", "compute rate", "10TFLOPS", "> 0"},
      {"children", "array", json::array(), ""},
      {"id", "string", nullptr, ""},
  };
  for (const auto& row : rows) {
    SCOPED_TRACE(row.name);
    const ParamInfo& p = param(info, row.name);
    EXPECT_EQ(p.type, row.type);
    EXPECT_EQ(p.default_value, row.def);
    EXPECT_EQ(p.range, row.range);
    EXPECT_FALSE(p.help.empty());
    EXPECT_EQ(p.required, std::string(row.name) == "id");
  }
  EXPECT_EQ(param(info, "mode").choices, (std::vector<std::string>{"fast", "slow"}));
  EXPECT_EQ(param(info, "link").units, units_of(Quantity::Bandwidth));
  EXPECT_EQ(param(info, "latency").units, units_of(Quantity::Time));
  EXPECT_EQ(param(info, "buffer").units, units_of(Quantity::Size));
  EXPECT_EQ(param(info, "peak").units, units_of(Quantity::FlopRate));
  EXPECT_EQ(param(info, "count").units, "");
  EXPECT_EQ(param(info, "count").help, "How many");
}

TEST(ParamsInfo, RequiredClearsTheDefault) {
  struct S {
    int n = 0;
  };
  ParamSet<S> p("s", "/s", "");
  p.integer("n", &S::n, 3, "n").required("n");
  EXPECT_TRUE(p.info().params.at(0).required);
  EXPECT_TRUE(p.info().params.at(0).default_value.is_null());
}

// ---- Range and the "did you mean" helper ----

TEST(ParamsRange, TextShowsBoundsAndOpenness) {
  EXPECT_EQ(Range{}.text(), "");
  EXPECT_EQ(Range::positive().text(), "> 0");
  EXPECT_EQ(Range::non_negative().text(), ">= 0");
  EXPECT_EQ(Range::at_least(1).text(), ">= 1");
  EXPECT_EQ(Range::unit_open_closed().text(), "(0, 1]");
  EXPECT_EQ(Range::unit_closed().text(), "[0, 1]");
  EXPECT_EQ((Range{1, 1024}).text(), "[1, 1024]");
  EXPECT_EQ((Range{-std::numeric_limits<double>::infinity(), 5, false, true}).text(), "< 5");
  EXPECT_EQ((Range{-std::numeric_limits<double>::infinity(), 5}).text(), "<= 5");
}

TEST(ParamsRange, ContainsHonoursOpenEndsAndRejectsNaN) {
  EXPECT_FALSE(Range::positive().contains(0));
  EXPECT_TRUE(Range::positive().contains(1e-300));
  EXPECT_TRUE(Range::non_negative().contains(0));
  EXPECT_TRUE(Range::unit_open_closed().contains(1));
  EXPECT_FALSE(Range::unit_open_closed().contains(1.0000001));
  EXPECT_FALSE(Range{}.contains(std::numeric_limits<double>::quiet_NaN()));
  EXPECT_TRUE(Range{}.contains(-1e308));
}

TEST(ParamsClosest, SuggestsKeysWithinTwoEdits) {
  const std::vector<std::string> keys = {"nodes", "node", "gpu_overrides"};
  EXPECT_EQ(params_detail::closest("nodess", keys), "nodes");
  EXPECT_EQ(params_detail::closest("nod", keys), "node");
  EXPECT_EQ(params_detail::closest("gpu_override", keys), "gpu_overrides");
  EXPECT_EQ(params_detail::closest("gpus", keys), "");
  EXPECT_EQ(params_detail::closest("anything", {}), "");
}

// ---- globs for GPU targets ----

TEST(Glob, ExactNamesMatchOnlyThemselves) {
  EXPECT_TRUE(glob_match("node1.gpu3", "node1.gpu3"));
  EXPECT_FALSE(glob_match("node1.gpu3", "node1.gpu30"));
  EXPECT_FALSE(glob_match("node1.gpu3", "node1.gpu"));
  EXPECT_FALSE(glob_match("node1.gpu3", "node11.gpu3"));
  EXPECT_FALSE(glob_match("node1.gpu3", ""));
  EXPECT_TRUE(glob_match("", ""));
  EXPECT_FALSE(glob_match("", "node0.gpu0"));
}

TEST(Glob, StarMatchesAnyRunIncludingNone) {
  EXPECT_TRUE(glob_match("*", "node0.gpu0"));
  EXPECT_TRUE(glob_match("*", ""));
  EXPECT_TRUE(glob_match("**", "node0.gpu0"));
  EXPECT_TRUE(glob_match("*.gpu7", "node12.gpu7"));
  EXPECT_FALSE(glob_match("*.gpu7", "node12.gpu70"));
  EXPECT_TRUE(glob_match("node*.gpu1", "node0.gpu1"));
  EXPECT_TRUE(glob_match("node*.gpu1", "node15.gpu1"));
  EXPECT_FALSE(glob_match("node*.gpu1", "node0.gpu10"));
  EXPECT_TRUE(glob_match("node*gpu*", "node.gpu"));
  EXPECT_TRUE(glob_match("*0*", "node10.gpu1"));
}

TEST(Glob, NodePrefixWithDotDoesNotMatchLongerNodeNumbers) {
  EXPECT_TRUE(glob_match("node1.*", "node1.gpu0"));
  EXPECT_TRUE(glob_match("node1.*", "node1.gpu15"));
  EXPECT_FALSE(glob_match("node1.*", "node10.gpu0"));
  EXPECT_FALSE(glob_match("node1.*", "node0.gpu1"));
  EXPECT_TRUE(glob_match("node1*", "node10.gpu0"));  // without the dot it does
}

TEST(Glob, QuestionMarkMatchesExactlyOneCharacter) {
  EXPECT_TRUE(glob_match("node?.gpu0", "node3.gpu0"));
  EXPECT_FALSE(glob_match("node?.gpu0", "node10.gpu0"));
  EXPECT_FALSE(glob_match("node?.gpu0", "node.gpu0"));
  EXPECT_TRUE(glob_match("node??.gpu0", "node10.gpu0"));
  EXPECT_TRUE(glob_match("node0.gpu?", "node0.gpu7"));
  EXPECT_FALSE(glob_match("node0.gpu?", "node0.gpu"));
}

TEST(Glob, BracketRangesAndSets) {
  for (const char* n : {"node0.gpu0", "node0.gpu1", "node0.gpu2", "node0.gpu3"})
    EXPECT_TRUE(glob_match("node0.gpu[0-3]", n)) << n;
  EXPECT_FALSE(glob_match("node0.gpu[0-3]", "node0.gpu4"));
  EXPECT_FALSE(glob_match("node0.gpu[0-3]", "node0.gpu10"));
  EXPECT_TRUE(glob_match("node[13].*", "node3.gpu0"));
  EXPECT_FALSE(glob_match("node[13].*", "node2.gpu0"));
  EXPECT_TRUE(glob_match("node[0-1][0-9].gpu0", "node12.gpu0"));
  EXPECT_FALSE(glob_match("node[0-1][0-9].gpu0", "node2.gpu0"));
  EXPECT_TRUE(glob_match("gpu[0-]", "gpu-"));  // a '-' before ']' is literal
  EXPECT_TRUE(glob_match("gpu[0-]", "gpu0"));
  EXPECT_FALSE(glob_match("gpu[0-]", "gpu1"));
}

TEST(Glob, NegatedBrackets) {
  EXPECT_FALSE(glob_match("node0.gpu[!0]", "node0.gpu0"));
  EXPECT_TRUE(glob_match("node0.gpu[!0]", "node0.gpu1"));
  EXPECT_TRUE(glob_match("node0.gpu[!0-3]", "node0.gpu7"));
  EXPECT_FALSE(glob_match("node0.gpu[!0-3]", "node0.gpu2"));
  EXPECT_FALSE(glob_match("node0.gpu[!0]", "node0.gpu"));  // a class still needs one character
}

TEST(Glob, UnclosedBracketIsLiteral) {
  EXPECT_TRUE(glob_match("gpu[", "gpu["));
  EXPECT_FALSE(glob_match("gpu[", "gpu0"));
  EXPECT_TRUE(glob_match("gpu[0", "gpu[0"));
}

}  // namespace test_params
}  // namespace trainvp
