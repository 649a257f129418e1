#pragma once
// The build record: which build of trainvp made a result. `trainvp version --json` prints it,
// every results.json carries it as /build and every sweep.db as its `build` metadata, so a
// result can be traced to its build. It changes with every commit, so golden comparisons ignore
// /build (tests/golden_compare/compare.cpp).
#include <nlohmann/json.hpp>

namespace trainvp {

// {version, git_revision, build_type, systemc, verilator, rtl_lanes}: verilator is "" and
// rtl_lanes [] in a build without the RTL (-DTRAINVP_RTL=OFF).
nlohmann::ordered_json build_record();

}  // namespace trainvp
