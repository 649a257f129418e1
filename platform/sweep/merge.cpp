#include "platform/sweep/merge.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <optional>

#include <nlohmann/json.hpp>

#include "platform/sweep/best.hpp"
#include "platform/sweep/input_error.hpp"
#include "platform/sweep/store.hpp"

namespace trainvp::sweep {

namespace fs = std::filesystem;

std::string sweep_db_path(const std::string& dir_or_db) {
  fs::path p(dir_or_db);
  if (p.extension() == ".db" && !fs::is_directory(p)) return p.string();
  return (p / "sweep.db").string();
}

namespace {

// The first column in which two rows of the same point differ (wall_s excluded), or "".
std::string first_difference(const PointRow& a, const PointRow& b, const std::vector<ColumnInfo>& params,
                             const std::vector<ColumnInfo>& metrics, std::string& va, std::string& vb) {
  auto differ = [&](const json& x, const json& y) {
    if (x == y) return false;
    va = x.dump(), vb = y.dump();
    return true;
  };
  if (differ(a.idx, b.idx)) return "idx";
  for (std::size_t i = 0; i < params.size(); ++i)
    if (differ(a.params[i], b.params[i])) return params[i].name;
  if (differ(a.status, b.status)) return "status";
  if (differ(a.exit_code, b.exit_code)) return "exit_code";
  for (std::size_t i = 0; i < metrics.size(); ++i)
    if (differ(a.metrics[i], b.metrics[i])) return metrics[i].name;
  if (differ(a.error, b.error)) return "error";
  return "";
}

}  // namespace

MergeSummary merge_sweeps(const std::string& out_dir, const std::vector<std::string>& inputs) {
  if (inputs.empty()) throw SweepInputError("merge needs at least one sweep DIR to read");
  MergeSummary sum;
  sum.inputs = inputs.size();
  sum.db_path = (fs::path(out_dir) / "sweep.db").string();
  if (fs::exists(sum.db_path))
    throw SweepInputError("\"" + sum.db_path + "\" already exists; merge into a new directory");

  std::vector<ColumnInfo> columns;
  std::map<std::string, std::string> meta;
  std::string first_input;
  struct Entry {
    PointRow row;
    std::string source;
  };
  std::map<std::string, Entry> by_id;
  json sources = json::array();
  std::set<std::string> builds;  // the shards' build records (JSON texts)
  for (auto& in : inputs) {
    std::string path = sweep_db_path(in);
    if (!fs::exists(path)) throw SweepInputError("\"" + in + "\" holds no sweep.db (is it a sweep output directory?)");
    Store s = [&] {
      try {
        return Store::open(path);
      } catch (const std::runtime_error& e) {
        throw SweepInputError(e.what());
      }
    }();
    auto m = s.meta();
    if (first_input.empty()) {
      first_input = in;
      columns = s.columns();
      meta = m;
    } else {
      if (m["spec"] != meta["spec"])
        throw SweepInputError("\"" + in + "\" holds a different sweep than \"" + first_input +
                              "\" (their specs differ); only shards of one sweep can be merged");
      if (!(s.columns() == columns))
        throw SweepInputError("\"" + in + "\" has other columns than \"" + first_input + "\"");
    }
    sources.push_back(fs::absolute(path).lexically_normal().string());
    builds.insert(m["build"]);
    auto params = s.parameters();
    auto metrics = s.metrics();
    for (auto& row : s.rows()) {
      auto it = by_id.find(row.id);
      if (it == by_id.end()) {
        by_id.emplace(row.id, Entry{row, in});
        continue;
      }
      ++sum.duplicates;
      PointRow& have = it->second.row;
      if (row.status == "pending") continue;
      if (have.status == "pending") {
        it->second = Entry{row, in};
        continue;
      }
      std::string va, vb;
      std::string col = first_difference(have, row, params, metrics, va, vb);
      if (!col.empty())
        throw SweepInputError("point " + row.id + " (idx " + std::to_string(row.idx) + ") differs between \"" +
                              it->second.source + "\" and \"" + in + "\": " + col + " is " + va + " and " + vb);
    }
  }

  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw std::runtime_error("cannot create \"" + out_dir + "\": " + ec.message());
  meta.erase("best");  // an input's own best; recomputed over the merged rows below
  meta["shard"] = "merged";
  // The build that made the rows: the shards' one, or, where shards came from different builds,
  // the list of them.
  if (builds.size() > 1) {
    json list = json::array();
    for (auto& b : builds) list.push_back(b.empty() ? json() : json::parse(b, nullptr, false));
    meta["build"] = list.dump();
  }
  meta["sources"] = sources.dump();
  meta["points_in_db"] = std::to_string(by_id.size());
  Store out = Store::create(sum.db_path, columns, meta);
  std::vector<const PointRow*> ordered;
  for (auto& [id, e] : by_id) ordered.push_back(&e.row);
  std::sort(ordered.begin(), ordered.end(), [](const PointRow* a, const PointRow* b) { return a->idx < b->idx; });
  out.begin();
  for (auto* r : ordered) {
    out.put(*r);
    ++sum.rows;
    if (r->status == "ok") ++sum.ok;
    else if (r->status == "failed") ++sum.failed;
    else if (r->status == "infeasible") ++sum.infeasible;
    else ++sum.pending;
  }
  out.commit();
  std::optional<BestSpec> best;
  try {
    best = parse_spec(json::parse(meta["spec"]), meta["spec_file"]).best;
  } catch (const std::exception&) {
    // The CLI reports a stored spec that does not parse when it draws the plots.
  }
  if (best) sum.best = record_best(out, *best);
  try {
    sum.points_total = std::stoul(meta["points_total"]);
  } catch (...) {
    sum.points_total = 0;
  }
  return sum;
}

}  // namespace trainvp::sweep
