#pragma once
// results.json, iterations.csv and the summary of a run of several jobs (/jobs): each job's
// iterations and throughput on its own, the fabric they shared once.
#include "platform/report/results.hpp"

namespace trainvp {

RunResults job_results(const Simulation& sim);

}  // namespace trainvp
