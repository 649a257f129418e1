#include "platform/report/output_files.hpp"

#include <filesystem>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <vector>

namespace trainvp {

namespace fs = std::filesystem;

void write_run_outputs(const std::string& dir, const RunResults& results, const TraceRecorder& trace) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create output directory \"" + dir + "\": " + ec.message());

  std::vector<std::pair<std::string, std::function<void(std::ostream&)>>> files = {
      {"results.json", [&](std::ostream& o) { o << results.json.dump(2) << '\n'; }},
      {"iterations.csv", [&](std::ostream& o) { o << results.csv; }},
  };
  if (!results.link_series.empty())
    files.push_back({"link_series.json", [&](std::ostream& o) { o << results.link_series << '\n'; }});
  if (trace.enabled()) files.push_back({"trace.json", [&](std::ostream& o) { trace.write(o); }});
  if (!results.faults.empty()) files.push_back({"faults.json", [&](std::ostream& o) { o << results.faults; }});
  if (!results.train_csv.empty()) files.push_back({"train.csv", [&](std::ostream& o) { o << results.train_csv; }});

  std::vector<fs::path> temps;
  auto cleanup = [&] {
    for (auto& t : temps) fs::remove(t, ec);
  };
  for (auto& [name, writer] : files) {
    fs::path tmp = fs::path(dir) / ("." + name + ".tmp");
    temps.push_back(tmp);
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (out) writer(out);
    out.flush();
    if (!out) {
      cleanup();
      throw std::runtime_error("cannot write \"" + (fs::path(dir) / name).string() + "\"");
    }
  }
  for (std::size_t i = 0; i < files.size(); ++i) fs::rename(temps[i], fs::path(dir) / files[i].first);
  // A stale trace (or fault list) from an earlier run would now be misleading.
  if (!trace.enabled()) fs::remove(fs::path(dir) / "trace.json", ec);
  if (results.faults.empty()) fs::remove(fs::path(dir) / "faults.json", ec);
  if (results.train_csv.empty()) fs::remove(fs::path(dir) / "train.csv", ec);
  if (results.link_series.empty()) fs::remove(fs::path(dir) / "link_series.json", ec);
}

}  // namespace trainvp
