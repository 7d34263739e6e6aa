#pragma once
// Step 5 of the phase matrix: the minimum migration set of each goal, and of the full migration.

#include <vector>

#include "finding_phases.hpp"
#include "migrate/sdk/plan.hpp"

namespace phase_matrix {

/// The result of `goal`: the bottlenecks outside its excluded domains with at least one finding
/// in one of its phases, counting only those findings; its verdict. A phase name the pipeline
/// does not declare adds a "plan-config" diagnostic to `diagnostics` and is ignored.
migrate::sdk::GoalResult goalResult(const migrate::sdk::PlanContext& context,
                                    const migrate::sdk::GoalSpec& goal, const FindingPhases& finding_phases,
                                    std::vector<migrate::sdk::Diagnostic>& diagnostics);

/// The full migration ("full"): every bottleneck with all its findings, reached or not.
migrate::sdk::GoalResult fullResult(const migrate::sdk::PlanContext& context);

}  // namespace phase_matrix
