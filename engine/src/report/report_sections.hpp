#pragma once
/// The report's sections, each adding its values to the template data (one file per part of
/// the report; report_data.cpp calls them in order).

#include <string>
#include <vector>

#include "migrate/engine/model.hpp"
#include "migrate/sdk/emit.hpp"
#include "report/report_data.hpp"
#include "report/report_facts.hpp"

namespace migrate::report {

/// The model with what every section needs from it, computed once.
struct ReportInput {
  const MigrationModel& model;
  const ReportContext& context;
  std::vector<BottleneckState> states;
  AdaptationStatus status;
  std::string project;
  std::size_t max_items = 200;
  /// Why a stage's result is missing ("the plan stage did not run: ..."); empty when it completed.
  std::string missing(const std::string& stage) const;
  /// The check results of one verification stage.
  std::vector<const CheckResult*> checks(const std::string& stage) const;
};

void addSummary(const ReportInput& in, sdk::TemplateData& data);       ///< header and section 1
void addCodeAnalysis(const ReportInput& in, sdk::TemplateData& data);  ///< section 2
void addBottlenecks(const ReportInput& in, sdk::TemplateData& data);   ///< section 3
void addCodeList(const ReportInput& in, sdk::TemplateData& data);      ///< section 4
void addVerification(const ReportInput& in, sdk::TemplateData& data);  ///< section 5
void addGuide(const ReportInput& in, sdk::TemplateData& data);         ///< section 6
void addFollowUp(const ReportInput& in, sdk::TemplateData& data);      ///< section 7
void addAssessment(const ReportInput& in, sdk::TemplateData& data);    ///< section 8

}  // namespace migrate::report
