#pragma once
// `trainvp sweep-export DIR --csv`: the points table as CSV (RFC 4180): a header with the
// column names as in sweep.db, rows by idx, numbers in shortest round-trip form, NULL empty,
// text quoted when it holds a comma, a quote, a line break or leading/trailing spaces.
#include <ostream>

#include "platform/sweep/store.hpp"

namespace trainvp::sweep {

void write_csv(const Store& store, std::ostream& out);

}  // namespace trainvp::sweep
