#pragma once
// The whole phase-matrix pass: steps 1 to 7 of README.md over one PlanContext.

#include "migrate/sdk/plan.hpp"

namespace phase_matrix {

/// The name the assessment is produced under (the plugin's name).
inline constexpr const char* kProducer = "phase_matrix";

/// Tags every finding with its phases, reports configuration problems as diagnostics and sets
/// the assessment. Never throws on odd input (empty graph, no entry points, unknown phases).
void planPhaseMatrix(migrate::sdk::PlanContext& context);

}  // namespace phase_matrix
