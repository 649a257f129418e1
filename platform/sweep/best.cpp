#include "platform/sweep/best.hpp"

#include <cstdio>

#include "platform/sweep/point_id.hpp"

namespace trainvp::sweep {

std::optional<BestPoint> find_best(const Store& store, const BestSpec& best) {
  const auto metrics = store.metrics();
  std::size_t col = metrics.size();
  for (std::size_t i = 0; i < metrics.size(); ++i)
    if (metrics[i].name == best.metric) col = i;
  if (col == metrics.size()) return std::nullopt;
  std::optional<BestPoint> out;
  for (auto& r : store.rows()) {  // idx order: a tie keeps the earlier point
    if (r.status != "ok" || !r.metrics[col].is_number()) continue;
    const double v = r.metrics[col].get<double>();
    if (out && !(best.maximize ? v > out->value : v < out->value)) continue;
    out = BestPoint{r, best.metric, best.maximize, v, metrics[col].unit, {}};
  }
  if (out) out->parameters = store.parameters();
  return out;
}

std::string record_best(Store& store, const BestSpec& best, const std::string& found_suffix) {
  if (auto b = find_best(store, best)) {
    store.set_meta("best", b->to_json().dump());
    return b->describe() + found_suffix;
  }
  return std::string("best (") + (best.maximize ? "highest " : "lowest ") + best.metric +
         "): none, no point finished ok with a value";
}

std::string BestPoint::describe() const {
  Assignment a;
  for (std::size_t i = 0; i < parameters.size() && i < row.params.size(); ++i)
    a.emplace_back(parameters[i].name, row.params[i]);
  char v[32];
  std::snprintf(v, sizeof v, "%.6g", value);
  return std::string("best (") + (maximize ? "highest " : "lowest ") + metric + "): point #" + std::to_string(row.idx) +
         " " + row.id + " (" + describe_assignment(a) + "): " + metric + " = " + v + (unit.empty() ? "" : " " + unit);
}

nlohmann::json BestPoint::to_json() const {
  nlohmann::json params = nlohmann::json::object();
  for (std::size_t i = 0; i < parameters.size() && i < row.params.size(); ++i)
    params[parameters[i].name] = row.params[i];
  return {{"id", row.id},   {"idx", row.idx},      {"metric", metric}, {"goal", maximize ? "max" : "min"},
          {"value", value}, {"parameters", params}};
}

}  // namespace trainvp::sweep
