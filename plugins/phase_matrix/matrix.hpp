#pragma once
// Step 4 of the phase matrix: one row per dependency, with the phases that reach it.

#include <cstddef>
#include <string>
#include <vector>

#include "finding_phases.hpp"
#include "migrate/sdk/plan.hpp"

namespace phase_matrix {

/// The dependency a bottleneck's row is keyed by, from its first finding: the package, "kernel
/// <name>", "extension <name>", the API's library ("torch.cuda", "flash_attn"), else its title.
std::string dependencyKey(const migrate::sdk::Bottleneck& bottleneck,
                          const std::vector<migrate::sdk::Finding>& findings);

/// The library an API belongs to: the first two components under torch ("torch.cuda"), else the
/// first ("flash_attn").
std::string libraryOf(const std::string& api);

/// "P0" when `active` is not empty and `row_phases` holds all of it, "P1" when `row_phases` is
/// not empty, else "skip" (both ascending phase indices).
std::string priorityOf(const std::vector<std::size_t>& row_phases, const std::vector<std::size_t>& active);

/// The rows, sorted by priority (P0, P1, skip), effort (largest first), then dependency.
std::vector<migrate::sdk::MatrixRow> buildMatrix(const migrate::sdk::PlanContext& context,
                                                 const FindingPhases& finding_phases,
                                                 const std::vector<std::size_t>& active);

}  // namespace phase_matrix
