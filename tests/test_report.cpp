// `trainvp report` and `trainvp run --report` as a person sees them: shipped scenarios are run,
// their pages loaded in headless Chromium (skipped when it is not installed), and the page must
// load with no script error, show each chart it should with data in it, and show the numbers
// results.json holds (results.json is parsed here, independently of the page). A sweep's page is
// drawn from a sweep.db written here. Bad input is refused with exit 2 and nothing written.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/sweep/store.hpp"
#include "tests/command.hpp"

namespace trainvp {
namespace test_report {  // named for the file: unity builds join test files

namespace fs = std::filesystem;
using json = nlohmann::json;
using test::run_command;
using test::trainvp;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// This process's scratch directory, removed when the process ends.
const fs::path& scratch() {
  static const struct Scratch {
    fs::path root = fs::path(testing::TempDir()) / ("trainvp-report-" + std::to_string(getpid()));
    ~Scratch() {
      std::error_code ec;
      fs::remove_all(root, ec);
    }
  } s;
  return s.root;
}

fs::path temp_dir(const std::string& name) {
  fs::path d = scratch() / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Chromium from Debian's package (scripts/install-deps), or "" when absent. $TRAINVP_CHROMIUM
// names another one (a path that does not exist: as if absent, which is how the skip is tried).
std::string chromium() {
  if (const char* c = std::getenv("TRAINVP_CHROMIUM")) return fs::exists(c) ? c : "";
  for (const char* c : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (fs::exists(c)) return c;
  return "";
}

// The page after its scripts ran, as headless Chromium serializes it.
std::string browser_dom(const fs::path& page, const fs::path& profile) {
  auto r =
      run_command("timeout 90 " + chromium() +
                  " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --user-data-dir=" + profile.string() +
                  " --dump-dom file://" + fs::absolute(page).string() + " 2>/dev/null");
  EXPECT_EQ(r.code, 0) << r.out.substr(0, 2000);
  return r.out;
}

// A screenshot as a person would see it; returns the PNG's size in bytes.
std::uintmax_t screenshot(const fs::path& page, const fs::path& png, const fs::path& profile) {
  auto r = run_command(
      "timeout 90 " + chromium() + " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars" +
      " --user-data-dir=" + profile.string() + " --window-size=1100,2400 --screenshot=" + png.string() + " file://" +
      fs::absolute(page).string());
  EXPECT_EQ(r.code, 0) << r.out.substr(0, 2000);
  if (!fs::exists(png)) return 0;
  const std::string head = read_text(png).substr(0, 8);
  EXPECT_EQ(head, std::string("\x89PNG\r\n\x1a\n", 8));
  return fs::file_size(png);
}

struct Chart {
  long marks = 0;
  long titles = 0;  // every data mark carries a hover title
};

// Each <svg data-chart="ID" data-marks="N"> of a page, with its hover titles counted.
std::map<std::string, Chart> charts_of(const std::string& html) {
  std::map<std::string, Chart> out;
  static const std::regex open(R"re(<svg class="chart" data-chart="([^"]+)" data-marks="([0-9]+)")re");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), open); it != std::sregex_iterator(); ++it) {
    const std::size_t begin = it->position(0), end = html.find("</svg>", begin);
    const std::string svg = html.substr(begin, end - begin);
    Chart c;
    c.marks = std::stol((*it)[2]);
    for (auto at = svg.find("<title>"); at != std::string::npos; at = svg.find("<title>", at + 1)) ++c.titles;
    out[(*it)[1]] = c;
  }
  return out;
}

// A number as the page writes it for a reader ("16.75 s", "12.5 ms", "42.24%", "3 GiB",
// "22 min 19 s"), in the unit results.json uses.
double reader_value(const std::string& text) {
  static const std::regex minutes(R"(^(-?[0-9.]+) min ([0-9.]+) s$)");
  std::smatch m;
  if (std::regex_match(text, m, minutes)) return std::stod(m[1]) * 60 + std::stod(m[2]);
  std::size_t used = 0;
  const double v = std::stod(text, &used);
  const std::string unit = text.substr(used);
  static const std::map<std::string, double> scale = {{"", 1},
                                                      {" s", 1},
                                                      {" ms", 1e-3},
                                                      {" us", 1e-6},
                                                      {" ns", 1e-9},
                                                      {"%", 1e-2},
                                                      {" B", 1},
                                                      {" KiB", 1024.0},
                                                      {" MiB", 1048576.0},
                                                      {" GiB", 1073741824.0},
                                                      {" TiB", 1099511627776.0},
                                                      {" PiB", 1125899906842624.0}};
  auto it = scale.find(unit);
  EXPECT_NE(it, scale.end()) << "a unit the test does not know: \"" << text << "\"";
  return it == scale.end() ? NAN : v * it->second;
}

// Every numeric cell with a JSON pointer must show results.json's value there: exactly in its
// data-value, and to the digits written in its text. Returns how many cells were checked.
int check_numbers(const std::string& html, const json& results) {
  static const std::regex cell(R"re(<td class="num" data-value="([^"]+)" data-key="([^"]+)">([^<]*)</td>)re");
  int n = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), cell); it != std::sregex_iterator(); ++it, ++n) {
    const std::string key = (*it)[2], text = (*it)[3];
    const json& truth = results.at(json::json_pointer(key));
    EXPECT_TRUE(truth.is_number()) << key;
    const double want = truth.get<double>();
    EXPECT_EQ(std::stod((*it)[1]), want) << key;
    const double shown = reader_value(text);
    const double tolerance = text.find(" min ") != std::string::npos ? 0.6 : std::fabs(want) * 1e-3 + 1e-300;
    EXPECT_NEAR(shown, want, tolerance) << key << " shows \"" << text << "\"";
  }
  return n;
}

// A shipped scenario run with --report into its own directory.
struct ReportRun {
  fs::path dir;
  json results;
  std::string html, out;
};

ReportRun run_with_report(const std::string& name, const std::string& scenario, const std::string& extra = "") {
  ReportRun r;
  r.dir = temp_dir(name);
  auto c = trainvp("run " + scenario + " -o " + r.dir.string() + " --report " + extra);
  EXPECT_EQ(c.code, 0) << c.out;
  r.out = c.out;
  r.results = json::parse(read_text(r.dir / "results.json"));
  r.html = read_text(r.dir / "report.html");
  return r;
}

const ReportRun& fail_slow() {  // faults, health (detector, diagnoses, the S2 ladder), SLO
  static const ReportRun r = run_with_report("s2", "scenarios/greyhound/s2-slow-gpu-16gpu.json");
  return r;
}
const ReportRun& pipeline() {  // TP 8 x PP 4 over 4 nodes with its trace: the Gantt chart
  static const ReportRun r =
      run_with_report("pp", "scenarios/workloads/mixtral-8x7b-tp8-pp4-32gpu.json", "--set /output/trace=true");
  return r;
}

TEST(Report, RunReportNamesThePageInItsSummary) {
  const ReportRun& r = fail_slow();
  EXPECT_NE(r.out.find("report in " + (r.dir / "report.html").string()), std::string::npos) << r.out;
  EXPECT_EQ(r.html.rfind("<!DOCTYPE html>", 0), 0u);
}

TEST(Report, AFailSlowRunShowsEveryChartItHasDataFor) {
  const ReportRun& r = fail_slow();
  auto charts = charts_of(r.html);
  for (const char* id : {"iteration-time", "rank-split", "collectives", "link-tiers", "ladder"}) {
    ASSERT_TRUE(charts.count(id)) << id;
    EXPECT_GT(charts[id].marks, 0) << id;
  }
  // One point per iteration, one span per fault, a marker per change, diagnosis and action, the SLO band.
  const json& h = r.results["health"];
  const long expected =
      static_cast<long>(r.results["iterations"].size() + r.results["faults"].size() + h["detector"]["changes"].size() +
                        h["diagnoses"].size() + h["mitigation"]["actions"].size() + 1);
  EXPECT_EQ(charts["iteration-time"].marks, expected);
  EXPECT_EQ(charts["rank-split"].marks, static_cast<long>(3 * r.results["ranks"].size()));
  for (const char* section : {"summary", "iteration-time", "time-split", "links", "detector", "diagnoses", "ladder"})
    EXPECT_NE(r.html.find("data-section=\"" + std::string(section) + "\""), std::string::npos) << section;
  // No pipeline and no trace: said in one line, not drawn.
  EXPECT_NE(r.html.find("data-omitted=\"pipeline\""), std::string::npos);
  EXPECT_FALSE(charts.count("pipeline"));
  for (const char* absent : {"jobs", "train"})
    EXPECT_NE(r.html.find("data-omitted=\"" + std::string(absent) + "\""), std::string::npos);
}

TEST(Report, ThePagesNumbersAreResultsJsons) {
  EXPECT_GE(check_numbers(fail_slow().html, fail_slow().results), 25);
  EXPECT_GE(check_numbers(pipeline().html, pipeline().results), 15);
}

TEST(Report, ThePipelineGanttHasEveryMicroBatchOfEachStage) {
  const ReportRun& r = pipeline();
  auto charts = charts_of(r.html);
  ASSERT_TRUE(charts.count("pipeline")) << r.html.substr(0, 3000);
  // Per stage: every micro-batch forward and backward once (1F1B without split backward).
  const json& p = r.results["parallel"];
  EXPECT_EQ(charts["pipeline"].marks, p["pp"].get<long>() * p["micro_batches"].get<long>() * 2);
  ASSERT_TRUE(charts.count("stage-split"));
  EXPECT_EQ(charts["stage-split"].marks, static_cast<long>(5 * p["stages"].size()));
}

// The row labels of heat map `id` on a page, in order.
std::vector<std::string> heat_map_rows(const std::string& html, const std::string& id) {
  std::vector<std::string> rows;
  const std::size_t at = html.find("data-chart=\"" + id + "\"");
  if (at == std::string::npos) return rows;
  const std::string svg = html.substr(at, html.find("</svg>", at) - at);
  static const std::regex label(R"re(class="row-label"[^>]*>([^<]*)</text>)re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), label); it != std::sregex_iterator(); ++it)
    rows.push_back(std::regex_replace((*it)[1].str(), std::regex("&gt;"), ">"));  // as HTML writes "->"
  return rows;
}

// Every tier of link_series.json (read here) has its heat map: a row for each of its 32 busiest
// links by busy time, busiest first, and no more cells than rows x intervals.
void expect_tier_heat_maps(const ReportRun& r) {
  const json series = json::parse(read_text(r.dir / "link_series.json"));
  std::map<std::string, std::vector<std::pair<double, std::string>>> tiers;  // (-busy, name)
  for (const json& l : series["links"]) tiers[l["tier"]].push_back({-l["busy_s"].get<double>(), l["name"]});
  ASSERT_FALSE(tiers.empty());
  auto charts = charts_of(r.html);
  for (auto& [tier, links] : tiers) {
    std::sort(links.begin(), links.end());
    const std::string id = "link-heatmap-" + tier;
    ASSERT_TRUE(charts.count(id)) << id;
    const std::size_t rows = std::min<std::size_t>(links.size(), 32);
    EXPECT_GT(charts[id].marks, 0) << id;
    EXPECT_LE(charts[id].marks, static_cast<long>(rows * series["intervals"].get<std::size_t>())) << id;
    std::vector<std::string> want;
    for (std::size_t i = 0; i < rows; ++i) want.push_back(links[i].second);
    EXPECT_EQ(heat_map_rows(r.html, id), want) << id;
  }
}

TEST(Report, EachLinkTierHasAHeatMapOfItsBusiestLinksOverTime) {
  expect_tier_heat_maps(pipeline());
  expect_tier_heat_maps(fail_slow());
}

// A three-tier Clos's spine-to-core links are a tier of their own, as results.json's link_tiers
// counts them (core_bytes): a ring over two pods crosses them.
TEST(Report, AThreeTierClosHasACoreTier) {
  const fs::path dir = temp_dir("clos");
  const json doc = {
      {"trainvp", 1},
      {"name", "clos"},
      {"cluster",
       {{"nodes", 4},
        {"node", {{"gpus", 1}, {"gpu", "H100-SXM5-80GB"}}},
        {"fabric", {{"topology", "three-tier"}, {"leaf_ports", 1}, {"pod_leaves", 2}, {"pod_spines", 2}}}}},
      {"workload",
       {{"kind", "collective"}, {"op", "all_reduce"}, {"bytes", "4MiB"}, {"iterations", 1}, {"warmup", 0}}}};
  std::ofstream(dir / "clos.json") << doc.dump();
  const ReportRun r = run_with_report("clos-run", (dir / "clos.json").string());
  ASSERT_GT(r.results["link_tiers"]["core_bytes"].get<double>(), 0);
  EXPECT_NE(r.html.find("core (spine to core)"), std::string::npos);
  expect_tier_heat_maps(r);
}

TEST(Report, TrainingDrawsLossAndAccuracyOfEveryEvaluation) {
  const ReportRun r = run_with_report("train", "scenarios/strategies/tta-ddp.json", "--set /training/iterations=20");
  auto charts = charts_of(r.html);
  const json& evaluations = r.results["train"]["evaluations"];
  ASSERT_GT(evaluations.size(), 0u);
  long losses = 0, accuracies = 0;
  for (const json& e : evaluations) {
    losses += e.contains("loss") && e["loss"].is_number();
    losses += e.contains("train_loss") && e["train_loss"].is_number();
    accuracies += e.contains("accuracy") && e["accuracy"].is_number();
  }
  ASSERT_TRUE(charts.count("train-loss") && charts.count("train-accuracy"));
  EXPECT_EQ(charts["train-loss"].marks, losses);
  // The target accuracy's line, and the time it was reached when it was.
  EXPECT_EQ(charts["train-accuracy"].marks, accuracies + 1 +
                                                (r.results["train"].contains("time_to_target_s") &&
                                                 r.results["train"]["time_to_target_s"].is_number()));
  EXPECT_GE(check_numbers(r.html, r.results), 15);
}

TEST(Report, EachJobHasItsSection) {
  const ReportRun r = run_with_report("jobs", "scenarios/fabric/two-jobs-spread.json");
  auto charts = charts_of(r.html);
  const json& jobs = r.results["jobs"];
  ASSERT_EQ(jobs.size(), 2u);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    EXPECT_NE(r.html.find("data-section=\"job-" + std::to_string(j) + "\""), std::string::npos);
    const std::string id = "job-" + std::to_string(j) + "-iteration-time";
    ASSERT_TRUE(charts.count(id)) << id;
    EXPECT_EQ(charts[id].marks, static_cast<long>(jobs[j]["iterations"].size()));
  }
  EXPECT_NE(r.html.find("data-omitted=\"iteration-time\""), std::string::npos);  // the run's own: per job instead
  EXPECT_GE(check_numbers(r.html, r.results), 10);
  // The links both jobs' traffic crossed (link_series.json's job_bytes, read here): a row each,
  // and the 12 busiest as bars of bytes stacked by job.
  const json series = json::parse(read_text(r.dir / "link_series.json"));
  std::size_t shared = 0;
  for (const json& l : series["links"])
    shared += l["job_bytes"][0].get<double>() > 0 && l["job_bytes"][1].get<double>() > 0;
  ASSERT_GT(shared, 0u);
  ASSERT_TRUE(charts.count("shared-links"));
  EXPECT_GT(charts["shared-links"].marks, 0);
  EXPECT_LE(charts["shared-links"].marks, static_cast<long>(2 * std::min<std::size_t>(shared, 12)));
  const std::size_t at = r.html.find("data-table=\"shared-links\"");
  ASSERT_NE(at, std::string::npos);
  std::size_t rows = 0;
  for (std::size_t p = r.html.find("<tr><td", at); p != std::string::npos && p < r.html.find("</table>", at);
       p = r.html.find("<tr><td", p + 1))
    ++rows;
  EXPECT_EQ(rows, shared);
  // The fleet table: a row per training job and one for all (its numbers checked above against
  // results.json with the rest).
  const std::size_t fleet = r.html.find("data-table=\"fleet\"");
  ASSERT_NE(fleet, std::string::npos);
  rows = 0;
  for (std::size_t p = r.html.find("<tr><td", fleet); p != std::string::npos && p < r.html.find("</table>", fleet);
       p = r.html.find("<tr><td", p + 1))
    ++rows;
  EXPECT_EQ(rows, jobs.size() + 1);
}

TEST(Report, TheSamePageComesFromTheSameRun) {
  const ReportRun& r = fail_slow();
  const fs::path again = r.dir / "again.html";
  auto c = trainvp("report " + r.dir.string() + " -o " + again.string());
  ASSERT_EQ(c.code, 0) << c.out;
  EXPECT_TRUE(read_text(again) == r.html);
}

TEST(Report, BadInputIsRefusedWithItsPointerAndNothingWritten) {
  const fs::path d = temp_dir("bad");
  auto c = trainvp("report " + d.string());
  EXPECT_EQ(c.code, 2) << c.out;
  EXPECT_NE(c.out.find("holds no results.json"), std::string::npos) << c.out;
  json broken = fail_slow().results;
  broken["iterations"][3]["duration_s"] = "slow";
  std::ofstream(d / "results.json") << broken.dump();
  c = trainvp("report " + d.string());
  EXPECT_EQ(c.code, 2) << c.out;
  EXPECT_NE(c.out.find("/iterations/3/duration_s: expected a number in " + (d / "results.json").string()),
            std::string::npos)
      << c.out;
  EXPECT_FALSE(fs::exists(d / "report.html"));
  // link_series.json is read the same way: a wrong type is named by its pointer in that file.
  std::ofstream(d / "results.json") << fail_slow().results.dump();
  json series = json::parse(read_text(fail_slow().dir / "link_series.json"));
  series["links"][2]["busy"] = "busy";
  std::ofstream(d / "link_series.json") << series.dump();
  c = trainvp("report " + d.string());
  EXPECT_EQ(c.code, 2) << c.out;
  EXPECT_NE(c.out.find("/links/2/busy: expected an array in " + (d / "link_series.json").string()), std::string::npos)
      << c.out;
  EXPECT_FALSE(fs::exists(d / "report.html"));
  EXPECT_EQ(trainvp("report").code, 2);
  EXPECT_EQ(trainvp("report " + d.string() + " --bogus").code, 2);
}

// The metric of write_sweep's point of `nodes` nodes and link rate `bw`; none for 4 nodes (infeasible, failed).
json sweep_metric(int nodes, const std::string& bw) {
  return nodes == 4 ? json() : json(1.0 / nodes + (bw[0] == '1' ? 0.5 : 0.0));
}

// A sweep.db as `trainvp sweep` writes it: two parameters, two metrics, points ok, infeasible and failed.
fs::path write_sweep(const std::string& name) {
  const fs::path d = temp_dir(name);
  const json spec = {
      {"sweep", 1},
      {"name", "tiny"},
      {"base", "base.json"},
      {"parameters",
       {{{"path", "/cluster/nodes"}, {"values", {1, 2, 4}}},
        {{"path", "/cluster/fabric/link_bw"}, {"values", {"100Gbps", "400Gbps"}}}}},
      {"infeasible", {"/cluster"}},
      {"metrics", {{"iteration_time_s", "/iteration_time_s"}}},
      {"best", {{"metric", "iteration_time_s"}}},
      {"plots",
       {{{"x", "/cluster/nodes"}, {"y", "iteration_time_s"}, {"by", "/cluster/fabric/link_bw"}, {"file", "it.svg"}}}}};
  std::vector<sweep::ColumnInfo> cols = {{"/cluster/nodes", "parameter", "/cluster/nodes", "", ""},
                                         {"/cluster/fabric/link_bw", "parameter", "/cluster/fabric/link_bw", "", ""},
                                         {"iteration_time_s", "metric", "/iteration_time_s", "s", ""}};
  auto store = sweep::Store::create(
      (d / "sweep.db").string(), cols,
      {{"name", "tiny"},
       {"description", "a test sweep"},
       {"spec", spec.dump()},
       {"spec_file", (d / "tiny.json").string()},
       {"base", "base.json"},
       {"design", "grid"},
       {"shard", "all"},
       {"trainvp_version", "0.1.0"},
       {"best", json({{"id", "p1"},
                      {"idx", 1},
                      {"metric", "iteration_time_s"},
                      {"goal", "min"},
                      {"value", 0.5},
                      {"parameters", {{"/cluster/nodes", 1}, {"/cluster/fabric/link_bw", "400Gbps"}}}})
                    .dump()}});
  store.begin();
  int idx = 0;
  for (int nodes : {1, 2, 4})
    for (const char* bw : {"100Gbps", "400Gbps"}) {
      sweep::PointRow row;
      row.id = "p" + std::to_string(idx);
      row.idx = idx;
      row.params = {nodes, bw};
      row.status = nodes == 4 ? (bw[0] == '1' ? "infeasible" : "failed") : "ok";
      row.exit_code = nodes == 4 ? json(2) : json(0);
      row.wall_s = 0.25 * (idx + 1);
      row.metrics = {sweep_metric(nodes, bw)};
      row.error = nodes == 4 ? json("/cluster/nodes: needs 4 nodes' HBM, 80 GiB each") : json();
      store.put(row);
      ++idx;
    }
  store.commit();
  return d;
}

TEST(Report, ASweepsPageHasItsDesignBestPlotsInfeasiblePointsAndTable) {
  const fs::path d = write_sweep("sweep");
  auto c = trainvp("report " + d.string());
  ASSERT_EQ(c.code, 0) << c.out;
  const std::string html = read_text(d / "report.html");
  auto charts = charts_of(html);
  ASSERT_TRUE(charts.count("plot-0"));
  EXPECT_EQ(charts["plot-0"].marks, 4);  // the ok points only
  for (const char* section : {"design", "best", "plots", "infeasible", "failed", "points"})
    EXPECT_NE(html.find("data-section=\"" + std::string(section) + "\""), std::string::npos) << section;
  EXPECT_NE(html.find("needs 4 nodes&#39; HBM, 80 GiB each"), std::string::npos);
  EXPECT_NE(html.find("<table class=\"sortable\" data-table=\"points\">"), std::string::npos);
  std::size_t rows = 0, at = html.find("data-table=\"points\"");
  for (at = html.find("<tr><td", at);
       at != std::string::npos && at < html.find("</table>", html.find("data-table=\"points\""));
       at = html.find("<tr><td", at + 1))
    ++rows;
  EXPECT_EQ(rows, 6u);
}

// As a person sees them: each page loads in headless Chromium with no script error, its scripts
// run to the end, every chart is there with a hover title per data mark, and a screenshot is taken.
TEST(Report, PagesLoadInHeadlessChromiumWithoutErrors) {
  if (chromium().empty())
    GTEST_SKIP() << "chromium is not installed (scripts/install-deps installs it; $TRAINVP_CHROMIUM names another)";
  const fs::path profile = temp_dir("chromium-profile");
  const fs::path sweep_dir = write_sweep("sweep-browser");
  ASSERT_EQ(trainvp("report " + sweep_dir.string()).code, 0);
  struct Page {
    fs::path file;
    std::vector<std::string> charts;
    const json* results;
  };
  const std::vector<Page> pages = {
      {fail_slow().dir / "report.html",
       {"iteration-time", "rank-split", "collectives", "link-tiers", "ladder"},
       &fail_slow().results},
      {pipeline().dir / "report.html",
       {"iteration-time", "stage-split", "rank-split", "pipeline", "link-heatmap-nvlink", "link-heatmap-nic"},
       &pipeline().results},
      {sweep_dir / "report.html", {"plot-0"}, nullptr}};
  for (const Page& p : pages) {
    const std::string dom = browser_dom(p.file, profile);
    EXPECT_NE(dom.find("data-report-ready=\"1\""), std::string::npos) << p.file << ": the page's script did not finish";
    EXPECT_NE(dom.find("<div id=\"js-errors\"></div>"), std::string::npos)
        << p.file << ": " << dom.substr(dom.find("js-errors"), 400);
    auto charts = charts_of(dom);
    for (const std::string& id : p.charts) {
      ASSERT_TRUE(charts.count(id)) << p.file << ": " << id;
      EXPECT_GT(charts[id].marks, 0) << id;
      EXPECT_GE(charts[id].titles, charts[id].marks) << id;
    }
    if (p.results) {
      EXPECT_GE(check_numbers(dom, *p.results), 15) << p.file;
    }
  }
  EXPECT_GT(screenshot(pages[0].file, fail_slow().dir / "report.png", profile), 20000u);
  // The check sees a script error when there is one: the same page with a call to nothing.
  std::string broken = read_text(pages[0].file);
  broken.replace(broken.find("document.documentElement.setAttribute"), 0, "no_such_function();");
  const fs::path broken_page = fail_slow().dir / "broken.html";
  std::ofstream(broken_page) << broken;
  const std::string dom = browser_dom(broken_page, profile);
  EXPECT_NE(dom.find("<div id=\"js-errors\">error: Uncaught ReferenceError: no_such_function"), std::string::npos)
      << dom.substr(0, 2000);
  EXPECT_EQ(dom.find("data-report-ready=\"1\""), std::string::npos);
}

// Clicking a heading of the sweep's table of points sorts its rows, as a person would click it: a
// script put where the page marks itself ready clicks the metric's heading twice and records the
// ids in the table's order after each click, which the DOM Chromium dumps then holds.
TEST(Report, ClickingAHeadingOfTheSweepsTableSortsItsRows) {
  if (chromium().empty())
    GTEST_SKIP() << "chromium is not installed (scripts/install-deps installs it; $TRAINVP_CHROMIUM names another)";
  const fs::path d = write_sweep("sweep-sort");
  ASSERT_EQ(trainvp("report " + d.string()).code, 0);
  std::string page = read_text(d / "report.html");
  const char* clicks =
      "var t=document.querySelector('table[data-table=\"points\"]');"
      "var h=Array.prototype.filter.call(t.querySelectorAll('th'),function(x){return x.textContent==='iteration_time_s "
      "(s)';})[0];"
      "function order(){return Array.prototype.map.call(t.tBodies[0].rows,function(r){return "
      "r.cells[1].textContent;}).join(' ')+' '+h.getAttribute('data-sort');}"
      "h.click();t.setAttribute('data-first-click',order());h.click();t.setAttribute('data-second-click',order());";
  page.replace(page.find("document.documentElement.setAttribute"), 0, clicks);
  std::ofstream(d / "clicked.html") << page;
  const std::string dom = browser_dom(d / "clicked.html", temp_dir("chromium-sort-profile"));
  EXPECT_NE(dom.find("<div id=\"js-errors\"></div>"), std::string::npos) << dom.substr(dom.find("js-errors"), 400);
  // The order the metric gives, from the points written: by value (ties in the order they were
  // in), the points without a value after them either way.
  struct Point {
    std::string id;
    json metric;
  };
  std::vector<Point> points;
  int idx = 0;
  for (int nodes : {1, 2, 4})
    for (const char* bw : {"100Gbps", "400Gbps"})
      points.push_back({"p" + std::to_string(idx++), sweep_metric(nodes, bw)});
  auto sorted = [](std::vector<Point> p, bool asc) {
    std::stable_sort(p.begin(), p.end(), [asc](const Point& a, const Point& b) {
      if (a.metric.is_number() && b.metric.is_number())
        return asc ? a.metric.get<double>() < b.metric.get<double>() : a.metric.get<double>() > b.metric.get<double>();
      return a.metric.is_number() && !b.metric.is_number();
    });
    return p;
  };
  auto ids = [](const std::vector<Point>& p, const char* dir) {
    std::string s;
    for (const Point& x : p) s += x.id + " ";
    return s + dir;
  };
  const std::vector<Point> ascending = sorted(points, true), descending = sorted(ascending, false);
  EXPECT_NE(ids(ascending, ""), ids(points, ""));  // the click has something to do
  EXPECT_NE(dom.find("data-first-click=\"" + ids(ascending, "asc") + "\""), std::string::npos)
      << "expected " << ids(ascending, "asc") << " in " << dom.substr(dom.find("data-table=\"points\""), 300);
  EXPECT_NE(dom.find("data-second-click=\"" + ids(descending, "desc") + "\""), std::string::npos)
      << "expected " << ids(descending, "desc") << " in " << dom.substr(dom.find("data-table=\"points\""), 300);
}

}  // namespace test_report
}  // namespace trainvp
