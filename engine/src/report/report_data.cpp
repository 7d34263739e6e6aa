#include "report/report_data.hpp"

#include "emit/emitter.hpp"
#include "report/report_sections.hpp"

namespace migrate::report {

std::string ReportInput::missing(const std::string& stage) const {
  for (const StageRecord& s : model.stages)
    if (s.name == stage) {
      if (s.status == "completed") return "";
      if (s.status == "failed") return "the " + stage + " stage failed: " + s.detail;
      return "the " + stage + " stage did not run: " + s.detail;
    }
  return "the " + stage + " stage did not run (the run stopped before it)";
}

std::vector<const CheckResult*> ReportInput::checks(const std::string& stage) const {
  std::vector<const CheckResult*> out;
  for (const CheckResult& c : model.verify.checks)
    if (c.stage == stage) out.push_back(&c);
  return out;
}

sdk::TemplateData reportData(const MigrationModel& model, const ReportContext& context) {
  ReportInput in{model, context, bottleneckStates(model),
                 {},    {},      static_cast<std::size_t>(context.max_items)};
  in.status = adaptationStatus(model, in.states);
  in.project = model.emit.project.empty() ? projectNameOf(model.source) : model.emit.project;
  if (in.project.empty()) in.project = "the project";
  sdk::TemplateData data;
  addSummary(in, data);
  addCodeAnalysis(in, data);
  addBottlenecks(in, data);
  addCodeList(in, data);
  addVerification(in, data);
  addGuide(in, data);
  addFollowUp(in, data);
  addAssessment(in, data);
  return data;
}

}  // namespace migrate::report
