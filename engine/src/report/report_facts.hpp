#pragma once
/// What the report concludes from a run's model: the adaptation status by seed 000's rules, what
/// the emit stage did to each bottleneck, the report group of a bottleneck, effort per phase and
/// repair suggestions for failed checks. Pure functions of the model (docs/report.md).

#include <string>
#include <utility>
#include <vector>

#include "migrate/engine/model.hpp"

namespace migrate::report {

/// A bottleneck with what the emit stage did to its places.
struct BottleneckState {
  const sdk::Bottleneck* bottleneck = nullptr;
  std::size_t places = 0;
  std::size_t fixed = 0;  ///< places whose fix the emit stage applied
  std::string group;      ///< id of its report group
  bool adapted() const { return places > 0 && fixed == places; }
  std::size_t left() const { return places - fixed; }  ///< places still to do
};

/// "fully" | "partially" | "failed", with the reasons that decide it, one sentence each.
struct AdaptationStatus {
  std::string level;
  std::vector<std::string> reasons;
};

/// A group of seed 000's bottleneck analysis (engine/data/report_groups.yaml).
struct ReportGroup {
  std::string id;
  std::string title;
  std::vector<std::string> domains;
  std::vector<std::string> rules;
};

/// The groups in report order.
const std::vector<ReportGroup>& reportGroups();

/// The groups of a run's report: reportGroups(), then one per domain its rule packs declare
/// (id `pack:<domain>`, the domain's title).
std::vector<ReportGroup> reportGroups(const MigrationModel& model);

/// The group of a rule: the group listing the rule, else its domain, else the first group.
const std::string& groupOf(const std::string& rule_id, const std::string& domain);
/// The same among `groups`.
const std::string& groupOf(const std::vector<ReportGroup>& groups, const std::string& rule_id,
                           const std::string& domain);

/// One state per plan bottleneck, in the plan's order.
std::vector<BottleneckState> bottleneckStates(const MigrationModel& model);

/// Fully adapted: the emit stage ran, every bottleneck is adapted and the verification completed
/// with no failed, errored or skipped check (a disabled benchmark aside). Failed: a stage before
/// the report failed, nothing was adapted, or a verification check failed. Partially otherwise.
AdaptationStatus adaptationStatus(const MigrationModel& model, const std::vector<BottleneckState>& states);

/// Person-days per active phase of the assessment: for each bottleneck with k of its places
/// reached by the phase, effort_first + effort_each × (k − 1). Empty without an assessment.
std::vector<std::pair<std::string, double>> effortPerPhase(const MigrationModel& model);

/// The checks the verification skipped, a disabled benchmark aside: on a host without an NPU,
/// the NPU checks (a fully adapted status needs none).
std::vector<const CheckResult*> skippedChecks(const VerifyResult& verify);

/// The repair suggestion for a failed check (engine/data/verify_repairs.yaml).
std::string repairSuggestion(const std::string& stage, const std::string& check);

/// A row of the report's troubleshooting table (engine/data/verify_repairs.yaml).
struct TroubleshootingRow {
  std::string issue;
  std::string cause;
  std::string solution;
};
const std::vector<TroubleshootingRow>& troubleshooting();

}  // namespace migrate::report
