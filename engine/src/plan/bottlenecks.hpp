#pragma once
/// The bottleneck list: one entry per distinct migration problem, with concrete steps, person-
/// days from the effort model, and an impact scope from the import graph.

#include <map>
#include <string>
#include <vector>

#include "migrate/engine/pipeline.hpp"
#include "migrate/engine/plan.hpp"
#include "migrate/sdk/finding.hpp"

namespace migrate {

/// Groups the warning and error findings (info findings are no problem to solve) by rule, NPU
/// alternative and `details.group`; numbers the groups #001... by scope (global, module, local),
/// then difficulty (high first), effort (largest first), rule id and first place.
/// `titles`: rule id → rule title.
std::vector<sdk::Bottleneck> buildBottlenecks(const std::vector<sdk::Finding>& findings,
                                              const std::map<std::string, std::string>& titles,
                                              const std::vector<sdk::ModuleNode>& graph,
                                              const std::vector<sdk::EntryPoint>& entry_points,
                                              const PlanSpec& spec);

/// Person-days (first place, each further place) of a rule's places under the effort model:
/// the pipeline's per-rule rate, else the rule's own effort (`max_finding_effort`) or the
/// difficulty's `first`, with the difficulty's `each` capped at `first`.
EffortRate effortRate(const PlanSpec& spec, const std::string& rule_id, sdk::Level difficulty,
                      double max_finding_effort);

}  // namespace migrate
