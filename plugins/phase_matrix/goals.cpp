// Step 5: which bottlenecks a goal needs, how many of their places, and what that costs.

#include "goals.hpp"

#include <cmath>

#include <algorithm>

#include "migrate/sdk/verdict.hpp"

namespace phase_matrix {

using namespace migrate::sdk;

namespace {

/// Fills in the totals and the verdict of `result` from its members (in id order).
GoalResult summarise(GoalResult result, const std::vector<GoalMember>& members,
                     const EffortSettings& effort) {
  for (const GoalMember& m : members) {
    result.bottlenecks.push_back(m.bottleneck->id);
    result.findings += m.places;
    result.effort_days += m.effort();
  }
  result.effort_days = std::round(result.effort_days * 100.0) / 100.0;
  result.effort_weeks = effort.weeksFor(result.effort_days);
  Verdict verdict = judge(members, result.effort_weeks, effort);
  result.verdict = std::move(verdict.verdict);
  result.blockers = std::move(verdict.blockers);
  return result;
}

std::string declaredPhases(const std::vector<PhaseSpec>& phases) {
  std::string out;
  for (const PhaseSpec& p : phases) out += (out.empty() ? "" : ", ") + p.name;
  return out.empty() ? "none" : out;
}

}  // namespace

GoalResult goalResult(const PlanContext& context, const GoalSpec& goal, const FindingPhases& finding_phases,
                      std::vector<Diagnostic>& diagnostics) {
  const auto& phases = context.phases();
  std::vector<bool> wanted(phases.size(), false);
  for (const std::string& name : goal.phases) {
    bool known = false;
    for (std::size_t p = 0; p < phases.size(); ++p)
      if (phases[p].name == name) wanted[p] = known = true;
    if (!known)
      diagnostics.push_back({Severity::Warning, "plan-config", "", 0,
                             "goal '" + goal.name + "' names phase '" + name +
                                 "', which plan.phases does not declare (declared: " +
                                 declaredPhases(phases) + "); the phase is ignored"});
  }
  const auto& excluded = goal.exclude_domains;
  std::vector<GoalMember> members;
  const auto& bottlenecks = context.bottlenecks();
  for (std::size_t index : idOrder(bottlenecks)) {
    const Bottleneck& b = bottlenecks[index];
    if (std::find(excluded.begin(), excluded.end(), b.domain) != excluded.end()) continue;
    std::size_t places = 0;
    for (std::size_t f : b.findings) {
      if (f >= finding_phases.size()) continue;
      const auto& of_finding = finding_phases[f];
      if (std::any_of(of_finding.begin(), of_finding.end(),
                      [&](std::size_t p) { return p < wanted.size() && wanted[p]; }))
        ++places;
    }
    if (places > 0) members.push_back({&b, places});
  }
  return summarise({goal.name, goal.title, {}, 0, 0.0, 0.0, {}, {}}, members, context.effort());
}

GoalResult fullResult(const PlanContext& context) {
  std::vector<GoalMember> members;
  const auto& bottlenecks = context.bottlenecks();
  for (std::size_t index : idOrder(bottlenecks))
    members.push_back({&bottlenecks[index], bottlenecks[index].findings.size()});
  return summarise({"full", "Full migration", {}, 0, 0.0, 0.0, {}, {}}, members, context.effort());
}

}  // namespace phase_matrix
