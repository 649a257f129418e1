#pragma once
// What a run produced, in the forms written to DIR: results.json, iterations.csv, link_series.json,
// a summary.
#include <string>

#include <nlohmann/json.hpp>

#include "platform/system/simulation.hpp"

namespace trainvp {

struct RunResults {
  nlohmann::ordered_json json;  // results.json
  std::string csv;              // iterations.csv
  std::string train_csv;        // train.csv ("": no real training)
  std::string summary;          // the human summary printed on stdout
  std::string faults;           // faults.json: every fault injected, as a plain `faults` list ("": none)
  std::string link_series;      // link_series.json: each link's busy time over the run ("": none)
};

RunResults collect_results(const Simulation& sim);

}  // namespace trainvp
