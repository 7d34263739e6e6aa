#pragma once
/// The report stage: CodeReview_Results_<date>.md (in the output directory and in the report
/// directory, by default the working directory), migration_chart.svg and findings.sarif.

#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "migrate/engine/model.hpp"
#include "migrate/engine/pipeline.hpp"
#include "migrate/engine/result.hpp"

namespace migrate {

/// What the report stage wrote, absolute paths.
struct ReportOutputs {
  std::filesystem::path report;  ///< in the output directory
  std::filesystem::path copy;  ///< in the report directory; empty when that is the output directory or unset
  std::filesystem::path chart;
  std::filesystem::path sarif;
};

/// Writes the report stage's outputs for `model` at time `now` (the report's date and
/// generation time, local time). Files written before a failure are kept and named in the error.
Result<ReportOutputs> writeReport(const MigrationModel& model, const PipelineSpec& spec,
                                  const std::filesystem::path& out, std::time_t now);

/// "CodeReview_Results_YYYY-MM-DD.md" for `now` in local time.
std::string reportFileName(std::time_t now);

}  // namespace migrate
