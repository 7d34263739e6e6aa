#pragma once
/// What `migrate-pipeline fleet status` and `fleet history` print: an aligned table for a
/// person, JSON or CSV (RFC 4180, CRLF line ends) for a program. Any text is accepted: invalid
/// UTF-8 in a reason is replaced in JSON and passed through in the table and CSV.

#include <filesystem>
#include <string>
#include <vector>

#include "fleet/fleet_store.hpp"

namespace migrate::fleet {

/// One night's rows in `format` ("table" | "json" | "csv"; anything else prints the table).
/// Output directories are printed absolute: `fleet_dir` / the row's output_dir.
std::string formatStatus(const Night& night, const std::vector<RepoRun>& runs, const std::string& format,
                         const std::filesystem::path& fleet_dir);

/// Every night with its counts, oldest first, in `format` ("table" | "json" | "csv").
std::string formatHistory(const std::vector<NightSummary>& nights, const std::string& format);

}  // namespace migrate::fleet
