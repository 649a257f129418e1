#pragma once
// The SPEC's "best": among the points that finished ok, the one with the lowest (or highest)
// value of one metric; ties go to the lowest idx. The sweep prints it in its summary and keeps it
// in sweep.db's `sweep` table (key `best`); `merge` recomputes it over the merged rows.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platform/sweep/spec.hpp"
#include "platform/sweep/store.hpp"

namespace trainvp::sweep {

struct BestPoint {
  PointRow row;
  std::string metric;
  bool maximize = false;
  double value = 0;
  std::string unit;                    // the metric's unit ("" when unknown)
  std::vector<ColumnInfo> parameters;  // the row's parameter columns, for describe()

  // "best (lowest iteration_time_s): point #5 0a1b2c3d4e5f (/training/parallel/tp=2, ...):
  // iteration_time_s = 0.981 s"
  std::string describe() const;
  // {"id", "idx", "metric", "goal", "value", "parameters": {pointer: value}} for sweep.db.
  nlohmann::json to_json() const;
};

// nullopt when no ok point has a number in the metric's column.
std::optional<BestPoint> find_best(const Store& store, const BestSpec& best);

// The summary line of `best` over the store's rows (`found_suffix` appended when a point is
// found), which is also kept in the store's `best` meta; "...: none, ..." without one.
std::string record_best(Store& store, const BestSpec& best, const std::string& found_suffix = "");

}  // namespace trainvp::sweep
