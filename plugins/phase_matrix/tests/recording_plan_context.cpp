// The recording fake of PlanContext.

#include "recording_plan_context.hpp"

#include <sstream>

namespace phase_matrix::test {

using namespace migrate::sdk;

namespace {

std::string list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const std::string& item : items) out += (out.size() > 1 ? "|" : "") + item;
  return out + "]";
}

void dumpResult(std::ostringstream& out, const GoalResult& r) {
  out << "goal " << r.name << " '" << r.title << "' " << list(r.bottlenecks) << " findings=" << r.findings
      << " days=" << r.effort_days << " weeks=" << r.effort_weeks << " verdict=" << r.verdict << " "
      << list(r.blockers) << "\n";
}

}  // namespace

RecordingPlanContext::RecordingPlanContext(PlanInput input)
    : input_(std::move(input)), phases_(input_.findings.size()), phase_calls_(input_.findings.size(), 0) {}

void RecordingPlanContext::setFindingPhases(std::size_t index, std::vector<std::string> phases) {
  if (index >= phases_.size()) {
    ++out_of_range_calls_;
    return;
  }
  phases_[index] = std::move(phases);
  ++phase_calls_[index];
}

void RecordingPlanContext::setAssessment(Assessment assessment) {
  assessment_ = std::move(assessment);
  ++assessment_calls_;
}

void RecordingPlanContext::diagnose(Diagnostic diagnostic) {
  diagnostics_.push_back(std::move(diagnostic));
}

const std::optional<std::vector<std::string>>& RecordingPlanContext::phasesOf(std::size_t index) const {
  static const std::optional<std::vector<std::string>> kNever;
  return index < phases_.size() ? phases_[index] : kNever;
}

std::size_t RecordingPlanContext::phaseCalls(std::size_t index) const {
  return index < phase_calls_.size() ? phase_calls_[index] : 0;
}

std::string RecordingPlanContext::dump() const {
  std::ostringstream out;
  out.precision(17);
  for (std::size_t i = 0; i < phases_.size(); ++i)
    out << "finding " << i << " " << (phases_[i] ? list(*phases_[i]) : "unset") << "\n";
  for (const Diagnostic& d : diagnostics_)
    out << "diagnostic " << toString(d.severity) << " " << d.code << " " << d.file << ":" << d.line << " "
        << d.message << "\n";
  if (!assessment_) return out.str() + "no assessment\n";
  const Assessment& a = *assessment_;
  out << "producer " << a.producer << "\nactive " << list(a.active_phases) << "\nchosen " << a.chosen_goal
      << "\nunreached " << list(a.unreached_files) << "\nnotes " << list(a.notes) << "\n";
  for (const MatrixRow& row : a.matrix)
    out << "row " << row.dependency << " " << row.domain << " " << list(row.phases) << " " << row.priority
        << " " << row.replacement << " " << list(row.bottlenecks) << " " << row.effort_days << "\n";
  dumpResult(out, a.full);
  for (const GoalResult& g : a.goals) dumpResult(out, g);
  return out.str();
}

}  // namespace phase_matrix::test
