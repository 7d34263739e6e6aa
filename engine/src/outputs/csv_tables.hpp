#pragma once
/// The run's findings as CSV tables for spreadsheets and BI tools (RFC 4180, UTF-8, a header
/// row; docs/findings.md#csv-tables), written beside findings.json whenever it is:
///   findings.csv      one row per finding
///   dependencies.csv  the dependency matrix: every finding or row with a `verdict` detail
///   unsupported_apis.csv  the APIs with no NPU counterpart and where they are used: the findings
///                     of the rules that say `no_npu_counterpart: true`
/// The emit stage writes change_list.csv (every change it made) itself.

#include <filesystem>

#include "migrate/engine/model.hpp"
#include "migrate/engine/result.hpp"

namespace migrate::outputs {

Status writeCsvTables(const MigrationModel& model, const std::filesystem::path& out);

}  // namespace migrate::outputs
