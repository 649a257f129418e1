#include "platform/config/slo.hpp"

namespace trainvp {

const ParamSet<SloConfig>& slo_schema() {
  static const ParamSet<SloConfig> s = [] {
    ParamSet<SloConfig> p("slo", "/slo",
                          "The degraded-throughput report (results.json `degradation`, written when there are faults "
                          "or an `slo`): throughput below fraction x baseline counts as degraded.");
    p.number("fraction", &SloConfig::fraction, 0.9, "Fraction of the baseline throughput below which time is degraded",
             Range::unit_open_closed())
        .time("baseline", &SloConfig::baseline_ps, nullptr,
              "Healthy iteration time; default: the median iteration before the first fault starts", Range::positive());
    return p;
  }();
  return s;
}

json load_slo(SloConfig& slo, const json& value) {
  if (value.is_null()) return nullptr;
  json resolved = slo_schema().load(slo, value, "/slo");
  slo.given = true;
  return resolved;
}

}  // namespace trainvp
