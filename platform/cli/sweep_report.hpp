#pragma once
// `trainvp report DIR` for a sweep directory: the design, the best point, the SPEC's plots drawn
// from sweep.db, infeasible and failed points with what they needed, and a sortable table of every
// point. Here and not in platform/report/html because it reads sweep.db, and the sweep layer sits
// beside cli, above the report layer.
#include <string>

namespace trainvp {

// The page for DIR/sweep.db (or a .db file). Bad input is a ScenarioError.
std::string sweep_report_html(const std::string& db_path);

}  // namespace trainvp
