// SPDX-License-Identifier: Apache-2.0
#pragma once
// --csv FILE for compare and sweep: one row a run, for spreadsheets and pandas. The columns are the
// runs' scalar result fields, nested objects flattened with dots (params.baud, sweep.set.hog_us):
// scenario, variant, profile and payload first, then the sweep's point, then the rest by name (every
// field any run has); lists (per_core, csd_reports, ...) are left out: they have no single cell.
// RFC 4180 quoting, CRLF line ends.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace uartvp::program {

std::string csv_of(const std::vector<nlohmann::json>& runs);

// Checks --csv's path (a usage_error naming the problem) and writes `runs` under a temporary name,
// put in place by outputs::commit(). Nothing for an empty path.
void check_csv_path(const std::string& path);
void write_csv(const std::string& path, const std::vector<nlohmann::json>& runs);

} // namespace uartvp::program
