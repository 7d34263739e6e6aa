#pragma once
/// The values templates/report.md.mustache is rendered with, made from a run's model.

#include <string>

#include "migrate/engine/model.hpp"
#include "migrate/sdk/emit.hpp"

namespace migrate::report {

/// What the report needs besides the model: its name and dates. The chart's link (`chart`, relative
/// to the report's directory) is set by the caller, which knows where each copy goes.
struct ReportContext {
  std::string file_name;     ///< CodeReview_Results_YYYY-MM-DD.md
  std::string review_date;   ///< YYYY-MM-DD (the run's date)
  std::string generated_at;  ///< YYYY-MM-DD HH:mm:ss with the UTC offset
  int max_items = 200;       ///< rows of a long list
};

/// Every value of the report template, Markdown-ready.
sdk::TemplateData reportData(const MigrationModel& model, const ReportContext& context);

}  // namespace migrate::report
