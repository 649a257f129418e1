#include "platform/report/html/run_report.hpp"

#include <filesystem>
#include <fstream>
#include <optional>

#include "platform/core/errors.hpp"
#include "platform/core/units.hpp"
#include "platform/report/html/charts.hpp"
#include "platform/report/html/run_sections.hpp"
#include "platform/report/html/svg.hpp"

namespace trainvp::html {

namespace fs = std::filesystem;

namespace {

Cell seconds_cell(const JsonView& v) { return number_cell(v.number(), seconds(v.number()), v.pointer()); }
Cell plain_cell(const JsonView& v, int digits = 6) {
  return number_cell(v.number(), num(v.number(), digits), v.pointer());
}

// The resolved scenario for the <details> block, with long layer lists cut: the layers are the
// workload's, summarised above, and can run to thousands.
nlohmann::json shortened_scenario(nlohmann::json s) {
  if (s.contains("workload") && s["workload"].is_object() && s["workload"].contains("layers") &&
      s["workload"]["layers"].is_array() && s["workload"]["layers"].size() > 8) {
    const std::size_t n = s["workload"]["layers"].size();
    s["workload"]["layers"] =
        nlohmann::json::array({s["workload"]["layers"][0], "... " + std::to_string(n - 1) + " more layers"});
  }
  return s;
}

// MFU where results.json has no /parallel/mfu: the model FLOP/s over the GPUs' peak at the
// workload's dtype (what the printed summary shows), when every GPU has the same peak.
Cell mfu_cell(const JsonView& r) {
  const JsonView sc = r["scenario"];
  if (!r.has("throughput") || !r["throughput"].has("model_flops_per_s") || !r.has("ranks") || !sc.has("workload") ||
      !sc["workload"].has("dtype") || !sc.has("cluster") || !sc["cluster"].has("node") ||
      !sc["cluster"]["node"].has("gpu"))
    return text_cell("not in results.json");
  if (sc["cluster"].has("gpu_overrides") && !sc["cluster"]["gpu_overrides"].raw().empty())
    return text_cell("n/a: gpu_overrides give GPUs different peaks");
  const std::string key = "peak_" + sc["workload"]["dtype"].text();
  const JsonView gpu = sc["cluster"]["node"]["gpu"];
  if (!gpu.has(key)) return text_cell("n/a: the GPU has no " + key);
  double peak = 0;
  try {
    peak = parse_flop_rate(gpu[key].text());
  } catch (const std::exception&) {
    gpu[key].fail("a FLOP rate such as \"989TFLOPS\"");
  }
  const double flops = r["throughput"]["model_flops_per_s"].number(),
               gpus = static_cast<double>(r["ranks"].raw().size());
  if (peak <= 0 || gpus <= 0 || flops <= 0) return text_cell("n/a: no FLOP count");
  const double mfu = flops / (gpus * peak);
  return number_cell(
      mfu, num(mfu * 100, 4) + "% (model FLOP/s / (" + num(gpus, 8) + " GPUs x " + key + " " + gpu[key].text() + "))");
}

}  // namespace

void summary_section(Page& page, const JsonView& r) {
  std::vector<std::pair<std::string, Cell>> rows;
  const JsonView sc = r["scenario"];
  rows.push_back({"scenario", text_cell(sc.text_or("name", ""))});
  if (sc.has("description")) rows.push_back({"description", text_cell(sc["description"].text())});
  if (sc.has("cluster") && sc["cluster"].has("nodes") && sc["cluster"].has("node") &&
      sc["cluster"]["node"].has("gpus")) {
    std::string gpu = r.has("ranks") && r["ranks"].raw().size() > 0 ? r["ranks"][0].text_or("gpu", "") : "";
    rows.push_back({"cluster", text_cell(num(sc["cluster"]["nodes"].number(), 8) + " nodes x " +
                                         num(sc["cluster"]["node"]["gpus"].number(), 8) + " GPUs" +
                                         (gpu.empty() ? "" : " (" + gpu + ")"))});
  }
  if (r.has("workload")) {
    const JsonView w = r["workload"];
    rows.push_back({"model", text_cell(w.text_or("model", ""))});
    if (w.has("parameters")) rows.push_back({"parameters", plain_cell(w["parameters"], 12)});
    if (w.has("global_batch")) rows.push_back({"global batch (samples)", plain_cell(w["global_batch"])});
  }
  if (sc.has("training") && sc["training"].has("iterations"))
    rows.push_back({"iterations", plain_cell(sc["training"]["iterations"])});
  if (r.has("iteration_time_s"))
    rows.push_back({"iteration time (mean after warm-up)", seconds_cell(r["iteration_time_s"])});
  if (r.has("throughput")) {
    const JsonView t = r["throughput"];
    if (t.has("samples_per_s")) rows.push_back({"throughput (samples/s)", plain_cell(t["samples_per_s"])});
    if (t.has("tokens_per_s")) rows.push_back({"throughput (tokens/s)", plain_cell(t["tokens_per_s"])});
    if (t.has("model_flops_per_s")) rows.push_back({"model FLOP/s", plain_cell(t["model_flops_per_s"], 4)});
  }
  if (r.has("parallel") && r["parallel"].has("mfu")) {
    const JsonView m = r["parallel"]["mfu"];
    rows.push_back({"MFU", number_cell(m.number(), num(m.number() * 100, 4) + "%", m.pointer())});
  } else if (r.has("iterations")) {
    rows.push_back({"MFU", mfu_cell(r)});
  }
  for (auto [key, name] :
       {std::pair{"compute_time_s", "compute per iteration"}, std::pair{"comm_time_s", "communication per iteration"},
        std::pair{"exposed_comm_s", "exposed communication per iteration"},
        std::pair{"bubble_s", "pipeline bubble per iteration"}})
    if (r.has(key)) rows.push_back({name, seconds_cell(r[key])});
  if (r.has("overlap_ratio")) rows.push_back({"overlap ratio", plain_cell(r["overlap_ratio"], 4)});
  if (r.has("parallel")) {
    const JsonView p = r["parallel"];
    rows.push_back({"layout", text_cell("TP " + num(p["tp"].number()) + " x PP " + num(p["pp"].number()) + " x DP " +
                                        num(p["dp"].number()) + ", " + p.text_or("schedule", "") + ", " +
                                        num(p.number_or("micro_batches", 0)) + " micro-batches, ZeRO " +
                                        num(p.number_or("zero", 0)))});
  }
  if (sc.has("training") && sc["training"].has("sync")) {
    const JsonView s = sc["training"]["sync"];
    rows.push_back({"synchronization", text_cell(s.text_or("strategy", "") + ", " + s.text_or("algorithm", "") +
                                                 ", bucket " + s.text_or("bucket", ""))});
  }
  if (r.has("sim")) {
    const JsonView s = r["sim"];
    if (s.has("fidelity"))
      rows.push_back(
          {"fidelity", text_cell(s["fidelity"].text() + (s.has("fidelity_auto") && s["fidelity_auto"].boolean()
                                                             ? " (chosen by the platform: fidelity auto)"
                                                             : " (set by the scenario)"))});
  }
  if (r.has("fast_forward") && r["fast_forward"].has("iterations_skipped")) {
    const JsonView f = r["fast_forward"];
    rows.push_back({"fast-forward", text_cell(std::string(f.has("enabled") && f["enabled"].boolean() ? "on" : "off") +
                                              ": " + num(f.number_or("iterations_simulated", 0), 8) + " simulated, " +
                                              num(f["iterations_skipped"].number(), 8) + " skipped")});
  }
  if (sc.has("seed")) rows.push_back({"seed", plain_cell(sc["seed"])});
  if (r.has("sim")) {
    const JsonView s = r["sim"];
    if (s.has("simulated_s")) rows.push_back({"simulated time", seconds_cell(s["simulated_s"])});
    if (s.has("wall_s")) rows.push_back({"wall-clock time of the run", seconds_cell(s["wall_s"])});
    if (s.has("events")) rows.push_back({"SystemC events", plain_cell(s["events"], 12)});
  }
  if (r.has("build"))
    rows.push_back({"built by", text_cell("trainvp " + r["build"].text_or("version", "") + " (" +
                                          r["build"].text_or("git_revision", "") + ", " +
                                          r["build"].text_or("build_type", "") + ")")});
  std::string body = render(key_values("summary", std::move(rows)));
  body += "<details><summary>The scenario as run, every default filled in (results.json /scenario)</summary><pre>" +
          escape(shortened_scenario(sc.raw()).dump(2)) + "</pre></details>\n";
  page.section("summary", "Summary", body);
}

long shown_iteration(const JsonView& run) {
  if (!run.has("iterations")) return -1;
  long last = -1;
  for (const JsonView& it : run["iterations"].items()) {
    last = static_cast<long>(it["index"].number());
    if (!(it.has("warmup") && it["warmup"].boolean())) return last;
  }
  return last;
}

std::string run_report_html(const std::string& dir) {
  const fs::path d(dir);
  const std::string results_path = (d / "results.json").string();
  if (!fs::is_regular_file(results_path))
    throw ScenarioError("", "\"" + dir + "\" holds no results.json (nor sweep.db)");
  const nlohmann::json doc = read_input_json(results_path, "results file");
  const JsonView r(doc, results_path);
  if (!doc.is_object()) r.fail("an object");
  const JsonView sc = r["scenario"];
  Page page("trainvp report: " + sc.text_or("name", dir),
            "run directory " + dir + ", trainvp " + r.text_or("trainvp_version", "?") + ". Every figure is read from " +
                "results.json" + (fs::is_regular_file(d / "link_series.json") ? ", link_series.json" : "") +
                (fs::is_regular_file(d / "trace.json") ? " and trace.json" : "") + "; hover a mark for its value.");
  summary_section(page, r);
  iteration_section(page, r);
  time_split_section(page, r);
  const fs::path trace = d / "trace.json";
  schedule_sections(page, r, fs::is_regular_file(trace) ? trace.string() : "");
  const std::string series_path = (d / "link_series.json").string();
  std::optional<nlohmann::json> series_doc;
  std::optional<JsonView> series;
  if (fs::is_regular_file(series_path)) {
    series_doc = read_input_json(series_path, "link series file");
    series.emplace(*series_doc, series_path);
    if (!series_doc->is_object()) series->fail("an object");
  }
  link_section(page, r, series ? &*series : nullptr);
  health_sections(page, r);
  job_sections(page, r, series ? &*series : nullptr);
  train_section(page, r);
  return page.render();
}

void write_file_atomically(const std::string& path, const std::string& text) {
  const fs::path p(path);
  const fs::path tmp = p.parent_path() / ("." + p.filename().string() + ".tmp");
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << text;
    if (!f.flush()) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw RunError("cannot write \"" + path + "\"");
    }
  }
  std::error_code ec;
  fs::rename(tmp, p, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw RunError("cannot write \"" + path + "\"");
  }
}

}  // namespace trainvp::html
