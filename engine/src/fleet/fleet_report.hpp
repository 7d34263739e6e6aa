#pragma once
/// `fleet report`: what blocks the most repositories of a night — the rules ranked by the
/// repositories they affect, the dependencies that are unsupported or need replacing, the effort
/// left per domain, and what solving each of the top ones would do to the repositories' verdicts
/// (fleet/what_if.hpp: the plan stage's own verdict model, judged again). The dashboard shows the
/// same tables.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fleet/fleet_store.hpp"
#include "migrate/engine/result.hpp"

namespace migrate::fleet {

struct ReportRule {
  std::string rule, title, domain, severity;  ///< severity: the highest over the repositories
  bool no_counterpart = false;                ///< its API has no NPU counterpart
  std::int64_t repos = 0;                     ///< repositories with a finding of it
  /// Of which with work left: findings the emit stage did not fix, of severity warning or error
  /// or with effort (an info finding only says what holds).
  std::int64_t repos_left = 0;
  std::int64_t remaining = 0;  ///< findings the emit stage did not fix
  double person_days = 0.0;    ///< effort left over those repositories
};

struct ReportDependency {
  std::string package, verdict, replacement;  ///< verdict: "unsupported" or "needs replacement"
  std::int64_t repos = 0;
  std::int64_t places = 0;
};

struct ReportDomain {
  std::string domain;
  std::int64_t repos = 0;      ///< repositories with work left in it
  std::int64_t remaining = 0;  ///< findings not fixed
  double person_days = 0.0;
};

/// What solving one rule or one dependency would do to the verdicts of the repositories it affects.
struct WhatIf {
  std::string kind;  ///< "rule" | "dependency"
  std::string name;
  std::int64_t repos = 0;     ///< repositories whose judged plan it is in
  std::int64_t improved = 0;  ///< of which the verdict would get better
  /// "needs adaptation → feasible" → repositories; only the verdicts that would change.
  std::map<std::string, std::int64_t> changes;
};

struct FleetReport {
  Night night;
  std::int64_t repos = 0;   ///< rows of the night
  std::int64_t judged = 0;  ///< of which with a plan to judge again
  std::vector<ReportRule> rules;
  std::vector<ReportDependency> dependencies;
  std::vector<ReportDomain> domains;
  std::vector<WhatIf> what_if;  ///< the top `top` rules, then the top `top` dependencies
};

/// The report of `night`; what-if for the first `top` rules and dependencies of the rankings.
Result<FleetReport> buildReport(const Store& store, const Night& night, std::size_t top = 10);
/// The same from the night's rows when the caller has them already (`runs`: store.runs(night.id)).
Result<FleetReport> buildReport(const Store& store, const Night& night, const std::vector<RepoRun>& runs,
                                std::size_t top = 10);

/// "needs adaptation → feasible: 3; hard → needs adaptation: 1", or "" when no verdict moves.
std::string whatIfText(const WhatIf& what_if);

/// The report as "md", "csv" (one row per item; a `section` column: rule, dependency, domain,
/// what-if) or "json" (docs/schemas/fleet-report.schema.json).
std::string formatReport(const FleetReport& report, const std::string& format);

}  // namespace migrate::fleet
