// Sweeps (platform/sweep/, docs/sweeps.md): expansion counts and determinism of grid, zip and
// random designs; point ids; shards that cover every point exactly once; SPEC errors that name
// the JSON pointer; and, through the trainvp binary, running points as processes (a failing or
// crashing point does not stop the others), --resume, sweep.db, CSV export, plots, and three
// shards run by GNU parallel whose merge equals the unsharded sweep.
#include <gtest/gtest.h>

#include "models/cxl/rtl_engine.hpp"
#include "tests/command.hpp"
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/core/errors.hpp"
#include "platform/sweep/expand.hpp"
#include "platform/sweep/point_id.hpp"
#include "platform/sweep/spec.hpp"

namespace test_sweep {  // named for the file: unity builds join test files (cmake/unit_tests.cmake)

namespace fs = std::filesystem;
using json = nlohmann::json;
using namespace trainvp::sweep;

// ---------------------------------------------------------------------------------------------
// Helpers

using trainvp::test::Cmd;
Cmd sh(const std::string& command) { return trainvp::test::run_command(command); }

std::string bin() { return TRAINVP_BINARY; }

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

// Every row of `points` as column -> text (NULL as "NULL"), in idx order, without `skip`.
using Row = std::map<std::string, std::string>;
std::vector<Row> db_rows(const fs::path& db, const std::set<std::string>& skip = {}) {
  sqlite3* h = nullptr;
  std::vector<Row> rows;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    sqlite3_close(h);
    ADD_FAILURE() << "cannot open " << db;
    return rows;
  }
  struct Ctx {
    std::vector<Row>* rows;
    const std::set<std::string>* skip;
  } ctx{&rows, &skip};
  char* err = nullptr;
  sqlite3_exec(
      h, "SELECT * FROM points ORDER BY idx",
      [](void* c, int n, char** vals, char** names) {
        auto* x = static_cast<Ctx*>(c);
        Row r;
        for (int i = 0; i < n; ++i)
          if (!x->skip->count(names[i])) r[names[i]] = vals[i] ? vals[i] : "NULL";
        x->rows->push_back(r);
        return 0;
      },
      &ctx, &err);
  if (err) ADD_FAILURE() << err;
  sqlite3_free(err);
  sqlite3_close(h);
  return rows;
}

// The values of a REAL column as stored (sqlite3_exec's text has 15 digits, which not every double
// reads back from).
std::vector<double> db_doubles(const fs::path& db, const std::string& column) {
  sqlite3* h = nullptr;
  std::vector<double> out;
  sqlite3_stmt* st = nullptr;
  const std::string sql = "SELECT \"" + column + "\" FROM points ORDER BY idx";
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK ||
      sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << "cannot read " << column << " of " << db;
  } else {
    while (sqlite3_step(st) == SQLITE_ROW) out.push_back(sqlite3_column_double(st, 0));
  }
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

// The scenario every test point starts from: 1 node x 2 H100s, GPT-2 small, 2 iterations.
const char* kBase = R"({
  "trainvp": 1,
  "cluster": { "nodes": 1, "node": { "gpus": 2, "gpu": "H100-SXM5-80GB" } },
  "workload": { "model": "gpt2-small", "batch": 2, "seq": 128 },
  "training": { "iterations": 2, "warmup": 0, "sync": { "strategy": "none" } },
  "output": { "trace": false }
})";

json spec_with(json params, const std::string& design = "grid") {
  return {{"sweep", 1}, {"base", "base.json"}, {"design", design}, {"parameters", std::move(params)}};
}

class SweepCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("trainvp-sweep-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    write(dir_ / "base.json", kBase);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  fs::path spec(const std::string& name, const json& s) {
    fs::path p = dir_ / name;
    write(p, s.dump(2));
    return p;
  }
  Cmd sweep(const fs::path& spec, const std::string& args, const std::string& env = "") {
    return sh(env + " " + bin() + " sweep " + spec.string() + " " + args);
  }
  // A wrapper run in place of trainvp for each point: logs its arguments, then execs trainvp.
  fs::path logging_child() {
    fs::path w = dir_ / "child.sh";
    write(w, "#!/bin/sh\necho \"$*\" >> " + (dir_ / "child.log").string() + "\nexec " + bin() + " \"$@\"\n");
    chmod(w.c_str(), 0755);
    return w;
  }
  std::size_t child_runs() {
    std::string log = slurp(dir_ / "child.log");
    return static_cast<std::size_t>(std::count(log.begin(), log.end(), '\n'));
  }
  fs::path dir_;
};

// Nodes 1 and 2, each with a one-hour and a one-millisecond time limit: the 1ms points fail.
json failing_grid() {
  json s = spec_with(json::array({{{"path", "/cluster/nodes"}, {"values", {1, 2}}},
                                  {{"path", "/training/time_limit"}, {"values", {"1h", "1ms"}}}}));
  s["metrics"] = {{"iteration_time_s", "/iteration_time_s"}};
  return s;
}

// ---------------------------------------------------------------------------------------------
// Expansion, ids, shards (in-process)

TEST(SweepSpec, GridExpandsEveryCombinationFirstParameterSlowest) {
  SweepSpec s =
      parse_spec(spec_with(json::array({{{"path", "/cluster/nodes"}, {"values", {1, 2, 4}}},
                                        {{"path", "/workload/model"}, {"values", {"gpt2-small", "bert-base"}}},
                                        {{"path", "/workload/batch"}, {"values", {1, 8}}}})),
                 "/tmp/s.json");
  auto pts = expand(s);
  ASSERT_EQ(pts.size(), 3u * 2u * 2u);
  std::set<std::string> ids;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    EXPECT_EQ(pts[i].index, i);
    EXPECT_EQ(pts[i].params[0].second, json::array({1, 2, 4})[i / 4]) << i;
    EXPECT_EQ(pts[i].params[1].second, json::array({"gpt2-small", "bert-base"})[(i / 2) % 2]) << i;
    EXPECT_EQ(pts[i].params[2].second, json::array({1, 8})[i % 2]) << i;
    ids.insert(pts[i].id);
  }
  EXPECT_EQ(ids.size(), pts.size());
  // Expanding again gives the same points, ids and order.
  auto again = expand(s);
  for (std::size_t i = 0; i < pts.size(); ++i) EXPECT_EQ(again[i].id, pts[i].id);
  EXPECT_EQ(s.base, "/tmp/base.json");  // relative to the SPEC's directory
}

TEST(SweepSpec, GridRangesTakeStepsOnLinearAndLogScales) {
  SweepSpec s = parse_spec(
      spec_with(json::array(
          {{{"path", "/workload/batch"}, {"range", {1, 16}}, {"steps", 5}, {"scale", "log"}, {"integer", true}},
           {{"path", "/cluster/node/gpu/efficiency"}, {"range", {0.3, 0.7}}, {"steps", 3}},
           {{"path", "/cluster/node/gpu/kernel_launch"},
            {"range", {"1us", "100us"}},
            {"steps", 3},
            {"scale", "log"}}})),
      "/tmp/s.json");
  EXPECT_EQ(s.params[0].values, (std::vector<json>{1, 2, 4, 8, 16}));
  ASSERT_EQ(s.params[1].values.size(), 3u);
  EXPECT_DOUBLE_EQ(s.params[1].values[0].get<double>(), 0.3);
  EXPECT_DOUBLE_EQ(s.params[1].values[1].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(s.params[1].values[2].get<double>(), 0.7);
  EXPECT_EQ(s.params[2].values, (std::vector<json>{"1us", "10us", "100us"}));
  EXPECT_EQ(expand(s).size(), 5u * 3u * 3u);
}

TEST(SweepSpec, ZipPairsTheIthValues) {
  SweepSpec s = parse_spec(spec_with(json::array({{{"path", "/cluster/nodes"}, {"values", {1, 2, 4}}},
                                                  {{"path", "/workload/batch"}, {"values", {32, 16, 8}}}}),
                                     "zip"),
                           "/tmp/s.json");
  auto pts = expand(s);
  ASSERT_EQ(pts.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(pts[i].params[0].second, json::array({1, 2, 4})[i]);
    EXPECT_EQ(pts[i].params[1].second, json::array({32, 16, 8})[i]);
  }
}

json random_spec(int samples, int seed) {
  json s = spec_with(
      json::array({{{"path", "/cluster/node/gpu/efficiency"}, {"range", {0.3, 0.7}}, {"digits", 3}},
                   {{"path", "/workload/batch"}, {"range", {1, 1000}}, {"scale", "log"}, {"integer", true}},
                   {{"path", "/cluster/node/gpu/kernel_launch"}, {"range", {"1us", "100us"}}, {"scale", "log"}},
                   {{"path", "/workload/model"}, {"values", {"gpt2-small", "bert-base", "resnet50"}}}}),
      "random");
  s["samples"] = samples;
  s["seed"] = seed;
  return s;
}

TEST(SweepSpec, RandomDrawsSamplesDistinctPointsDeterministicallyWithinRanges) {
  SweepSpec s = parse_spec(random_spec(2000, 7), "/tmp/s.json");
  auto pts = expand(s);
  ASSERT_EQ(pts.size(), 2000u);
  std::set<std::string> ids;
  double eff_sum = 0;
  int batch_below_10 = 0, launch_below_10us = 0;
  std::map<std::string, int> models;
  for (auto& p : pts) {
    ids.insert(p.id);
    double eff = p.params[0].second.get<double>();
    EXPECT_GE(eff, 0.3);
    EXPECT_LE(eff, 0.7);
    EXPECT_DOUBLE_EQ(eff, std::round(eff * 1000) / 1000);  // digits 3
    eff_sum += eff;
    ASSERT_TRUE(p.params[1].second.is_number_integer());
    auto b = p.params[1].second.get<long long>();
    EXPECT_GE(b, 1);
    EXPECT_LE(b, 1000);
    batch_below_10 += b < 10;
    std::string launch = p.params[2].second.get<std::string>();
    ASSERT_EQ(launch.substr(launch.size() - 2), "us");
    double us = std::stod(launch);
    EXPECT_GE(us, 1.0);
    EXPECT_LE(us, 100.0);
    launch_below_10us += us < 10;
    models[p.params[3].second.get<std::string>()]++;
  }
  EXPECT_EQ(ids.size(), pts.size());
  // Uniform on [0.3, 0.7]: mean 0.5, standard error 0.115/sqrt(2000) = 0.0026.
  EXPECT_NEAR(eff_sum / 2000, 0.5, 0.012);
  // Discrete log-uniform on 1..1000: P(b < 10) = log(10)/log(1001) = 0.3333; continuous log on
  // [1us, 100us]: P(< 10us) = 1/2. Standard errors about 0.011.
  EXPECT_NEAR(batch_below_10 / 2000.0, std::log(10.0) / std::log(1001.0), 0.045);
  EXPECT_NEAR(launch_below_10us / 2000.0, 0.5, 0.045);
  for (auto& [m, n] : models) EXPECT_NEAR(n / 2000.0, 1.0 / 3, 0.045) << m;
  EXPECT_EQ(models.size(), 3u);

  // Same seed: the same points; another seed: other points.
  auto same = expand(parse_spec(random_spec(2000, 7), "/tmp/s.json"));
  for (std::size_t i = 0; i < pts.size(); ++i) ASSERT_EQ(same[i].id, pts[i].id);
  auto other = expand(parse_spec(random_spec(2000, 8), "/tmp/s.json"));
  int equal = 0;
  for (std::size_t i = 0; i < pts.size(); ++i) equal += other[i].id == pts[i].id;
  EXPECT_LT(equal, 5);
  // Fewer samples: a prefix of the same draws.
  auto few = expand(parse_spec(random_spec(10, 7), "/tmp/s.json"));
  ASSERT_EQ(few.size(), 10u);
  for (std::size_t i = 0; i < few.size(); ++i) EXPECT_EQ(few[i].id, pts[i].id);
}

TEST(SweepSpec, RandomDesignThatCannotFindEnoughDistinctPointsIsAnError) {
  json s = spec_with(json::array({{{"path", "/cluster/nodes"}, {"values", {1, 2}}}}), "random");
  s["samples"] = 2;
  EXPECT_EQ(expand(parse_spec(s, "/tmp/s.json")).size(), 2u);
  s["samples"] = 3;
  try {
    expand(parse_spec(s, "/tmp/s.json"));
    FAIL() << "expected an error";
  } catch (const trainvp::ScenarioError& e) {
    EXPECT_EQ(e.path, "/samples");
  }
}

// 64-bit FNV-1a, written out here independently of platform/sweep/point_id.cpp.
std::string reference_id(const std::string& canonical) {
  unsigned long long h = 14695981039346656037ULL;
  for (unsigned char c : canonical) h = (h ^ c) * 1099511628211ULL;
  char buf[17];
  std::snprintf(buf, sizeof buf, "%012llx", h & 0xffffffffffffULL);
  return buf;
}

TEST(SweepSpec, PointIdsHashTheCanonicalAssignmentWhateverTheParameterOrder) {
  Assignment a = {{"/workload/model", "gpt2-small"}, {"/cluster/nodes", 2}};
  EXPECT_EQ(canonical_assignment(a), R"({"/cluster/nodes":2,"/workload/model":"gpt2-small"})");
  EXPECT_EQ(point_id(a), reference_id(R"({"/cluster/nodes":2,"/workload/model":"gpt2-small"})"));
  EXPECT_EQ(point_id(a), point_id({{"/cluster/nodes", 2}, {"/workload/model", "gpt2-small"}}));
  EXPECT_NE(point_id(a), point_id({{"/cluster/nodes", 3}, {"/workload/model", "gpt2-small"}}));
  EXPECT_NE(point_id({{"/x", 1}}), point_id({{"/x", "1"}}));  // a number is not a string

  // The grid with its parameters listed the other way round has the same ids.
  json p1 = {{"path", "/cluster/nodes"}, {"values", {1, 2, 4}}};
  json p2 = {{"path", "/workload/model"}, {"values", {"gpt2-small", "bert-base"}}};
  std::set<std::string> ab, ba;
  for (auto& p : expand(parse_spec(spec_with(json::array({p1, p2})), "/tmp/s.json"))) ab.insert(p.id);
  for (auto& p : expand(parse_spec(spec_with(json::array({p2, p1})), "/tmp/s.json"))) ba.insert(p.id);
  EXPECT_EQ(ab, ba);
  EXPECT_EQ(ab.size(), 6u);
}

TEST(SweepSpec, ShardsCoverEveryPointExactlyOnce) {
  for (const json& s : {spec_with(json::array({{{"path", "/cluster/nodes"}, {"values", {1, 2, 3, 4}}},
                                               {{"path", "/workload/batch"}, {"values", {1, 2, 4}}}})),
                        random_spec(25, 3)}) {
    auto all = expand(parse_spec(s, "/tmp/s.json"));
    for (int n = 1; n <= 30; ++n) {
      std::multiset<std::string> seen;
      std::size_t smallest = all.size(), largest = 0;
      for (int i = 1; i <= n; ++i) {
        auto slice = shard_slice(all, parse_shard(std::to_string(i) + "/" + std::to_string(n)));
        smallest = std::min(smallest, slice.size());
        largest = std::max(largest, slice.size());
        for (auto& p : slice) {
          EXPECT_EQ(p.index % n, static_cast<std::size_t>(i - 1));
          seen.insert(p.id);
        }
      }
      ASSERT_EQ(seen.size(), all.size()) << n << " shards";
      for (auto& p : all) EXPECT_EQ(seen.count(p.id), 1u) << n << " shards, point " << p.index;
      EXPECT_LE(largest - smallest, 1u) << n << " shards are balanced";
    }
  }
  EXPECT_EQ(parse_shard("3/3").index, 3);
  for (const char* bad : {"0/3", "4/3", "1/0", "a/3", "3", "-1/3", "1/", "/2", "1/2/3"})
    EXPECT_THROW(parse_shard(bad), std::invalid_argument) << bad;
}

// ---------------------------------------------------------------------------------------------
// Malformed SPECs: each row breaks one thing; the error names the pointer inside the SPEC.

struct BadSpec {
  const char* what;
  std::function<void(json&)> mutate;
  const char* path;
  const char* message;  // a fragment of the message
};

void PrintTo(const BadSpec& b, std::ostream* os) { *os << b.what; }

class SweepSpecErrors : public ::testing::TestWithParam<BadSpec> {};

TEST_P(SweepSpecErrors, NameThePointer) {
  json s = spec_with(json::array({{{"path", "/cluster/nodes"}, {"values", {1, 2}}},
                                  {{"path", "/workload/model"}, {"values", {"gpt2-small", "bert-base"}}}}));
  GetParam().mutate(s);
  try {
    expand(parse_spec(s, "/tmp/s.json"));
    FAIL() << GetParam().what << ": no error for " << s.dump();
  } catch (const trainvp::ScenarioError& e) {
    EXPECT_EQ(e.path, GetParam().path) << e.what();
    EXPECT_NE(std::string(e.what()).find(GetParam().message), std::string::npos) << e.what();
  }
}

const std::vector<BadSpec>& bad_specs() {
  static const std::vector<BadSpec> v = {
      {"not an object", [](json& s) { s = json::array(); }, "", "expected a sweep spec object"},
      {"no version", [](json& s) { s.erase("sweep"); }, "/sweep", "missing required key"},
      {"version 2", [](json& s) { s["sweep"] = 2; }, "/sweep", "version 1"},
      {"unknown key", [](json& s) { s["desing"] = "grid"; }, "/desing", "did you mean \"design\""},
      {"no base", [](json& s) { s.erase("base"); }, "/base", "missing required key"},
      {"bad design", [](json& s) { s["design"] = "grd"; }, "/design", "one of \"grid\", \"zip\", \"random\""},
      {"set not an object", [](json& s) { s["set"] = json::array(); }, "/set", "expected an object"},
      {"set key not a pointer",
       [](json& s) {
         s["set"] = {{"training/iterations", 2}};
       },
       "/set/training~1iterations", "JSON pointer"},
      {"no parameters", [](json& s) { s.erase("parameters"); }, "/parameters", "missing required key"},
      {"empty parameters", [](json& s) { s["parameters"] = json::array(); }, "/parameters", "non-empty array"},
      {"parameter without path", [](json& s) { s["parameters"][0].erase("path"); }, "/parameters/0/path",
       "missing required key"},
      {"path without slash", [](json& s) { s["parameters"][0]["path"] = "cluster/nodes"; }, "/parameters/0/path",
       "starting with \"/\""},
      {"bad pointer escape", [](json& s) { s["parameters"][0]["path"] = "/a~2b"; }, "/parameters/0/path",
       "valid JSON pointer"},
      {"unknown parameter key", [](json& s) { s["parameters"][1]["valuse"] = s["parameters"][1]["values"]; },
       "/parameters/1/valuse", "did you mean \"values\""},
      {"values and range",
       [](json& s) {
         s["parameters"][0]["range"] = {1, 4};
       },
       "/parameters/0", "not both"},
      {"neither values nor range", [](json& s) { s["parameters"][0].erase("values"); }, "/parameters/0",
       "exactly one of"},
      {"empty values", [](json& s) { s["parameters"][0]["values"] = json::array(); }, "/parameters/0/values",
       "non-empty array"},
      {"duplicate value",
       [](json& s) {
         s["parameters"][0]["values"] = {1, 2, 1};
       },
       "/parameters/0/values/2", "duplicate value 1"},
      {"duplicate parameter", [](json& s) { s["parameters"][1]["path"] = "/cluster/nodes"; }, "/parameters/1/path",
       "already a parameter"},
      {"parameter also in set",
       [](json& s) {
         s["set"] = {{"/cluster/nodes", 4}};
       },
       "/parameters/0/path", "also fixed in /set"},
      {"zip of unequal lists",
       [](json& s) {
         s["design"] = "zip";
         s["parameters"][1]["values"] = {"gpt2-small"};
       },
       "/parameters/1", "as many values as /parameters/0 (2), found 1"},
      {"range in grid without steps",
       [](json& s) {
         s["parameters"][0] = {{"path", "/cluster/nodes"}, {"range", {1, 8}}};
       },
       "/parameters/0/steps", "missing required key \"steps\""},
      {"steps in random",
       [](json& s) {
         s["design"] = "random";
         s["samples"] = 3;
         s["parameters"][0] = {{"path", "/cluster/nodes"}, {"range", {1, 8}}, {"steps", 3}};
       },
       "/parameters/0/steps", "samples the range"},
      {"range lo >= hi",
       [](json& s) {
         s["parameters"][0] = {{"path", "/x"}, {"range", {8, 1}}, {"steps", 2}};
       },
       "/parameters/0/range", "lo < hi"},
      {"log range from 0",
       [](json& s) {
         s["parameters"][0] = {{"path", "/x"}, {"range", {0, 1}}, {"steps", 2}, {"scale", "log"}};
       },
       "/parameters/0/range/0", "> 0 for a log scale"},
      {"range wider than a double holds",  // its inner values were infinite: null in the scenario
       [](json& s) {
         s["parameters"][0] = {{"path", "/x"}, {"range", {-1.7e308, 1.7e308}}, {"steps", 3}};
       },
       "/parameters/0/range", "width hi - lo is below the largest double"},
      {"log range whose ratio overflows",
       [](json& s) {
         s["parameters"][0] = {{"path", "/x"}, {"range", {1e-300, 1e300}}, {"steps", 3}, {"scale", "log"}};
       },
       "/parameters/0/range", "ratio hi / lo is below the largest double"},
      {"integer range beyond 2^53",  // values beyond 2^63 rounded to -9223372036854775808
       [](json& s) {
         s["parameters"][0] = {{"path", "/x"}, {"range", {1, 1e19}}, {"steps", 3}, {"integer", true}};
       },
       "/parameters/0/range", "within [-2^53, 2^53]"},
      {"random integer range beyond 2^53",  // every draw was the same garbage value
       [](json& s) {
         s["design"] = "random", s["samples"] = 5;
         s["parameters"] = json::array({{{"path", "/x"}, {"range", {-1e18, 1}}, {"integer", true}}});
       },
       "/parameters/0/range", "within [-2^53, 2^53]"},
      {"range of mixed units",
       [](json& s) {
         s["parameters"][0] = {{"path", "/x"}, {"range", {"1us", "2ms"}}, {"steps", 2}};
       },
       "/parameters/0/range", "same unit"},
      {"range end not a number",
       [](json& s) {
         s["parameters"][0] = {{"path", "/x"}, {"range", {"fast", 2}}, {"steps", 2}};
       },
       "/parameters/0/range/0", "a number or a quantity string"},
      {"bad scale",
       [](json& s) {
         s["parameters"][0] = {{"path", "/x"}, {"range", {1, 2}}, {"steps", 2}, {"scale", "lg"}};
       },
       "/parameters/0/scale", "\"linear\", \"log\""},
      {"scale without range", [](json& s) { s["parameters"][0]["scale"] = "log"; }, "/parameters/0/scale",
       "applies only to a \"range\""},
      {"rounding makes duplicates",
       [](json& s) {
         s["parameters"][0] = {{"path", "/x"}, {"range", {1, 3}}, {"steps", 5}, {"integer", true}};
       },
       "/parameters/0/steps", "twice after rounding"},
      {"random without samples", [](json& s) { s["design"] = "random"; }, "/samples", "missing required key"},
      {"samples in a grid", [](json& s) { s["samples"] = 4; }, "/samples", "only to \"design\": \"random\""},
      {"samples zero",
       [](json& s) {
         s["design"] = "random";
         s["samples"] = 0;
       },
       "/samples", "an integer in [1, 1000000]"},
      {"metric bad name",
       [](json& s) {
         s["metrics"] = {{"1x", "/iteration_time_s"}};
       },
       "/metrics/1x", "must be a letter"},
      {"metric reserved name",
       [](json& s) {
         s["metrics"] = {{"Status", "/iteration_time_s"}};
       },
       "/metrics/Status", "fixed column"},
      {"metric not a pointer",
       [](json& s) {
         s["metrics"] = {{"t", "iteration_time_s"}};
       },
       "/metrics/t", "starting with \"/\""},
      {"plot y unknown",
       [](json& s) {
         s["plots"] = {{{"x", "/cluster/nodes"}, {"y", "tokens"}}};
       },
       "/plots/0/y", "not a parameter path or metric name"},
      {"plot by a metric",
       [](json& s) {
         s["plots"] = {{{"x", "/cluster/nodes"}, {"y", "iteration_time_s"}, {"by", "samples_per_s"}}};
       },
       "/plots/0/by", "not a parameter path"},
      {"plot file type",
       [](json& s) {
         s["plots"] = {{{"x", "/cluster/nodes"}, {"y", "iteration_time_s"}, {"file", "a.jpg"}}};
       },
       "/plots/0/file", ".svg, .png or .pdf"},
      {"plot file escapes",
       [](json& s) {
         s["plots"] = {{{"x", "/cluster/nodes"}, {"y", "iteration_time_s"}, {"file", "../a.svg"}}};
       },
       "/plots/0/file", "no absolute path"},
      {"plot where unknown",
       [](json& s) {
         s["plots"] = {{{"x", "/cluster/nodes"}, {"y", "iteration_time_s"}, {"where", {{"/seed", 1}}}}};
       },
       "/plots/0/where/~1seed", "not a parameter path"},
      {"infeasible not an array", [](json& s) { s["infeasible"] = "/training/parallel"; }, "/infeasible",
       "non-empty array of scenario pointers"},
      {"infeasible not a pointer", [](json& s) { s["infeasible"] = {"training/parallel"}; }, "/infeasible/0",
       "starting with \"/\""},
      {"best without metric",
       [](json& s) {
         s["best"] = {{"goal", "min"}};
       },
       "/best/metric", "missing required key"},
      {"best of an unknown metric",
       [](json& s) {
         s["best"] = {{"metric", "tokens_per_s"}};
       },
       "/best/metric", "not a metric of this sweep; expected one of iteration_time_s, samples_per_s"},
      {"best goal",
       [](json& s) {
         s["best"] = {{"metric", "iteration_time_s"}, {"goal", "fastest"}};
       },
       "/best/goal", "one of \"min\", \"max\""},
      {"best unknown key",
       [](json& s) {
         s["best"] = {{"metric", "iteration_time_s"}, {"gaol", "min"}};
       },
       "/best/gaol", "did you mean \"goal\""},
  };
  return v;
}

INSTANTIATE_TEST_SUITE_P(, SweepSpecErrors, ::testing::ValuesIn(bad_specs()),
                         [](const ::testing::TestParamInfo<BadSpec>& i) {
                           std::string n;
                           for (const char* c = i.param.what; *c; ++c)
                             n += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_';
                           return n;
                         });

// ---------------------------------------------------------------------------------------------
// The trainvp binary

TEST_F(SweepCli, HelpForEveryCommand) {
  Cmd main = sh(bin() + " --help");
  for (const char* c : {"sweep", "sweep-export", "merge", "plot"}) {
    EXPECT_NE(main.out.find(std::string("  ") + c + " "), std::string::npos) << c;
    Cmd r = sh(bin() + " " + c + " --help");
    EXPECT_EQ(r.code, 0) << c;
    EXPECT_NE(r.out.find(std::string("usage: trainvp ") + c), std::string::npos) << r.out;
  }
  EXPECT_EQ(sh(bin() + " merge only-out").code, 2);
  EXPECT_EQ(sh(bin() + " plot " + dir_.string() + " --x /a").code, 2);
}

TEST_F(SweepCli, BadSpecOrPointFailsUpFrontWithExitTwoAndRunsNothing) {
  fs::path out = dir_ / "out";
  write(dir_ / "broken.json", "{\"sweep\": 1,\n \"base\": }");
  Cmd r = sweep(dir_ / "broken.json", "-o " + out.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("broken.json: /: malformed JSON at line 2"), std::string::npos) << r.out;

  json s = spec_with(json::array(
      {{{"path", "/cluster/nodes"}, {"values", {1, 2}}}, {{"path", "/cluster/node/gpus"}, {"values", {2, 0}}}}));
  r = sweep(spec("bad-point.json", s), "-o " + out.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("bad-point.json: point #1 (/cluster/nodes=1, /cluster/node/gpus=0): /cluster/node/gpus: "),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(out)) << "nothing may run or be written";

  s["base"] = "missing.json";
  r = sweep(spec("no-base.json", s), "-o " + out.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("no-base.json: /base: cannot read"), std::string::npos) << r.out;

  s = spec_with(json::array({{{"path", "/cluster/nodes"}, {"values", {1}}}}));
  s["set"] = {{"/workload/model/name", "x"}};  // inside a string
  r = sweep(spec("bad-set.json", s), "-o " + out.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("/set/~1workload~1model~1name: cannot set"), std::string::npos) << r.out;

  fs::path ok = spec("ok.json", spec_with(json::array({{{"path", "/cluster/nodes"}, {"values", {1}}}})));
  for (const char* usage : {"", "-o", "--shard 0/2 -o x", "--shard 3/2 -o x", "-j 0 -o x", "--bogus -o x"})
    EXPECT_EQ(sweep(ok, usage).code, 2) << usage;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(SweepCli, AFailingPointDoesNotStopTheOthersAndEveryRowIsRecorded) {
  fs::path out = dir_ / "out";
  Cmd r = sweep(spec("s.json", failing_grid()), "-o " + out.string() + " -j 2");
  EXPECT_EQ(r.code, 1) << r.out;  // some point failed, all ran
  EXPECT_NE(r.out.find("4 points, 2 ok, 2 failed"), std::string::npos) << r.out;
  auto rows = db_rows(out / "sweep.db");
  ASSERT_EQ(rows.size(), 4u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    Row& row = rows[i];
    EXPECT_EQ(row["idx"], std::to_string(i));
    EXPECT_EQ(row["/cluster/nodes"], i < 2 ? "1" : "2");
    bool fails = i % 2 == 1;
    EXPECT_EQ(row["/training/time_limit"], fails ? "1ms" : "1h");
    fs::path pd = out / "points" / row["id"];
    json rec = json::parse(slurp(pd / "point.json"));
    EXPECT_EQ(rec["id"], row["id"]);
    EXPECT_EQ(rec["status"], row["status"]);
    EXPECT_EQ(rec["parameters"]["/cluster/nodes"], i < 2 ? 1 : 2);
    EXPECT_GT(std::stod(row["wall_s"]), 0.0);
    if (fails) {
      EXPECT_EQ(row["status"], "failed");
      EXPECT_EQ(row["exit_code"], "1");
      EXPECT_EQ(row["iteration_time_s"], "NULL");
      EXPECT_NE(row["error"].find("/training/time_limit"), std::string::npos) << row["error"];
      EXPECT_NE(slurp(pd / "stderr.txt").find("run failed"), std::string::npos);
      EXPECT_FALSE(fs::exists(pd / "results.json"));
    } else {
      EXPECT_EQ(row["status"], "ok");
      EXPECT_EQ(row["exit_code"], "0");
      EXPECT_EQ(row["error"], "NULL");
      json res = json::parse(slurp(pd / "results.json"));
      EXPECT_DOUBLE_EQ(std::stod(row["iteration_time_s"]), res["iteration_time_s"].get<double>());
      EXPECT_EQ(res["scenario"]["cluster"]["nodes"], i < 2 ? 1 : 2);
      EXPECT_EQ(res["scenario"]["output"]["dir"], fs::absolute(pd).lexically_normal().string());
    }
  }
  // The ids in sweep.db are the ids of the expansion.
  auto pts = expand(parse_spec(failing_grid(), (dir_ / "s.json").string()));
  for (std::size_t i = 0; i < pts.size(); ++i) EXPECT_EQ(rows[i]["id"], pts[i].id);
}

TEST_F(SweepCli, ACrashingPointIsRecordedWithItsSignalAndTheOthersRun) {
  fs::path w = dir_ / "crash.sh";
  write(w, "#!/bin/sh\ncase \"$*\" in *nodes=2*1h*) echo about to crash >&2; kill -SEGV $$ ;; esac\nexec " + bin() +
               " \"$@\"\n");
  chmod(w.c_str(), 0755);
  fs::path out = dir_ / "out";
  Cmd r = sweep(spec("s.json", failing_grid()), "-o " + out.string() + " -j 3", "TRAINVP_SWEEP_CHILD=" + w.string());
  EXPECT_EQ(r.code, 1) << r.out;
  auto rows = db_rows(out / "sweep.db");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0]["status"], "ok");
  EXPECT_EQ(rows[1]["status"], "failed");
  EXPECT_EQ(rows[2]["status"], "failed");
  EXPECT_EQ(rows[2]["exit_code"], "139");  // 128 + SIGSEGV
  EXPECT_NE(rows[2]["error"].find("killed by signal 11"), std::string::npos) << rows[2]["error"];
  EXPECT_NE(rows[2]["error"].find("about to crash"), std::string::npos) << rows[2]["error"];
  EXPECT_EQ(rows[3]["status"], "failed");
  EXPECT_EQ(rows[3]["exit_code"], "1");
}

TEST_F(SweepCli, ResumeRunsOnlyPointsThatAreMissingFailedOrChanged) {
  fs::path child = logging_child(), out = dir_ / "out";
  std::string env = "TRAINVP_SWEEP_CHILD=" + child.string();
  json s = failing_grid();
  fs::path sp = spec("s.json", s);
  EXPECT_EQ(sweep(sp, "-o " + out.string(), env).code, 1);
  EXPECT_EQ(child_runs(), 4u);
  auto first = db_rows(out / "sweep.db", {"wall_s"});

  Cmd again = sweep(sp, "-o " + out.string(), env);
  EXPECT_EQ(again.code, 2) << "a DIR holding a sweep is not overwritten";
  EXPECT_NE(again.out.find("--resume"), std::string::npos) << again.out;

  Cmd r = sweep(sp, "-o " + out.string() + " --resume", env);
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_EQ(child_runs(), 4u + 2u) << "only the two failed points run again";
  EXPECT_NE(r.out.find("(2 resumed)"), std::string::npos) << r.out;
  EXPECT_EQ(db_rows(out / "sweep.db", {"wall_s"}), first);

  // One more node count: its two points run, and the failed ones again.
  s["parameters"][0]["values"] = {1, 2, 3};
  spec("s.json", s);
  EXPECT_EQ(sweep(sp, "-o " + out.string() + " --resume", env).code, 1);
  EXPECT_EQ(child_runs(), 6u + 4u);
  EXPECT_EQ(db_rows(out / "sweep.db").size(), 6u);

  // A changed fixed override changes every point's scenario: all run again.
  s["set"] = {{"/workload/batch", 1}};
  spec("s.json", s);
  EXPECT_EQ(sweep(sp, "-o " + out.string() + " --resume", env).code, 1);
  EXPECT_EQ(child_runs(), 10u + 6u);

  // Nothing changed: nothing but the failed points runs.
  EXPECT_EQ(sweep(sp, "-o " + out.string() + " --resume", env).code, 1);
  EXPECT_EQ(child_runs(), 16u + 3u);
}

TEST_F(SweepCli, ThreeShardsThroughGnuParallelMergeToTheUnshardedSweep) {
  json s = spec_with(json::array({{{"path", "/cluster/nodes"}, {"values", {1, 2, 3}}},
                                  {{"path", "/workload/model"}, {"values", {"gpt2-small", "bert-base"}}},
                                  {{"path", "/training/time_limit"}, {"values", {"1h", "1ms"}}}}));
  s["plots"] = {{{"x", "/cluster/nodes"}, {"y", "iteration_time_s"}, {"by", "/workload/model"}, {"file", "t.svg"}}};
  fs::path sp = spec("s.json", s);
  ASSERT_EQ(sh("parallel --version").code, 0) << "GNU parallel is missing: scripts/install-deps installs it";

  fs::path whole = dir_ / "whole";
  EXPECT_EQ(sweep(sp, "-o " + whole.string() + " -j 2").code, 1);
  EXPECT_TRUE(fs::exists(whole / "plots" / "t.svg"));

  Cmd par = sh("parallel --will-cite -j3 " + bin() + " sweep " + sp.string() + " -o " + (dir_ / "shard").string() +
               "{} --shard {}/3 ::: 1 2 3");
  EXPECT_EQ(par.code, 3) << "each shard holds a failing point, so each exits 1\n" << par.out;
  std::size_t sum = 0;
  for (int i = 1; i <= 3; ++i) {
    auto rows = db_rows(dir_ / ("shard" + std::to_string(i)) / "sweep.db");
    EXPECT_EQ(rows.size(), 4u);
    for (auto& row : rows) EXPECT_EQ(std::stoi(row["idx"]) % 3, i - 1);
    sum += rows.size();
    EXPECT_FALSE(fs::exists(dir_ / ("shard" + std::to_string(i)) / "plots")) << "shards leave plots to merge";
  }
  EXPECT_EQ(sum, 12u);

  fs::path merged = dir_ / "merged";
  Cmd m = sh(bin() + " merge " + merged.string() + " " + (dir_ / "shard1").string() + " " + (dir_ / "shard2").string() +
             " " + (dir_ / "shard3").string());
  EXPECT_EQ(m.code, 0) << m.out;
  EXPECT_NE(m.out.find("12 points (6 ok, 6 failed, 0 pending) of 12"), std::string::npos) << m.out;
  auto expect = db_rows(whole / "sweep.db", {"wall_s"});
  ASSERT_EQ(expect.size(), 12u);
  EXPECT_EQ(db_rows(merged / "sweep.db", {"wall_s"}), expect);
  EXPECT_TRUE(fs::exists(merged / "plots" / "t.svg"));

  // A shard merged with the whole sweep: identical duplicates are fine.
  EXPECT_EQ(
      sh(bin() + " merge " + (dir_ / "m2").string() + " " + whole.string() + " " + (dir_ / "shard2").string()).code, 0);
  EXPECT_EQ(db_rows(dir_ / "m2" / "sweep.db", {"wall_s"}), expect);
  // Into a DIR that already holds a sweep: refused.
  EXPECT_EQ(sh(bin() + " merge " + merged.string() + " " + whole.string()).code, 2);
  // A conflicting duplicate: refused, naming the point and the column.
  fs::copy(dir_ / "shard2", dir_ / "tampered", fs::copy_options::recursive);
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open((dir_ / "tampered" / "sweep.db").c_str(), &h), SQLITE_OK);
  sqlite3_exec(h, "UPDATE points SET iteration_time_s = 42 WHERE status = 'ok'", nullptr, nullptr, nullptr);
  sqlite3_close(h);
  Cmd c = sh(bin() + " merge " + (dir_ / "m3").string() + " " + (dir_ / "shard2").string() + " " +
             (dir_ / "tampered").string());
  EXPECT_EQ(c.code, 2);
  EXPECT_NE(c.out.find("iteration_time_s is"), std::string::npos) << c.out;
  // Another sweep: refused.
  s["parameters"][0]["values"] = {1, 2};
  fs::path other = dir_ / "other";
  sweep(spec("other.json", s), "-o " + other.string() + " --shard 1/4");
  Cmd d = sh(bin() + " merge " + (dir_ / "m4").string() + " " + whole.string() + " " + other.string());
  EXPECT_EQ(d.code, 2);
  EXPECT_NE(d.out.find("different sweep"), std::string::npos) << d.out;
}

// Minimal RFC 4180 reader: records of fields.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> out(1, std::vector<std::string>(1));
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') out.back().back() += '"', ++i;
      else if (c == '"') quoted = false;
      else out.back().back() += c;
    } else if (c == '"') quoted = true;
    else if (c == ',') out.back().emplace_back();
    else if (c == '\n') out.emplace_back(1);
    else out.back().back() += c;
  }
  if (out.back().size() == 1 && out.back()[0].empty()) out.pop_back();
  return out;
}

TEST_F(SweepCli, CsvExportHoldsEveryRowAndColumnOfSweepDb) {
  fs::path out = dir_ / "out";
  sweep(spec("s.json", failing_grid()), "-o " + out.string());
  Cmd r = sh(bin() + " sweep-export " + out.string() + " --csv");
  ASSERT_EQ(r.code, 0) << r.out;
  auto csv = parse_csv(r.out);
  ASSERT_EQ(csv.size(), 5u);
  EXPECT_EQ(csv[0], (std::vector<std::string>{"id", "idx", "/cluster/nodes", "/training/time_limit", "status",
                                              "exit_code", "wall_s", "iteration_time_s", "error"}));
  auto rows = db_rows(out / "sweep.db");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ASSERT_EQ(csv[i + 1].size(), csv[0].size());
    for (std::size_t k = 0; k < csv[0].size(); ++k) {
      std::string db = rows[i][csv[0][k]];
      if (db == "NULL") EXPECT_EQ(csv[i + 1][k], "");
      else if (csv[0][k] == "wall_s" || csv[0][k] == "iteration_time_s")
        EXPECT_DOUBLE_EQ(std::stod(csv[i + 1][k]), std::stod(db));
      else EXPECT_EQ(csv[i + 1][k], db) << csv[0][k];  // error texts span lines: quoted
    }
  }
  EXPECT_EQ(sh(bin() + " sweep-export " + out.string() + " -o " + (dir_ / "x.csv").string()).code, 0);
  EXPECT_EQ(slurp(dir_ / "x.csv"), r.out);
  EXPECT_EQ(sh(bin() + " sweep-export " + (dir_ / "nothing").string()).code, 2);
}

TEST_F(SweepCli, PlotsConvertQuantitiesLabelUnitsAndDrawASeriesPerByValue) {
  json s = spec_with(json::array({{{"path", "/cluster/node/gpu/mem_bw"}, {"values", {"1TB/s", "2TB/s", "4TB/s"}}},
                                  {{"path", "/workload/model"}, {"values", {"gpt2-small", "bert-base"}}}}));
  s["set"] = {{"/cluster/node/gpu", {{"preset", "H100-SXM5-80GB"}}}};
  s["plots"] = {{{"x", "/cluster/node/gpu/mem_bw"}, {"y", "samples_per_s"}, {"by", "/workload/model"}}};
  fs::path out = dir_ / "out";
  Cmd r = sweep(spec("s.json", s), "-o " + out.string() + " -j 2");
  ASSERT_EQ(r.code, 0) << r.out;
  // The SPEC's default plot, named after its columns.
  EXPECT_TRUE(fs::exists(out / "plots" / "samples_per_s-vs-cluster.node.gpu.mem_bw-by-workload.model.svg")) << r.out;

  fs::path svg = dir_ / "p.svg";
  r = sh(bin() + " plot " + out.string() +
         " --x /cluster/node/gpu/mem_bw --y iteration_time_s --by /workload/model -o " + svg.string());
  ASSERT_EQ(r.code, 0) << r.out;
  std::string image = slurp(svg), script = slurp(dir_ / "p.gp");
  EXPECT_NE(image.find("<svg"), std::string::npos);
  EXPECT_NE(image.find("/cluster/node/gpu/mem_bw (Gbps)"), std::string::npos);
  EXPECT_NE(image.find("iteration_time_s (s)"), std::string::npos);
  // 1, 2, 4 TB/s = 8000, 16000, 32000 Gbps; one data block and one title per model.
  EXPECT_NE(script.find("set xlabel '/cluster/node/gpu/mem_bw (Gbps)'"), std::string::npos) << script;
  EXPECT_NE(script.find("\n8000 "), std::string::npos) << script;
  EXPECT_NE(script.find("\n16000 "), std::string::npos) << script;
  EXPECT_NE(script.find("\n32000 "), std::string::npos) << script;
  EXPECT_NE(script.find("$s1 << EOD"), std::string::npos);
  EXPECT_EQ(script.find("$s2 << EOD"), std::string::npos);
  EXPECT_NE(script.find("title 'gpt2-small'"), std::string::npos);
  EXPECT_NE(script.find("title 'bert-base'"), std::string::npos);
  // The y values are the metric's values from sweep.db, written as the shortest decimal that reads
  // back exactly (no 58.200000000000003).
  for (const double v : db_doubles(out / "sweep.db", "iteration_time_s")) {
    char buf[32];
    int p = 1;
    for (; p < 17; ++p) {
      std::snprintf(buf, sizeof buf, "%.*g", p, v);
      if (std::strtod(buf, nullptr) == v) break;
    }
    const int e = v != 0 ? static_cast<int>(std::floor(std::log10(std::fabs(v)))) : 0;
    if (e >= p && e < 17) p = e + 1;
    std::snprintf(buf, sizeof buf, "%.*g", p, v);
    EXPECT_NE(script.find(" " + std::string(buf) + "\n"), std::string::npos) << buf << "\n" << script;
  }
  EXPECT_EQ(script.find("000000000"), std::string::npos) << script;

  fs::path png = dir_ / "p.png";
  r = sh(bin() + " plot " + out.string() +
         " --x /workload/model --y samples_per_s --where '/cluster/node/gpu/mem_bw=2TB/s' -o " + png.string());
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(slurp(png).substr(1, 3), "PNG");
  EXPECT_NE(slurp(dir_ / "p.gp").find("set xtics ('gpt2-small' 0, 'bert-base' 1)"), std::string::npos);

  EXPECT_EQ(sh(bin() + " plot " + out.string() + " --x /cluster/nodes --y samples_per_s").code, 2);  // not a column
  EXPECT_EQ(sh(bin() + " plot " + out.string() + " --x /cluster/node/gpu/mem_bw --y /workload/model").code,
            2);  // text y
  EXPECT_EQ(sh(bin() + " plot " + out.string() + " --x /workload/model --y samples_per_s -o x.jpg").code, 2);
}

// Two micro-batch sizes of GPT-2 small, which fits on 2 GPUs, and of Llama 2 7B, which does not
// (16 bytes per parameter of mixed-precision Adam, about 108 GB, against 80 GiB of HBM: DOMAIN.md
// section 7): the Llama points are refused at load as `trainvp run` refuses them.
json infeasible_grid() {
  json s = spec_with(json::array({{{"path", "/workload/model"}, {"values", {"gpt2-small", "llama2-7b"}}},
                                  {{"path", "/workload/batch"}, {"values", {4, 1}}}}));
  s["set"] = {{"/training/parallel", {{"tp", 1}, {"pp", 1}}}};
  s["metrics"] = {{"iteration_time_s", "/iteration_time_s"}};
  s["infeasible"] = {"/training/parallel"};
  s["best"] = {{"metric", "iteration_time_s"}};
  return s;
}

TEST_F(SweepCli, InfeasiblePointsAreRecordedWithTheirErrorNotRunAndBestNamesTheFastestThatRan) {
  fs::path child = logging_child(), out = dir_ / "out";
  std::string env = "TRAINVP_SWEEP_CHILD=" + child.string();
  json s = infeasible_grid();
  fs::path sp = spec("s.json", s);

  Cmd dry = sweep(sp, "--dry-run");
  EXPECT_EQ(dry.code, 0) << dry.out;
  EXPECT_NE(dry.out.find("every point is valid; 2 infeasible (not run)"), std::string::npos) << dry.out;

  Cmd r = sweep(sp, "-o " + out.string() + " -j 2", env);
  EXPECT_EQ(r.code, 0) << "an infeasible point is not a failure\n" << r.out;
  EXPECT_NE(r.out.find("4 points, 2 ok, 0 failed, 2 infeasible"), std::string::npos) << r.out;
  EXPECT_EQ(child_runs(), 2u) << "only the points that fit run";
  auto rows = db_rows(out / "sweep.db");
  ASSERT_EQ(rows.size(), 4u);
  for (std::size_t i = 2; i < 4; ++i) {
    EXPECT_EQ(rows[i]["status"], "infeasible");
    EXPECT_EQ(rows[i]["exit_code"], "2");
    EXPECT_EQ(rows[i]["iteration_time_s"], "NULL");
    EXPECT_EQ(rows[i]["error"].rfind("/training/parallel: GPU node0.gpu0 (stage 0) needs ", 0), 0u) << rows[i]["error"];
    EXPECT_NE(rows[i]["error"].find("but has 80 GiB of HBM"), std::string::npos) << rows[i]["error"];
    json rec = json::parse(slurp(out / "points" / rows[i]["id"] / "point.json"));
    EXPECT_EQ(rec["status"], "infeasible");
    EXPECT_EQ(rec["error"], rows[i]["error"]);
    EXPECT_FALSE(fs::exists(out / "points" / rows[i]["id"] / "results.json"));
    // The same message as `trainvp run` of that point, which exits 2.
    Cmd run =
        sh(bin() + " validate " + (dir_ / "base.json").string() +
           " --set '/training/parallel={\"tp\":1,\"pp\":1}' --set /workload/model=llama2-7b --set /workload/batch=" +
           (i == 2 ? "4" : "1"));
    EXPECT_EQ(run.code, 2);
    EXPECT_NE(run.out.find(rows[i]["error"]), std::string::npos) << run.out;
  }
  // Batch 1 does a quarter of batch 4's work per iteration: it is the fastest point that ran.
  ASSERT_EQ(rows[1]["status"], "ok");
  ASSERT_EQ(rows[0]["status"], "ok");
  EXPECT_LT(std::stod(rows[1]["iteration_time_s"]), std::stod(rows[0]["iteration_time_s"]));
  EXPECT_NE(r.out.find("best (lowest iteration_time_s): point #1 " + rows[1]["id"] +
                       " (/workload/model=\"gpt2-small\", /workload/batch=1): iteration_time_s = "),
            std::string::npos)
      << r.out;
  auto best_of = [&](const fs::path& db) {
    sqlite3* h = nullptr;
    std::string v;
    if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
      sqlite3_stmt* q = nullptr;
      sqlite3_prepare_v2(h, "SELECT value FROM sweep WHERE key = 'best'", -1, &q, nullptr);
      if (q && sqlite3_step(q) == SQLITE_ROW) v = reinterpret_cast<const char*>(sqlite3_column_text(q, 0));
      sqlite3_finalize(q);
    }
    sqlite3_close(h);
    return v.empty() ? json() : json::parse(v);
  };
  json best = best_of(out / "sweep.db");
  EXPECT_EQ(best["id"], rows[1]["id"]);
  EXPECT_EQ(best["goal"], "min");
  EXPECT_DOUBLE_EQ(best["value"].get<double>(), std::stod(rows[1]["iteration_time_s"]));
  EXPECT_EQ(best["parameters"]["/workload/batch"], 1);

  // The highest instead: the batch-4 point.
  s["best"]["goal"] = "max";
  Cmd hi = sweep(spec("hi.json", s), "-o " + (dir_ / "hi").string() + " -j 2");
  EXPECT_NE(hi.out.find("best (highest iteration_time_s): point #0 " + rows[0]["id"]), std::string::npos) << hi.out;

  // Two shards, merged: the same rows, and the best recomputed over all of them (shard 2 holds
  // idx 1 and 3; shard 1 alone would name point #0).
  for (int i = 1; i <= 2; ++i)
    EXPECT_EQ(
        sweep(sp, "-o " + (dir_ / ("shard" + std::to_string(i))).string() + " --shard " + std::to_string(i) + "/2")
            .code,
        0);
  Cmd m = sh(bin() + " merge " + (dir_ / "merged").string() + " " + (dir_ / "shard1").string() + " " +
             (dir_ / "shard2").string());
  EXPECT_EQ(m.code, 0) << m.out;
  EXPECT_NE(m.out.find("4 points (2 ok, 0 failed, 2 infeasible, 0 pending)"), std::string::npos) << m.out;
  EXPECT_NE(m.out.find("best (lowest iteration_time_s): point #1 " + rows[1]["id"]), std::string::npos) << m.out;
  EXPECT_EQ(best_of(dir_ / "merged" / "sweep.db")["id"], rows[1]["id"]);
  EXPECT_EQ(db_rows(dir_ / "merged" / "sweep.db", {"wall_s"}), db_rows(out / "sweep.db", {"wall_s"}));

  // Without "infeasible" the same grid is a bad sweep, refused before anything runs; and an
  // error outside the infeasible pointers still is.
  json strict = infeasible_grid();
  strict.erase("infeasible");
  Cmd refused = sweep(spec("strict.json", strict), "-o " + (dir_ / "strict").string());
  EXPECT_EQ(refused.code, 2);
  EXPECT_NE(refused.out.find("point #2 (/workload/model=\"llama2-7b\", /workload/batch=4): /training/parallel: GPU"),
            std::string::npos)
      << refused.out;
  json elsewhere = infeasible_grid();
  elsewhere["set"]["/cluster/node/gpus"] = 0;
  EXPECT_EQ(sweep(spec("elsewhere.json", elsewhere), "-o " + (dir_ / "elsewhere").string()).code, 2);
  EXPECT_FALSE(fs::exists(dir_ / "strict"));
  EXPECT_FALSE(fs::exists(dir_ / "elsewhere"));
}

TEST(SweepExamples, EveryShippedSpecIsValid) {
  int checked = 0;
  for (auto& e : fs::directory_iterator(fs::path(TRAINVP_SOURCE_DIR) / "scenarios" / "sweeps")) {
    if (e.path().extension() != ".json") continue;
    json spec = json::parse(slurp(e.path()));
    if (!spec.contains("sweep")) continue;  // a base scenario
    // Specs over the CXL device need the build with the Verilated RTL.
    if (spec.value("base", "").find("cxl/") != std::string::npos && !trainvp::rtl_available()) continue;
    Cmd r = sh(bin() + " sweep " + e.path().string() + " --dry-run");
    EXPECT_EQ(r.code, 0) << e.path() << ": " << r.out;
    EXPECT_NE(r.out.find("every point is valid"), std::string::npos) << r.out;
    ++checked;
  }
  EXPECT_GE(checked, 3);
}

}  // namespace test_sweep
